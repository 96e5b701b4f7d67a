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
# 1. Stop 46's integer -> F/DF conversions in the directed modes (`int_round_bits`:
# NVVM refused all 13 modules of the f64-stepping form, "NVVM compilation failed: 3"),
# confirmed there on these variants with stop 46's binary; stop 45's float atomics and
# stop 44's hidden literal infinities (math_trig), confirmed at stop 46. If one fails:
# the modules as compiled go to $OUT/pipelines.tgz (bisect them with `visa-emu compile`),
# and math_trig's block records to $OUT/trig_visits.bin (compare with lavapipe's under
# VISA_GPU_EMULATE=ftz,f64div,products,grf).
mkdir -p "$L/pipelines"
VISA_GPU_PIPELINE_DIR="$L/pipelines" step fixed 200 $B conformance tests/corpus/int_arith_wrap/acm-g10-simd32 \
  tests/corpus/int_arith_wrap/acm-g10-simd8 tests/corpus/local_arg_pointer/acm-g10-simd32 \
  tests/corpus/convert_sat_rounding tests/cases/convert_modes/tgllp-simd32 \
  tests/cases/convert_modes_double/skl-simd32 tests/cases/math_trig tests/cases/float_atomics \
  tests/cases/atomic_64bit_carry --backend vulkan --known tests/known_disagreements.txt
grep -E "^(FAIL|PASS)" "$L/fixed.txt" | cut -c1-160 | tee -a "$OUT/summary.txt"
grep -q "^FAIL" "$L/fixed.txt" && tar czf "$OUT/pipelines.tgz" -C "$L" pipelines
grep -q "^FAIL math_trig" "$L/fixed.txt" && VISA_GPU_VISITS=$OUT/trig_visits.bin step trig 60 $B run tests/cases/math_trig/tgllp-simd16 --backend vulkan --out-dir "$L/trig"
rm -rf "$L/pipelines"
# 2. The whole corpus and the own cases natively (stop 44 ran out at 300 s with 16
# workers: the pvc threads-mapping modules take 150-210 s of NVIDIA's compiler).
step conf_native 300 $B conformance tests/corpus tests/cases --backend vulkan --known tests/known_disagreements.txt
grep -E "^(FAIL|ERROR)" "$L/conf_native.txt" | head -20 | tee -a "$OUT/summary.txt"
# 3. The benches at corpus sizes.
step bench 80 $B bench --backend vulkan --runs 5 --no-pocl --json "$L/bench.json" \
  tests/corpus/saxpy/tgllp-simd16 tests/corpus/mandelbrot/tgllp-simd16 tests/corpus/atomic_histogram/tgllp-simd32 \
  tests/corpus/dot_product_reduce/tgllp-simd32 tests/corpus/matmul_tiled16/tgllp-simd16 \
  tests/corpus/slm_prefix_scan/acm-g10-simd32 tests/cases/stencil3x3/tgllp-simd32
step conf_nosubgroups 100 $B conformance tests/corpus --backend vulkan --no-subgroups --known tests/known_disagreements.txt
echo "total $(( $(date +%s) - START ))s" >> "$OUT/summary.txt"
