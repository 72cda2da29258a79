"""Readers of TREC-style whitespace-separated files (runs, qrels) into DuckDB staging tables.

The fast path lets DuckDB read and split the file (parallel, gzip-aware). When it finds any bad
row, `locate_error` re-reads the file line by line in Python to name the first bad line, so every
error message gives file and line however the fast path failed.
"""

from __future__ import annotations

import gzip
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import InputError

# Columns of each format: name, minimum field count, whether extra trailing fields are allowed.
# trec_eval accepts junk after the 6th field of a run line (its test file results.trunc).
RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
QRELS_FIELDS = ("topic", "iteration", "doc", "rel")
NTCIR_QRELS_FIELDS = ("topic", "doc", "rel")


@dataclass(frozen=True)
class FileFormat:
    name: str
    fields: tuple[str, ...]
    extra_fields_ok: bool


FORMATS = {
    "run": FileFormat("run", RUN_FIELDS, True),
    "qrels": FileFormat("qrels", QRELS_FIELDS, False),
    "ntcir_qrels": FileFormat("ntcir_qrels", NTCIR_QRELS_FIELDS, False),
    "diversity": FileFormat("diversity", QRELS_FIELDS, False),
}


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _open_text(path: Path):
    """The file's bytes, gunzipped when it starts with the gzip magic. (gzip.open on an open
    file object would not close that file: the descriptor leaked on every gzipped input.)"""
    with open(path, "rb") as raw:
        head = raw.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


def check_readable(path: Path) -> None:
    if not path.exists():
        raise InputError(path, None, "no such file")
    if not path.is_file():
        raise InputError(path, None, "not a file")
    try:
        with _open_text(path) as f:
            first = f.read(1)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if not first:
        raise InputError(path, None, "empty file")


def _is_skipped(text: str) -> bool:
    """Blank lines, `#` comments and NTCIR's `<SYSDESC>...</SYSDESC>` run description line."""
    stripped = text.strip()
    return not stripped or stripped.startswith(("#", "<SYSDESC>"))


def _check_number(value: str, what: str, integer: bool) -> str | None:
    try:
        number = float(value)
    except ValueError:
        return f"{what} {value!r} is not a number"
    if not math.isfinite(number):
        return f"{what} {value!r} is not finite"
    if integer and not _is_integer_text(value):
        return f"{what} {value!r} is not an integer level"
    return None


def _is_integer_text(value: str) -> bool:
    text = value.lstrip("+-")
    return text.isdigit()


def _line_problem(fields: list[str], fmt: FileFormat) -> str | None:
    n = len(fmt.fields)
    if len(fields) < n or (len(fields) > n and not fmt.extra_fields_ok):
        return f"expected {n} fields ({' '.join(fmt.fields)}), found {len(fields)}"
    if fmt.name == "run":
        return (_check_number(fields[4], "score", False)
                or _check_number(fields[3], "rank", True))
    level = fields[-1]
    if fmt.name in ("ntcir_qrels", "diversity") and level[:1] == "L" and level[1:].isdigit():
        return None
    return _check_number(level, "relevance level", True)


def locate_error(path: Path, fmt: FileFormat, *, duplicates: bool = True) -> InputError:
    """Re-read the file in Python and return the error of the first bad line."""
    seen: dict[tuple[str, str], int] = {}
    key_cols = {"run": (0, 2), "qrels": (0, 2), "diversity": (0, 1, 2)}.get(fmt.name, (0, 1))
    with _open_text(path) as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                return InputError(path, lineno, "not valid UTF-8")
            if _is_skipped(text):
                continue
            fields = text.split()
            problem = _line_problem(fields, fmt)
            if problem:
                return InputError(path, lineno, problem)
            if duplicates:
                key = tuple(fields[c] for c in key_cols)
                if key in seen:
                    return InputError(path, lineno, f"document {key[-1]!r} appears twice for topic "
                                      f"{key[0]!r} (first at line {seen[key]})")
                seen[key] = lineno
    return InputError(path, None, "unreadable content")


