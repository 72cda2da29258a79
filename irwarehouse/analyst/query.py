"""Running analyst SQL on a warehouse and writing the result (terminal table, CSV, JSON,
Parquet)."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import duckdb
import pyarrow as pa

from ..errors import IrwError, WarehouseError
from ..warehouse import connect
from .sqlguard import check_query

OUTPUT_FORMATS = ("table", "csv", "json", "parquet")
ANALYST_RELATIONS = frozenset({"run_family", "run_mean_ci", "topic_difficulty", "run_delta",
                               "run_delta_summary", "cross_campaign", "campaign_measure",
                               "t_quantile_975", "t_cornish_fisher"})

# Settings applied to a read-only analyst connection, then locked: the second wall behind
# the sqlguard checks (no file system or network access, no extension loading).
_LOCKDOWN = ("SET enable_external_access = false",
             "SET autoinstall_known_extensions = false",
             "SET autoload_known_extensions = false",
             "SET lock_configuration = true")


def open_guarded(path: str | Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to an existing warehouse that cannot reach files or network."""
    if not Path(path).exists():
        raise WarehouseError(f"no warehouse at {path} (create one with `irw init`)")
    con = connect(path, read_only=True, create=False)
    for statement in _LOCKDOWN:
        con.execute(statement)
    return con


def run_sql(path: str | Path, text: str, *, write: bool = False) -> pa.Table:
    """Run analyst SQL. Without `write`: one guarded read-only query on a locked connection.
    With `write`: the text as given (several statements allowed; the last one's result)."""
    if write:
        con = connect(path, create=False)
    else:
        check_query(text)
        con = open_guarded(path)
    try:
        try:
            relation = con.sql(text)
            if relation is None:                      # a statement without a result (--write)
                return pa.table({"ok": pa.array([True])})
            return relation.to_arrow_table()
        except duckdb.Error as exc:
            message = str(exc).splitlines()[0]
            missing = re.search(r"with name (\w+) does not exist", message)
            if missing and missing.group(1) in ANALYST_RELATIONS:
                message += (f" ({missing.group(1)} is an analyst view added after this "
                            "warehouse was made: run `irw init -w FILE` once)")
            raise IrwError(f"query failed: {message}") from None
    finally:
        con.close()


# -- output ------------------------------------------------------------------------------------
def _cell(value, width: int) -> str:
    if value is None:
        text = "NULL"
    elif isinstance(value, float):
        text = "nan" if math.isnan(value) else f"{value:.4f}"
    else:
        text = str(value)
    text = text.replace("\n", " ").replace("\t", " ")
    return text if len(text) <= width else text[:width - 1] + "…"


def table_text(table: pa.Table, *, max_rows: int = 40, max_width: int = 40) -> str:
    """An aligned text table: numbers right-aligned, long cells and extra rows truncated."""
    names = table.column_names
    shown = table.slice(0, max_rows).to_pylist()
    numeric = [pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
               or pa.types.is_decimal(f.type) for f in table.schema]
    cells = [[_cell(row[n], max_width) for n in names] for row in shown]
    widths = [max([len(n[:max_width])] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()
    out = [line([n[:max_width] for n in names]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    more = table.num_rows - len(shown)
    summary = f"({table.num_rows} row{'s' if table.num_rows != 1 else ''}"
    summary += f", {more} not shown; use --format csv or --max-rows)" if more > 0 else ")"
    out.append(summary)
    return "\n".join(out) + "\n"


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def write_result(table: pa.Table, fmt: str, *, out: Path | None = None, max_rows: int = 40,
                 stream=None) -> None:
    """Write a query result in `fmt`; parquet needs `out`; the others go to `out` or stdout."""
    stream = stream or sys.stdout
    if fmt not in OUTPUT_FORMATS:
        raise IrwError(f"unknown format {fmt!r}; use one of {', '.join(OUTPUT_FORMATS)}")
    if fmt == "parquet":
        if out is None:
            raise IrwError("--format parquet needs --out FILE")
        import pyarrow.parquet as pq
        pq.write_table(table, str(out))
        return
    if fmt == "table":
        text = table_text(table, max_rows=max_rows)
    elif fmt == "csv":
        import io

        import pyarrow.csv as pacsv
        buf = io.BytesIO()
        pacsv.write_csv(table, buf)
        text = buf.getvalue().decode("utf-8")
    else:
        rows = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                 for k, v in row.items()} for row in table.to_pylist()]
        text = json.dumps(rows, indent=1, default=_json_default) + "\n"
    if out is None:
        stream.write(text)
    else:
        Path(out).write_text(text, encoding="utf-8")
