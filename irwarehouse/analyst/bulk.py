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
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..errors import IrwError, WarehouseError
from ..formats.trec import sha256_of, stage_run, stage_runs_bulk
from ..store.ingest import StagedRun, check_name, store_staged_runs

NAME_SOURCES = ("tag", "file")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
_RUN_SUFFIXES = (".txt", ".run", ".res", ".trec", ".tsv")


@dataclass
class FolderResult:
    stored: list[tuple[str, str, str | None]] = field(default_factory=list)  # file, run, team
    skipped: list[tuple[str, str]] = field(default_factory=list)             # file, why
    failed: list[tuple[str, str]] = field(default_factory=list)              # file, error


def run_files(folder: Path, pattern: str = "*") -> list[Path]:
    """The run files of a folder: regular, not hidden, in name order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise WarehouseError(f"{folder} is not a folder")
    files = sorted(p for p in folder.glob(pattern) if p.is_file() and not p.name.startswith("."))
    if not files:
        raise WarehouseError(f"no run files in {folder} (pattern {pattern!r})")
    return files


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
    """Store every run file of `folder` in `campaign`, all or nothing: every file is read and
    checked first (one CSV read of all of them when they are clean, otherwise file by file,
    which names the first bad line), then every run is written in one transaction. With
    `keep_going` the good files are stored and the bad ones listed in the result instead.
    `progress(file)` after each file is checked. Runs are named by their run tag
    (`names="tag"`) or their file name (`"file"`, for folders whose runs share a tag)."""
    if names not in NAME_SOURCES:
        raise WarehouseError(f"runs are named by one of {', '.join(NAME_SOURCES)}, not {names!r}")
    if team_pattern:
        try:
            re.compile(team_pattern)
        except re.error as exc:
            raise WarehouseError(f"bad team pattern {team_pattern!r}: {exc}") from None
    files = run_files(folder, glob)
    result = FolderResult()
    staged = _stage_folder(con, files, keep_going, keep_first, result, progress)
    try:
        entries = _name_runs(con, staged, campaign, team_pattern, names, replace,
                             skip_existing, keep_going, result)
        if entries or year is not None or venue is not None:
            store_staged_runs(con, campaign, entries, replace=replace, year=year, venue=venue)
        result.stored = [(e.path.name, e.name, e.team) for e in entries]
    finally:
        con.execute("DROP TABLE IF EXISTS stage_runs")
    return result


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
    meta = stage_runs_bulk(con, files, digest=True)
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


def _name_runs(con, staged: list[_Staged], campaign: str, team_pattern, names: str,
               replace: bool, skip_existing: bool, keep_going: bool,
               result: FolderResult) -> list[StagedRun]:
    """The stored name and team of every staged file, with the refusals of the folder's rules
    (a tag used twice, a name already stored without --replace or --skip-existing) decided
    before anything is written."""
    stored = dict(con.execute("""
        SELECT r.name, r.sha256 FROM run r JOIN campaign c USING (campaign_id)
        WHERE c.name = ?""", [campaign]).fetchall())
    entries: list[StagedRun] = []
    used: set[str] = set()
    for s in staged:
        try:
            name = run_name_from_file(s.path.name) if names == "file" else s.tag
            if names == "tag" and name in used:
                raise WarehouseError(f"{s.path.name}: run tag {name!r} was already used by "
                                     "another file of this folder; name runs by file with "
                                     "--names file")
            check_name("run", name)
            if name in stored and skip_existing:
                why = "already stored" if stored[name] == s.sha256 else \
                    "a different run of that name is stored (use --replace)"
                result.skipped.append((s.path.name, why))
                used.add(name)
                continue
            if name in stored and not replace:
                raise WarehouseError(f"{s.path}: run {name!r} is already in campaign "
                                     f"{campaign!r} (use --replace to replace it)")
        except IrwError as exc:
            if not keep_going:
                raise
            result.failed.append((s.path.name, str(exc)))
            continue
        used.add(name)
        team = team_of(s.path.name, name, team_pattern)
        if team is not None:
            check_name("team", team)
        entries.append(StagedRun(s.fi, s.path, name, team, s.sha256))
    return entries


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
