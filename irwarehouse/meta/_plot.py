"""Figures on matplotlib's Agg canvas (no display, no pyplot), PNG or SVG by the file suffix."""

from __future__ import annotations

from pathlib import Path

from ..errors import IrwError

FORMATS = (".png", ".svg")


def new_figure(size=(6.4, 4.2)):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is an optional extra
        raise IrwError("plots need matplotlib (pip install 'irwarehouse[plots]')") from exc
    # the Agg canvas attached to this figure only: no pyplot, no display, and the backend of
    # the caller's session (a notebook, say) is left alone
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def check_path(path) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise IrwError(f"plot file must end in .png or .svg, got {path.name!r}")
    return path


def save(fig, path) -> None:
    path = check_path(path)
    # SVG metadata without a date, so that a re-run writes the same file.
    metadata = {"Date": None} if path.suffix.lower() == ".svg" else {"Software": None}
    import matplotlib
    # a fixed salt makes the SVG element ids, and so the file, the same on every run
    with matplotlib.rc_context({"svg.hashsalt": "irwarehouse"}):
        fig.savefig(path, format=path.suffix.lower()[1:], metadata=metadata, dpi=120)
