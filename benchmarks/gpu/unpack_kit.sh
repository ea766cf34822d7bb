# Sourced by the GPU machine's scripts (benchmarks/gpu/*_on_gpu.sh, results_on_two_gpus.sh, replay_full_protocol.sh,
# sweep_matmul_f16.sh): unpacks the kit named by its argument (from pack_kit.sh or pack_bench_kit.sh) into a fresh
# folder and sets
#   kit               the kit's folder;
#   LD_LIBRARY_PATH   its libraries first;
#   nvidia_icd        the NVIDIA driver's Vulkan manifest, in whichever of three folders the driver's packaging put
#                     it (empty where there is none; the caller points VK_DRIVER_FILES at what it needs).
# Usage: source "$(dirname "$0")/unpack_kit.sh" <kit.tar.xz>
kit_folder=$(mktemp -d)
tar -C "$kit_folder" -xJf "${1:?usage: source unpack_kit.sh <kit.tar.xz>}"
kit=$kit_folder/kit
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia_icd=$(ls /usr/share/vulkan/icd.d/nvidia_icd*.json /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd*.json \
  /etc/vulkan/icd.d/nvidia_icd*.json 2>/dev/null | head -1 || true)
