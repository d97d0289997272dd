#!/usr/bin/env bash
# The whole test suite: install what is missing, build everything in Release, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build

# The suite again with other OpenBLAS kernels. Kernel families round fp32/fp64 products otherwise, and no
# test may depend on the kernels one machine runs: two did, and failed only on machines whose OpenBLAS
# picked others (docs/reliability.md, "Other BLAS kernels"). The runs: OpenBLAS's own choice for this CPU
# when the environment overrides it (OPENBLAS_CORETYPE), Prescott's (runs on any x86-64 CPU) and, on a CPU
# with AVX2 and FMA, Haswell's; each kernel set once. The first run is ctest's, a process per test; the
# others run the test binary in a process per core (scripts/run-test-shards.sh): much faster, and a test
# that leans on what an earlier test in its process left behind fails there.
# kernels_with ENV-ARGS...: the kernel set OpenBLAS runs with under `env ENV-ARGS...` (the word before
# MAX_THREADS in its configuration, as `spatialsim version` prints it), or nothing if that cannot be read.
kernels_with() {
  env "$@" build/spatialsim version | awk '/^blas/ {for (i = 2; i <= NF; i++) if ($i ~ /^MAX_THREADS=/) print $(i - 1)}'
}
first_kernels=$(kernels_with)
echo "# the suite with OpenBLAS's ${first_kernels:-unnamed} kernels"
ctest --test-dir build --output-on-failure -j 2
if [ "$(uname -m)" = x86_64 ]; then
  ran=" $first_kernels "
  runs=("-u OPENBLAS_CORETYPE" "OPENBLAS_CORETYPE=Prescott")
  if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then runs+=("OPENBLAS_CORETYPE=Haswell"); fi
  for run in "${runs[@]}"; do
    read -ra setting <<<"$run"
    kernels=$(kernels_with "${setting[@]}")
    if [ -n "$kernels" ] && [[ "$ran" == *" $kernels "* ]]; then continue; fi
    echo "# the suite again with env $run (OpenBLAS's ${kernels:-unnamed} kernels)"
    env "${setting[@]}" scripts/run-test-shards.sh build/spatialsim_tests
    ran+="$kernels "
  done
fi
