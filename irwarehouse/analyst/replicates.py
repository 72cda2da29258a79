"""`irw compare --group`: which system each run belongs to, and the score matrices of systems
(each cell the per-topic mean over the system's runs; irwarehouse.stats.replicates).

The grouping is one of
* `team`: each run's stored team (`irw ingest teams`, `irw ingest run --team`), else the team
  its name suggests (teams.default_team), else its name;
* a file (an existing path): `run<TAB>system` lines, the format of `irw ingest teams`; a run the
  file does not name is a system of its own (with a warning);
* a regular expression: a run's system is the first group of its first match (the whole match
  without a group), e.g. `'^(.*)-seed[0-9]+$'`; a run it does not match is a system of its own
  (with a warning).

Compared across campaigns (`-C A -C B`), a system stays within its campaign (`A/system`)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..errors import IrwError


def systems_of(con, campaigns: list[str], runs: list[str], spec: str, warn=None
               ) -> tuple[dict[str, str], str]:
    """run -> system for the matrix's runs ("C/run" when several campaigns), and how the
    grouping was read (for the header)."""
    several = len(campaigns) > 1
    if spec == "team":
        return _by_team(con, campaigns, runs, several), "the runs' teams"
    path = Path(spec)
    if path.is_file():
        from .teams import read_team_file
        mapping = read_team_file(path)
        found = {r: mapping.get(_bare(r, several), mapping.get(r)) for r in runs}
        how = f"file {spec}"
    else:
        try:
            pattern = re.compile(spec)
        except re.error as exc:
            raise IrwError(f"--group {spec!r} is neither 'team', a file, nor a regular "
                           f"expression ({exc})") from None
        found = {}
        for r in runs:
            m = pattern.search(_bare(r, several))
            found[r] = (m.group(1) if m.groups() else m.group(0)) if m else None
            if m is not None and not found[r]:
                found[r] = None
        how = f"pattern {spec}"
    alone = [r for r in runs if found[r] is None]
    if len(alone) == len(runs):
        raise IrwError(f"--group {spec}: no run of the comparison belongs to a system "
                       f"(runs: {', '.join(runs[:3])}{', ...' if len(runs) > 3 else ''})")
    if alone and warn is not None:
        warn(f"--group {spec}: {len(alone)} run(s) belong to no system and stand alone "
             f"({', '.join(alone[:3])}{', ...' if len(alone) > 3 else ''})")
    # with several campaigns a system stays within its campaign: "C/system"
    return {r: _within(r, found[r], several) if found[r] is not None else r
            for r in runs}, how


def _within(run: str, system: str, several: bool) -> str:
    return f"{run.split('/', 1)[0]}/{system}" if several and "/" in run else system


def _bare(run: str, several: bool) -> str:
    return run.split("/", 1)[1] if several and "/" in run else run


def _by_team(con, campaigns: list[str], runs: list[str], several: bool) -> dict[str, str]:
    from .teams import default_team
    stored = {}
    for campaign in campaigns:
        for name, team in con.execute(
                "SELECT r.name, r.team FROM run r JOIN campaign c USING (campaign_id) "
                "WHERE c.name = ?", [campaign]).fetchall():
            stored[f"{campaign}/{name}" if several else name] = team
    return {r: _within(r, team, several) if (team := stored.get(r) or
                                                 default_team(_bare(r, several))) else r
            for r in runs}


def grouped_matrices(con, campaigns: list[str], matrices, spec: str, warn=None):
    """The systems' matrices (one per measure) and each measure's spreads, and how the
    grouping was read."""
    from ..engine.matrix import run_values
    from ..stats.replicates import group_columns, spreads
    system_of, how = systems_of(con, campaigns, matrices[0].runs, spec, warn=warn)
    out, spread = [], []
    for matrix in matrices:
        values, systems, members = group_columns(matrix.values, matrix.runs, system_of)
        if len(systems) < 2:
            raise IrwError(f"--group {spec}: every run belongs to one system "
                           f"({systems[0]}); nothing to compare")
        out.append(replace(matrix, values=values, runs=systems))
        spread.append(spreads(matrix.values, matrix.runs, systems, members, values,
                              lambda m, s=matrix.summary: run_values(m, s)))
    return out, spread, how
