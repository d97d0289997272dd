#!/usr/bin/env python3
"""Loss per training step, one curve per schedule.

    analysis/plots/loss_curves.py RESULTS.h5 --out loss.png

RESULTS.h5 is a results file of `spatialsim run` (docs/hdf5.md): `/runs/<schedule>/loss` holds the loss
of each step, computed before that step's update. It is empty in counting mode (`sim.arith = none`);
such schedules are named in the title, and a file where every schedule ran in counting mode is an error.
"""

import argparse
import os

from plot_common import fail, np, open_file, plt, save, schedules


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="results file of `spatialsim run`")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    p.add_argument("--log", action="store_true", help="logarithmic loss axis")
    args = p.parse_args()

    curves = {}
    without = []
    with open_file(args.results) as f:
        for s in schedules(f, args.results, args.schedule):
            if "loss" not in f["/runs"][s]:
                fail(f"{args.results}: /runs/{s} has no loss dataset (docs/hdf5.md)")
            loss = f["/runs"][s]["loss"][:]
            if loss.size == 0:
                without.append(s)
            else:
                curves[s] = loss
    if not curves:
        fail(f"{args.results}: no schedule has a loss (counting mode, sim.arith = none, records none); "
             "run with --sim.arith=fp32")

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for s, loss in curves.items():
        ax.plot(np.arange(loss.size), loss, marker="o", label=s)
    ax.set_xlabel("step")
    ax.set_ylabel("loss (before the step's update)")
    if args.log:
        ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend()
    title = os.path.basename(args.results)
    if without:
        title += f"\n(no loss, counting mode or no training: {', '.join(without)})"
    ax.set_title(title, fontsize="medium")
    save(fig, args.out)


if __name__ == "__main__":
    main()
