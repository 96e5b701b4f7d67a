#!/usr/bin/env bash
# One call's worth of checks on a lent GPU machine (the `device` tool), in priority
# order, each bounded, logs packed into $OUT/logs.tgz after every step.
#
# Prepare here (the machine has no Rust and no network):
#   echo /.dev/ >> .git/info/exclude; mkdir -p .dev
#   cargo build --release && strip -o .dev/visa-emu target/release/visa-emu
#   cp tools/device_check.sh .dev/
#   (Vulkan loader debs into .gl/ as /work/.library/device/README.md says)
# Run there:  DEADLINE=500 bash .dev/device_check.sh   (carry: .dev, .gl)
#
# A kernel that hangs now ends in "the GPU did not finish within N s" (VISA_GPU_TIMEOUT):
# a PASS line's "pipeline" is compile time, so a hang and a slow compile tell apart.
set -u
START=$(date +%s)
left() { echo $(( ${DEADLINE:-500} - ($(date +%s) - START) )); }
L=/tmp/logs; mkdir -p "$L"
step() { # name cap cmd...
  local name=$1 cap=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 20 ]; then echo "SKIP $name (no time)" | tee -a "$OUT/summary.txt"; return; fi
  [ "$cap" -gt "$l" ] && cap=$l
  local t0; t0=$(date +%s)
  timeout "$cap" "$@" > "$L/$name.txt" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s :: $(tail -n 1 "$L/$name.txt")" | tee -a "$OUT/summary.txt"
  tar czf "$OUT/logs.tgz" -C "$L" .
}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p "$XDG_RUNTIME_DIR"
export VISA_GPU_TIMEOUT=${VISA_GPU_TIMEOUT:-20}
B=.dev/visa-emu
{ nvidia-smi -L; nproc; uname -r; } > "$L/env.txt" 2>&1
step adapters 20 $B adapters
grep -q 'GPU path: usable' "$L/adapters.txt" || { cat "$L/env.txt" "$L/adapters.txt"; exit 3; }
# 1. What failed on NVIDIA at stop 34: pipelines the driver refused (wgpu: device lost)
# for large private GRF arrays; these now run with the GRF in `state` there
# (translate::PRIVATE_GRF_WORDS_MAX). Unconfirmed on the device but for long_arith.
one() { # name cap variant args...
  local name=$1 cap=$2; shift 2
  VISA_GPU_LOG=1 step "$name" "$cap" $B conformance "$@" --backend vulkan
}
one grf_twins 200 tests/cases/atomic_64bit_local/pvc-simd32 tests/cases/dpas_pvc/pvc-simd16 \
  tests/cases/indirect_calls/acm-g10-simd8 tests/cases/indirect_calls/tgllp-simd8 \
  tests/cases/image_rw/acm-g10-simd32 tests/cases/printf_formats/tgllp-simd32 \
  tests/corpus/long_arith/tgllp-simd32 tests/corpus/long_arith/acm-g10-simd32
# 2. The whole corpus and the own cases, natively, then with the fallbacks.
step conf_native 180 $B conformance tests/corpus tests/cases --backend vulkan --known tests/known_disagreements.txt
# 3. The benches (benches/README.md), the SLM and barrier workloads included.
step bench 90 $B bench --backend vulkan --runs 5 --no-pocl --json "$L/bench.json" \
  tests/corpus/saxpy/tgllp-simd16 tests/corpus/mandelbrot/tgllp-simd16 tests/corpus/atomic_histogram/tgllp-simd32 \
  tests/corpus/dot_product_reduce/tgllp-simd32 tests/corpus/matmul_tiled16/tgllp-simd16 \
  tests/corpus/slm_prefix_scan/acm-g10-simd32 tests/cases/stencil3x3/tgllp-simd32
# SLM moved into the heap (what runs where a group's SLM is over the workgroup memory):
# on a parallel GPU the storage barriers must order it.
VISA_GPU_EMULATE=slm step slm_heap 60 $B conformance tests/corpus/slm_reduce tests/corpus/dot_product_reduce \
  tests/corpus/matmul_tiled16 tests/corpus/slm_prefix_scan tests/corpus/slm_transpose_tile \
  tests/corpus/local_arg_pointer tests/cases/atomic_64bit_local --backend vulkan
step conf_nosubgroups 120 $B conformance tests/corpus --backend vulkan --no-subgroups --known tests/known_disagreements.txt
step conf_emulated 120 $B conformance tests/corpus --backend vulkan --no-f64 --no-int64 --no-f16 --known tests/known_disagreements.txt
echo "total $(( $(date +%s) - START ))s" >> "$OUT/summary.txt"
