#!/usr/bin/env bash
# The main job: install what is missing, build in Release, run the default simulation (the embedded
# configs/default.ini), print the results table and write spatialsim.h5. Extra arguments go to `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target spatialsim
build/spatialsim run "$@"
