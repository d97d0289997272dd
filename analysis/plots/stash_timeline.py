#!/usr/bin/env python3
"""The stash timeline of a traced run: total stash bytes over time, stacked by layer, per schedule.

    analysis/plots/stash_timeline.py RESULTS.h5 --out stash.png

RESULTS.h5 is a results file of `spatialsim run --trace` (docs/traces-and-plots.md): it reads
`/runs/<schedule>/trace/stash` (one row per change of a tile's stash, with the totals after it) and
`/runs/<schedule>/trace/steps` (where each step starts on the run's timeline). Steps are laid end to end;
the area under the total is the run's `inflight_byte_cycles`.
"""

import os

from plot_common import (ArgumentParser, check_out, fail, human_bytes_formatter, np, open_file, plt, run, save,
                         schedules, table)
from matplotlib.cm import ScalarMappable  # noqa: E402  (after plot_common's checks)
from matplotlib.colors import Normalize  # noqa: E402

MAX_LEGEND_LAYERS = 12


def timeline(stash, steps):
    """Run-wide times and, at each, the stash per layer (rows: times, columns: layers), as step functions.

    Several changes at one cycle collapse to the state after the last of them; every step ends at zero
    (each step runs on a fresh engine)."""
    step = stash["step"].astype(np.int64)
    start = dict(zip(steps["step"].tolist(), steps["start_cycle"].tolist()))
    time = np.array([start[s] for s in step.tolist()], dtype=np.int64) + stash["cycle"].astype(np.int64)
    layer = stash["layer"].astype(np.int64)
    value = stash["layer_bytes"].astype(float)
    layers = int(layer.max()) + 1 if layer.size else 0
    n = time.size
    per_layer = np.zeros((n, layers))
    index = np.arange(n)
    for l in range(layers):
        # Forward-fill layer l's latest value, but never across a step boundary.
        last = np.maximum.accumulate(np.where(layer == l, index, -1))
        valid = (last >= 0) & (step[np.maximum(last, 0)] == step)
        per_layer[:, l] = np.where(valid, value[np.maximum(last, 0)], 0.0)
    # Close every step at zero. A step's close can fall on the next step's first change (a step that
    # stores at its cycle 0): order by time, then step, then a step's changes before its close, so that
    # the state kept at that time is the next step's.
    ends = (steps["start_cycle"] + steps["makespan_cycles"]).astype(np.int64)
    time = np.concatenate([time, ends])
    step = np.concatenate([step, steps["step"].astype(np.int64)])
    closes = np.concatenate([np.zeros(n, dtype=np.int64), np.ones(ends.size, dtype=np.int64)])
    per_layer = np.concatenate([per_layer, np.zeros((ends.size, layers))])
    order = np.lexsort((closes, step, time))  # stable: a step's changes at one cycle keep their order
    time, per_layer = time[order], per_layer[order]
    if time.size == 0:
        return time, per_layer
    # The state after the last change at each time.
    last_at_time = np.append(time[1:] != time[:-1], True)
    return time[last_at_time], per_layer[last_at_time]


def main():
    p = ArgumentParser(__doc__)
    p.add_argument("results", help="results file of `spatialsim run --trace`")
    p.add_argument("--out", required=True, help="PNG to write: a file name ending in .png")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    args = p.parse_args()
    check_out(args.out)

    series = {}
    with open_file(args.results) as f:
        names = schedules(f, args.results, args.schedule)
        for s in names:
            g = f["/runs"][s]
            missing = [t for t in ("trace/stash", "trace/steps") if t not in g]
            if missing:
                fail(f"{args.results}: /runs/{s} has no {' and no '.join(missing)}; run "
                     "`spatialsim run --trace` (docs/traces-and-plots.md)")
            series[s] = (timeline(table(g["trace/stash"]), table(g["trace/steps"])),
                         table(g["trace/steps"]), int(g["inflight_byte_cycles"][()]),
                         int(g["peak_stash_bytes"][()]))

    fig, axes = plt.subplots(len(names), 1, figsize=(10, 2.4 * len(names) + 0.8), squeeze=False, sharex=True)
    # The whole run on the shared axis, each schedule's steps laid end to end: a panel with no stash has
    # nothing else to set its extent.
    run_end = {s: int(np.max(steps["start_cycle"] + steps["makespan_cycles"]))
               for s, (_, steps, _, _) in series.items()}
    axes[0, 0].set_xlim(0, max(max(run_end.values()), 1))
    cmap = plt.get_cmap("viridis")
    for ax, s in zip(axes[:, 0], names):
        (time, per_layer), steps, integral, peak = series[s]
        for start in steps["start_cycle"][1:]:
            ax.axvline(start, color="grey", linestyle=":", linewidth=0.8)
        ax.set_ylabel("stash (bytes)")
        ax.grid(alpha=0.3)
        if not per_layer.any():
            ax.set_ylim(0, 1)
            ax.set_yticks([0])
            ax.text(0.5, 0.5, f"{s}: no stash over its {run_end[s]} cycles", transform=ax.transAxes,
                    ha="center", va="center")
            continue
        layers = per_layer.shape[1]
        # Up to MAX_LEGEND_LAYERS layers a legend names each; a deeper model's legend would run off the
        # figure, so a colour bar maps colour to layer instead.
        named = layers <= MAX_LEGEND_LAYERS
        bottom = np.zeros(time.size)
        for l in range(layers):
            top = bottom + per_layer[:, l]
            ax.fill_between(time, bottom, top, step="post", color=cmap(l / max(layers - 1, 1)),
                            label=f"layer {l}" if named else None, linewidth=0)
            bottom = top
        ax.step(time, bottom, where="post", color="black", linewidth=0.8, label="total")
        if not named:
            bar = fig.colorbar(ScalarMappable(Normalize(0, layers - 1), cmap), ax=ax, pad=0.01)
            bar.set_label(f"layer (0..{layers - 1})", fontsize="x-small")
            bar.ax.tick_params(labelsize="x-small")
        # The plot shows the state at the end of each cycle, as peak_stash_bytes counts it: its highest
        # point is the run's peak.
        ax.set_title(f"{s}: inflight_byte_cycles {integral:.4g} byte-cycles, peak_stash_bytes {peak} bytes",
                     fontsize="small")
        ax.yaxis.set_major_formatter(human_bytes_formatter())
        if named:
            ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            ax.legend(fontsize="x-small", loc="upper left")
    axes[-1, 0].set_xlabel("cycle (steps laid end to end; dotted: step boundaries)")
    fig.suptitle(f"{os.path.basename(args.results)}: stash timeline", fontsize="medium")
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    run(main)