def _stage_lines(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> None:
    """Stage the non-blank, non-comment lines of a file as arrays of fields, in file order
    (the staging table's rowid is the position in the file)."""
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE {table} AS
        SELECT string_split_regex(trim(line), '\\s+') AS f
        FROM read_csv($path, columns = {{'line': 'VARCHAR'}}, delim = '\\x01', quote = '',
                      escape = '', header = false, auto_detect = false, strict_mode = false,
                      null_padding = false, compression = 'auto')
        WHERE trim(line) <> '' AND NOT starts_with(ltrim(line), '#')
          AND NOT starts_with(ltrim(line), '<SYSDESC>')""", {"path": str(path)})


def stage_run(con: duckdb.DuckDBPyConnection, path: Path, *, keep_first: bool = False) -> str:
    """Parse a TREC run into TEMP table stage_run(topic, doc, score, rank, file_order, tag);
    returns the run tag (of the last line, as trec_eval reports it)."""
    path = Path(path)
    check_readable(path)
    fmt = FORMATS["run"]
    try:
        _stage_lines(con, path, "stage_lines")
        con.execute("""
            CREATE OR REPLACE TEMP TABLE stage_run AS
            SELECT f[1] AS topic, f[3] AS doc, TRY_CAST(f[5] AS DOUBLE) AS score,
                   TRY_CAST(f[4] AS BIGINT) AS rank, rowid AS file_order, f[6] AS tag,
                   len(f) AS nf
            FROM stage_lines""")
        bad = con.execute("""
            SELECT count(*) FROM stage_run
            WHERE nf < 6 OR score IS NULL OR NOT isfinite(score) OR rank IS NULL""").fetchone()[0]
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    if bad:
        raise locate_error(path, fmt, duplicates=False)
    if con.execute("SELECT count(*) FROM stage_run").fetchone()[0] == 0:
        raise InputError(path, None, "no run lines (empty file)")
    dup = con.execute("""
        SELECT count(*) FROM (SELECT topic, doc FROM stage_run GROUP BY topic, doc
                              HAVING count(*) > 1)""").fetchone()[0]
    if dup and not keep_first:
        raise locate_error(path, fmt)
    if dup:
        con.execute("""
            CREATE OR REPLACE TEMP TABLE stage_run AS
            SELECT * FROM stage_run
            QUALIFY row_number() OVER (PARTITION BY topic, doc ORDER BY file_order) = 1""")
    return con.execute("SELECT tag FROM stage_run ORDER BY file_order DESC LIMIT 1").fetchone()[0]


def stage_qrels(con: duckdb.DuckDBPyConnection, path: Path, *, fmt_name: str = "qrels") -> int:
    """Parse qrels into TEMP table stage_qrels(topic, intent, doc, rel). Formats: `qrels`
    (topic iteration doc rel; the iteration is ignored), `diversity` (topic subtopic doc rel;
    rel may be NTCIREVAL's Lx, as in a Dqrels file),
    `ntcir_qrels` (topic doc Lx). Returns the number of judgments."""
    path = Path(path)
    check_readable(path)
    fmt = FORMATS[fmt_name]
    if fmt_name == "ntcir_qrels":
        select = """f[1] AS topic, '' AS intent, f[2] AS doc,
                    TRY_CAST(CASE WHEN f[3] SIMILAR TO 'L[0-9]+' THEN substr(f[3], 2) ELSE f[3] END
                             AS INTEGER) AS rel, len(f) AS nf, 3 AS want"""
    else:
        intent = "f[2]" if fmt_name == "diversity" else "''"
        level = ("CASE WHEN f[4] SIMILAR TO 'L[0-9]+' THEN substr(f[4], 2) ELSE f[4] END"
                 if fmt_name == "diversity" else "f[4]")          # NTCIREVAL Dqrels: Lx
        select = f"""f[1] AS topic, {intent} AS intent, f[3] AS doc,
                     TRY_CAST({level} AS INTEGER) AS rel, len(f) AS nf, 4 AS want"""
    try:
        _stage_lines(con, path, "stage_lines")
        con.execute(f"CREATE OR REPLACE TEMP TABLE stage_qrels AS SELECT {select} FROM stage_lines")
        bad = con.execute("SELECT count(*) FROM stage_qrels WHERE nf <> want OR rel IS NULL"
                          ).fetchone()[0]
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    if bad:
        raise locate_error(path, fmt, duplicates=False)
    n = con.execute("SELECT count(*) FROM stage_qrels").fetchone()[0]
    if n == 0:
        raise InputError(path, None, "no judgments (empty file)")
    dup = con.execute("""
        SELECT count(*) FROM (SELECT topic, intent, doc FROM stage_qrels
                              GROUP BY ALL HAVING count(*) > 1)""").fetchone()[0]
    if dup:
        if fmt_name == "diversity":
            raise _locate_diversity_duplicate(path)
        raise locate_error(path, fmt)
    return n


def _locate_diversity_duplicate(path: Path) -> InputError:
    seen: dict[tuple[str, str, str], int] = {}
    with _open_text(path) as f:
        for lineno, raw in enumerate(f, start=1):
            text = raw.decode("utf-8", "replace")
            if _is_skipped(text):
                continue
            t, i, d = text.split()[:3]
            if (t, i, d) in seen:
                return InputError(path, lineno, f"document {d!r} judged twice for topic {t!r} "
                                  f"subtopic {i!r} (first at line {seen[(t, i, d)]})")
            seen[(t, i, d)] = lineno
    return InputError(path, None, "duplicate judgments")
