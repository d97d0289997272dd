"""Shared helpers of the plot scripts in analysis/plots/ (not a command itself).

The scripts read only the layout documented in docs/hdf5.md, docs/sweeps.md and docs/traces-and-plots.md.
Every problem with the input is reported as one line, `<script>: error: <what> (<how to fix>)`, with exit
code 2, never as a traceback.
"""

import argparse
import importlib.util
import os
import sys
import unicodedata


def _missing(modules, packages):
    # Another python3 first on PATH (a pyenv, a venv) does not see Debian's packages: say which one ran.
    verb = "is" if len(modules) == 1 else "are"
    sys.stderr.write(
        f"{os.path.basename(sys.argv[0])}: error: {' and '.join(modules)} {verb} not importable by "
        f"{sys.executable} (apt-get install {' '.join(packages)}, and run the script with /usr/bin/python3)\n"
    )
    sys.exit(2)


# Both checked before either is used, so that one line names everything missing.
_needed = [("matplotlib", "python3-matplotlib"), ("h5py", "python3-h5py")]
_absent = [(module, package) for module, package in _needed if importlib.util.find_spec(module) is None]
if _absent:
    _missing([m for m, _ in _absent], [p for _, p in _absent])

# Headless by construction: the scripts run in tests and on machines without a display.
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after use("Agg"))
import matplotlib.text  # noqa: E402
import numpy as np  # noqa: E402
import h5py  # noqa: E402


def _invisible(char):
    """Whether a terminal shows `char` (not ASCII) as nothing or a blank: a control, format or separator
    character (the C1 controls, U+00A0, U+200B, U+202E, U+FEFF, ...), as spatialsim's one_line decides."""
    return ord(char) > 0x7F and unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Zs")


