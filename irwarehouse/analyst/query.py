"""Running analyst SQL on a warehouse and writing the result (terminal table, CSV, JSON,
Parquet)."""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

import duckdb
import pyarrow as pa

from ..errors import IrwError, StorageError, WarehouseError
from ..failures import clean, first_line
from ..outfiles import written
from ..store import digests
from ..store.connection import connect
from .limits import (
    DEFAULT_TIMEOUT,
    MEMORY_SHARE,
    Deadline,
    address_space,
    check_timeout,
    memory_limit,
    spill_folder,
)
from .sqlguard import QueryRefused, check_query

__all__ = ["DEFAULT_TIMEOUT", "MEMORY_SHARE", "memory_limit", "query_stream", "run_sql",
           "write_result"]

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



def open_guarded(path: str | Path, *, memory: str | None = None,
                 spill: str | None = None, wait: float | None = None
                 ) -> duckdb.DuckDBPyConnection:
    """A read-only connection to an existing warehouse that cannot reach files or network,
    with a memory limit (memory_limit(memory)) and, given a `spill` folder, DuckDB's temporary
    files there, at most as large as the memory limit (limits.spill_folder). `wait`: seconds
    to wait for a file another process holds (store.locking's default when None)."""
    if not Path(path).exists():
        raise WarehouseError(f"no warehouse at {path} (create one with `irw init`)")
    limit = memory_limit(memory)
    con = connect(path, read_only=True, create=False, wait=wait)
    con.execute(f"SET memory_limit = '{limit}'")       # validated by memory_limit
    if spill is not None:
        con.execute(f"SET temp_directory = '{spill.replace(chr(39), chr(39) * 2)}'")
        con.execute(f"SET max_temp_directory_size = '{limit}'")
    for statement in _LOCKDOWN:
        con.execute(statement)
    return con


@contextmanager
def query_stream(path: str | Path, text: str, *, write: bool = False,
                 timeout: float | None = DEFAULT_TIMEOUT, memory: str | None = None,
                 hard_limit: bool = False) -> Iterator[pa.RecordBatchReader]:
    """Run analyst SQL and yield its result as a stream of Arrow batches (the connection stays
    open while it is read; nothing is counted or held whole first). Without `write`: one
    guarded read-only query on a locked connection with a memory limit (`memory`, see
    memory_limit), spilling into a temporary folder of its own (analyst.limits); with
    `hard_limit` (the `irw` process, never a host's), the process's address space capped as
    well while it runs. With `write`: the text as given (several statements allowed; the last
    one's result; the digests of the tables it changed are then recorded, store.digests). The
    query, the guard's checks and the reading of its result are stopped after `timeout`
    seconds."""
    started = time.monotonic()
    text, timeout = trimmed(text), check_timeout(timeout)
    with ExitStack() as stack:
        if write:
            con = connect(path, create=False)
            before = digests.snapshot(con)
        else:
            try:
                check_query(text)
            except QueryRefused as exc:
                raise QueryRefused(f"{exc}{_separator_hint(text)}") from None
            con = open_guarded(path, memory=memory, spill=stack.enter_context(spill_folder()))
            before = None
        try:
            deadline = Deadline(con, timeout, started)
        except IrwError:
            con.close()
            raise
        try:
            with _capped(hard_limit and not write, memory):
                yield from _results(con, text, deadline, memory)
        finally:
            deadline.cancel()
            try:
                if before is not None:
                    digests.record_changes(con, before)
            finally:
                con.close()


def guarded_reader(con, text: str, deadline: Deadline,
                   memory: str | None = None) -> Iterator[pa.RecordBatchReader]:
    """One guarded read-only query on a connection locked down by open_guarded (or a cursor of
    one: `irw serve`'s console), its result reader (one yield), its errors in words; the
    caller's `deadline` interrupts it."""
    text = trimmed(text)
    try:
        check_query(text)
    except QueryRefused as exc:
        raise QueryRefused(f"{exc}{_separator_hint(text)}") from None
    if deadline.expired:            # while the guard planned it
        raise deadline.error()
    yield from _results(con, text, deadline, memory)


