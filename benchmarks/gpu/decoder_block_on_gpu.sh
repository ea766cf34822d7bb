#!/usr/bin/env bash
# The decoder block example (examples/decoder_block) on a GPU machine beside PyTorch: checks a decode step at the
# tiny configuration, and a prefill and a decode step at Llama's, against the CPU reference, then, $ROUNDS times in
# turn (default 2), times a prefill of 512 tokens and a decode step of 1 token after 4096 with `decoder_block
# bench` (GPU timestamps per dispatch, host time per call) and with benchmarks/gpu/decoder_block_torch.py (eager
# and torch.compile, f16, the same weights file). The JSON of every run goes to <out>.
# Usage: benchmarks/gpu/decoder_block_on_gpu.sh <decoder_block executable> <out dir>  (Vulkan set up beforehand)
set -euo pipefail
block=${1:?usage: $0 <decoder_block executable> <out dir>}
out=${2:?usage: $0 <decoder_block executable> <out dir>}
mkdir -p "$out"
weights=$out/llama.safetensors
here=$(dirname "$0")
"$block" check --config tiny --past 300 --tokens 1 --seed 6 --weights "$out/tiny.safetensors" | tail -1
"$block" check --config llama --tokens 64 --seed 7 --weights "$out/llama_check.safetensors" | tail -1
"$block" check --config llama --past 300 --tokens 1 --seed 6 --weights "$out/llama_check.safetensors" | tail -1
python3 -c "import torch; print('torch', torch.__version__)"
for round in $(seq 1 "${ROUNDS:-2}"); do
  echo "==== round $round: prefill 512"
  "$block" bench --config llama --tokens 512 --seed 1 --weights "$weights" --iterations 30 \
    --json "$out/kernelgen_prefill_$round.json"
  python3 "$here/decoder_block_torch.py" --weights "$weights" --tokens 512 | tee "$out/torch_prefill_$round.json"
  echo "==== round $round: decode 1 after 4096"
  "$block" bench --config llama --past 4096 --tokens 1 --seed 1 --weights "$weights" --iterations 50 \
    --json "$out/kernelgen_decode_$round.json"
  python3 "$here/decoder_block_torch.py" --weights "$weights" --past 4096 --tokens 1 | tee "$out/torch_decode_$round.json"
done
rm -f "$weights" "$out/llama_check.safetensors"
