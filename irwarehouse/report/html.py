"""The parts every HTML report section is made of: a query shown beside the numbers it gives
(with its parameters written in as literals, ready for `irw sql -f`), tables, figures and the
page around them."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path


def sql_literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(sql_literal(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class Query:
    """A report query: SQL with $parameters (bound when run, written in when shown)."""
    name: str
    sql: str
    params: dict = field(default_factory=dict)
    saved: Path | None = None       # the absolute path save() wrote, for the shown command

    def shown(self) -> str:
        text = re.sub(r"\$(\w+)", lambda m: sql_literal(self.params[m.group(1)]), self.sql)
        return "\n".join(line[8:] if line.startswith(" " * 8) else line
                         for line in text.strip("\n").splitlines()) + ";\n"

    def rows(self, con) -> list[dict]:
        used = {k: v for k, v in self.params.items() if f"${k}" in self.sql}
        return con.sql(self.sql, params=used).to_arrow_table().to_pylist()

    def save(self, folder) -> None:
        """Write folder/<name>.sql, the query as shown."""
        folder.mkdir(parents=True, exist_ok=True)
        self.saved = (Path(folder) / f"{self.name}.sql").resolve()
        self.saved.write_text(self.shown(), encoding="utf-8")


CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
details{margin:.3em 0 1em}summary{cursor:pointer;color:#1f5fa8}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
img{max-width:100%;border:1px solid #eee}.sig{font-weight:bold;color:#2a7f3f}
.wide{overflow-x:auto}table.pairs{font-size:.72em}table.pairs td,table.pairs th{padding:.1em .3em}
table.pairs sup{font-size:.8em}
.meta td{text-align:left}
"""


def num(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return html.escape(str(value))


def sql_block(query: Query, warehouse: str) -> str:
    """The query in a collapsed block, with the command that runs it again: absolute paths
    (the warehouse's and the saved query's), so that it works from any folder."""
    where = query.saved or f"queries/{query.name}.sql"
    return (f"<details><summary>SQL that reproduces these numbers (queries/{query.name}.sql; "
            f"<code>irw sql -w {html.escape(shell_word(absolute(warehouse)))} -f "
            f"{html.escape(shell_word(str(where)))}</code>)"
            f"</summary><pre>{html.escape(query.shown())}</pre></details>")


def absolute(path: str) -> str:
    """`path` made absolute (a report's commands are run from anywhere)."""
    return str(Path(path).resolve())


def shell_word(text: str) -> str:
    """`text` quoted for a POSIX shell when it needs it (a path with spaces)."""
    import shlex
    return shlex.quote(text)


def table(rows: list[dict], columns: list[str], left: tuple[str, ...] = ("run", "team",
          "measure", "topic"), highlight: str | None = None) -> str:
    head = "".join(f"<th class={'l' if c in left else 'r'}>{html.escape(c)}</th>"
                   for c in columns)
    body = []
    for row in rows:
        cls = ' class="sig"' if highlight and row.get(highlight) else ""
        body.append(f"<tr{cls}>" + "".join(
            f"<td class={'l' if c in left else 'r'}>{num(row.get(c))}</td>" for c in columns)
            + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def python_block(text: str) -> str:
    return (f"<details><summary>How these numbers were computed</summary>"
            f"<pre>{html.escape(text)}</pre></details>")


def section(title: str, intro: str, *blocks: str) -> str:
    return "\n".join([f"<h2>{title}</h2>", f"<p>{intro}</p>", *blocks])


def img(b64: str, alt: str, name: str) -> str:
    return (f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'
            f"<p>Files: figures/{name}.png, figures/{name}.svg</p>")


def page(title: str, heading: str, facts: dict[str, str], sections: list[str]) -> str:
    """A self-contained page: `facts` (already escaped) as a two-column table under the
    heading, then the sections; unsafe characters of names or values (right-to-left
    overrides, zero-width characters: failures.unsafe) shown escaped, not obeyed."""
    from ..failures import escaped
    rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in facts.items())
    return escaped("\n".join([
        (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
         f"</title><style>{CSS}</style></head><body>"),
        f"<h1>{html.escape(heading)}</h1>",
        f"<table class=meta>{rows}</table>",
        *sections,
        "</body></html>",
    ]), keep="\n\t\r")