def _capped(on: bool, memory: str | None):
    """limits.address_space for the query (its output writers imported first: a module's
    code is mapped too)."""
    if not on:
        return nullcontext()
    import pyarrow.csv  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    return address_space(memory_limit(memory))


def _results(con, text: str, deadline: Deadline, memory: str | None):
    """The query's result reader (one yield), its errors in words."""
    try:
        relation = con.sql(text)
        if relation is None:                      # a statement without a result (--write)
            done = pa.table({"ok": pa.array([True])})
            yield pa.RecordBatchReader.from_batches(done.schema, done.to_batches())
        else:
            yield relation.to_arrow_reader()
    except (duckdb.Error, pa.ArrowException, OSError, MemoryError) as exc:
        if deadline.expired:        # (the output file, if any, was removed: outfiles)
            raise deadline.error() from None
        if isinstance(exc, OSError):
            raise                   # writing the output failed: failures.describe names it
        if "No space left on device" in str(exc):
            raise StorageError(f"disk full: the query's temporary files ({tempfile.gettempdir()}"
                               f"): {_explain(exc)}") from None
        if isinstance(exc, (duckdb.OutOfMemoryException, MemoryError)):
            limit = memory_limit(memory)
            raise IrwError(f"query needs more memory than its limit ({limit} of memory and "
                           f"{limit} of temporary files; --memory-limit): "
                           f"{_explain(exc) if str(exc) else 'out of memory'}") from None
        if isinstance(exc, duckdb.InterruptException):
            raise
        hint = _separator_hint(text) if isinstance(exc, duckdb.ParserException) else ""
        raise IrwError(f"query failed: {_explain(exc)}{hint}") from None


def trimmed(text: str) -> str:
    """The query without the spaces around it, Unicode ones and a byte-order mark included
    (SQL copied from a web page may begin with a no-break space or U+2028)."""
    return text.strip().lstrip("\ufeff").strip()


def _separator_hint(text: str) -> str:
    """Why a query that fails to parse may fail: a Unicode line separator between its words,
    which DuckDB reads as neither space nor line break (inside a string it is fine)."""
    for ch in ("\u2028", "\u2029", "\x85"):
        if ch in text:
            return (f" (the query holds U+{ord(ch):04X}, a line separator DuckDB does not "
                    "read as one, as SQL copied from a web page may: replace it with a line "
                    "break)")
    return ""


def _explain(exc: Exception) -> str:
    message = first_line(str(exc))
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
    return clean(text, width)


