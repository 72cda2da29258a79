"""Running analyst SQL on a warehouse and writing the result (terminal table, CSV, JSON,
Parquet)."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import duckdb
import pyarrow as pa

from ..errors import IrwError, WarehouseError
from ..store.connection import connect
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


@contextmanager
def query_stream(path: str | Path, text: str, *,
                 write: bool = False) -> Iterator[pa.RecordBatchReader]:
    """Run analyst SQL and yield its result as a stream of Arrow batches (the connection stays
    open while it is read). Without `write`: one guarded read-only query on a locked
    connection. With `write`: the text as given (several statements allowed; the last one's
    result)."""
    if write:
        con = connect(path, create=False)
    else:
        check_query(text)
        con = open_guarded(path)
    try:
        try:
            relation = con.sql(text)
            if relation is None:                      # a statement without a result (--write)
                done = pa.table({"ok": pa.array([True])})
                yield pa.RecordBatchReader.from_batches(done.schema, done.to_batches())
            else:
                yield relation.to_arrow_reader()
        except duckdb.Error as exc:
            raise IrwError(f"query failed: {_explain(exc)}") from None
    finally:
        con.close()


def _explain(exc: Exception) -> str:
    message = str(exc).splitlines()[0]
    missing = re.search(r"with name (\w+) does not exist", message)
    if missing and missing.group(1) in ANALYST_RELATIONS:
        message += (f" ({missing.group(1)} is an analyst view added after this "
                    "warehouse was made: run `irw init -w FILE` once)")
    return message


def run_sql(path: str | Path, text: str, *, write: bool = False) -> pa.Table:
    """`query_stream`, read into one Arrow table."""
    with query_stream(path, text, write=write) as reader:
        return reader.read_all()


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


def table_text(table: pa.Table, *, max_rows: int = 40, max_width: int = 40,
               total_rows: int | None = None) -> str:
    """An aligned text table: numbers right-aligned, long cells and extra rows truncated.
    `total_rows`: the size of the whole result when `table` holds only its first rows."""
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
    total = table.num_rows if total_rows is None else total_rows
    more = total - len(shown)
    summary = f"({total} row{'s' if total != 1 else ''}"
    summary += f", {more} not shown; use --format csv or --max-rows)" if more > 0 else ")"
    out.append(summary)
    return "\n".join(out) + "\n"


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def write_result(result: pa.Table | pa.RecordBatchReader, fmt: str, *,
                 out: Path | None = None, max_rows: int = 40, stream=None) -> None:
    """Write a query result in `fmt`, batch by batch (a large result is never held whole);
    parquet needs `out`; the others go to `out` or stdout."""
    if fmt not in OUTPUT_FORMATS:
        raise IrwError(f"unknown format {fmt!r}; use one of {', '.join(OUTPUT_FORMATS)}")
    if fmt == "parquet" and out is None:
        raise IrwError("--format parquet needs --out FILE")
    reader = (pa.RecordBatchReader.from_batches(result.schema, result.to_batches())
              if isinstance(result, pa.Table) else result)
    if fmt == "parquet":
        import pyarrow.parquet as pq
        with pq.ParquetWriter(str(out), reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
        return
    with (open(out, "w", encoding="utf-8") if out is not None
          else nullcontext(stream or sys.stdout)) as target:
        if fmt == "table":
            _write_table(reader, target, max_rows)
        elif fmt == "csv":
            _write_csv(reader, target)
        else:
            _write_json(reader, target)


def _write_table(reader: pa.RecordBatchReader, target, max_rows: int) -> None:
    head, kept, total = [], 0, 0
    for batch in reader:
        total += batch.num_rows
        if kept < max_rows:
            head.append(batch.slice(0, max_rows - kept))
            kept += head[-1].num_rows
    table = pa.Table.from_batches(head, schema=reader.schema)
    target.write(table_text(table, max_rows=max_rows, total_rows=total))


def _write_csv(reader: pa.RecordBatchReader, target) -> None:
    import io

    import pyarrow.csv as pacsv
    buf = io.BytesIO()
    with pacsv.CSVWriter(buf, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            target.write(buf.getvalue().decode("utf-8"))
            buf.seek(0)
            buf.truncate()
    target.write(buf.getvalue().decode("utf-8"))


def _write_json(reader: pa.RecordBatchReader, target) -> None:
    """A JSON array, one object per line; non-finite floats become null."""
    target.write("[")
    first = True
    for batch in reader:
        for row in batch.to_pylist():
            clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                     for k, v in row.items()}
            target.write(("\n" if first else ",\n") + json.dumps(clean, default=_json_default))
            first = False
    target.write("\n]\n")
