#!/usr/bin/env python3
"""Per-tile maps of a run: one heatmap per schedule and map, laid out as the grid.

    analysis/plots/tile_heatmaps.py RESULTS.h5 --out tiles.png

RESULTS.h5 is a results file of `spatialsim run`. Each map is `/runs/<schedule>/tiles/<map>`, shaped
(grid_height, grid_width), so the picture shows tile (x, y) at column x, row y, y growing downwards as on
the machine (MODEL.md section 2). Rows of the figure are schedules, columns are maps; each map has its own
colour scale (`--shared` gives each map one scale over all schedules, to compare schedules).
"""

import argparse
import os

from plot_common import fail, np, open_file, plt, save, schedules

DEFAULT_MAPS = ["byte_hops_sent", "peak_stash_bytes", "flops", "energy_pj"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="results file of `spatialsim run`")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    p.add_argument("--map", action="append", dest="maps",
                   help=f"a dataset under tiles/ (repeatable); default: {', '.join(DEFAULT_MAPS)}")
    p.add_argument("--shared", action="store_true", help="one colour scale per map across schedules")
    args = p.parse_args()
    maps = args.maps or DEFAULT_MAPS

    data = {}
    units = {}
    with open_file(args.results) as f:
        names = schedules(f, args.results, args.schedule)
        for s in names:
            tiles = f["/runs"][s].get("tiles")
            if tiles is None:
                fail(f"{args.results}: /runs/{s} has no tiles/ group (docs/hdf5.md)")
            for m in maps:
                if m not in tiles or tiles[m].ndim != 2:
                    known = [k for k in tiles if tiles[k].ndim == 2]
                    fail(f"{args.results}: /runs/{s}/tiles has no map {m}; maps: {', '.join(known)}")
                data[s, m] = tiles[m][:].astype(float)
                units[m] = tiles[m].attrs.get("unit", "")

    rows, cols = len(names), len(maps)
    height, width = next(iter(data.values())).shape
    cell = 2.6 * max(0.6, min(1.6, width / max(height, 1)))
    fig, axes = plt.subplots(rows, cols, figsize=(cell * cols + 1, 2.6 * rows + 0.6), squeeze=False)
    for c, m in enumerate(maps):
        limits = None
        if args.shared:
            limits = (min(data[s, m].min() for s in names), max(data[s, m].max() for s in names))
        for r, s in enumerate(names):
            ax = axes[r][c]
            low, high = limits if limits else (data[s, m].min(), data[s, m].max())
            if low == high:  # a constant map (forward's stash): one colour, and say so
                ax.text(0.5, 0.5, f"all {low:g}", transform=ax.transAxes, ha="center", va="center",
                        color="white")
                high = low + 1
            image = ax.imshow(data[s, m], cmap="viridis", origin="upper", interpolation="nearest", vmin=low,
                              vmax=high)
            fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
            ax.set_title(f"{s}: {m}\n({units[m]}, sum {np.sum(data[s, m]):.3g})", fontsize="small")
            ax.set_xlabel("x")
            ax.set_ylabel("y")
            ax.xaxis.get_major_locator().set_params(integer=True)
            ax.yaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(f"{os.path.basename(args.results)}: per-tile maps ({width} x {height} tiles)")
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
