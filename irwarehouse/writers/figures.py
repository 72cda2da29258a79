"""Figures on matplotlib's Agg canvas (no display, no pyplot), written as PNG and/or SVG: the
one figure helper of `irw report`, `irw meta report` and the `--plot` options. A figure saved
twice from the same data gives the same bytes (fixed SVG salt, no dates), so reports replay."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from ..errors import IrwError

FORMATS = (".png", ".svg")
DPI = 120


def new_figure(width: float = 6.4, height: float = 4.2):
    """An empty figure of `width` x `height` inches; add axes with fig.subplots()."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise IrwError("plots need matplotlib (pip install 'irwarehouse[plots]')") from None
    # the Agg canvas attached to this figure only: no pyplot, no display, and the backend of
    # the caller's session (a notebook, say) is left alone
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def check_path(path) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise IrwError(f"plot file must end in .png or .svg, got {path.name!r}")
    return path


def _write(fig, target, fmt: str) -> None:
    import matplotlib
    # no date in the metadata and a fixed salt for the SVG element ids: a re-run writes the
    # same file
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    _literal_texts(fig)
    with matplotlib.rc_context({"svg.hashsalt": "irwarehouse", "text.parse_math": False}):
        fig.savefig(target, format=fmt, metadata=metadata, dpi=DPI)


def _literal_texts(fig) -> None:
    """Every text of the figure shown as written: a run named `$$x$$` is not TeX for
    matplotlib's mathtext (which fails on it), and unsafe characters (right-to-left
    overrides, zero-width characters) are escaped. Texts made while drawing (tick labels)
    are covered by text.parse_math off in _write."""
    from matplotlib.text import Text

    from ..failures import escaped
    for text in fig.findobj(Text):
        text.set_parse_math(False)
        shown = escaped(text.get_text())
        if shown != text.get_text():
            text.set_text(shown)


def save(fig, path) -> None:
    """Write the figure to `path`, PNG or SVG by its suffix."""
    from ..outfiles import written
    path = check_path(path)
    with written(path) as tmp:
        _write(fig, tmp, path.suffix.lower()[1:])


def save_pair(fig, folder: Path, name: str) -> str:
    """Write folder/name.png and folder/name.svg; return the PNG as base64 (for inline HTML)."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(fig, folder / f"{name}.svg", "svg")
    buf = io.BytesIO()
    _write(fig, buf, "png")
    (folder / f"{name}.png").write_bytes(buf.getvalue())
    return base64.b64encode(buf.getvalue()).decode("ascii")
