#!/usr/bin/env python3
"""In-flight storage against depth on log-log axes, with the fitted slope per schedule.

    analysis/plots/stash_vs_depth.py SWEEP.h5 --out stash_vs_depth.png

SWEEP.h5 is the output of a depth sweep (docs/sweeps.md), for instance
`spatialsim sweep --vary model.depth=2,4,8,16 --schedule forward,backprop --sim.arith=none --out SWEEP.h5`.
It reads the table `/sweep/points`: the x axis is the column `layers` (L, as run), the y axes are
`peak_stash_bytes` and `inflight_byte_cycles_per_token` (change them with --x and --metric). Each
schedule (and each combination of the other varied keys, from the attribute `vary` of `/sweep`) is one
series; its slope is the least-squares fit of log y = a + k log x over the points with y > 0 (MODEL.md
section 7 expects about 2 for backprop and 0 stash for forward). A series with no point above 0 (forward's
stash) is named under its panel.

--x and --metric need numeric columns: a text column such as `mapping.block` (1x1, 2x2) is refused, with
its `<key>.value` form suggested when the sweep has one (docs/sweeps.md). --x must take at least two
values above 0: a sweep that does not vary depth is refused with the default x (pass --x with a column it
varies).
"""

import os

from plot_common import ArgumentParser, check_out, fail, np, open_file, plt, run, save, table
from matplotlib.ticker import LogFormatterSciNotation  # noqa: E402  (after plot_common's checks)

DEFAULT_METRICS = ["peak_stash_bytes", "inflight_byte_cycles_per_token"]


def attr_text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def varied_keys(sweep_group):
    vary = attr_text(sweep_group.attrs.get("vary", ""))
    return [part.split("=", 1)[0] for part in str(vary).split(";") if "=" in part]


def numbers(column):
    """The column as float64, or None when it is absent or not all numbers (text such as `1x1`)."""
    if column is None:
        return None
    try:
        return np.asarray(column, dtype=float)
    except (TypeError, ValueError):
        return None


def with_unit(column, units):
    """An axis label: the column and its unit, which a key's text column shares with its `.value` form; none
    for a count of 1 (a loss, a ratio)."""
    unit = units.get(column) or units.get(column + ".value") or "1"
    return column + (f" ({unit})" if unit not in ("1", column) else "")


def positive_values(values):
    """The distinct values above 0 (what log axes can show), sorted."""
    return np.unique(values[values > 0])


