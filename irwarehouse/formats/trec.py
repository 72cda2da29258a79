"""Readers of TREC-style whitespace-separated files (runs, qrels) into DuckDB staging tables.

The fast path lets DuckDB read and split the file (parallel, gzip-aware). When it finds any bad
row, `locate_error` re-reads the file line by line in Python to name the first bad line, so every
error message gives file and line however the fast path failed.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import mmap
import os
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import duckdb

from ..errors import InputError
from ..failures import shown
from .lines import (
    LINE_LIMIT,
    SEPARATORS,
    ByteScan,
    absent_bytes,
    check_path,
    decode_line,
    duckdb_compression,
    raw_lines,
    scan_mapped,
    split_fields,
    tab_fields,
)
from .numbers import INT_PATTERN, NUM_PATTERN, number_problem

# Columns of each format: name, minimum field count, whether extra trailing fields are allowed.
# trec_eval accepts junk after the 6th field of a run line (its test file results.trunc).
RUN_FIELDS = ("topic", "q0", "doc", "rank", "score", "tag")
TAG_LIMIT = 200             # characters of a run tag (a run name: store.ingest.NAME_LIMIT)
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
    return file_facts(path).sha256


class Facts(NamedTuple):
    """What one pass over a file's bytes tells: its sha256 (None unless asked), whether its
    lines are single-space separated (the fast path, _single_spaced) and whether it is clean:
    no byte that formats.lines refuses (a control character, a byte-order mark after the start,
    a lone carriage return), so that DuckDB's readers see what the line reader would accept."""
    sha256: str | None
    single_spaced: bool
    clean: bool


# A file takes the single-space fast path (DuckDB's CSV split on ' ') only when that split is the
# same as a split on whitespace up to empty fields: no tab, form feed, vertical tab or lone
# carriage return. (Two spaces in a row, or a space that starts or ends a line, make an empty
# field or a seventh one: such rows are bad rows of the fast path, and the file is then read
# by the regex path. Searching the file for those two-byte patterns costs seconds, as spaces
# are everywhere; these single bytes are memchr scans.)
_NOT_SINGLE_SPACED = (b"\t", b"\x0c", b"\x0b")
# The facts of every file of one command (a folder of runs is staged by stage_runs_bulk, then
# spacing.spaced_sources asks _plain of each file again: the cache used to hold one file, so
# every file of a folder was scanned twice; issue 32). Bounded for long-lived processes.
_FACTS_CACHE: dict[tuple, Facts] = {}
_FACTS_CACHE_SIZE = 10_000


def _single_spaced(block: bytes) -> bool:
    """`block` is single-space separated (see _NOT_SINGLE_SPACED) and every carriage return in
    it ends a line (\\r\\n)."""
    if any(block.find(c) >= 0 for c in _NOT_SINGLE_SPACED):
        return False
    return block.find(b"\r") < 0 or block.count(b"\r") == block.count(b"\r\n")


def file_facts(path: Path, *, digest: bool = True) -> Facts:
    """The Facts of a file, cached by (path, size, mtime) so that staging and provenance share
    them. A file that cannot be read (a broken gzip stream, a bad CRC) is an InputError."""
    path = Path(path)
    try:
        return _file_facts(path, digest)
    except (OSError, EOFError, zlib.error) as exc:
        raise _unreadable(path, exc) from None


def _file_facts(path: Path, digest: bool) -> Facts:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    cached = _FACTS_CACHE.get(key)
    if cached and (cached.sha256 is not None or not digest):
        return cached
    if cached:                      # scanned before; only the digest is new
        clean, plain = cached.clean, cached.single_spaced
    elif st.st_size == 0:
        clean, plain = True, False
    else:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        clean, plain = _stream_scan(path) if gz else _mapped_scan(path)
    facts = Facts(_sha256(path) if digest else None, plain, clean)
    if len(_FACTS_CACHE) >= _FACTS_CACHE_SIZE:
        _FACTS_CACHE.clear()
    _FACTS_CACHE[key] = facts
    return facts


