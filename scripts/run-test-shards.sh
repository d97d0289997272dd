#!/usr/bin/env bash
# Runs every test of a GoogleTest binary in as many processes as the machine has cores, each running its
# share (GoogleTest's sharding: GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX), and fails if any process fails.
# ctest starts a process per test, and where start-up is dear that is most of a run: under ASan, and in
# the suite's reruns with other BLAS kernels (docs/reliability.md, "Running the sanitizer suite"). A run
# in a few processes also catches what ctest cannot: a test that depends on state an earlier test left
# behind.
# The environment passes through (ASAN_OPTIONS, OPENBLAS_CORETYPE, ...); the binary runs in its own
# directory, as under ctest. A passing process prints its summary, a failing one its whole log.
# Usage: scripts/run-test-shards.sh TEST-BINARY [GTEST-OPTION...]
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "run-test-shards.sh: give a built GoogleTest binary as the first argument (got '${1:-}')" >&2
  exit 2
fi
binary=$(realpath "$1")
shift
shards=$(nproc)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd "$(dirname "$binary")"

pids=()
for ((shard = 0; shard < shards; shard++)); do
  # A script's background commands ignore SIGINT and SIGQUIT; the tests (and the spatialsim processes they
  # start) must see them as a foreground process does, and stop on Ctrl-C.
  (
    trap - INT QUIT
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard exec "$binary" --gtest_color=no "$@"
  ) >"$logs/$shard" 2>&1 &
  pids+=($!)
done
failed=0
for ((shard = 0; shard < shards; shard++)); do
  if wait "${pids[$shard]}"; then status=0; else status=$?; fi
  echo "# $(basename "$binary"), shard $((shard + 1)) of $shards: exit $status"
  if [ "$status" -eq 0 ]; then
    grep -E '^\[(==========|  PASSED  |  SKIPPED )\] ' "$logs/$shard" || true
  else
    failed=1
    cat "$logs/$shard"
  fi
done
exit "$failed"
