"""Ingesting a whole folder of run files into a campaign with one command.

Each run is stored in its own transaction (a bad file never leaves half a run); by default the
first bad file stops the command, with its file and line; `keep_going` reports bad files at
the end instead. The team of a run comes from its file name by a regular expression's first
group, or by default from the run name (analyst.teams.default_team: `MU03rob01` -> `MU`,
`KASYS-CO-REV-6` -> `KASYS`, `THUIRr0301` -> `THUIR`; a mapping file fixes the rest)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..errors import IrwError, WarehouseError
from ..formats.trec import sha256_of, stage_run
from ..store.ingest import campaign_id, store_staged_run, transaction

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


def set_campaign_info(con: duckdb.DuckDBPyConnection, campaign: str, *, year: int | None = None,
                      venue: str | None = None) -> None:
    """Create the campaign if new and record its year and venue (when given)."""
    with transaction(con):
        cid = campaign_id(con, campaign, create=True)
        if year is not None:
            con.execute("UPDATE campaign SET year = ? WHERE campaign_id = ?", [year, cid])
        if venue is not None:
            con.execute("UPDATE campaign SET venue = ? WHERE campaign_id = ?", [venue, cid])


def ingest_folder(con: duckdb.DuckDBPyConnection, folder: Path, campaign: str, *,
                  team_pattern: str | None = None, glob: str = "*", replace: bool = False,
                  skip_existing: bool = False, keep_going: bool = False,
                  keep_first: bool = False, names: str = "tag",
                  progress: Callable[[Path], None] | None = None) -> FolderResult:
    """Store every run file of `folder` in `campaign`; `progress(file)` after each file.
    Runs are named by their run tag (`names="tag"`) or their file name (`"file"`, for
    folders whose runs share a tag)."""
    if names not in NAME_SOURCES:
        raise WarehouseError(f"runs are named by one of {', '.join(NAME_SOURCES)}, not {names!r}")
    if team_pattern:
        try:
            re.compile(team_pattern)
        except re.error as exc:
            raise WarehouseError(f"bad team pattern {team_pattern!r}: {exc}") from None
    result = FolderResult()
    for path in run_files(folder, glob):
        try:
            _one(con, path, campaign, team_pattern, replace, skip_existing, keep_first, names,
                 result)
        except IrwError as exc:
            if not keep_going:
                raise
            result.failed.append((path.name, str(exc)))
        finally:
            if progress:
                progress(path)
    return result


def _one(con, path: Path, campaign: str, team_pattern, replace, skip_existing, keep_first,
         names: str, result: FolderResult) -> None:
    tag = stage_run(con, path, keep_first=keep_first)
    if names == "file":
        tag = run_name_from_file(path.name)
    elif any(tag == run for _, run, _ in result.stored):
        raise WarehouseError(f"{path.name}: run tag {tag!r} was already used by another file "
                             "of this folder; name runs by file with --names file")
    digest = sha256_of(path)
    if skip_existing:
        old = con.execute("""
            SELECT r.sha256 FROM run r JOIN campaign c USING (campaign_id)
            WHERE c.name = ? AND r.name = ?""", [campaign, tag]).fetchall()
        if old:
            why = "already stored" if old[0][0] == digest else "a different run of that name " \
                  "is stored (use --replace)"
            result.skipped.append((path.name, why))
            return
    team = team_of(path.name, tag, team_pattern)
    store_staged_run(con, campaign, name=tag, team=team, source=str(path.resolve()),
                     digest=digest, replace=replace)
    result.stored.append((path.name, tag, team))


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
