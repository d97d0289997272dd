#!/usr/bin/env python3
"""Per-tile maps of a run: one heatmap per schedule and map, laid out as the grid.

    analysis/plots/tile_heatmaps.py RESULTS.h5 --out tiles.png

RESULTS.h5 is a results file of `spatialsim run`. Each map is `/runs/<schedule>/tiles/<map>`, shaped
(grid_height, grid_width), so the picture shows tile (x, y) at column x, row y, y growing downwards as on
the machine (MODEL.md section 2). Rows of the figure are schedules, columns are maps; each map has its own
colour scale (`--shared` gives each map one scale over all schedules, to compare schedules). A panel's
title gives the map's sum over the tiles, which leaves out the host at the grid edge (its share is given
where the file has it, tiles/host_<map>), or, for a peak map such as peak_stash_bytes, the largest tile:
a sum of peaks reached at different times is no quantity of the run.
"""

import os

from plot_common import ArgumentParser, check_out, fail, open_file, plt, run, save, schedules
from matplotlib.ticker import EngFormatter  # noqa: E402  (after plot_common's checks)
from mpl_toolkits.axes_grid1 import make_axes_locatable  # noqa: E402

DEFAULT_MAPS = ["byte_hops_sent", "peak_stash_bytes", "flops", "energy_pj"]
MAX_STRETCH = 2.0


def summary(name, values, host_share):
    """What the panel's title says of the whole map.

    A peak map (peak_*) holds each tile's own largest value over time; the tiles peak at different
    times, so their sum is no quantity of the run (the run's peak_stash_bytes is the peak of the sum, not
    the sum of the peaks): it gets the largest tile. Other maps are totals split by tile, so their sum
    means something, but not the run's total: the host at the grid edge is no tile, and its share (the
    inputs and targets it sends) is in no map. Where the file holds that share (tiles/host_<map>), it is
    given; otherwise the title says it is excluded."""
    if name.startswith("peak_"):
        return f"max over tiles {values.max():.6g}"
    text = f"sum over tiles (host excluded) {compact(values.sum())}"
    return text + (f"\nhost {compact(host_share)} more" if host_share is not None else "")


def compact(value):
    """Below 1000 as it is, above with 3 significant digits and an SI prefix: 512, 158k, 2.72M."""
    for prefix in ("", "k", "M", "G", "T"):
        if abs(value) < 1000 or prefix == "T":
            return f"{value:.4g}{prefix}" if prefix == "" else f"{value:.3g}{prefix}"
        value /= 1000.0
    return f"{value:g}"


def main():
    p = ArgumentParser(__doc__)
    p.add_argument("results", help="results file of `spatialsim run`")
    p.add_argument("--out", required=True, help="PNG to write: a file name ending in .png")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    p.add_argument("--map", action="append", dest="maps",
                   help=f"a dataset under tiles/ (repeatable); default: {', '.join(DEFAULT_MAPS)}")
    p.add_argument("--shared", action="store_true", help="one colour scale per map across schedules")
    args = p.parse_args()
    check_out(args.out)
    maps = args.maps or DEFAULT_MAPS

    data = {}
    units = {}
    host = {}  # (schedule, map) -> the host's share, for the maps that have one (tiles/host_<map>)
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
                if "host_" + m in tiles:
                    host[s, m] = float(tiles["host_" + m][()])

    rows, cols = len(names), len(maps)
    height, width = next(iter(data.values())).shape
    # Square tiles while the grid is at most MAX_STRETCH times wider than tall (or taller than wide); a
    # longer grid (one block of tiles per layer in a row) would be a thin strip, so its tiles are drawn
    # stretched to a panel of at most that shape, and the title says so.
    shape = width / max(height, 1)
    stretched = not (1 / MAX_STRETCH <= shape <= MAX_STRETCH)
    panel = min(max(shape, 1 / MAX_STRETCH), MAX_STRETCH)
    cell_width, cell_height = (2.6 * panel, 2.6) if panel >= 1 else (2.6, 2.6 / panel)
    fig, axes = plt.subplots(rows, cols, figsize=((cell_width + 0.9) * cols + 0.3, cell_height * rows + 1.2),
                             squeeze=False)
    for c, m in enumerate(maps):
        limits = None
        if args.shared:
            limits = (min(data[s, m].min() for s in names), max(data[s, m].max() for s in names))
        for r, s in enumerate(names):
            ax = axes[r][c]
            low, high = limits if limits else (data[s, m].min(), data[s, m].max())
            if data[s, m].min() == data[s, m].max():  # a constant map (forward's stash): say so
                value = data[s, m].min()
                # White on the scale's dark low end, black on its light high end.
                dark = high == low or value <= (low + high) / 2
                ax.text(0.5, 0.5, f"all {value:g}", transform=ax.transAxes, ha="center", va="center",
                        color="white" if dark else "black")
            constant = low == high  # one colour for the whole scale
            if constant:
                high = low + 1
            image = ax.imshow(data[s, m], cmap="viridis", origin="upper", interpolation="nearest", vmin=low,
                              vmax=high, aspect="auto" if stretched else "equal")
            # The bar as tall as the map beside it, whatever the map's shape.
            bar = fig.colorbar(image, cax=make_axes_locatable(ax).append_axes("right", size="5%", pad=0.08))
            # Compact tick labels (250k, 1.5M) instead of an offset text such as 1e6 above the bar, which
            # runs into the panel's title.
            bar.formatter = EngFormatter(sep="", places=None)
            if constant:
                bar.set_ticks([low])
            bar.update_ticks()
            unit = f" ({units[m]})" if units[m] not in ("", "1", m) else ""
            ax.set_title(f"{s}: {m}{unit}\n{summary(m, data[s, m], host.get((s, m)))}",
                         fontsize="small")
            ax.set_xlabel("x")
            ax.set_ylabel("y")
            # min_n_ticks=1: a grid one tile wide keeps its one whole coordinate (it got -0.5, -0.25, ...).
            ax.xaxis.get_major_locator().set_params(integer=True, min_n_ticks=1)
            ax.yaxis.get_major_locator().set_params(integer=True, min_n_ticks=1)
            # A few rows or columns: every one numbered (a 4-row grid got only row 0).
            if width <= 8:
                ax.set_xticks(range(width))
            if height <= 8:
                ax.set_yticks(range(height))
    fig.suptitle(f"{os.path.basename(args.results)}: per-tile maps ({width} x {height} tiles"
                 + (", drawn stretched)" if stretched else ")"))
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    run(main)
