#!/usr/bin/env python3
"""Byte-hops by message kind and energy by term, one stacked bar per schedule.

    analysis/plots/traffic_bars.py RESULTS.h5 --out traffic.png

RESULTS.h5 is a results file of `spatialsim run` (docs/hdf5.md, "Layout of a results file"). Left: the
byte-hops of each schedule split by kind (`byte_hops_by_phase_kind` summed over phases); right: its
energy split into the hop, SRAM and flop terms (`energy_hop_pj`, `energy_sram_pj`, `energy_flop_pj`).
"""

import os

from plot_common import ArgumentParser, check_out, fail, np, open_file, plt, run, save, schedules

ENERGY_TERMS = [("energy_hop_pj", "hops"), ("energy_sram_pj", "SRAM"), ("energy_flop_pj", "flops")]


def main():
    p = ArgumentParser(__doc__)
    p.add_argument("results", help="results file of `spatialsim run`")
    p.add_argument("--out", required=True, help="PNG to write: a file name ending in .png")
    p.add_argument("--schedule", action="append", help="only this schedule (repeatable); default: all")
    args = p.parse_args()
    check_out(args.out)

    with open_file(args.results) as f:
        names = schedules(f, args.results, args.schedule)
        kinds = None
        hops = []  # per schedule: byte-hops per kind
        energy = []  # per schedule: pJ per term
        for s in names:
            g = f["/runs"][s]
            if "byte_hops_by_phase_kind" not in g:
                fail(f"{args.results}: /runs/{s} has no byte_hops_by_phase_kind (docs/hdf5.md)")
            d = g["byte_hops_by_phase_kind"]
            kinds = list(d.attrs["kinds"])
            hops.append(d[:].sum(axis=0).astype(float))
            energy.append([float(g[name][()]) for name, _ in ENERGY_TERMS])

    hops = np.array(hops)
    energy = np.array(energy)
    x = np.arange(len(names))
    # Wider with many schedules, so that each bar keeps room for its name.
    fig, (ax_hops, ax_energy) = plt.subplots(1, 2, figsize=(max(11, 2 * (1.0 * len(names) + 1.5)), 4.2))
    colors = plt.get_cmap("tab10")

    bottom = np.zeros(len(names))
    for k, kind in enumerate(kinds):
        if not hops[:, k].any():
            continue  # a kind no schedule used would only clutter the legend
        ax_hops.bar(x, hops[:, k], bottom=bottom, label=kind, color=colors(k))
        bottom += hops[:, k]
    ax_hops.set_title("byte-hops by message kind")
    ax_hops.set_ylabel("byte-hops")

    bottom = np.zeros(len(names))
    for t, (_, label) in enumerate(ENERGY_TERMS):
        ax_energy.bar(x, energy[:, t] / 1e6, bottom=bottom, label=label, color=colors(t + 7))
        bottom += energy[:, t] / 1e6
    ax_energy.set_title("energy by term")
    ax_energy.set_ylabel("energy (uJ)")

    for ax in (ax_hops, ax_energy):
        # Names slanted and anchored at their right end under their bar, so that long neighbours
        # (forward-gradient, split-fg) do not run into each other.
        if len(names) > 3:
            ax.set_xticks(x, names, rotation=35, ha="right", rotation_mode="anchor")
        else:
            ax.set_xticks(x, names)
        ax.legend(fontsize="small")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{os.path.basename(args.results)}: byte-hops and energy per schedule", fontsize="medium")
    save(fig, args.out)


if __name__ == "__main__":
    run(main)
