"""Which team submitted a run: the default read from the run's name, and a mapping file
(`irw ingest teams FILE -C C`, TSV `run<TAB>team`) for the names no rule reads right, so that
`run_family` and the cross-campaign views join a team's runs across years.

The default: the run name up to its first digit, dot, dash or underscore (`MU03rob01` -> MU,
`KASYS-CO-REV-6` -> KASYS, NTCIR's TEAM-XX-YY-n), then, where the case changes after a team
acronym of two or more letters, the acronym alone: `THUIRr0301` -> THUIR, `VTcdhgp1` -> VT
(upper case, then lower case letters of the run), `pircRBa1` -> pirc, `uwmtCR0` -> uwmt (lower
case, then upper case). A name that fits neither keeps its prefix (`UAmsT03RDesc` -> UAmsT,
`InexpC2` -> InexpC): give those in a mapping file."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from ..errors import InputError, WarehouseError
from ..formats.trec import tsv_lines
from ..store import digests
from ..store.ingest import campaign_id, check_name, transaction

_PREFIX = re.compile(r"^([^0-9._-]+)")
_UPPER_THEN_LOWER = re.compile(r"^([A-Z]{2,})[a-z]+$")
_LOWER_THEN_UPPER = re.compile(r"^([a-z]{2,})[A-Z][A-Za-z]*$")


def default_team(run_name: str) -> str | None:
    """The team a run name suggests (module doc); None when the name starts with a digit,
    dot, dash or underscore."""
    m = _PREFIX.match(run_name)
    if not m:
        return None
    prefix = m.group(1)
    for rule in (_UPPER_THEN_LOWER, _LOWER_THEN_UPPER):
        acronym = rule.match(prefix)
        if acronym:
            return acronym.group(1)
    return prefix


def read_team_file(path: str | Path) -> dict[str, str]:
    """run -> team from a TSV file of `run<TAB>team` lines (blank lines and `#` comments
    skipped); a bad line or a run given two teams is an InputError naming the line."""
    path = Path(path)
    teams: dict[str, str] = {}
    first: dict[str, int] = {}
    for lineno, fields in tsv_lines(path):
        fields = [f.strip() for f in fields]
        if len(fields) != 2 or not all(fields):
            raise InputError(path, lineno, f"expected 2 tab-separated fields (run, team), "
                             f"found {len([f for f in fields if f])}")
        run, team = fields
        try:
            check_name("team", team)
        except WarehouseError as exc:
            raise InputError(path, lineno, str(exc)) from None
        if run in teams and teams[run] != team:
            raise InputError(path, lineno, f"run {run!r} was given team {teams[run]!r} at "
                             f"line {first[run]}")
        teams[run] = team
        first.setdefault(run, lineno)
    if not teams:
        raise InputError(path, None, "no run<TAB>team lines")
    return teams


def set_teams(con: duckdb.DuckDBPyConnection, campaign: str, teams: dict[str, str]
              ) -> tuple[int, list[str], list[str]]:
    """Give the runs of `campaign` named in `teams` their team, in one transaction. Returns
    (runs changed or confirmed, runs of the file not in the campaign, runs of the campaign not
    in the file). A mapping file may cover several campaigns, so runs it names that this
    campaign lacks are not an error."""
    cid = campaign_id(con, campaign)
    stored = [r for (r,) in con.execute("SELECT name FROM run WHERE campaign_id = ? "
                                        "ORDER BY name", [cid]).fetchall()]
    if not stored:
        raise WarehouseError(f"campaign {campaign!r} has no runs")
    matched = [r for r in stored if r in teams]
    if not matched:
        more = ", ..." if len(stored) > 3 else ""
        raise WarehouseError(f"no run of campaign {campaign!r} is named in the team file "
                             f"(its runs: {', '.join(stored[:3])}{more})")
    with transaction(con, f"the teams of campaign {campaign}"):
        con.executemany("UPDATE run SET team = ? WHERE campaign_id = ? AND name = ?",
                        [[teams[r], cid, r] for r in matched])
        digests.touch(con, "run", "campaign_id = ?", [cid])
    stored_set = set(stored)
    return (len(matched), sorted(r for r in teams if r not in stored_set),
            [r for r in stored if r not in teams])
