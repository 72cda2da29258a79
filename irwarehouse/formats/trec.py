"""Readers of TREC-style whitespace-separated files (runs, qrels) into DuckDB staging tables.

The fast path lets DuckDB read and split the file (parallel, gzip-aware). When it finds any bad
row, `locate_error` re-reads the file line by line in Python to name the first bad line, so every
error message gives file and line however the fast path failed.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import re
import zlib
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
    return file_facts(path)[0]


# Bytes that the regex split treats as field separators but a single-space CSV split does not:
# a file containing any of them (other than the \r of a \r\n line end) takes the regex path.
_ODD_WHITESPACE = (b"\t", b"\x0c", b"\x0b")
_FACTS_CACHE: dict[tuple, tuple[str | None, bool]] = {}


def _plain_block(block: bytes) -> bool:
    if any(c in block for c in _ODD_WHITESPACE):
        return False
    return block.count(b"\r") == block.count(b"\r\n")


def file_facts(path: Path, *, digest: bool = True) -> tuple[str | None, bool]:
    """One pass over a file: its sha256 (None unless `digest`) and whether it has no tab, form
    feed, vertical tab or lone carriage return (so that splitting its lines on single spaces is
    the same as splitting them on whitespace). Cached by (path, size, mtime) so that staging and
    provenance share it."""
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    cached = _FACTS_CACHE.get(key)
    if cached and (cached[0] is not None or not digest):
        return cached
    h = hashlib.sha256() if digest else None
    plain, carry = True, b""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
        f.seek(0)
        for block in iter(lambda: f.read(1 << 24), b""):
            if h:
                h.update(block)
            if plain and not gz:
                plain = _plain_block(carry + block)
                carry = block[-1:]
    if gz:
        with _open_text(path) as f:
            for block in iter(lambda: f.read(1 << 24), b""):
                if plain:
                    plain = _plain_block(carry + block)
                    carry = block[-1:]
    facts = (h.hexdigest() if h else None, plain)
    _FACTS_CACHE.clear()
    _FACTS_CACHE[key] = facts
    return facts


def _open_text(path: Path):
    """The file's bytes, gunzipped when it starts with the gzip magic. (gzip.open on an open
    file object would not close that file: the descriptor leaked on every gzipped input.)"""
    with open(path, "rb") as raw:
        head = raw.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


def _unreadable(path: Path, exc: BaseException) -> InputError:
    text = getattr(exc, "strerror", None) or str(exc).splitlines()[0] or type(exc).__name__
    return InputError(path, None, f"cannot read: {text}")


def check_readable(path: Path) -> None:
    if not path.exists():
        raise InputError(path, None, "no such file")
    if not path.is_file():
        raise InputError(path, None, "not a file")
    try:
        with _open_text(path) as f:
            first = f.read(1)
    except (OSError, EOFError, zlib.error) as exc:    # EOFError, zlib.error: broken gzip
        raise _unreadable(path, exc) from None
    if not first:
        raise InputError(path, None, "empty file")


def _is_skipped(text: str) -> bool:
    """Blank lines, `#` comments and NTCIR's `<SYSDESC>...</SYSDESC>` run description line."""
    stripped = text.strip()
    return not stripped or stripped.startswith(("#", "<SYSDESC>"))


# What a number may look like in a run or qrels file. Both parsers (DuckDB's fast path and the
# Python re-read that names the bad line) use these, so that they accept the same files:
# DuckDB's casts alone would round '1.5' to the level 2 and read '0x10', '1e2' or '1_000' as
# integers, and Python's float() accepts 'nan', 'inf' and '1_000'.
INT_PATTERN = r"[+-]?[0-9]+"
NUM_PATTERN = r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
INT_BITS = {"rank": 64, "relevance level": 32}


def _strict_number(expr: str) -> str:
    """SQL: `expr` as DOUBLE when it matches NUM_PATTERN, else NULL (DuckDB's cast alone would
    also read forms such as '1_000' or '0x10')."""
    return f"CASE WHEN regexp_full_match({expr}, '{NUM_PATTERN}') THEN TRY_CAST({expr} AS DOUBLE) END"


def _strict_integer(expr: str) -> str:
    """SQL: `expr` as BIGINT when it matches INT_PATTERN, else NULL (a cast would round '1.5')."""
    return f"CASE WHEN regexp_full_match({expr}, '{INT_PATTERN}') THEN TRY_CAST({expr} AS BIGINT) END"