def printable(text):
    """`text` as UTF-8 can carry it and a reader can see it, as spatialsim shows it: a file name's bytes that
    are not UTF-8 (which Python keeps as lone surrogates) as \\xNN, invisible characters as \\uNNNN.
    Drawn text, PNG metadata and terminal lines take this."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(_code_point(char) if _invisible(char) else char for char in text)


def _code_point(char):
    """\\uNNNN, or \\UNNNNNNNN past U+FFFF (not unicode_escape's \\xNN below U+0100: that is a byte)."""
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


def one_line(text):
    """`text` for one line of a terminal, as spatialsim's sim::one_line makes it: printable(), with line
    breaks as spaces and the other control characters (an ESC in a file name) as \\xNN."""
    return "".join(" " if char in "\n\r" else f"\\x{ord(char):02x}" if ord(char) < 0x20 or ord(char) == 0x7F
                   else char for char in printable(text))


def fail(message):
    """Exits with one line on stderr and code 2 (bad input), like spatialsim itself."""
    sys.stderr.write(one_line(f"{os.path.basename(sys.argv[0])}: error: {message}") + "\n")
    sys.exit(2)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose errors are one line through fail() (argparse prints its usage first)."""

    def __init__(self, description):
        super().__init__(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)

    def error(self, message):
        fail(f"{message} (--help lists the options)")


_opened = []  # the input files opened, for run()'s message
_out = None  # --out, once check_out() has passed it: no input may be the same file


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_out_as_input(path):
    if _out is not None and _same_file(_out, path):
        fail(f"--out {_out}: is the input file {path} (give another name)")


def open_file(path):
    _opened.append(path)
    _refuse_out_as_input(path)
    if os.path.isdir(path):
        fail(f"{path}: is a directory; give an HDF5 file spatialsim wrote")
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        fail(f"{path}: not an HDF5 file ({e})")


def table(group):
    """A table (docs/hdf5.md "Tables") as a dict of numpy arrays; string columns as str arrays."""
    if "columns" not in group.attrs:
        fail(f"{group.file.filename}: {group.name} has no attribute columns: not a table spatialsim wrote "
             "(docs/hdf5.md)")
    out = {}
    for name in group.attrs["columns"]:
        name = name.decode() if isinstance(name, bytes) else str(name)
        if name not in group:
            fail(f"{group.file.filename}: {group.name} lists column {name} but has no such dataset: the file "
                 "is incomplete (docs/hdf5.md)")
        d = group[name]
        out[name] = d.asstr()[:] if d.dtype.kind in "SO" else d[:]
    return out


def schedules(f, path, wanted=None):
    """The schedules of a results file, in run order, optionally only those listed in `wanted`."""
    if "runs/schedules" not in f:
        fail(f"{path} has no /runs/schedules: not a results file of `spatialsim run` (docs/hdf5.md)")
    names = list(f["/runs/schedules"].asstr()[:])
    if not names:
        fail(f"{path}: /runs/schedules is empty: the file holds no run (docs/hdf5.md)")
    if wanted:
        if any(not s for s in wanted):
            fail(f"--schedule: an empty schedule name; {path} holds {', '.join(names)}")
        missing = [s for s in wanted if s not in names]
        if missing:
            fail(f"{path} has no run of {', '.join(missing)}; it holds {', '.join(names)}")
        names = [s for s in names if s in wanted]
    return names


def run(main):
    """Runs a script's main(): an object or attribute that the documented layout has and the file lacks
    (a KeyError raised inside h5py) is one line naming it, exit code 2, not a traceback. A KeyError from the
    script's own code is a bug, and keeps its traceback."""
    try:
        main()
    except KeyError as e:
        frame = e.__traceback__
        while frame.tb_next is not None:
            frame = frame.tb_next
        if "h5py" not in frame.tb_frame.f_code.co_filename:
            raise
        where = f"{_opened[-1]}: " if _opened else ""
        what = e.args[0] if e.args else e
        fail(f"{where}{what}: the file lacks what the plot reads (not a complete file of spatialsim; "
             "docs/hdf5.md)")


def check_out(out):
    """Checks --out before anything is read or drawn: a file name ending in .png (no other format, no
    extension added), not a directory, in a directory that exists. Bad input: fail()."""
    if out.endswith(os.sep) or os.path.isdir(out):
        fail(f"--out {out}: is a directory (give a file name ending in .png)")
    if os.path.splitext(out)[1].lower() != ".png":
        fail(f"--out {out}: not a .png name (the plots write PNG only: give a file name ending in .png)")
    directory = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(directory):
        fail(f"--out {out}: directory {directory} does not exist (create it first)")
    global _out
    _out = out
    for path in _opened:
        _refuse_out_as_input(path)


def _describe(fig):
    """The figure's words, one per line: panel titles (a title of several lines on one), legend entries
    and notes (a note of several lines is several notes); not tick labels."""
    lines = []
    for ax in fig.axes:
        if ax.get_title().strip():
            lines.append(" ".join(ax.get_title().split("\n")))
        lines += [t.get_text() for t in ax.texts if t.get_visible() and t.get_text().strip()]
        legend = ax.get_legend()
        if legend is not None:
            lines += [t.get_text() for t in legend.get_texts() if t.get_text().strip()]
    lines += [t.get_text() for t in fig.texts if t.get_visible() and t.get_text().strip()]
    return "\n".join(lines)


def save(fig, out):
    """Writes the figure as PNG to `out` (checked by check_out), complete or not at all.

    The PNG is drawn into `<out>.tmp-<pid>` beside it and renamed when complete, so a failure (a directory
    without write permission, a full disk) leaves neither `out` nor the temporary file; it is reported by
    fail(), one line, exit code 2. The PNG's metadata `Title` is the figure's title and `Description` its
    panel titles, legend entries and notes, one per line (the tests read them)."""
    check_out(out)
    for text in fig.findobj(matplotlib.text.Text):  # a file name in a title: no glyph for a lone surrogate
        text.set_text(printable(text.get_text()))
    suptitle = getattr(fig, "_suptitle", None)  # Figure.get_suptitle() is matplotlib 3.8
    title = suptitle.get_text() if suptitle is not None else ""
    if not title and fig.axes:
        title = fig.axes[0].get_title()
    metadata = {"Title": title.replace("\n", " "), "Description": _describe(fig)}
    # Through a link to its target, as spatialsim writes its outputs: renaming onto the link replaced it.
    target = os.path.realpath(out) if os.path.islink(out) else out
    temporary = f"{target}.tmp-{os.getpid()}"
    try:
        fig.savefig(temporary, format="png", dpi=110, bbox_inches="tight", metadata=metadata)
        os.replace(temporary, target)
    except OSError as e:
        fail(f"--out {out}: cannot write ({e.strerror or e})")
    finally:
        plt.close(fig)
        if os.path.lexists(temporary):
            os.remove(temporary)
    print(one_line(f"wrote {out}"))


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


__all__ = ["plt", "np", "h5py", "fail", "printable", "ArgumentParser", "open_file", "table", "schedules", "run",
           "check_out", "save", "human_bytes_formatter"]
