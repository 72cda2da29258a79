"""One fast reader for every spacing of TREC files (tabs, runs of spaces, spaces at the ends of a
line), so that the everyday file takes DuckDB's single-space CSV split too.

TREC 2003 Robust's runs separate their fields by tabs, many qrels and runs by several spaces; such
files used to go through the regex split (string_split_regex per line, single-threaded: 0.2 s for
100,000 lines, against 0.02 s for the CSV split). A file of at most SMALL_FILE bytes is read once
in Python, and when its fields are separated by anything else than one space, a copy with every
run of spaces and tabs made one space (and none at the ends of a line) is written to a temporary
file that DuckDB reads instead: a few C-level passes over the bytes (0.01 s for 4 MB; 0.1 s when
there are runs of spaces to collapse). The copy keeps every line where it was (no line is added
or removed), and the error of a bad line is still found by re-reading the original file
(trec.locate_error), so messages name the user's file and line.

The split is the same as the regex path's `\\s+` (RE2's \\s: space, tab, CR, LF, FF; VT is not in
it): a file with a form feed, a vertical tab or a carriage return inside a line is left to the
regex path (None), as the single-space test (trec.file_facts) always did. Larger files keep the
old rule: the file itself when single-spaced, else the regex path, which is parallel and streams.

Files whose fields are separated by tabs alone (no space, form feed or vertical tab anywhere:
TREC 2003 Robust's runs) are read as they are with DuckDB's single-tab split, when every file
of the read is such a file: the same split, without the copy (its byte counts, replace and write
cost 0.014 s CPU of a 5 MB run). A run of tabs or a tab at an end of a line makes an empty field
there too, and DuckDB's checks send the file to the regex path as for spaces.
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import duckdb

from .lines import LINE_LIMIT, absent_bytes, duckdb_compression

# (irwarehouse.formats.trec calls this module; it passes its single-space test of a large file,
# trec.file_facts, as `plain`, so that the two modules do not import each other.)
Plain = Callable[[Path], bool]
T = TypeVar("T")

# Files up to this size (bytes, uncompressed) are read into memory and normalised when needed;
# 64 MB is about 1.5M run lines, far above a TREC-size run (100 topics x 1,000 documents: 4 MB).
SMALL_FILE = 64 << 20


def single_spaced(data: bytes, n_fields: int = 6) -> bytes | None:
    """`data` with its fields separated by single spaces, or None when the regex path must read
    it (a form feed, vertical tab, or a carriage return not followed by a line feed). Returns
    `data` itself (the same object) when it has no tab and at most n_fields - 1 spaces a line
    on average: DuckDB's own checks (an empty field, another field count) then decide, as they
    always did for such files. (Counting bytes is cheap; searching for two spaces in a row is
    not, spaces being everywhere: 0.04 s for 4 MB.)"""
    if data.find(b"\x0b") >= 0 or data.find(b"\x0c") >= 0:
        return None
    if data.find(b"\r") >= 0 and data.count(b"\r") != data.count(b"\r\n"):
        return None
    tabs, spaces = data.count(b"\t"), data.count(b" ")
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if tabs + spaces <= (n_fields - 1) * lines:
        return data.replace(b"\t", b" ") if tabs else data
    out = data.replace(b"\t", b" ") if tabs else data
    # runs of spaces made one (a split and a join: 0.1 s for 500,000 runs, where re.sub takes
    # 0.24 s); this also drops the spaces at the start and end of the data
    out = b" ".join([part for part in out.split(b" ") if part])
    # with no two spaces in a row left, one replace clears each end of every line
    for edge, end in ((b" \n", b"\n"), (b"\n ", b"\n"), (b" \r", b"\r")):
        if out.find(edge) >= 0:
            out = out.replace(edge, end)
    return out


def _source(path: Path, made: list[Path], n_fields: int, plain: Plain,
            thorough: bool) -> Path | None:
    """What DuckDB's single-space split may read for `path`: the file itself, a single-spaced
    copy (appended to `made`), or None (the regex path). `plain`: whether a file has no tab
    (nor FF, VT, lone CR), a memchr scan. Unless `thorough`, such a file is read as it is (its
    runs of spaces, if any, give empty fields that DuckDB refuses: read_spaced then reads it
    again thoroughly): the byte counts of single_spaced cost 5 ms a 4 MB file, 0.3 s over a
    100-file campaign."""
    if path.stat().st_size > SMALL_FILE:
        return path if plain(path) else None
    if not thorough and plain(path):
        return path
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        data = f.read(SMALL_FILE + 1)
    if len(data) > SMALL_FILE:                      # a gzip file that inflates beyond the limit
        return path if plain(path) else None
    clean = single_spaced(data, n_fields)
    if clean is None:
        return None
    if clean is data:
        return path
    fd, name = tempfile.mkstemp(prefix="irw-spaced-", suffix=".txt")
    made.append(Path(name))
    with os.fdopen(fd, "wb") as f:
        f.write(clean)
    return Path(name)


class Sources(list):
    """The files DuckDB reads in place of the given ones, in their order, and the one byte that
    separates their fields (`delimiter`: ' ', or '\t' when every file is tab-separated)."""
    delimiter = " "


def _tab_separated(path: Path) -> bool:
    """Whether an uncompressed file separates its fields by tabs alone: it has a tab, and no
    space, form feed or vertical tab (lines.absent_bytes: memchr scans of the mapped file; the
    caller's byte scan, trec.file_facts, has refused lone carriage returns and control
    characters already; a gzipped file, whose bytes it does not scan, is never one)."""
    tab, space, vt, ff = absent_bytes([str(path)], (b"\t", b" ", b"\x0b", b"\x0c"))
    return not tab and space and vt and ff


@contextmanager
def spaced_sources(paths, plain: Plain, n_fields: int = 6, *, thorough: bool = False):
    """For each path, the file DuckDB's split may read instead (the file itself or a
    single-spaced temporary copy, removed on exit), as Sources; None when any file needs the
    regex path. Unreadable files give None too: the caller's own path then reports them. Files
    that are all tab-separated are read as they are, split on the tab; `thorough`: files
    without a tab are checked for runs of spaces too, and tab-separated ones re-spaced
    (_source; read_spaced's second read)."""
    paths = list(paths)
    made: list[Path] = []
    try:
        try:
            tabbed = not thorough and all(not plain(Path(p)) and _tab_separated(Path(p))
                                          for p in paths)
        except (OSError, EOFError, ValueError):
            tabbed = False
        if tabbed and paths:
            sources = Sources(Path(p) for p in paths)
            sources.delimiter = "\t"
            yield sources
            return
        sources = Sources()
        for path in paths:
            try:
                src = _source(Path(path), made, n_fields, plain, thorough=thorough)
            except (OSError, EOFError, ValueError):      # the caller names the problem
                src = None
            if src is None:
                sources = None
                break
            sources.append(src)
        yield sources
    finally:
        for name in made:
            name.unlink(missing_ok=True)


def read_spaced(paths, plain: Plain, read: Callable[[Sources], T | None],
                n_fields: int = 6) -> T | None:
    """`read(sources)` over spaced_sources(paths); None when DuckDB's split refuses them (read
    returns None: an empty field, another field count, a comment line) and the regex path must
    read them. Files read as they are the first time (single-spaced or tab-separated) and
    refused are read once more from their single-spaced copies (`thorough`), when they have
    any runs of spaces or tabs to make single: the byte counts that find those cost 10 ms for
    a 5 MB run, so the first read goes without them."""
    paths = [Path(p) for p in paths]
    with spaced_sources(paths, plain, n_fields) as sources:
        got = None if sources is None else read(sources)
        as_is = sources is not None and list(sources) == paths
    if got is not None or not as_is:
        return got
    with spaced_sources(paths, plain, n_fields, thorough=True) as sources:
        if sources is None or list(sources) == paths:          # nothing to make single
            return None
        return read(sources)


def stage_fields(con: duckdb.DuckDBPyConnection, path: Path, table: str, n_fields: int,
                 plain: Plain, select: Callable[[Callable[[int], str], str], str],
                 params: dict) -> bool:
    """Stage a qrels-like file of exactly `n_fields` fields per line as TEMP `table`, with DuckDB's
    single-space split: its columns are `select(field, nf)`, `field(i)` being the SQL of the
    line's i-th field (from 1) and `nf` of its number of fields, as trec._stage_lines's rows
    give them to the same `select` (one pass from the file to the parsed rows: 0.015 s less
    than staging the lists of fields first, for TREC 2003 Robust's 128,796 judgments). Returns
    False (nothing staged) when the file needs the regex path: another spacing that cannot be
    made single, a line with another field count, a blank or comment line (the regex path skips
    them; here they would be rows). `params`: the values `select` binds."""
    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(n_fields))

    def field(i: int) -> str:
        return f"c{i - 1}"
    odd = " OR ".join([*(f"{field(i)} IS NULL" for i in range(1, n_fields + 1)),
                       f"starts_with({field(1)}, '#')", f"starts_with({field(1)}, '<SYSDESC>')"])

    def read(sources: Sources) -> bool | None:
        try:
            con.execute(f"""
                CREATE OR REPLACE TEMP TABLE {table} AS
                SELECT {select(field, str(n_fields))}, {odd} AS odd_line
                FROM read_csv($path, columns = {{{columns}}}, delim = $delim, quote = '',
                              escape = '', header = false, auto_detect = false,
                              strict_mode = true, null_padding = false, all_varchar = true,
                              compression = '{duckdb_compression(sources[:1])}',
                              max_line_size = {LINE_LIMIT + 1})""",
                        {**params, "path": str(sources[0]), "delim": sources.delimiter})
        except (duckdb.InvalidInputException, duckdb.ConversionException):
            return None
        if con.execute(f"SELECT bool_or(odd_line) FROM {table}").fetchone()[0]:
            con.execute(f"DROP TABLE {table}")
            return None
        return True
    return bool(read_spaced([path], plain, read, n_fields))
