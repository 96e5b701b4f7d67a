#!/usr/bin/env bash
# One call's worth of checks on a lent GPU machine (the `device` tool), in priority
# order, each bounded, logs packed into $OUT/logs.tgz after every step.
#
# Prepare here (the machine has no Rust and no network):
#   echo /.dev/ >> .git/info/exclude; mkdir -p .dev
#   cargo build --release && strip -o .dev/visa-emu target/release/visa-emu
#   cp tools/device_check.sh .dev/
#   (Vulkan loader debs into .gl/ as /work/.library/device/README.md says)
# Run there:  DEADLINE=470 bash .dev/device_check.sh   (carry: .dev, .gl)
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
# 1. Stop 37's F32 speculation, its number still to be taken: mandelbrot x64 took 0.25
# GPU ms with the f64 fallbacks in the loop, 0.04 expected without them; `run` says when
# a kernel met a denormal and ran again in the exact forms.
step mb_speculation 30 $B run tests/corpus/mandelbrot/tgllp-simd16 --backend vulkan
step bench_mb64 40 $B bench --backend vulkan --runs 7 --no-pocl --scale 64 --set dx=0.0000375 tests/corpus/mandelbrot/tgllp-simd16
# 2. The benches (benches/README.md) at corpus sizes, then the two workloads furthest
# from their hand WGSL on lavapipe (histogram, dot) at 16 times their size.
step bench 90 $B bench --backend vulkan --runs 5 --no-pocl --json "$L/bench.json" \
  tests/corpus/saxpy/tgllp-simd16 tests/corpus/mandelbrot/tgllp-simd16 tests/corpus/atomic_histogram/tgllp-simd32 \
  tests/corpus/dot_product_reduce/tgllp-simd32 tests/corpus/matmul_tiled16/tgllp-simd16 \
  tests/corpus/slm_prefix_scan/acm-g10-simd32 tests/cases/stencil3x3/tgllp-simd32
step bench_x16 60 $B bench --backend vulkan --runs 7 --no-pocl --scale 16 \
  tests/corpus/atomic_histogram/tgllp-simd32 tests/corpus/dot_product_reduce/tgllp-simd32
# 3. atomic_64bit_local/pvc-simd32 (GRF in `state`) hung at stop 37 with two threads per
# group and ran with one. One group of two threads with a low step limit: "atomic retried
# past its bound" points at the SLM lock, a step-limit stop at a vISA loop.
VISA_GPU_LOG=1 VISA_GPU_TIMEOUT=30 step a64_one_group 45 $B run tests/cases/atomic_64bit_local/pvc-simd32 --backend vulkan --global 64 --local 64 --step-limit 3000
# 3b. math_trig failed on the H200 at stop 40 (sinh(+inf) = 0, expected inf: element 11
# of o_sinh; lavapipe passes, with NVIDIA's float behaviours simulated too). Every
# output and the module, to compare offline with the interpreter's (`run --backend cpu
# --out-dir`) and bisect with VISA_WGSL_OVERRIDE. WGSL lets an implementation assume
# no infinities or NaNs: the suspect is a compare or select on an infinite value.
VISA_WGSL_DUMP="$L/trig.wgsl" step trig 60 $B run tests/cases/math_trig/tgllp-simd16 --backend vulkan --out-dir "$L/trig"
# 4. The whole corpus and the own cases natively: stops 38-39 added non-uniform
# work-groups (pieces), SLM collectives, generic pointers, C11 atomics, async copies.
step conf_native 200 $B conformance tests/corpus tests/cases --backend vulkan --known tests/known_disagreements.txt
step conf_nosubgroups 100 $B conformance tests/corpus --backend vulkan --no-subgroups --known tests/known_disagreements.txt
echo "total $(( $(date +%s) - START ))s" >> "$OUT/summary.txt"