def _sha256(path: Path) -> str:
    """The sha256 of a file's bytes as stored (gzipped or not), hashed from its mapping: no
    copy into Python's memory, and hashlib lets go of the GIL meanwhile (stage_runs_bulk hashes
    in a thread while DuckDB reads)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size > 0:
            try:
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                    return hashlib.sha256(m).hexdigest()
            except (ValueError, OSError):       # a file that cannot be mapped: read it
                pass
        h = hashlib.sha256()            # an empty file, or one whose size says nothing
        for block in iter(lambda: f.read(1 << 24), b""):
            h.update(block)
        return h.hexdigest()


def _plain(path: Path) -> bool:
    """Whether a file is single-space separated (spacing.py's test of a large file)."""
    return file_facts(path, digest=False).single_spaced


def _mapped_scan(path: Path) -> tuple[bool, bool]:
    """(clean, single_spaced) of an uncompressed file, mapped whole: a few memchr scans and no
    copies; a file with carriage returns is read block by block (a mmap cannot count them)."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        found = scan_mapped(m)
    return found if found is not None else _stream_scan(path)


def _stream_scan(path: Path) -> tuple[bool, bool]:
    """(clean, single_spaced) over the (decompressed) bytes of a file, block by block. The whole
    stream is read, so a gzip file's CRC is checked too."""
    scan = ByteScan()
    with _open_text(path) as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            scan.feed(block)
    scan.finish()
    return scan.clean, scan.single_spaced and scan.clean


def _open_text(path: Path):
    """The file's bytes, gunzipped when it starts with the gzip magic. (gzip.open on an open
    file object would not close that file: the descriptor leaked on every gzipped input.)"""
    with open(path, "rb") as raw:
        head = raw.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


def text_lines(path: Path, *, allow_empty: bool = False):
    """(line number, text without its line end) of every line of a small text file, gzip read,
    by the rules of formats.lines (UTF-8, no control character, at most LINE_LIMIT bytes, a
    leading byte-order mark dropped): a line that breaks one is an InputError naming it.
    Checks that the file is readable and not empty first. The line reader of every file but
    runs and qrels (which have fast paths, and the same rules). `allow_empty`: an empty
    file has no lines rather than being an error."""
    path = Path(path)
    if allow_empty and path.is_file() and path.stat().st_size == 0:
        return
    check_readable(path)
    try:
        with _open_text(path) as f:
            for lineno, raw in raw_lines(f):
                yield lineno, decode_line(path, lineno, raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise _unreadable(path, exc) from None


def field_lines(path: Path):
    """(line number, fields) of each line of a whitespace-separated file (intents, document
    lengths, preferences), blank lines and `#` comments skipped; fields split as trec_eval
    splits them (formats.lines.split_fields)."""
    for lineno, text in text_lines(path):
        fields = split_fields(text)
        if fields and not fields[0].startswith("#"):
            yield lineno, fields


def tsv_lines(path: Path):
    """(line number, tab-separated fields) of each line of a file, blank lines and lines that
    start with `#` skipped (texts, nuggets)."""
    for lineno, text in text_lines(path):
        if text.strip(SEPARATORS) and not text.startswith("#"):
            yield lineno, tab_fields(path, lineno, text)


def _unreadable(path: Path, exc: BaseException) -> InputError:
    text = getattr(exc, "strerror", None) or str(exc).splitlines()[0] or type(exc).__name__
    return InputError(path, None, f"cannot read: {text}")


def check_readable(path: Path) -> None:
    path = Path(path)
    check_path(path)
    try:
        with _open_text(path) as f:
            first = f.read(1)
    except (OSError, EOFError, zlib.error) as exc:    # EOFError, zlib.error: broken gzip
        raise _unreadable(path, exc) from None
    if not first:
        raise InputError(path, None, "empty file")


def _is_skipped(text: str) -> bool:
    """Blank lines, `#` comments and NTCIR's `<SYSDESC>...</SYSDESC>` run description line."""
    stripped = text.strip(SEPARATORS)
    return not stripped or stripped.startswith(("#", "<SYSDESC>"))


# What a number may look like in a run or qrels file (formats.numbers: one rule for every file
# kind). Both parsers (DuckDB's fast path and the Python re-read that names the bad line) accept
# the same files: DuckDB's casts alone would round '1.5' to the level 2 and read '0x10' or
# '1_000' as integers, and Python's float() accepts 'nan', 'inf' and '1_000'. A relevance level
# is an integer; a score a decimal number; a rank a decimal number with an integral value ('3',
# '3.0'), below 2^53 in magnitude.
INT_BITS = {"relevance level": 32}
RANK_LIMIT = 2 ** 53


def _strict_number(expr: str) -> str:
    """SQL: `expr` as DOUBLE when it matches NUM_PATTERN, else NULL (DuckDB's cast alone would
    also read forms such as '1_000' or '0x10')."""
    return f"CASE WHEN regexp_full_match({expr}, '{NUM_PATTERN}') THEN TRY_CAST({expr} AS DOUBLE) END"


def _token_number(expr: str) -> str:
    """SQL: _strict_number for a field that contains no whitespace (the single-space fast path),
    without a regex: DuckDB's DOUBLE cast of such a token accepts exactly the tokens of
    NUM_PATTERN plus digit separators ('1_000'), a doubled sign ('+-2') and the non-finite forms
    (inf, nan; refused later by isfinite). Checked on 300,000 random tokens over '019+-.eE_x';
    tests/store/test_ingest.py covers each form."""
    return (f"CASE WHEN NOT (contains({expr}, '_') OR contains({expr}, '+-')) "
            f"THEN TRY_CAST({expr} AS DOUBLE) END")


def _integral(expr: str) -> str:
    """SQL: a DOUBLE `expr` as BIGINT when its value is an integer below 2^53, else NULL."""
    return (f"CASE WHEN {expr} = trunc({expr}) AND abs({expr}) < {RANK_LIMIT} "
            f"THEN CAST({expr} AS BIGINT) END")


def _check_number(value: str, what: str, integer: bool) -> str | None:
    return number_problem(value, what, integer=integer, bits=INT_BITS.get(what, 64))


def _check_rank(value: str) -> str | None:
    problem = _check_number(value, "rank", False)
    if problem:
        return problem.replace("is not a decimal number", "is not an integer")
    number = float(value)
    if number != math.trunc(number):
        return f"rank {shown(value)} is not an integer"
    if abs(number) >= RANK_LIMIT:
        return f"rank {shown(value)} is out of range"
    return None


def _line_problem(fields: list[str], fmt: FileFormat) -> str | None:
    n = len(fmt.fields)
    if len(fields) < n or (len(fields) > n and not fmt.extra_fields_ok):
        return f"expected {n} fields ({' '.join(fmt.fields)}), found {len(fields)}"
    if fmt.name == "run":
        return _check_number(fields[4], "score", False) or _check_rank(fields[3])
    level = fields[-1]
    if fmt.name in ("ntcir_qrels", "diversity") and re.fullmatch("L[0-9]+", level):
        return _check_number(level[1:], "relevance level", True)
    return _check_number(level, "relevance level", True)


def locate_error(path: Path, fmt: FileFormat, *, duplicates: bool = True) -> InputError:
    """Re-read the file in Python, by the same rules as DuckDB's paths (formats.lines), and
    return the error of the first bad line."""
    seen: dict[tuple[str, ...], int] = {}
    key_cols = {"run": (0, 2), "qrels": (0, 2), "diversity": (0, 1, 2)}.get(fmt.name, (0, 1))
    try:
        with _open_text(path) as f:
            for lineno, raw in raw_lines(f):
                try:
                    text = decode_line(path, lineno, raw)
                except InputError as exc:
                    return exc
                if _is_skipped(text):
                    continue
                fields = split_fields(text)
                problem = _line_problem(fields, fmt)
                if problem:
                    return InputError(path, lineno, problem + _separator_hint(text, problem))
                if duplicates:
                    key = tuple(fields[c] for c in key_cols)
                    if key in seen:
                        return InputError(path, lineno, f"document {shown(key[-1])} appears "
                                          f"twice for topic {shown(key[0])} (first at line "
                                          f"{seen[key]})")
                    seen[key] = lineno
    except (OSError, EOFError, zlib.error) as exc:
        return _unreadable(path, exc)
    return InputError(path, None, "unreadable content")


def _separator_hint(text: str, problem: str) -> str:
    """A field count that a space other than space and tab explains."""
    if not problem.startswith("expected"):
        return ""
    odd = next((ch for ch in text if ch.isspace() and ch not in SEPARATORS), None)
    if odd is None:
        return ""
    import unicodedata
    name = unicodedata.name(odd, "a space")
    return f" (fields are separated by spaces and tabs; U+{ord(odd):04X} {name} is not)"


def _stage_lines(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> None:
    """Stage the non-blank, non-comment lines of a file as arrays of fields, in file order
    (the staging table's rowid is the position in the file)."""
    # fields split as formats.lines says (space, tab, vertical tab, form feed); the file is
    # clean (file_facts), so no \x01 (the delimiter that keeps a line whole) occurs in it
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE {table} AS
        SELECT string_split_regex(trim(line, $ws), $sep) AS f
        FROM read_csv($path, columns = {{'line': 'VARCHAR'}}, delim = '\\x01', quote = '',
                      escape = '', header = false, auto_detect = false, strict_mode = false,
                      null_padding = false, compression = '{duckdb_compression([path])}',
                      max_line_size = {LINE_LIMIT + 1})
        WHERE trim(line, $ws) <> '' AND NOT starts_with(ltrim(line, $ws), '#')
          AND NOT starts_with(ltrim(line, $ws), '<SYSDESC>')""",
                {"path": str(path), "ws": SEPARATORS, "sep": f"[{SEPARATORS}]+"})


# The run columns of the single-space fast path, as DuckDB's CSV reader splits them.
_RUN_COLUMNS = ("{'topic': 'VARCHAR', 'q0': 'VARCHAR', 'doc': 'VARCHAR', 'rank': 'VARCHAR', "
                "'score': 'VARCHAR', 'tag': 'VARCHAR'}")
# The same with the numbers read as DOUBLE by the reader (_absent_bytes)
_RUN_NUMBER_COLUMNS = _RUN_COLUMNS.replace("'rank': 'VARCHAR'", "'rank': 'DOUBLE'").replace(
    "'score': 'VARCHAR'", "'score': 'DOUBLE'")


# which bytes no file holds (formats.lines; named here as _stage_fast calls it, tests patch it)
_absent_bytes = absent_bytes


# A staged row that is not a valid run line (the fast path's rows have six non-empty fields;
# the regex path's keep their field count in nf). A comment line with six fields is a bad row
# of the fast path, so that the regex path skips it.
_BAD_NUMBERS = "gap OR score IS NULL OR NOT isfinite(score) OR rank IS NULL"
_COMMENT_ROW = "starts_with(topic, '#')"
_SYSDESC_ROW = "starts_with(topic, '<SYSDESC>')"
_BAD_REGEX_ROW = "nf < 6 OR score IS NULL OR NOT isfinite(score) OR rank IS NULL"


def _stage_fast(con: duckdb.DuckDBPyConnection, paths: list[str], table: str, *,
                keep_tag: bool, temp: bool = True, delimiter: str = " ") -> list[tuple]:
    """Read single-spaced run files (file_facts), or tab-separated ones (`delimiter`: see
    spacing.Sources), with one parallel CSV read into `table`
    (fi, topic, doc, score, rank, gap, key_hash[, tag]), gap = the line has an empty field,
    key_hash = hash(fi, topic, doc) for the duplicate check, fi = 1 + index of the file in
    `paths`, the rowid being the file order. Returns per file (fi, rows, bad rows, tag of the
    last row or None). Raises duckdb.Error when a line does not have six fields.

    Only the columns stored are converted (q0 and, unless `keep_tag`, the tag are split but not
    copied), the numbers are checked without a regex (_token_number), and the rows are not
    numbered: a CTAS keeps the reader's order, while row_number() OVER () would serialise the
    parallel read (1.8 s of 7M lines). The reader's order is kept only through operators that
    keep it (projections, filters): the file's index is the reader's `file_index` column, not
    a join on its file name, as a hash join hands its rows on in the order its threads finish
    (two 8 MB files came out interleaved, and file order with them; issue 31).

    Files without '_' and '+' (_absent_bytes) have their score and rank read as DOUBLE by
    the reader itself (0.2-0.3 s CPU less for 5M lines than text then a cast): what
    _token_number refuses beyond the cast is then absent, and a token the reader cannot read
    as a number fails the read (a bad row, as the cast's NULL is). Files without '#' (or
    '<') cannot hold a comment line (or NTCIR's <SYSDESC> line), so their rows are not tested
    for one (0.08 s CPU for 5M rows)."""
    no_under, no_plus, no_hash, no_angle = _absent_bytes(paths, (b"_", b"+", b"#", b"<"))
    typed = no_under and no_plus
    bad_row = " OR ".join([_BAD_NUMBERS, *([] if no_hash else [_COMMENT_ROW]),
                           *([] if no_angle else [_SYSDESC_ROW])])
    columns = _RUN_NUMBER_COLUMNS if typed else _RUN_COLUMNS
    score, rank = ("r.score", "r.rank") if typed else \
        (_token_number("r.score"), _token_number("r.rank"))
    con.execute(f"""
        CREATE OR REPLACE {'TEMP ' if temp else ''}TABLE {table} AS
        SELECT fi, topic, doc, score, {_integral('rank_number')} AS rank, gap,
               hash(fi, topic, doc) AS key_hash{', tag' if keep_tag else ''}
        FROM (SELECT CAST(r.file_index + 1 AS INTEGER) AS fi, r.topic, r.doc, r.tag,
                     -- an empty field: two separators in a row, or one that starts a line
                     r.topic IS NULL OR r.q0 IS NULL OR r.doc IS NULL OR r.tag IS NULL AS gap,
                     {score} AS score, {rank} AS rank_number
              FROM read_csv($paths, columns = {columns}, delim = $delim, quote = '',
                            escape = '', header = false, auto_detect = false,
                            strict_mode = true, null_padding = false,
                            all_varchar = {str(not typed).lower()},
                            compression = '{duckdb_compression(paths)}',
                            max_line_size = {LINE_LIMIT + 1}) r)""",
                {"paths": paths, "delim": delimiter})
    return con.execute(f"""
        SELECT fi, count(*), count(*) FILTER (WHERE {bad_row}),
               {'arg_max(tag, rowid)' if keep_tag else 'NULL'}
        FROM {table} GROUP BY fi ORDER BY fi""").fetchall()


def _stage_run_regex(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    _stage_lines(con, path, "stage_lines")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE stage_run AS
        SELECT f[1] AS topic, f[3] AS doc, {_strict_number('f[5]')} AS score,
               {_integral(_strict_number('f[4]'))} AS rank, f[6] AS tag, len(f) AS nf
        FROM stage_lines""")
    con.execute("DROP TABLE stage_lines")


SMALL_TABLE = 2_000_000      # rows: below, _has_duplicate_keys groups in DuckDB
# ... unless numpy is imported already (a folder of files read in batches imports it once:
# engine.files): from this many rows, sorting the hashes is cheaper (bench/bench_folders.py's 100
# files in batches: 0.6 s CPU grouped in DuckDB, a few hundredths sorted in numpy)
SMALL_TABLE_NUMPY = 100_000


def _has_duplicate_keys(con: duckdb.DuckDBPyConnection, table: str, key: str,
                        hashed: str, small_table: int = SMALL_TABLE) -> bool:
    """Whether `table` holds a `key` (e.g. fi, topic, doc) twice; `hashed` is its 64-bit hash
    (a stored column or an expression). The hashes are grouped first, and only the rows whose
    hash repeats are grouped by their keys. A repeated hash is common without any duplicate:
    DuckDB's string hash folds a string's 8-byte words together before mixing them, so TREC
    docnos that differ in two places can collide (hash('FR941202-0-00043') =
    hash('FR941205-0-00044'); 7 hashes repeat among a Robust 2003 run's 100,000 keys), and
    grouping every key after any repeat cost more than grouping the keys at once (a 100,000-line
    run: 3.5 ms instead of 9.3). A table of fewer than `small_table` rows is grouped in DuckDB
    (importing numpy costs 0.1-0.25 s, more than the whole check), fewer than SMALL_TABLE_NUMPY
    when numpy is imported already; larger ones have their hashes sorted in numpy, several
    times cheaper than DuckDB's grouping over 7M rows (0.15 s vs 0.5 s)."""
    small = min(small_table, SMALL_TABLE_NUMPY) if "numpy" in sys.modules else small_table
    if con.execute(f"SELECT count(*) < {int(small)} FROM {table}").fetchone()[0]:
        return con.execute(f"""
            SELECT EXISTS (SELECT 1 FROM {table}
                           WHERE {hashed} IN (SELECT {hashed} AS h FROM {table}
                                              GROUP BY h HAVING count(*) > 1)
                           GROUP BY {key} HAVING count(*) > 1)""").fetchone()[0]
    import numpy as np
    hashes = con.execute(f"SELECT {hashed} AS h FROM {table}").fetchnumpy()["h"]
    hashes.sort()
    repeated = np.unique(hashes[1:][hashes[1:] == hashes[:-1]])
    if not len(repeated):
        return False
    return con.execute(f"""
        SELECT EXISTS (SELECT 1 FROM {table}
                       WHERE {hashed} IN (SELECT unnest($repeated::UBIGINT[]))
                       GROUP BY {key} HAVING count(*) > 1)""",
                       {"repeated": repeated.tolist()}).fetchone()[0]


def stage_run(con: duckdb.DuckDBPyConnection, path: Path, *, keep_first: bool = False) -> str:
    """Parse a TREC run into TEMP table stage_run(topic, doc, score, rank, tag ...), its rowid
    being the file order; returns the run tag (of the last line, as trec_eval reports it)."""
    path = Path(path)
    check_readable(path)
    fmt = FORMATS["run"]
    tag = None
    facts = file_facts(path, digest=False)
    if not facts.clean:             # a character or line end DuckDB would read otherwise
        raise locate_error(path, fmt)
    try:
        from .spacing import read_spaced  # every spacing, as one space (spacing.py)

        def read(sources) -> tuple | None:
            """(the fast path's stats, the tail's tag), None when a row is bad: a bad row of
            the fast path may be a comment line, and the regex path decides."""
            tail_tag = _last_tag(sources[0])
            try:
                stats = _stage_fast(con, [str(sources[0])], "stage_run",
                                    keep_tag=tail_tag is None, delimiter=sources.delimiter)
            except (duckdb.InvalidInputException, duckdb.ConversionException):
                return None
            return (stats, tail_tag) if stats and not stats[0][2] else None
        found = read_spaced([path], _plain, read)
        hashed = "key_hash"
        if found:
            ((_, n, bad, last_tag),), tag = found
            tag = tag or last_tag
        else:
            hashed = "hash(topic, doc)"
            _stage_run_regex(con, path)
            n, bad = con.execute(f"SELECT count(*), count(*) FILTER (WHERE {_BAD_REGEX_ROW}) "
                                 "FROM stage_run").fetchone()
            tag = None
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    except (duckdb.IOException, OSError, EOFError, zlib.error) as exc:   # a broken gzip stream
        raise _unreadable(path, exc) from None
    if bad:                         # the first problem in file order, a duplicate included
        raise locate_error(path, fmt, duplicates=not keep_first)
    if n == 0:
        raise InputError(path, None, "no run lines (empty file)")
    dup = _has_duplicate_keys(con, "stage_run", "topic, doc", hashed)
    if dup and not keep_first:
        raise locate_error(path, fmt)
    if dup:
        con.execute("""
            CREATE OR REPLACE TEMP TABLE stage_run AS
            SELECT * FROM stage_run
            WHERE rowid IN (SELECT min(rowid) FROM stage_run GROUP BY topic, doc)
            ORDER BY rowid""")
    if tag is None:
        tag = con.execute("SELECT tag FROM stage_run ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    if len(tag) > TAG_LIMIT:
        raise InputError(path, _last_line_number(path), f"run tag {shown(tag)} is longer than "
                         f"{TAG_LIMIT} characters (give the run a name with --name)")
    return tag


def _last_line_number(path: Path) -> int | None:
    """The number of the last run line of a file (the one whose tag names the run)."""
    last = None
    with _open_text(path) as f:
        for lineno, raw in raw_lines(f):
            if not _is_skipped(decode_line(path, lineno, raw)):
                last = lineno
    return last


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
        if text.strip(SEPARATORS):
            fields = split_fields(text)
            return fields[5] if len(fields) == 6 else None
    return None


def stage_runs_bulk(con: duckdb.DuckDBPyConnection, paths: list[Path], *, digest: bool = True,
                    temp: bool = True, small_table: int = SMALL_TABLE) -> list[dict] | None:
    """Stage several runs with one CSV read into table stage_runs(fi, topic, doc, score, rank)
    (TEMP unless not `temp`; _stage_fast), fi = 1 + index of the file in `paths`; the run tags
    (of each file's last line) are read from the files' tails, or kept in a `tag` column and
    taken from the last row when a file is gzipped. Only for files that all take the
    single-space fast path and have no bad row and no duplicate: returns per file
    {tag, n, sha256}, or None when any file does not qualify (the caller then stages each file
    with stage_run, which reports the first error exactly as before). The table's rowid is the
    file order (increasing within each file, not restarted at 0 per file). `small_table`: see
    _has_duplicate_keys (0: numpy whatever the size, for a caller that imports it anyway)."""
    paths = [Path(p) for p in paths]
    names = [str(p) for p in paths]
    if len(set(names)) != len(names):
        return None
    try:
        for p in paths:
            check_readable(p)
        facts = [file_facts(p, digest=False) for p in paths]
    except (InputError, OSError):
        return None
    if not all(f.clean for f in facts):
        return None
    hashing = _Digests(paths) if digest else None
    try:
        found = _stage_bulk(con, paths, temp, small_table)
    finally:
        sha256 = hashing.result() if hashing else [None] * len(paths)
    if found is None or sha256 is None:
        con.execute("DROP TABLE IF EXISTS stage_runs")
        return None
    return [{**f, "sha256": sha256[i]} for i, f in enumerate(found)]


class _Digests:
    """The sha256 of files, computed in a thread of its own (hashlib and DuckDB let go of the
    GIL): while DuckDB reads the files, the digests (0.15 s of CPU for 220 MB) take what of
    the two cores DuckDB leaves idle, and most of their wall time is hidden. result() waits;
    it is None when a file could not be read (the caller's file-by-file reader reports it)."""

    def __init__(self, paths: list[Path]):
        import threading
        self.found: list | None = None
        self.thread = threading.Thread(target=self._run, args=(paths,), daemon=True)
        self.thread.start()

    def _run(self, paths: list[Path]) -> None:
        try:
            self.found = [file_facts(p).sha256 for p in paths]
        except (InputError, OSError):
            pass

    def result(self) -> list[str] | None:
        self.thread.join()
        return self.found


def _stage_bulk(con: duckdb.DuckDBPyConnection, paths: list[Path], temp: bool,
                small_table: int) -> list[dict] | None:
    """stage_runs_bulk's read of clean files: per file {tag, n}, None when any file does not
    qualify (stage_runs may be left behind: the caller drops it)."""
    from .spacing import read_spaced  # every spacing, as one space (spacing.py)

    def read(sources) -> tuple | None:
        """(the fast path's stats, the tails' tags) when every row is good; None otherwise."""
        tags = [_last_tag(p) for p in sources]
        keep_tag = any(t is None for t in tags)
        try:
            stats = _stage_fast(con, [str(p) for p in sources], "stage_runs", keep_tag=keep_tag,
                                temp=temp, delimiter=sources.delimiter)
        except duckdb.Error:
            return None
        if len(stats) != len(paths) or any(bad for _, _, bad, _ in stats):
            return None
        return stats, tags, keep_tag
    found = read_spaced(paths, _plain, read)
    try:
        clean = found is not None and not _has_duplicate_keys(
            con, "stage_runs", "fi, topic, doc", "key_hash", small_table)
    except duckdb.Error:
        clean = False
    if not clean:
        return None
    stats, tags, keep_tag = found
    found = [{"tag": tag if keep_tag else tags[fi - 1], "n": n} for fi, n, _, tag in stats]
    if any(len(f["tag"]) > TAG_LIMIT for f in found):
        return None                 # stage_run names the file and line
    return found


def stage_qrels(con: duckdb.DuckDBPyConnection, path: Path, *, fmt_name: str = "qrels") -> int:
    """Parse qrels into TEMP table stage_qrels(topic, intent, doc, rel). Formats: `qrels`
    (topic iteration doc rel; the iteration is ignored), `diversity` (topic subtopic doc rel;
    rel may be NTCIREVAL's Lx, as in a Dqrels file),
    `ntcir_qrels` (topic doc Lx). Returns the number of judgments."""
    path = Path(path)
    check_readable(path)
    fmt = FORMATS[fmt_name]
    if not file_facts(path, digest=False).clean:
        raise locate_error(path, fmt)

    def select(field, nf: str) -> str:
        """stage_qrels's columns from a line's fields (field(i), from 1) and their number."""
        if fmt_name == "ntcir_qrels":
            level = field(3)
            return f"""{field(1)} AS topic, '' AS intent, {field(2)} AS doc,
                CASE WHEN regexp_full_match({level}, 'L[0-9]+')
                     THEN TRY_CAST(substr({level}, 2) AS INTEGER)
                     WHEN regexp_full_match({level}, $int) THEN TRY_CAST({level} AS INTEGER) END
                    AS rel, {nf} AS nf, 3 AS want"""
        level = field(4)
        intent = field(2) if fmt_name == "diversity" else "''"
        # NTCIREVAL Dqrels write levels as Lx
        ntcir_label = (f"regexp_full_match({level}, 'L[0-9]+')" if fmt_name == "diversity"
                       else "false")
        return f"""{field(1)} AS topic, {intent} AS intent, {field(3)} AS doc,
            CASE WHEN {ntcir_label} THEN TRY_CAST(substr({level}, 2) AS INTEGER)
                 WHEN regexp_full_match({level}, $int) THEN TRY_CAST({level} AS INTEGER) END
                AS rel, {nf} AS nf, 4 AS want"""
    try:
        from .spacing import stage_fields  # every spacing, as one space (spacing.py)
        params = {"int": INT_PATTERN}
        if not stage_fields(con, path, "stage_qrels", len(fmt.fields), _plain, select, params):
            _stage_lines(con, path, "stage_lines")
            con.execute("CREATE OR REPLACE TEMP TABLE stage_qrels AS "
                        f"SELECT {select(lambda i: f'f[{i}]', 'len(f)')} FROM stage_lines", params)
            con.execute("DROP TABLE stage_lines")
        bad, n = con.execute("SELECT count(*) FILTER (WHERE nf <> want OR rel IS NULL), count(*) "
                             "FROM stage_qrels").fetchone()
    except (duckdb.InvalidInputException, duckdb.ConversionException):
        raise locate_error(path, fmt) from None
    except duckdb.IOException as exc:             # a corrupt or truncated gzip stream
        raise _unreadable(path, exc) from None
    if bad:                         # the first problem in file order, a duplicate included
        raise locate_error(path, fmt)
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
        for lineno, raw in raw_lines(f):
            text = decode_line(path, lineno, raw)
            if _is_skipped(text):
                continue
            t, i, d = split_fields(text)[:3]
            if (t, i, d) in seen:
                return InputError(path, lineno, f"document {shown(d)} judged twice for topic "
                                  f"{shown(t)} subtopic {shown(i)} (first at line "
                                  f"{seen[(t, i, d)]})")
            seen[(t, i, d)] = lineno
    return InputError(path, None, "duplicate judgments")
