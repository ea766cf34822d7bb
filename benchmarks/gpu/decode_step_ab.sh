#!/usr/bin/env bash
# Builds of examples/decoder_block's executable side by side on a GPU machine: the decode step of 1 token after 4096
# at the llama configuration (`decoder_block bench`, GPU timestamps per dispatch, medians of 50), each build in turn,
# then PyTorch's eager and torch.compile step on the same weights (benchmarks/gpu/decoder_block_torch.py), $ROUNDS
# times (default 3), with the copy bandwidth before and after. The last build is first checked against the CPU
# reference at tiny, mini and llama (300 positions; 1 and 3 tokens).
# Usage: benchmarks/gpu/decode_step_ab.sh <decoder_block> [<decoder_block> ...] <out dir>  (Vulkan set up
# beforehand, as the device machine's recipe says); the builds are named 1, 2, ... in the output, in their order.
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 <decoder_block> [<decoder_block> ...] <out dir>" >&2; exit 2; }
builds=("${@:1:$#-1}")
out=${!#}
after=${builds[-1]}
mkdir -p "$out"
here=$(dirname "$0")
weights=$out/llama.safetensors
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 "$here/copy_bandwidth.py" | tail -1
"$after" check --config tiny --past 300 --tokens 1 --seed 6 --weights "$out/tiny.safetensors" | tail -1
"$after" check --config mini --past 300 --tokens 1 --seed 8 --weights "$out/mini.safetensors" | tail -1
"$after" check --config llama --past 300 --tokens 1 --seed 6 --weights "$out/llama_check.safetensors" | tail -1
"$after" check --config llama --past 300 --tokens 3 --seed 6 --weights "$out/llama_check.safetensors" | tail -1
for round in $(seq 1 "${ROUNDS:-3}"); do
  echo "==== round $round"
  for i in "${!builds[@]}"; do
    which=$((i + 1))
    "${builds[$i]}" bench --config llama --past 4096 --tokens 1 --seed 1 --weights "$weights" --iterations 50 \
      --json "$out/${which}_$round.json" > "$out/${which}_$round.txt"
    echo "$which: $(grep -E ' us' "$out/${which}_$round.txt" | tr -s ' ' | tr '\n' ';')"
  done
  python3 "$here/decoder_block_torch.py" --weights "$weights" --past 4096 --tokens 1 | tee "$out/torch_$round.json"
done
python3 "$here/copy_bandwidth.py" | tail -1
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv,noheader
rm -f "$weights" "$out/llama_check.safetensors"
