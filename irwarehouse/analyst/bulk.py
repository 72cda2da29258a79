"""Ingesting a whole folder of run files into a campaign with one command.

All or nothing: every file is read and checked before anything is written, and the runs are
written in one transaction, so a bad file (reported with its file and line) leaves the
warehouse as it was; `keep_going` stores the good files and reports the bad ones instead.
The team of a run comes from its file name by a regular expression's first group, or by
default from the run name (analyst.teams.default_team: `MU03rob01` -> `MU`,
`KASYS-CO-REV-6` -> `KASYS`, `THUIRr0301` -> `THUIR`; a mapping file fixes the rest)."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..errors import IrwError, WarehouseError
from ..formats.batches import size_batches, text_size
from ..formats.trec import sha256_of, stage_run, stage_runs_bulk
from ..store import digests
from ..store.ingest import (
    StagedRun,
    campaign_id,
    check_name,
    set_campaign_facts,
    transaction,
    write_staged_runs,
)

NAME_SOURCES = ("tag", "file")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
_RUN_SUFFIXES = (".txt", ".run", ".res", ".trec", ".tsv")


@dataclass
class FolderResult:
    stored: list[tuple[str, str, str | None]] = field(default_factory=list)  # file, run, team
    skipped: list[tuple[str, str]] = field(default_factory=list)             # file, why
    failed: list[tuple[str, str]] = field(default_factory=list)              # file, error


def run_files(folder: Path, pattern: str = "*") -> list[Path]:
    """The run files of a folder, in name order: every entry that is not hidden and not a
    folder. A named pipe, a device or a symbolic link to nothing is one of them, so that the
    reader refuses it by name (formats.lines.check_path) rather than it being left out
    without a word."""
    folder = Path(folder)
    if not folder.is_dir():
        raise WarehouseError(f"{folder} is not a folder")
    files = sorted(p for p in _entries(folder, pattern) if not p.is_dir())
    if not files:
        raise WarehouseError(f"no run files in {folder} (pattern {pattern!r})")
    return files


def _entries(folder: Path, pattern: str) -> list[Path]:
    return [p for p in folder.glob(pattern) if not p.name.startswith(".")]


def sub_folders(folder: Path, pattern: str = "*") -> list[Path]:
    """The folders among a folder's entries (not read: listed as skipped)."""
    return sorted(p for p in _entries(Path(folder), pattern) if p.is_dir())


def team_of(file_name: str, run_name: str, pattern: str | None) -> str | None:
    """`pattern` searched in the file name, its first group or (without groups) the whole
    match, as `irw meta pool --team-pattern` reads run names; without a pattern, the team the
    run name suggests (analyst.teams.default_team). None when nothing matches."""
    if not pattern:
        from .teams import default_team
        return default_team(run_name)
    regex = re.compile(pattern)
    m = regex.search(file_name)
    if not m:
        return None
    return (m.group(1) if regex.groups else m.group(0)) or None


def run_name_from_file(file_name: str) -> str:
    """A run name from its file name: compression and run-file suffixes removed
    (`rm.results-cata.txt.gz` -> `rm.results-cata`)."""
    name = file_name
    for suffixes in (_COMPRESSED, _RUN_SUFFIXES):
        for suffix in suffixes:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                break
    return name