def _check_number(value: str, what: str, integer: bool) -> str | None:
    if not re.fullmatch(INT_PATTERN if integer else NUM_PATTERN, value):
        try:
            number = float(value)
        except ValueError:
            return f"{what} {value!r} is not a number"
        if not math.isfinite(number):
            return f"{what} {value!r} is not finite"
        return f"{what} {value!r} is not an integer" if integer else \
            f"{what} {value!r} is not a decimal number"
    if not math.isfinite(float(value)):
        return f"{what} {value!r} is not finite"
    bits = INT_BITS.get(what, 64)
    if integer and not -(2 ** (bits - 1)) <= int(value) < 2 ** (bits - 1):
        return f"{what} {value!r} is out of range"
    return None


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


def _stage_run_fast(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Stage a run whose lines are single-space separated with DuckDB's CSV split (parallel, no
    regex, no list arrays). Returns False, leaving nothing to trust, when the file is not of that
    shape (a row error, an empty field, a comment line): the caller then takes the regex path,
    which has the exact whitespace semantics and the error reporting."""
    try:
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE stage_run AS
            SELECT topic, doc, {_strict_number('score')} AS score,
                   {_strict_integer('rank')} AS rank,
                   row_number() OVER () - 1 AS file_order, tag,
                   CASE WHEN topic IS NOT NULL AND q0 IS NOT NULL AND doc IS NOT NULL
                             AND rank IS NOT NULL AND score IS NOT NULL AND tag IS NOT NULL
                             AND NOT starts_with(topic, '#')
                             AND NOT starts_with(topic, '<SYSDESC>') THEN 6 END AS nf
            FROM read_csv($path, columns = {{'topic': 'VARCHAR', 'q0': 'VARCHAR',
                                             'doc': 'VARCHAR', 'rank': 'VARCHAR',
                                             'score': 'VARCHAR', 'tag': 'VARCHAR'}},
                          delim = ' ', quote = '', escape = '', header = false,
                          auto_detect = false, strict_mode = true, null_padding = false,
                          all_varchar = true, compression = 'auto')""", {"path": str(path)})
    except duckdb.Error:
        return False
    return con.execute("SELECT count(*) FROM stage_run WHERE nf IS NULL").fetchone()[0] == 0


