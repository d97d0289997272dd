#!/bin/bash
# seed-003 in miniature: cross-entropy on the mixture task, narrow trunk, wide head.
# Prints: seed schedule extra-option final_loss peak_stash_bytes byte_hops (docs/forward-gradients.md).
B=${SPATIALSIM:-build/spatialsim}
COMMON="--model.widths=16,16,16,64,64,8 --model.loss=cross-entropy --model.activation=tanh --data.task=mixture --data.mixture_spread=1.5 --step.tokens=32 --step.wavefront=8 --train.steps=100 --train.optimizer=adam --train.lr=0.01 --sim.arith=fp32 --mapping.block=2x2"
# Each schedule gets only the options it reads (the others are refused: docs/cli.md).
FG="--fg.tangents=4"
SPLIT="--fg.tangents=4 --splitfg.split=2"
for seed in 1 2 3; do
  for cfg in "backprop|" "split-fg|--splitfg.rho=0" "split-fg|--splitfg.rho=0.01" "split-fg|--splitfg.rho=0.03" "split-fg|--splitfg.rho=0.1" "split-fg|--splitfg.rho=0.3" "split-fg|--splitfg.rho=1" "forward-gradient|"; do
    s=${cfg%%|*}; extra=${cfg#*|}
    case $s in forward-gradient) own=$FG ;; split-fg) own=$SPLIT ;; *) own= ;; esac
    out=$($B run --schedule=$s $COMMON $own $extra --sim.seed=$seed --out=${TMPDIR:-/tmp}/fg_o_$seed.h5 2>&1)
    loss=$(echo "$out" | awk '$1=="final_loss"{print $3}')
    peak=$(echo "$out" | awk '$1=="peak_stash_bytes"{print $3}')
    bh=$(echo "$out" | awk '$1=="byte_hops"{print $3}')
    echo "$seed $s ${extra:-none} $loss $peak $bh"
    rm -f ${TMPDIR:-/tmp}/fg_o_$seed.h5
  done
done