def ingest_folder(con: duckdb.DuckDBPyConnection, folder: Path, campaign: str, *,
                  team_pattern: str | None = None, glob: str = "*", replace: bool = False,
                  skip_existing: bool = False, keep_going: bool = False,
                  keep_first: bool = False, names: str = "tag", year: int | None = None,
                  venue: str | None = None,
                  progress: Callable[[Path], None] | None = None) -> FolderResult:
    """Store every run file of `folder` in `campaign`, all or nothing: one transaction writes
    every run. The files are read at once or, in a large folder, a batch at a time, so that
    memory holds one batch whatever the number of runs (_batches); each read is one CSV read
    when the files are clean, otherwise file by file, which names the first bad line. A bad
    file rolls everything back; with `keep_going` the good files are stored and the bad ones
    listed in the result instead. `progress(file)` after each file is checked. Runs are named
    by their run tag (`names="tag"`) or their file name (`"file"`, for folders whose runs
    share a tag)."""
    if names not in NAME_SOURCES:
        raise WarehouseError(f"runs are named by one of {', '.join(NAME_SOURCES)}, not {names!r}")
    if team_pattern:
        try:
            re.compile(team_pattern)
        except re.error as exc:
            raise WarehouseError(f"bad team pattern {team_pattern!r}: {exc}") from None
    files = run_files(folder, glob)
    result = FolderResult(skipped=[(p.name, "a folder") for p in sub_folders(folder, glob)])
    naming = _Naming(con, campaign, team_pattern, names, replace, skip_existing, keep_going)
    cid: list[int] = []             # the campaign's id, once a run or a fact needs it

    def the_campaign() -> int:
        if not cid:
            cid.append(campaign_id(con, campaign, create=True))
            set_campaign_facts(con, cid[0], year=year, venue=venue)
        return cid[0]

    def what() -> str:
        stored = result.stored
        return f"run {stored[0][1]} of campaign {campaign}" if len(stored) == 1 else \
            f"{len(stored)} runs of campaign {campaign}"
    batches = _batches(files)
    # A folder of one batch is read on `con` before the transaction (one CSV read, as it
    # always was). A larger one is read a batch at a time inside the transaction, on a
    # connection of its own, as a statement that fails there (the fast path's refusal of a
    # line, which sends the file to the line-by-line reader) would end the transaction of
    # `con` (DuckDB aborts a transaction at its first failed statement); each batch's rows are
    # handed over as a stream (a registered Arrow table would be held until the COMMIT).
    reader = con if len(batches) == 1 else _reader()
    try:
        staged = _stage_folder(con, batches[0], keep_going, keep_first, result, progress) \
            if reader is con else None
        with _bounded(con, reader is not con), transaction(con, what):
            for batch in batches:
                if staged is None:
                    staged = _stage_folder(reader, batch, keep_going, keep_first, result,
                                           progress)
                entries = naming.entries(staged, result)
                if entries:
                    write_staged_runs(con, the_campaign(), campaign, entries, reader,
                                      replace=replace)
                    result.stored += [(e.path.name, e.name, e.team) for e in entries]
                if reader is not con:
                    reader.execute("DROP TABLE IF EXISTS stage_runs")
                staged = None
            if year is not None or venue is not None:
                the_campaign()
    finally:
        if reader is con:
            con.execute("DROP TABLE IF EXISTS stage_runs")
        else:
            reader.close()
    return result


def _reader() -> duckdb.DuckDBPyConnection:
    """The connection a large folder's batches are read on: an in-memory DuckDB of its own
    that hands strings over as Arrow string views (its own layout: no copy to Arrow's)."""
    from ..store.connection import install_sort_macros
    reader = duckdb.connect()
    reader.execute("SET produce_arrow_string_view = true")
    install_sort_macros(reader)          # store/ranks.py ranks ties by trec_eval's order
    return reader


@contextmanager
def _bounded(con: duckdb.DuckDBPyConnection, batched: bool):
    """While a folder is written a batch at a time: DuckDB's memory_limit on a warehouse file
    lowered to WRITE_MEMORY, so that the blocks of rows already written (on disk, kept in
    its buffers for the COMMIT: 14 MB per M rows) are dropped from memory rather than held
    for the whole folder; restored afterwards. An in-memory warehouse keeps its limit (its
    rows live only in memory)."""
    if not batched or not digests.in_file(con):
        yield
        return
    old = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.execute(f"SET memory_limit = '{WRITE_MEMORY}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{old.replace(chr(39), '')}'")   # DuckDB's own text


# A folder of up to ONE_READ_BYTES of run files is read at once (the fastest: one CSV read,
# nothing handed over; about 0.7 GB of memory at this size); a larger one in batches of about
# BATCH_BYTES, so that memory stays under 1 GB whatever the number of runs (3.5 GB at 400 runs
# of 50,000 lines when every folder was read at once; issue 32), at a cost of about 25% more
# CPU for the hand-over of the rows (an Arrow stream). Sizes are bytes of text: a gzipped run
# counts formats.batches.GZIP_RATIO times. The stored trec_eval rank is computed the same way in both
# (store/ranks.py: the file order checked, only ties and lists out of order sorted).
ONE_READ_BYTES = 256 << 20
BATCH_BYTES = 64 << 20
WRITE_MEMORY = "256MiB"          # DuckDB's memory_limit on the warehouse while batches are written


def _batches(files: list[Path]) -> list[list[Path]]:
    """The files in batches: all at once up to ONE_READ_BYTES, else of about BATCH_BYTES each
    (a larger file is a batch of its own)."""
    if sum(text_size(path) for path in files) <= ONE_READ_BYTES:
        return [files]
    return size_batches(files, BATCH_BYTES)


@dataclass
class _Staged:
    fi: int                     # the file's number in stage_runs
    path: Path
    tag: str
    sha256: str


