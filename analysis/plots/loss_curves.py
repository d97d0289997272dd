#!/usr/bin/env python3
"""Loss per training step, one curve per schedule.

    analysis/plots/loss_curves.py RESULTS.h5 --out loss.png

RESULTS.h5 is a results file of `spatialsim run` (docs/hdf5.md): `/runs/<schedule>/loss` holds the loss
of each step, computed before that step's update. It is empty in counting mode (`sim.arith = none`);
such schedules are named in the title, and a file where every schedule ran in counting mode is an error.
Schedules with exactly the same loss at every step (backprop, checkpoint, revolve) are drawn so that each
shows, and the legend says which curve each coincides with.
"""

import os

from plot_common import ArgumentParser, check_out, fail, np, open_file, plt, run, save, schedules


# As many of each as there are schedules (seven), so that no two curves share a line style or a marker.
LINE_STYLES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "x", "P", "*"]


def main():
    p = ArgumentParser(__doc__)
    p.add_argument("results", help="results file of `spatialsim run`")
    p.add_argument("--out", required=True, help="PNG to write: a file name ending in .png")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    p.add_argument("--log", action="store_true", help="logarithmic loss axis")
    args = p.parse_args()
    check_out(args.out)

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

    # Schedules that compute the same gradient (backprop, checkpoint, revolve) have the same loss at every
    # step, and their curves would lie on one another: each curve gets its own line style and marker, the
    # later curves of such a group thinner lines and smaller markers drawn on top, so every one shows,
    # and the legend names the curve each coincides with.
    names = list(curves)
    same_as = {}  # schedule -> the first schedule with exactly its losses
    for i, s in enumerate(names):
        first = next((t for t in names[:i] if t not in same_as and np.array_equal(curves[t], curves[s])),
                     None)
        if first is not None:
            same_as[s] = first
    # Every schedule starts from the same weights and data, so step 0's loss is the same for all, to the
    # products' rounding (forward gradients carry their tangents through wider products, which some BLAS
    # kernels round otherwise): only a curve past step 0 can say that two schedules compute the same thing.
    one_step = max(loss.size for loss in curves.values()) == 1
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for n, (s, loss) in enumerate(curves.items()):
        rank = sum(1 for t in names[:n] if same_as.get(t, t) == same_as.get(s, s))  # earlier curves on it
        label = s + (f" (same loss as {same_as[s]})" if s in same_as and not one_step else "")
        ax.plot(np.arange(loss.size), loss, label=label, color=f"C{n}",
                linestyle=LINE_STYLES[n % len(LINE_STYLES)], linewidth=max(2.2 - 0.4 * rank, 0.6),
                marker=MARKERS[n % len(MARKERS)], markersize=max(9 - 1.5 * rank, 2.5), zorder=2 + rank)
    ax.set_xlabel("step")
    ax.set_ylabel("loss (before the step's update)")
    if args.log:
        ax.set_yscale("log")
    ax.xaxis.get_major_locator().set_params(integer=True, min_n_ticks=1)  # one step: tick 0, not -0.04
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    title = f"{os.path.basename(args.results)}: loss per training step"
    if one_step:
        title += "\n(one step: its loss is taken before any update" + (
            ", the same for every schedule)" if len(same_as) == len(names) - 1 else ")")
    if without:
        title += f"\n(no loss, counting mode or no training: {', '.join(without)})"
    # A diverged run's inf and nan losses are not drawn: say where each curve stops, or it looks ended.
    diverged = [f"{s} from step {int(np.flatnonzero(~np.isfinite(loss))[0])}" for s, loss in curves.items()
                if not np.all(np.isfinite(loss))]
    if diverged:
        title += f"\n(loss not finite, not drawn: {', '.join(diverged)})"
    ax.set_title(title, fontsize="medium")
    save(fig, args.out)


if __name__ == "__main__":
    run(main)
