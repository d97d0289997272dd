#!/usr/bin/env bash
# The whole test suite again under AddressSanitizer and UndefinedBehaviorSanitizer (CMakePresets.json,
# docs/reliability.md), in a Debug -O1 build of its own (build-asan/). The tests run in a process per core
# (scripts/run-test-shards.sh), not ctest's process per test: ASan's start-up made that most of the run.
# The options are the asan-ubsan test preset's; a report makes the process exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset asan-ubsan >/dev/null
cmake --build --preset asan-ubsan
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
scripts/run-test-shards.sh build-asan/spatialsim_tests