def room_for_legend(fig, ax, low, high):
    """Sets the log y range so that the points and lines, from `low` to `high`, stay below the legend in
    the panel's top left corner: the legend hides none of them, whatever their shape."""
    fig.canvas.draw()  # the legend's size is known once drawn
    legend = ax.get_legend().get_window_extent().height / ax.get_window_extent().height + 0.04
    bottom, top = np.log(low), np.log(high)
    pad = 0.05 * max(top - bottom, np.log(2.0))
    bottom, top = bottom - pad, top + pad
    ax.set_ylim(np.exp(bottom), np.exp(bottom + (top - bottom) / max(1.0 - legend, 0.25)))
    # Label some minor ticks up to two decades (matplotlib's default stops at one), so that the taller
    # range still has more than one number on it.
    ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def main():
    p = ArgumentParser(__doc__)
    p.add_argument("sweep", help="output file of `spatialsim sweep`")
    p.add_argument("--out", required=True, help="PNG to write: a file name ending in .png")
    p.add_argument("--x", default="layers", help="column for the x axis (default: layers)")
    p.add_argument("--metric", action="append", dest="metrics",
                   help=f"column for a y axis (repeatable); default: {', '.join(DEFAULT_METRICS)}")
    args = p.parse_args()
    check_out(args.out)
    metrics = args.metrics or DEFAULT_METRICS

    with open_file(args.sweep) as f:
        if "sweep/points" not in f:
            fail(f"{args.sweep} has no /sweep/points table: it is not the output of `spatialsim sweep` "
                 "(make one with `spatialsim sweep --vary model.depth=2,4,8 --out SWEEP.h5`; docs/sweeps.md)")
        # A point file (<out>.points/, one job's row) of an interrupted sweep: the plot is of the sweep's
        # file.
        if "sweep_point_of" in f.attrs:
            fail(f"{args.sweep} is one job's point file of the sweep that writes "
                 f"{attr_text(f.attrs['sweep_point_of'])}: plot that file (resume an interrupted sweep with "
                 "--sweep.resume to finish it; docs/sweeps.md)")
        points = table(f["/sweep/points"])
        units = {c: f["/sweep/points"][c].attrs.get("unit", "") for c in points}
        keys = varied_keys(f["/sweep"]) if "sweep" in f else []
    for column in [args.x, "schedule"] + metrics:
        if column not in points:
            fail(f"{args.sweep}: /sweep/points has no column {column}; columns: {', '.join(points)}")
    # Columns the sweep varies that can be an x axis: `layers` and each varied key's numeric form.
    varying_x = [c for c in ["layers"] + [k + ".value" for k in keys]
                 if numbers(points.get(c)) is not None and positive_values(numbers(points[c])).size > 1]
    for option, column in [("--x", args.x)] + [("--metric", m) for m in metrics]:
        if numbers(points[column]) is None:
            shown = ", ".join(dict.fromkeys(points[column].astype(str).tolist()))
            if numbers(points.get(column + ".value")) is not None:
                hint = f"use {option} {column}.value"
            elif option == "--x" and varying_x:
                hint = f"numeric columns this sweep varies: {', '.join(varying_x)}"
            else:
                hint = f"{column} has no numeric form; give {option} a numeric column"
            fail(f"{option} {column}: the column is text ({shown}), not numbers ({hint})")
    x_values = positive_values(numbers(points[args.x]))
    if x_values.size < 2:
        has = f"takes one value ({x_values[0]:g})" if x_values.size else "has no value above 0"
        others_x = [c for c in varying_x if c != args.x]
        hint = (f"pass --x with a column this sweep varies: {', '.join(others_x)}" if others_x else
                "the sweep varies no numeric key: sweep one, e.g. --vary model.depth=2,4,8, or pass --x "
                "with a numeric column that varies")
        fail(f"--x {args.x}: {has} in {args.sweep}, nothing to plot against ({hint})")
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
    shown = {}  # per panel: the y values drawn (points and fitted lines)
    ax_notes = {}  # per panel: what is not drawn, and why
    for ax, metric in zip(axes[0], metrics):
        notes = ax_notes[ax] = []
        shown[ax] = []
        for n, label in enumerate(dict.fromkeys(labels.tolist())):
            rows = labels == label
            x = numbers(points[args.x][rows])
            y = numbers(points[metric][rows])
            order = np.argsort(x)
            x, y = x[order], y[order]
            usable = (x > 0) & (y > 0)
            if not usable.any():
                if (y == 0).all():
                    notes.append(f"{label}: 0 at every point, none on log axes")
                elif np.isnan(y).all():
                    # final_loss of a counting-mode sweep: no arithmetic, no loss.
                    notes.append(f"{label}: {metric} not a number at every point (counting mode records no "
                                 "loss)" if metric == "final_loss" else f"{label}: {metric} not a number at "
                                 "every point")
                else:
                    notes.append(f"{label}: no point with {args.x} > 0 and {metric} > 0")
                continue
            if not usable.all():
                off = ((f"{args.x} <= 0", x <= 0), (f"{metric} <= 0", (x > 0) & (y <= 0)),
                       ("a value not a number", np.isnan(x) | np.isnan(y)))
                why = ", ".join(what for what, where in off if where.any())
                notes.append(f"{label}: {(~usable).sum()} of {usable.size} points not on log axes ({why})")
            text = label
            if usable.sum() >= 2 and np.unique(x[usable]).size >= 2:
                slope, intercept = np.polyfit(np.log(x[usable]), np.log(y[usable]), 1)
                text += f": slope {0.0 if abs(slope) < 0.005 else slope:.2f}"  # not -0.00
                fit_x = np.array([x[usable].min(), x[usable].max()])
                fit_y = np.exp(intercept) * fit_x ** slope
                ax.plot(fit_x, fit_y, linestyle="--", color=f"C{n}", alpha=0.6)
                shown[ax] += fit_y.tolist()
            else:
                text += ": too few points"
            ax.plot(x[usable], y[usable], marker="o", linestyle="none", color=f"C{n}", label=text)
            shown[ax] += y[usable].tolist()
        ax.set_xscale("log")
        ax.set_yscale("log")
        # The swept values as plain ticks: a sweep has few of them, and 2, 4, 8 reads better than 2^1.
        if x_values.size <= 12:
            ax.set_xticks(x_values, [f"{t:g}" for t in x_values])
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel(with_unit(args.x, units))
        ax.set_ylabel(with_unit(metric, units))
        ax.grid(which="both", alpha=0.3)
        if shown[ax]:
            ax.legend(fontsize="small", loc="upper left")
        if notes:
            # Under the x label, where no point can be.
            ax.annotate("\n".join(notes), xy=(0, 0), xycoords=("axes fraction", ax.xaxis.label),
                        xytext=(0, -4), textcoords="offset points", fontsize="small", va="top", ha="left")
        ax.set_title(metric, fontsize="medium")
    if not any(shown.values()):
        notes = [n for ax in axes[0] for n in ax_notes[ax]]
        fail(f"{args.sweep}: nothing to plot on log axes ({'; '.join(dict.fromkeys(notes))}); plot another "
             "--metric, or sweep a schedule that has it")
    fig.suptitle(f"{os.path.basename(args.sweep)}: {' and '.join(metrics)} against {args.x} (log-log)",
                 fontsize="medium")
    fig.tight_layout()
    for ax, ys in shown.items():
        if ys:
            room_for_legend(fig, ax, min(ys), max(ys))
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    run(main)
