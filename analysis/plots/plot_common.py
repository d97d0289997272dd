"""Shared helpers of the plot scripts in analysis/plots/ (not a command itself).

The scripts read only the layout documented in docs/hdf5.md, docs/sweeps.md and docs/traces-and-plots.md.
Every problem with the input is reported as one line, `<script>: error: <what> (<how to fix>)`, with exit
code 2, never as a traceback.
"""

import os
import sys


def _missing(module, package):
    # Another python3 first on PATH (a pyenv, a venv) does not see Debian's packages: say which one ran.
    sys.stderr.write(
        f"{os.path.basename(sys.argv[0])}: error: {module} is not importable by {sys.executable} "
        f"(apt-get install {package}, and run the script with /usr/bin/python3)\n"
    )
    sys.exit(2)


# Headless by construction: the scripts run in tests and on machines without a display.
try:
    import matplotlib
except ImportError:
    _missing("matplotlib", "python3-matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after use("Agg"))
import numpy as np  # noqa: E402

try:
    import h5py  # noqa: E402
except ImportError:
    _missing("h5py", "python3-h5py")


def fail(message):
    """Exits with one line on stderr and code 2 (bad input), like spatialsim itself."""
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: error: {message}\n")
    sys.exit(2)


def open_file(path):
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        fail(f"{path}: not an HDF5 file ({e})")


def table(group):
    """A table (docs/hdf5.md "Tables") as a dict of numpy arrays; string columns as str arrays."""
    out = {}
    for name in group.attrs["columns"]:
        d = group[name]
        out[name] = d.asstr()[:] if d.dtype.kind in "SO" else d[:]
    return out


def schedules(f, path, wanted=None):
    """The schedules of a results file, in run order, optionally only those listed in `wanted`."""
    if "runs/schedules" not in f:
        fail(f"{path} has no /runs/schedules: not a results file of `spatialsim run` (docs/hdf5.md)")
    names = list(f["/runs/schedules"].asstr()[:])
    if wanted:
        missing = [s for s in wanted if s not in names]
        if missing:
            fail(f"{path} has no run of {', '.join(missing)}; it holds {', '.join(names)}")
        names = [s for s in names if s in wanted]
    return names


def save(fig, out):
    """Writes the figure as PNG; the directory must exist."""
    directory = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(directory):
        fail(f"--out {out}: directory {directory} does not exist")
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {out}")


def human_bytes_formatter():
    """Tick labels such as 1.5 MB for byte axes."""
    import matplotlib.ticker as ticker

    def fmt(x, _pos):
        for unit in ("B", "kB", "MB", "GB", "TB"):
            if abs(x) < 1000 or unit == "TB":
                return f"{x:.0f} {unit}" if unit == "B" else f"{x:.3g} {unit}"
            x /= 1000.0
        return str(x)

    return ticker.FuncFormatter(fmt)


__all__ = ["plt", "np", "h5py", "fail", "open_file", "table", "schedules", "save", "human_bytes_formatter"]
