#!/usr/bin/env bash
# End-to-end performance runs (docs/performance.md). Not part of CI (.ci/run never calls it).
#
# Usage:
#   scripts/bench.sh [SECTION...]     sections: rate seed sweep scaling micro (default: all), compare
#   BUILD=build REPS=5 scripts/bench.sh rate
#   OTHER=/tmp/other-build/spatialsim REPS=15 scripts/bench.sh compare
# Prints every measurement; the raw outputs go to $OUT (default bench-results/). Each figure is the median
# of $REPS runs. Peak memory is GNU time's "Maximum resident set size".
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-bench-results}
REPS=${REPS:-5}
SIM="$BUILD/spatialsim"
mkdir -p "$OUT"
echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# metric NAME FILE: the first column of the results table row NAME.
metric() { awk -v n="$1" '$1==n {print $3; exit}' "$2"; }
# timed LOG CMD...: runs CMD under GNU time; prints "wall_seconds peak_rss_kb".
timed() {
  local log=$1; shift
  /usr/bin/time -v "$@" >"$log" 2>"$log.time"
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; w=s}
              /Maximum resident set size/ {m=$2} END {print w, m}' "$log.time"
}

# Counting-mode event rate of the default backprop run, with larger steps, and 16 of them (16384 tokens = 2048
# wavefronts of 8) so that the simulation, not start-up, dominates. wall_seconds is run_schedule's own.
RATE_RUN=(run --schedule backprop --sim.arith=none --step.tokens=16384 --train.steps=16)
rate() {
  echo "## rate: default backprop, sim.arith=none, step.tokens=16384, train.steps=16"
  local w=() e=0
  for r in $(seq "$REPS"); do
    "$SIM" "${RATE_RUN[@]}" --out "$OUT/rate.h5" >"$OUT/rate.$r.txt"
    e=$(metric events "$OUT/rate.$r.txt"); w+=("$(metric wall_seconds "$OUT/rate.$r.txt")")
  done
  local wm; wm=$(printf '%s\n' "${w[@]}" | median)
  echo "events $e  wall_seconds(median of $REPS) $wm  events_per_second $(awk -v e="$e" -v w="$wm" 'BEGIN{printf "%.4g", e/w}')"
}

# The rate run on this build and on another ($OTHER, a spatialsim binary), one run of each per round for
# $REPS rounds. The VM's speed drifts by 10 to 20% within minutes, so two builds are compared only by
# alternating runs. Prints each build's median events/s and the ratio (this build / other).
compare() {
  if [ -z "${OTHER:-}" ]; then echo "compare: set OTHER to another build's spatialsim binary" >&2; exit 2; fi
  echo "## compare: the rate run, $SIM against $OTHER, alternating, $REPS rounds"
  local this=() other=()
  for r in $(seq "$REPS"); do
    "$SIM" "${RATE_RUN[@]}" --out "$OUT/compare.h5" >"$OUT/compare.this.txt"
    this+=("$(metric events_per_second "$OUT/compare.this.txt")")
    "$OTHER" "${RATE_RUN[@]}" --out "$OUT/compare.h5" >"$OUT/compare.other.txt"
    other+=("$(metric events_per_second "$OUT/compare.other.txt")")
  done
  local a b
  a=$(printf '%s\n' "${this[@]}" | median); b=$(printf '%s\n' "${other[@]}" | median)
  echo "events_per_second(median) this $a  other $b  this/other $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", a/b}')"
}

# Every exact schedule at the seed grid's scale: configs/seed-grid.ini under the exact schedules of an mlp,
# and configs/seed-grid-reversible.ini (the same machine and workload with a reversible model, which the
# reversible schedule needs) under forward and reversible; on one thread and on two. A repetition's time
# is the two processes' wall clock added; its memory the larger peak RSS.
seed() {
  local schedules=forward,backprop,checkpoint,revolve
  for threads in 1 2; do
    echo "## seed-grid: $schedules + seed-grid-reversible: forward,reversible, sim.threads=$threads"
    local w=() m=()
    for r in $(seq "$REPS"); do
      read -r w1 m1 < <(timed "$OUT/seed.$threads.$r.txt" "$SIM" run --config configs/seed-grid.ini \
        --schedule "$schedules" --sim.threads="$threads" --out "$OUT/seed.h5")
      read -r w2 m2 < <(timed "$OUT/seedrev.$threads.$r.txt" "$SIM" run \
        --config configs/seed-grid-reversible.ini --sim.threads="$threads" --out "$OUT/seedrev.h5")
      w+=("$(awk -v a="$w1" -v b="$w2" 'BEGIN{print a + b}')")
      m+=("$(( m1 > m2 ? m1 : m2 ))")
    done
    grep -E '^(metric|events|wall_seconds) ' "$OUT/seed.$threads.$REPS.txt" "$OUT/seedrev.$threads.$REPS.txt"
    echo "both processes wall_seconds(median) $(printf '%s\n' "${w[@]}" | median)  peak_rss_MB(max) $(printf '%s\n' "${m[@]}" | sort -g | tail -1 | awk '{printf "%.0f", $1/1024}')"
  done
}

