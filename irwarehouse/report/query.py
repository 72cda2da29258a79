"""A report query: SQL with $parameters, bound when run and written in as literals when shown
(ready for `irw sql -f`), so every number of a report page can be reproduced. The pages
themselves are the workspace's (irwarehouse/serve/templates)."""

from __future__ import annotations

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


def absolute(path: str) -> str:
    """`path` made absolute (a report's commands are run from anywhere)."""
    return str(Path(path).resolve())


def shell_word(text: str) -> str:
    """`text` quoted for a POSIX shell when it needs it (a path with spaces)."""
    import shlex
    return shlex.quote(text)


# The warehouse as the live report page names it: a server never shows its file paths.
PLACEHOLDER = "WAREHOUSE"


def warehouse_word(warehouse: str) -> str:
    """The warehouse in a command shown: its absolute path, so that the command works from any
    folder (PLACEHOLDER as it is)."""
    return warehouse if warehouse == PLACEHOLDER else shell_word(absolute(warehouse))


def command(query: Query, warehouse: str) -> str:
    """The command that runs a saved query again: absolute paths (the warehouse's and the saved
    query's), so that it works from any folder."""
    where = query.saved or f"queries/{query.name}.sql"
    return f"irw sql -w {warehouse_word(warehouse)} -f {shell_word(str(where))}"
