#!/usr/bin/env python3
"""In-flight storage against depth on log-log axes, with the fitted slope per schedule.

    analysis/plots/stash_vs_depth.py SWEEP.h5 --out stash_vs_depth.png

SWEEP.h5 is the output of a depth sweep (docs/sweeps.md), for instance
`spatialsim sweep --vary model.depth=2,4,8,16 --schedule forward,backprop --sim.arith=none --out SWEEP.h5`.
It reads the table `/sweep/points`: the x axis is the column `layers` (L, as run), the y axes are
`peak_stash_bytes` and `inflight_byte_cycles_per_token` (change them with --x and --metric). Each
schedule (and each combination of the other varied keys, from the attribute `vary` of `/sweep`) is one
series; its slope is the least-squares fit of log y = a + k log x over the points with y > 0 (MODEL.md
section 7 expects about 2 for backprop and 0 stash for forward).
"""

import argparse
import os

from plot_common import fail, np, open_file, plt, save, table

DEFAULT_METRICS = ["peak_stash_bytes", "inflight_byte_cycles_per_token"]


def varied_keys(sweep_group):
    vary = sweep_group.attrs.get("vary", "")
    if isinstance(vary, bytes):
        vary = vary.decode()
    return [part.split("=", 1)[0] for part in str(vary).split(";") if "=" in part]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", help="output file of `spatialsim sweep`")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--x", default="layers", help="column for the x axis (default: layers)")
    p.add_argument("--metric", action="append", dest="metrics",
                   help=f"column for a y axis (repeatable); default: {', '.join(DEFAULT_METRICS)}")
    args = p.parse_args()
    metrics = args.metrics or DEFAULT_METRICS

    with open_file(args.sweep) as f:
        if "sweep/points" not in f:
            fail(f"{args.sweep} has no /sweep/points table: it is not the output of `spatialsim sweep` "
                 "(make one with `spatialsim sweep --vary model.depth=2,4,8 --out SWEEP.h5`; docs/sweeps.md)")
        points = table(f["/sweep/points"])
        units = {c: f["/sweep/points"][c].attrs.get("unit", "") for c in points}
        keys = varied_keys(f["/sweep"]) if "sweep" in f else []
    for column in [args.x, "schedule"] + metrics:
        if column not in points:
            fail(f"{args.sweep}: /sweep/points has no column {column}; columns: {', '.join(points)}")
    # A varied key splits the points into series when it takes several values at one x (model.depth does
    # not: it moves with `layers`; mapping.block does).
    x_text = points[args.x].astype(str)
    others = [k for k in keys if k in points
              and len(set(zip(x_text.tolist(), points[k].astype(str).tolist()))) > len(set(x_text.tolist()))]

    labels = []
    for i in range(points["schedule"].size):
        label = str(points["schedule"][i])
        for k in others:
            label += f", {k}={points[k][i]}"
        labels.append(label)
    labels = np.array(labels)

    fig, axes = plt.subplots(1, len(metrics), figsize=(5.6 * len(metrics), 4.4), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        notes = []
        for n, label in enumerate(dict.fromkeys(labels.tolist())):
            rows = labels == label
            x = points[args.x][rows].astype(float)
            y = points[metric][rows].astype(float)
            order = np.argsort(x)
            x, y = x[order], y[order]
            usable = (x > 0) & (y > 0)
            if not usable.any():
                notes.append(f"{label}: no stash")
                continue
            text = label
            if usable.sum() >= 2 and np.unique(x[usable]).size >= 2:
                slope, intercept = np.polyfit(np.log(x[usable]), np.log(y[usable]), 1)
                text += f": slope {slope:.2f}"
                fit_x = np.array([x[usable].min(), x[usable].max()])
                ax.plot(fit_x, np.exp(intercept) * fit_x ** slope, linestyle="--", color=f"C{n}", alpha=0.6)
            else:
                text += ": too few points"
            ax.plot(x[usable], y[usable], marker="o", linestyle="none", color=f"C{n}", label=text)
        ax.set_xscale("log")
        ax.set_yscale("log")
        # The swept values as plain ticks: a sweep has few of them, and 2, 4, 8 reads better than 2^1.
        ticks = np.unique(points[args.x].astype(float))
        ticks = ticks[ticks > 0]
        if 0 < ticks.size <= 12:
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        unit = units.get(args.x) or "1"
        ax.set_xlabel(args.x + (f" ({unit})" if unit not in ("1", args.x) else ""))
        ax.set_ylabel(f"{metric} ({units.get(metric) or '1'})")
        ax.grid(which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
        if notes:
            ax.text(0.98, 0.02, "\n".join(notes), transform=ax.transAxes, fontsize="small", va="bottom", ha="right")
        ax.set_title(metric, fontsize="medium")
    fig.suptitle(f"{os.path.basename(args.sweep)}: in-flight storage against depth (log-log)", fontsize="medium")
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
