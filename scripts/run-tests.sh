#!/usr/bin/env bash
# The whole test suite: install what is missing, build everything in Release, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j 2

# The suite again with other OpenBLAS kernels than the ones it picks for this CPU. Kernel families round
# fp32/fp64 products otherwise, and no test may depend on this machine's choice: two did, and failed
# only on machines whose OpenBLAS picked other kernels (docs/reliability.md, "Other BLAS kernels").
# Prescott's kernels run on any x86-64 CPU; Haswell's need AVX2 and FMA.
if [ "$(uname -m)" = x86_64 ]; then
  kernels=(Prescott)
  if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then kernels+=(Haswell); fi
  for kernel in "${kernels[@]}"; do
    echo "# the suite again with OPENBLAS_CORETYPE=$kernel"
    OPENBLAS_CORETYPE=$kernel ctest --test-dir build --output-on-failure -j 2
  done
fi
