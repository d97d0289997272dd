#!/usr/bin/env bash
# The table of docs/kernels.md, "Makespan against its lower bound": every collective kernel on three grids
# and both topologies, with finite bandwidth (4-byte elements, 2 bytes per cycle per link), its makespan
# against the bound's terms, as `spatialsim kernel` prints them. A kernel that does not fit a grid (the
# square kernels on 4x16) is refused by the command (exit 2) and left out of the table.
#
# Usage:
#   BUILD=build scripts/kernel-bound-table.sh > table.md
set -euo pipefail
cd "$(dirname "$0")/.."
SIM="${BUILD:-build}/spatialsim"

echo "| kernel | grid | topology | E byte-hops | C bytes | C cycles | ceil(E/N) cycles | L | D | bound | makespan | makespan / bound |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for grid in 8x8 16x16 4x16; do
  for topology in mesh torus; do
    for kernel in broadcast-chain broadcast-tree reduce-chain reduce-tree allreduce-reduce-broadcast \
                  allreduce-centre transpose cannon; do
      status=0
      out=$("$SIM" kernel --kernel.name="$kernel" --grid="$grid" --machine.topology="$topology" \
                --kernel.bytes=4 --machine.link_bytes_per_cycle=2 2>&1) || status=$?
      if [ "$status" -eq 2 ]; then continue; fi  # does not fit this grid
      if [ "$status" -ne 0 ]; then echo "$out" >&2; exit "$status"; fi
      echo "$out" | awk -F' = ' -v k="$kernel" -v g="$grid" -v t="$topology" '
        { v[$1] = $2 }
        END {
          e_over_n = int((v["bound.link_cycles"] + v["bound.links"] - 1) / v["bound.links"])
          printf "| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %.6g |\n", k, g, t,
                 v["bound.byte_hops"], v["bound.busiest_link_bytes"], v["bound.busiest_link_cycles"], e_over_n,
                 v["bound.longest_route_hops"], v["bound.depth"], v["bound.cycles"], v["makespan_cycles"],
                 v["makespan_cycles"] / v["bound.cycles"]
        }'
    done
  done
done