# A 16-point depth sweep on 1 and 2 threads; the tables must match except wall_seconds/events_per_second.
sweep() {
  local depths; depths=$(seq -s, 8 8 128)
  # One run on each thread count per round: the VM's speed drifts by 10 to 30% within minutes, so all of
  # one count's runs before all of the other's can show a drift as a speed-up (or hide one). The speed-up
  # is the median of the rounds' ratios.
  local w1=() w2=() ratios=()
  for r in $(seq "$REPS"); do
    local round=()
    for threads in 1 2; do
      rm -f "$OUT/sweep.$threads.h5"
      read -r ws _ < <(timed "$OUT/sweep.$threads.txt" "$SIM" sweep --vary model.depth="$depths" \
        --schedule backprop --sim.arith=none --step.tokens=8192 --model.width=256 --mapping.block=4x4 \
        --sim.threads="$threads" --out "$OUT/sweep.$threads.h5")
      round+=("$ws")
    done
    w1+=("${round[0]}"); w2+=("${round[1]}")
    ratios+=("$(awk -v a="${round[0]}" -v b="${round[1]}" 'BEGIN{printf "%.3f", a/b}')")
  done
  echo "## sweep 16 points, sim.threads=1: wall_seconds(median of $REPS) $(printf '%s\n' "${w1[@]}" | median)"
  echo "## sweep 16 points, sim.threads=2: wall_seconds(median of $REPS) $(printf '%s\n' "${w2[@]}" | median)"
  echo "speed-up 2 threads vs 1, per round: ${ratios[*]}; median $(printf '%s\n' "${ratios[@]}" | median)"
  if diff <(grep -vE 'wall_seconds|events_per_second|^wrote' "$OUT/sweep.1.txt") \
          <(grep -vE 'wall_seconds|events_per_second|^wrote' "$OUT/sweep.2.txt") >"$OUT/sweep.diff"; then
    echo "results identical (tables without timings)"
  else
    echo "results DIFFER: see $OUT/sweep.diff"
  fi
}

# How cost grows: one axis at a time around a base (counting mode, backprop, width 1024, L = 8, 8x8 = 64
# tiles per layer, 256 wavefronts of 8 tokens). L = model.depth; tiles per layer = block r x c; wavefronts
# G = step.tokens / step.wavefront; steps = train.steps (more events, same state: memory must stay flat).
# Prints per point: the run's own wall_seconds (median), the process's peak RSS (median) and events; then
# the least-squares log-log slope of each against the axis.
scaling() {
  local base=(run --schedule backprop --sim.arith=none --model.inputs=1024 --model.width=1024
              --model.outputs=1024 --sim.threads=1)
  echo "## scaling: axis value wall_seconds peak_rss_MB events"
  : >"$OUT/scaling.txt"
  point() {  # axis value args...
    local axis=$1 value=$2; shift 2
    local w=() m=()
    for r in $(seq "$REPS"); do
      read -r _ rss < <(timed "$OUT/scale.txt" "$SIM" "${base[@]}" "$@" --out "$OUT/scale.h5")
      w+=("$(metric wall_seconds "$OUT/scale.txt")"); m+=("$rss")
    done
    echo "$axis $value $(printf '%s\n' "${w[@]}" | median) $(printf '%s\n' "${m[@]}" | median | awk '{printf "%.1f", $1/1024}') $(metric events "$OUT/scale.txt")" | tee -a "$OUT/scaling.txt"
  }
  for L in 4 8 16 32 64 128; do point L "$L" --model.depth="$L" --mapping.block=8x8 --step.tokens=2048; done
  for b in 4 8 16 32; do point tiles $((b * b)) --model.depth=8 --mapping.block="${b}x${b}" --step.tokens=2048; done
  for G in 8 32 128 512; do point wavefronts "$G" --model.depth=8 --mapping.block=8x8 --step.tokens=$((G * 8)); done
  for S in 1 4 16; do point steps "$S" --model.depth=8 --mapping.block=8x8 --step.tokens=2048 --train.steps="$S"; done
  echo "## fitted exponents (slope of log y against log axis): axis wall_seconds peak_rss_MB events"
  awk '{ a=$1; x=log($2); n[a]++; sx[a]+=x; sxx[a]+=x*x
         for (k=3; k<=5; k++) { y=log($k); sy[a,k]+=y; sxy[a,k]+=x*y } }
       END { for (a in n) { d=n[a]*sxx[a]-sx[a]^2; printf "%s", a
             for (k=3; k<=5; k++) printf " %.3f", (n[a]*sxy[a,k]-sx[a]*sy[a,k])/d; print "" } }' "$OUT/scaling.txt"
}

micro() {
  for b in bench_engine bench_layer; do
    "$BUILD/$b" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true | tee "$OUT/$b.txt"
  done
  "$BUILD/bench_step_vs_gemm" --repetitions="$REPS" | tee "$OUT/bench_step_vs_gemm.txt"
}

sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(rate seed sweep scaling micro)
for s in "${sections[@]}"; do "$s"; done
