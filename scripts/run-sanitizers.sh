#!/usr/bin/env bash
# The whole test suite again under AddressSanitizer and UndefinedBehaviorSanitizer (CMakePresets.json,
# docs/reliability.md), in a Debug -O1 build of its own (build-asan/). The tests run in a process per core
# (scripts/run-test-shards.sh), not ctest's process per test: ASan's start-up made that most of the run.
# The sanitizer options are the asan-ubsan test preset's, read from CMakePresets.json so that the two ways
# of running the suite cannot drift apart; a report makes the process exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan
mapfile -t preset_environment < <(python3 -c '
import json
[preset] = [p for p in json.load(open("CMakePresets.json"))["testPresets"] if p["name"] == "asan-ubsan"]
for name, value in preset["environment"].items():
    print(f"{name}={value}")')
if [ "${#preset_environment[@]}" -eq 0 ]; then
  echo "run-sanitizers.sh: no environment in CMakePresets.json's asan-ubsan test preset" >&2
  exit 1
fi
env "${preset_environment[@]}" scripts/run-test-shards.sh build-asan/spatialsim_tests