def _stage_folder(con, files: list[Path], keep_going: bool, keep_first: bool,
                  result: FolderResult, progress) -> list[_Staged]:
    """Read and check every file into TEMP table stage_runs (fi, topic, doc, score, rank; the
    rowid is the file order): one CSV read of all of them when every file is clean
    (formats.trec.stage_runs_bulk), otherwise each file by the single-file reader, whose
    errors name the file and line. A bad file stops everything, or with `keep_going` is
    listed in result.failed."""
    import numpy  # noqa: F401  (the ranks need it: loaded first, the byte scan uses it too)
    meta = stage_runs_bulk(con, files, digest=True, small_table=0)   # numpy: ranks need it
    if meta is not None:
        for path in files:
            if progress:
                progress(path)
        return [_Staged(i + 1, path, m["tag"], m["sha256"])
                for i, (path, m) in enumerate(zip(files, meta))]
    con.execute("CREATE OR REPLACE TEMP TABLE stage_runs (fi INTEGER, topic VARCHAR, "
                "doc VARCHAR, score DOUBLE, rank BIGINT)")
    staged = []
    try:
        for i, path in enumerate(files):
            try:
                tag = stage_run(con, path, keep_first=keep_first)
                digest = sha256_of(path)
            except IrwError as exc:
                if not keep_going:
                    raise
                result.failed.append((path.name, str(exc)))
            else:
                con.execute("INSERT INTO stage_runs SELECT ?, topic, doc, score, rank "
                            "FROM stage_run ORDER BY rowid", [i + 1])
                staged.append(_Staged(i + 1, path, tag, digest))
            finally:
                if progress:
                    progress(path)
    except BaseException:
        con.execute("DROP TABLE IF EXISTS stage_runs")
        raise
    finally:
        con.execute("DROP TABLE IF EXISTS stage_run")
    return staged


class _Naming:
    """The stored name and team of every staged file, with the refusals of the folder's rules
    (a tag used twice, a name already stored without --replace or --skip-existing) decided
    before a batch is written, against the runs stored before the ingest and the names of the
    earlier batches."""

    def __init__(self, con, campaign: str, team_pattern, names: str, replace: bool,
                 skip_existing: bool, keep_going: bool):
        self.campaign, self.team_pattern, self.names = campaign, team_pattern, names
        self.replace, self.skip_existing, self.keep_going = replace, skip_existing, keep_going
        self.stored = dict(con.execute("""
            SELECT r.name, r.sha256 FROM run r JOIN campaign c USING (campaign_id)
            WHERE c.name = ?""", [campaign]).fetchall())
        self.used: set[str] = set()

    def entries(self, staged: list[_Staged], result: FolderResult) -> list[StagedRun]:
        entries: list[StagedRun] = []
        from ..formats.ir_metadata import embedded
        for s in staged:
            try:
                name = self._name(s, result)
                metadata = embedded(s.path, run_tag=s.tag) if name is not None else None
            except IrwError as exc:
                if not self.keep_going:
                    raise
                result.failed.append((s.path.name, str(exc)))
                continue
            if name is not None:
                self.used.add(name)
                team = team_of(s.path.name, name, self.team_pattern)
                if team is not None:
                    check_name("team", team)
                entries.append(StagedRun(s.fi, s.path, name, team, s.sha256, metadata))
        return entries

    def _name(self, s: _Staged, result: FolderResult) -> str | None:
        """The run's name, or None when it is skipped (already stored, --skip-existing)."""
        name = run_name_from_file(s.path.name) if self.names == "file" else s.tag
        if self.names == "tag" and name in self.used:
            raise WarehouseError(f"{s.path.name}: run tag {name!r} was already used by "
                                 "another file of this folder; name runs by file with "
                                 "--names file")
        check_name("run", name)
        if name in self.stored and self.skip_existing:
            why = "already stored" if self.stored[name] == s.sha256 else \
                "a different run of that name is stored (use --replace)"
            result.skipped.append((s.path.name, why))
            self.used.add(name)
            return None
        if name in self.stored and not self.replace:
            raise WarehouseError(f"{s.path}: run {name!r} is already in campaign "
                                 f"{self.campaign!r} (use --replace to replace it)")
        return name


class StderrProgress:
    """A one-line progress bar on stderr (redrawn in place on a terminal; one line per step
    otherwise, so logs show where a long ingest stands)."""

    def __init__(self, total: int, label: str, stream=None, width: int = 30):
        import sys
        self.total, self.label, self.width, self.done = total, label, width, 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def step(self, item: Path | str) -> None:
        self.done += 1
        name = getattr(item, "name", str(item))
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"{self.label} [{bar}] {self.done}/{self.total} {name}"
        if self.tty:
            self.stream.write("\r" + text[:120].ljust(120))
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