def _stage_run_regex(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    _stage_lines(con, path, "stage_lines")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE stage_run AS
        SELECT f[1] AS topic, f[3] AS doc, {_strict_number('f[5]')} AS score,
               {_strict_integer('f[4]')} AS rank, rowid AS file_order, f[6] AS tag,
               len(f) AS nf
        FROM stage_lines""")
    con.execute("DROP TABLE stage_lines")


def stage_run(con: duckdb.DuckDBPyConnection, path: Path, *, keep_first: bool = False) -> str:
    """Parse a TREC run into TEMP table stage_run(topic, doc, score, rank, file_order, tag);
    returns the run tag (of the last line, as trec_eval reports it)."""
    path = Path(path)
    check_readable(path)
    fmt = FORMATS["run"]
    try:
        if not (file_facts(path)[1] and _stage_run_fast(con, path)):
            _stage_run_regex(con, path)
        n, bad, distinct = con.execute("""
            SELECT count(*),
                   count(*) FILTER (WHERE nf < 6 OR score IS NULL OR NOT isfinite(score)
                                    OR rank IS NULL),
                   count(DISTINCT hash(topic, doc))
            FROM stage_run""").fetchone()
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    except (duckdb.IOException, OSError, EOFError, zlib.error) as exc:   # a broken gzip stream
        raise _unreadable(path, exc) from None
    if bad:
        raise locate_error(path, fmt, duplicates=False)
    if n == 0:
        raise InputError(path, None, "no run lines (empty file)")
    # Distinct hashes == rows proves there is no duplicate (topic, doc); fewer may be a hash
    # collision, so count exactly then.
    dup = distinct < n and con.execute("""
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


def _last_tag(path: Path) -> str | None:
    """The run tag of the last non-blank line of an uncompressed file whose lines all have six
    space-separated fields (the fast path's files), read from its tail; None if unsure."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        if f.read(2) == b"\x1f\x8b":
            return None
        f.seek(max(0, size - 65536))
        tail = f.read()
    lines = tail.splitlines()
    if size > 65536:
        lines = lines[1:]                     # the first one may be cut
    for raw in reversed(lines):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if text.strip():
            fields = text.split()
            return fields[5] if len(fields) == 6 else None
    return None


def stage_runs_bulk(con: duckdb.DuckDBPyConnection, paths: list[Path], *, digest: bool = True,
                    temp: bool = True) -> list[dict] | None:
    """Stage several runs with one CSV read into table stage_runs(fi, topic, doc, score, rank,
    file_order, nf) (TEMP unless not `temp`), fi = 1 + index of the file in `paths`; the run
    tags (of each file's last line) are read from the files' tails, or kept in a `tag` column
    and taken from the last row when a file is gzipped. Only for files that all take the
    single-space fast path and have no bad row and no duplicate: returns per file
    {tag, n, sha256}, or None when any file does not qualify (the caller then stages each file
    with stage_run, which reports the first error exactly as before). file_order is increasing
    within each file (not restarted at 0 per file)."""
    paths = [Path(p) for p in paths]
    names = [str(p) for p in paths]
    if len(set(names)) != len(names):
        return None
    try:
        for p in paths:
            check_readable(p)
        facts = [file_facts(p, digest=digest) for p in paths]
    except (InputError, OSError):
        return None
    if not all(plain for _, plain in facts):
        return None
    tags = [_last_tag(p) for p in paths]
    keep_tag = any(t is None for t in tags)
    try:
        # One file: no filename column to map to an index (a string join per row).
        single = len(names) == 1
        join = "" if single else """
            JOIN (SELECT unnest($paths) AS filename, generate_subscripts($paths, 1) AS fi) f
              ON f.filename = r.filename"""
        con.execute(f"""
            CREATE OR REPLACE {'TEMP ' if temp else ''}TABLE stage_runs AS
            SELECT {'1' if single else 'f.fi'} AS fi, r.topic, r.doc,
                   {_strict_number('r.score')} AS score,
                   {_strict_integer('r.rank')} AS rank, r.file_order{', r.tag' if keep_tag else ''},
                   CASE WHEN r.topic IS NOT NULL AND r.q0 IS NOT NULL AND r.doc IS NOT NULL
                             AND r.rank IS NOT NULL AND r.score IS NOT NULL AND r.tag IS NOT NULL
                             AND NOT starts_with(r.topic, '#')
                             AND NOT starts_with(r.topic, '<SYSDESC>') THEN 6 END AS nf
            FROM (SELECT *, row_number() OVER () AS file_order
                  FROM read_csv($paths, columns = {{'topic': 'VARCHAR', 'q0': 'VARCHAR',
                                                    'doc': 'VARCHAR', 'rank': 'VARCHAR',
                                                    'score': 'VARCHAR', 'tag': 'VARCHAR'}},
                                delim = ' ', quote = '', escape = '', header = false,
                                auto_detect = false, strict_mode = true, null_padding = false,
                                all_varchar = true, compression = 'auto',
                                filename = {'false' if single else 'true'})) r{join}""",
                    {"paths": names})
        stats = con.execute(f"""
            SELECT fi, count(*) AS n,
                   count(*) FILTER (WHERE nf IS NULL OR score IS NULL OR NOT isfinite(score)
                                    OR rank IS NULL) AS bad,
                   count(DISTINCT hash(topic, doc)) AS distinct_keys,
                   {'arg_max(tag, file_order)' if keep_tag else 'NULL'} AS tag
            FROM stage_runs GROUP BY fi ORDER BY fi""").fetchall()
    except duckdb.Error:
        return None
    if len(stats) != len(paths) or any(bad or distinct != n for _, n, bad, distinct, _ in stats):
        con.execute("DROP TABLE IF EXISTS stage_runs")
        return None
    return [{"tag": tag if keep_tag else tags[fi - 1], "n": n, "sha256": facts[fi - 1][0]}
            for fi, n, _, _, tag in stats]


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
                    CASE WHEN regexp_full_match(f[3], 'L[0-9]+') THEN TRY_CAST(substr(f[3], 2) AS INTEGER)
                         WHEN regexp_full_match(f[3], $int) THEN TRY_CAST(f[3] AS INTEGER) END
                        AS rel, len(f) AS nf, 3 AS want"""
    else:
        intent = "f[2]" if fmt_name == "diversity" else "''"
        # NTCIREVAL Dqrels write levels as Lx
        ntcir_label = ("regexp_full_match(f[4], 'L[0-9]+')" if fmt_name == "diversity"
                       else "false")
        select = f"""f[1] AS topic, {intent} AS intent, f[3] AS doc,
                     CASE WHEN {ntcir_label} THEN TRY_CAST(substr(f[4], 2) AS INTEGER)
                          WHEN regexp_full_match(f[4], $int) THEN TRY_CAST(f[4] AS INTEGER) END
                         AS rel, len(f) AS nf, 4 AS want"""
    try:
        _stage_lines(con, path, "stage_lines")
        con.execute(f"CREATE OR REPLACE TEMP TABLE stage_qrels AS SELECT {select} FROM stage_lines",
                    {"int": INT_PATTERN})
        bad = con.execute("SELECT count(*) FROM stage_qrels WHERE nf <> want OR rel IS NULL"
                          ).fetchone()[0]
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    except duckdb.IOException as exc:             # a corrupt or truncated gzip stream
        raise _unreadable(path, exc) from None
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
