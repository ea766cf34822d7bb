# Sourced after unpack_kit.sh by the GPU machine's scripts that run build steps from the kit (replay_full_protocol.sh,
# check_in_on_gpu.sh): the full validation protocol (the GPU, the kit's lavapipe beside it, the kit's Khronos layer),
# and the source tree the kit's specs were configured in pointed at this one, where their generated/ folders are.
export VK_DRIVER_FILES=$nvidia_icd:$kit/icd.d/lvp_icd.json VK_ICD_FILENAMES=$nvidia_icd:$kit/icd.d/lvp_icd.json
export VK_LAYER_PATH=$kit/explicit_layer.d
source_dir=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['generated_dir'].rsplit('/generated/', 1)[0])" \
  "$(ls "$kit"/kernelgen/*/spec.json | head -1)")
if [[ $source_dir != "$PWD" ]]; then mkdir -p "$(dirname "$source_dir")" && ln -sfn "$PWD" "$source_dir"; fi
