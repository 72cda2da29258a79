"""What a report section holds, as data: a title, an introduction (plain text) and its blocks
(tables, figures, the SQL behind them, notes). The workspace renders them (serve.pages.report_page,
template serve/templates/report.html), live under `irw serve` (/report) and written to files by
`irw report` (serve.snapshot): one rendering path, no HTML here."""

from __future__ import annotations

from dataclasses import dataclass, field

from .query import Query, command


@dataclass
class Section:
    title: str
    intro: str
    blocks: list[dict] = field(default_factory=list)


def table(name: str, rows: list[dict], columns: list[str], *, links: tuple[str, ...] = (),
          highlight: str | None = None) -> dict:
    """A table, shown as every workspace table (serve.tables.Table: 4 decimals, the full value
    on hover, downloads); `links`: the columns ("run", "topic") that link to their pages; rows
    whose `highlight` column is true are marked significant."""
    return {"table": {"name": name, "columns": columns, "rows": rows, "links": links,
                      "marked": [i for i, r in enumerate(rows) if highlight and r.get(highlight)]}}


def figure(b64: str, alt: str, name: str) -> dict:
    """A matplotlib figure (report/plots.py), inline as PNG; its files figures/NAME.png|svg."""
    return {"figure": b64, "alt": alt, "file": name}


def sql(query: Query, warehouse: str) -> dict:
    return {"sql": query.shown(), "name": query.name, "command": command(query, warehouse)}


def how(text: str) -> dict:
    return {"how": text}


def note(text: str) -> dict:
    return {"note": text}


def text(label: str, body: str) -> dict:
    """A text shown as written (a run's ir_metadata YAML), collapsed under `label`."""
    return {"text": body, "label": label}