def table_text(table: pa.Table, *, max_rows: int = 40, max_width: int = 40,
               total_rows: int | None = None, complete: bool = True) -> str:
    """An aligned text table: numbers right-aligned, long cells and extra rows truncated.
    `total_rows`: the size of the whole result when `table` holds only its first rows;
    `complete=False`: the result was read only as far as needed, so its size is not known.
    Columns are read by position, so that two columns of one name (`r.name, c.name`) both
    show, headed by that name as DuckDB's own client shows them."""
    names = table.column_names
    head = table.slice(0, max_rows)
    columns = [head.column(i).to_pylist() for i in range(head.num_columns)]
    shown = list(zip(*columns)) if columns else [()] * head.num_rows
    numeric = [pa.types.is_integer(f.type) or pa.types.is_floating(f.type)
               or pa.types.is_decimal(f.type) for f in table.schema]
    cells = [[_cell(value, max_width) for value in row] for row in shown]
    widths = [max([len(n[:max_width])] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()
    out = [line([n[:max_width] for n in names]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    if not complete:
        summary = f"(first {len(shown)} rows; more not counted: use --format csv or --max-rows)"
    else:
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


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique as DuckDB makes them (a subquery's columns, COPY ... TO a
    file): a repeated name gets `_1`, `_2`, ... (case-insensitively, skipping names already
    given): `name, name` -> `name, name_1`."""
    seen: set[str] = set()
    counters: dict[str, int] = {}
    out = []
    for name in names:
        key = name.lower()
        if key not in seen:
            seen.add(key)
            out.append(name)
            continue
        k = counters.get(key, 1)
        while f"{key}_{k}" in seen:
            k += 1
        counters[key] = k + 1
        seen.add(f"{key}_{k}")
        out.append(f"{name}_{k}")
    return out


def _renamed(reader: pa.RecordBatchReader, fmt: str, note) -> pa.RecordBatchReader:
    """The result with unique column names for the formats whose records are keyed by name
    (json, csv, parquet): two columns of one name would lose one (a JSON object keeps the last
    key) or make a file other tools misread. The table format keeps the names as DuckDB's
    client does. `note(text)` is told which names changed."""
    names = reader.schema.names
    if fmt == "table" or len({n.lower() for n in names}) == len(names):
        return reader
    new = unique_names(names)
    changed = ", ".join(f"{old} -> {n}" for old, n in zip(names, new) if old != n)
    note(f"irw: note: duplicate column names renamed as DuckDB does for files ({changed}); "
         "give them aliases (AS) to choose the names")
    schema = pa.schema([f.with_name(n) for f, n in zip(reader.schema, new)],
                       metadata=reader.schema.metadata)
    return pa.RecordBatchReader.from_batches(
        schema, (pa.RecordBatch.from_arrays(b.columns, schema=schema) for b in reader))


def _stderr_note(text: str) -> None:
    sys.stderr.write(text + "\n")


def write_result(result: pa.Table | pa.RecordBatchReader, fmt: str, *,
                 out: Path | None = None, max_rows: int = 40, stream=None,
                 note=_stderr_note) -> None:
    """Write a query result in `fmt`, batch by batch (a large result is never held whole);
    parquet needs `out`; the others go to `out` or stdout. Duplicate column names stay in the
    table format and are made unique (`name`, `name_1`) in the others, with a `note`."""
    if fmt not in OUTPUT_FORMATS:
        raise IrwError(f"unknown format {fmt!r}; use one of {', '.join(OUTPUT_FORMATS)}")
    if fmt == "parquet" and out is None:
        raise IrwError("--format parquet needs --out FILE")
    reader = (pa.RecordBatchReader.from_batches(result.schema, result.to_batches())
              if isinstance(result, pa.Table) else result)
    reader = _renamed(reader, fmt, note)
    if out is None:
        _write_text(reader, fmt, stream or sys.stdout, max_rows)
        return
    with written(out) as tmp:       # complete or absent: never a truncated file
        if fmt == "parquet":
            from .tables import batch_writer
            with batch_writer("parquet", tmp, reader.schema) as writer:
                for batch in reader:
                    writer.write_batch(batch)
        else:
            with open(tmp, "w", encoding="utf-8") as target:
                _write_text(reader, fmt, target, max_rows)


def _write_text(reader: pa.RecordBatchReader, fmt: str, target, max_rows: int) -> None:
    if fmt == "table":
        _write_table(reader, target, max_rows)
    elif fmt == "csv":
        _write_csv(reader, target)
    else:
        _write_json(reader, target)


def _write_table(reader: pa.RecordBatchReader, target, max_rows: int) -> None:
    """The first `max_rows` rows as a table; the rest of the result is not read (a query of
    10^12 rows prints at once): the summary says that more rows exist, not how many."""
    head, kept = [], 0
    for batch in reader:
        head.append(batch.slice(0, max_rows + 1 - kept))
        kept += head[-1].num_rows
        if kept > max_rows:
            break
    table = pa.Table.from_batches(head, schema=reader.schema)
    target.write(table_text(table, max_rows=max_rows, complete=kept <= max_rows))


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
