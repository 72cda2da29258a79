"""Pools: the top-k documents of chosen runs per topic, with the teams that contributed each
document (Sakai, PROMISE 2014, section 5.4), stored in the `pool`, `pool_run` and `pool_doc` tables.

Pooling is SQL: a window numbers every run's documents per topic in the evaluation order of
trec_eval 9 (score as a 32-bit float descending, then docno descending; sql/context.sql), and the
documents ranked <= depth are grouped per (topic, doc) with the sorted list of their teams.

A run's team is, in this order: an explicit mapping, the match of ``team_pattern`` on the run
name (group 1 if the pattern has a group), the team stored with the run, the run name itself.

A pool records how it was built: its depth, its runs and their teams (`pool_run`), how the teams
were given and the pattern, and the qrels it was built for (`pool.team_source`, `team_pattern`,
`qrels_id`). A command that would build a pool whose name is taken reuses the stored pool only
when the request is the same pool (``differences`` is empty: same depth, same runs, every run in
the same team, the same qrels when the pool records one), and otherwise fails naming every
difference. A different pattern that puts every run in the same team asks for the same pool.
Pools built before these columns existed show ``recorded = False`` (pattern and qrels unknown);
their depth, runs and teams are compared all the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from ..errors import WarehouseError
from ..store.ingest import campaign_id as _campaign_id
from ..store.ingest import check_name
from ..store import digests
from ..store.ingest import transaction

POOL_SQL = """
INSERT INTO pool_doc
WITH ranked AS (
    SELECT rr.topic, rr.doc, pr.team,
           row_number() OVER (
               PARTITION BY rr.run_id, rr.topic
               -- the evaluation order (sql/metrics/_base.sql), trec_eval 9's
               ORDER BY ev_sort_num('score', true, rr.score, rr.rank, rr.file_order) DESC,
                        ev_sort_doc('score', rr.doc) DESC) AS rank
    FROM run_row rr
    JOIN pool_run pr ON pr.run_id = rr.run_id AND pr.pool_id = $pool_id
)
SELECT $pool_id, topic, doc, list_sort(list_distinct(list(team)))
FROM ranked
WHERE rank <= $depth
GROUP BY topic, doc
"""


def run_teams(con: duckdb.DuckDBPyConnection, campaign: str, runs: list[str] | None = None, *,
              teams: dict[str, str] | None = None, team_pattern: str | None = None
              ) -> list[tuple[int, str, str]]:
    """(run_id, run name, team) of the campaign's runs (all, or those named)."""
    rows = con.execute("""
        SELECT r.run_id, r.name, r.team FROM run r JOIN campaign c USING (campaign_id)
        WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
    if not rows:
        raise WarehouseError(f"no runs in campaign {campaign!r}")
    if runs:
        by_name = {r[1]: r for r in rows}
        missing = [n for n in runs if n not in by_name]
        if missing:
            raise WarehouseError(f"no run {missing[0]!r} in campaign {campaign!r}")
        rows = [by_name[n] for n in dict.fromkeys(runs)]     # a run named twice counts once
    pattern = _compile(team_pattern)
    out = []
    for run_id, name, stored in rows:
        team = (teams or {}).get(name)
        if team is None and pattern is not None:
            match = pattern.search(name)
            if match:
                team = match.group(1) if pattern.groups else match.group(0)
        out.append((run_id, name, team or stored or name))
    return out


def _compile(team_pattern: str | None) -> re.Pattern | None:
    if not team_pattern:
        return None
    try:
        return re.compile(team_pattern)
    except re.error as exc:
        raise WarehouseError(f"bad team pattern {team_pattern!r}: {exc}") from None


@dataclass(frozen=True)
class PoolRequest:
    """A pool as asked for, resolved against the warehouse (validated; nothing written)."""

    campaign: str
    depth: int
    members: list[tuple[int, str, str]]   # (run_id, run name, team), by run name
    team_source: str                      # 'pattern' | 'mapping' | 'mapping+pattern' | 'stored'
    team_pattern: str | None
    qrels_id: int | None
    qrels: str | None = None              # the qrels' name


def pool_request(con: duckdb.DuckDBPyConnection, campaign: str, *, depth: int,
                 runs: list[str] | None = None, teams: dict[str, str] | None = None,
                 team_pattern: str | None = None, qrels_id: int | None = None) -> PoolRequest:
    """Check everything a pool build needs (depth, campaign, runs, pattern, qrels) before
    anything is written, so that a failing build leaves nothing behind."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise WarehouseError(f"pool depth must be a positive integer, got {depth!r}")
    cid = _campaign_id(con, campaign)
    qrels = None
    if qrels_id is not None:
        row = con.execute("SELECT name FROM qrels WHERE qrels_id = ? AND campaign_id = ?",
                          [qrels_id, cid]).fetchone()
        if not row:
            raise WarehouseError(f"no qrels with id {qrels_id} in campaign {campaign!r}")
        qrels = row[0]
    members = run_teams(con, campaign, runs, teams=teams, team_pattern=team_pattern)
    source = "+".join(k for k, given in (("mapping", teams), ("pattern", team_pattern)) if given)
    return PoolRequest(campaign, depth, sorted(members, key=lambda m: m[1]), source or "stored",
                       team_pattern or None, qrels_id, qrels)


def build_pool(con: duckdb.DuckDBPyConnection, campaign: str, *, depth: int,
               runs: list[str] | None = None, name: str | None = None,
               teams: dict[str, str] | None = None, team_pattern: str | None = None,
               replace: bool = False, qrels_id: int | None = None) -> int:
    """Pool the top `depth` documents of the runs (default: all runs of the campaign) into
    the warehouse as pool `name` (default 'depth<k>'), recording how it was built and the
    qrels it is for (`qrels_id`, optional); returns its pool_id. Validates first, then writes
    in one transaction. A taken name is an error (naming how the stored pool differs) unless
    ``replace``."""
    request = pool_request(con, campaign, depth=depth, runs=runs, teams=teams,
                           team_pattern=team_pattern, qrels_id=qrels_id)
    return _write_pool(con, request, f"depth{depth}" if name is None else name,
                       replace=replace)


def _write_pool(con: duckdb.DuckDBPyConnection, request: PoolRequest, name: str, *,
                replace: bool) -> int:
    cid = _campaign_id(con, request.campaign)
    check_name("pool", name)
    with transaction(con):
        old = con.execute("SELECT pool_id FROM pool WHERE campaign_id = ? AND name = ?",
                          [cid, name]).fetchone()
        if old and not replace:
            diff = differences(pool_info(con, old[0]), request)
            how = ("built otherwise: " + "; ".join(diff)) if diff else "built the same way"
            raise WarehouseError(f"pool {name!r} is already in campaign {request.campaign!r}, "
                                 f"{how} (use --replace to replace it, or another --name)")
        if old:
            drop_pool(con, old[0])
        pool_id = con.execute("SELECT coalesce(max(pool_id), 0) + 1 FROM pool").fetchone()[0]
        con.execute("""INSERT INTO pool (pool_id, campaign_id, name, depth, team_source,
                                         team_pattern, qrels_id)
                       VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    [pool_id, cid, name, request.depth, request.team_source,
                     request.team_pattern, request.qrels_id])
        con.executemany("INSERT INTO pool_run VALUES (?, ?, ?)",
                        [(pool_id, run_id, team) for run_id, _, team in request.members])
        con.execute(POOL_SQL, {"pool_id": pool_id, "depth": request.depth})
        digests.touch_owner(con, "pool_id", [pool_id])
    return pool_id


def reuse_or_build(con: duckdb.DuckDBPyConnection, request: PoolRequest, name: str
                   ) -> tuple[int, bool]:
    """The stored pool `name` when it is the pool `request` asks for, else an error naming the
    differences; a new pool when the name is free. Returns (pool_id, built here)."""
    row = con.execute("""SELECT p.pool_id FROM pool p JOIN campaign c USING (campaign_id)
                         WHERE c.name = ? AND p.name = ?""", [request.campaign, name]).fetchone()
    if row is None:
        return _write_pool(con, request, name, replace=False), True
    check_reuse(con, row[0], request)
    return row[0], False


def check_reuse(con: duckdb.DuckDBPyConnection, pool_id: int, request: PoolRequest, *,
                compare: tuple[str, ...] = ("depth", "runs", "teams", "qrels"),
                hint: str | None = None) -> PoolInfo:
    """The stored pool's PoolInfo when `request` asks for that pool (on the aspects in
    `compare`), else a WarehouseError naming every difference (and `hint`, the ways out)."""
    info = pool_info(con, pool_id)
    diff = differences(info, request, compare=compare)
    if diff:
        hint = hint or (f"use it as it is with --pool {info.name}, build the pool you want "
                        "under another name (irw meta pool --name), or rebuild this one "
                        "(irw meta pool --replace)")
        raise WarehouseError(f"pool {info.name!r} of campaign {info.campaign!r} was built "
                             f"otherwise: {'; '.join(diff)}. To go on: {hint}")
    return info


def _pattern(team_pattern: str | None) -> str:
    return repr(team_pattern) if team_pattern else "none"


def _names(items, limit: int = 3) -> str:
    items = sorted(items)
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit
                                       else "")


def differences(info: PoolInfo, request: PoolRequest, *,
                compare: tuple[str, ...] = ("depth", "runs", "teams", "qrels")) -> list[str]:
    """How the stored pool differs from the request, one phrase per aspect (empty: the same
    pool). Runs and teams are compared as resolved (a pattern is compared by the teams it
    gives); qrels only when the pool records some."""
    out = []
    if "depth" in compare and info.depth != request.depth:
        out.append(f"depth {info.depth} in the pool, {request.depth} requested")
    stored = dict(info.members)
    asked = {run: team for _, run, team in request.members}
    if "runs" in compare and set(stored) != set(asked):
        extra, missing = set(asked) - set(stored), set(stored) - set(asked)
        parts = [f"{len(stored)} runs in the pool, {len(asked)} requested"]
        if extra:
            parts.append(f"not in the pool: {_names(extra)}")
        if missing:
            parts.append(f"not requested: {_names(missing)}")
        out.append(", ".join(parts))
    moved = [run for run in asked if run in stored and stored[run] != asked[run]]
    if "teams" in compare and moved:
        first = min(moved)
        pattern = _pattern(info.team_pattern) if info.recorded else "not recorded"
        out.append(f"teams of {len(moved)} runs differ (e.g. {first}: {stored[first]!r} in the "
                   f"pool, {asked[first]!r} requested; team pattern {pattern} in the pool, "
                   f"{_pattern(request.team_pattern)} requested)")
    if ("qrels" in compare and info.qrels_id is not None and request.qrels_id is not None
            and info.qrels_id != request.qrels_id):
        out.append(f"built for qrels {info.qrels!r}, qrels {request.qrels!r} requested")
    return out


def drop_pool(con: duckdb.DuckDBPyConnection, pool_id: int) -> None:
    for table in ("pool_doc", "pool_run", "pool"):
        digests.delete(con, table, "pool_id = ?", [pool_id])


def pool_id(con: duckdb.DuckDBPyConnection, campaign: str, name: str) -> int:
    row = con.execute("""SELECT p.pool_id FROM pool p JOIN campaign c USING (campaign_id)
                         WHERE c.name = ? AND p.name = ?""", [campaign, name]).fetchone()
    if not row:
        raise WarehouseError(f"no pool {name!r} in campaign {campaign!r} "
                             "(build one with `irw meta pool`)")
    return row[0]


@dataclass(frozen=True)
class PoolInfo:
    """How a stored pool was built. ``recorded`` is False for pools built before irw recorded
    the team source, pattern and qrels (those fields are then None: unknown)."""

    pool_id: int
    campaign: str
    name: str
    depth: int
    members: list[tuple[str, str]]        # (run name, team), by run name
    recorded: bool
    team_source: str | None
    team_pattern: str | None
    qrels_id: int | None
    qrels: str | None
    created_at: object = None

    @property
    def n_runs(self) -> int:
        return len(self.members)

    @property
    def n_teams(self) -> int:
        return len({team for _, team in self.members})

    def record(self, *, created: bool = False) -> dict:
        """The build parameters as a flat dict (created_at only when asked: LOO outputs and
        reports leave it out so that the same command writes the same file)."""
        unknown = None if self.recorded else "not recorded"
        out = {"campaign": self.campaign, "pool": self.name, "pool_id": self.pool_id,
               "depth": self.depth, "runs": self.n_runs, "teams": self.n_teams,
               "team_source": self.team_source or unknown,
               "team_pattern": self.team_pattern or unknown,
               "qrels": self.qrels or unknown, "recorded": self.recorded}
        if created:
            out["created_at"] = str(self.created_at) if self.created_at is not None else None
        return out

    def describe(self) -> str:
        """One line: 'pool depth100 (depth 100; 17 runs, 17 teams from --team-pattern ...)'."""
        if not self.recorded:
            teams = f"{self.n_teams} teams (team rule and qrels not recorded: an older pool)"
        elif self.team_source == "stored":
            teams = f"{self.n_teams} teams from the runs' stored teams (else their names)"
        elif self.team_pattern:
            teams = f"{self.n_teams} teams from {self.team_source} {self.team_pattern!r}"
        else:
            teams = f"{self.n_teams} teams from an explicit mapping"
        built_for = f"; built for qrels {self.qrels!r}" if self.qrels else ""
        return (f"pool {self.name} of campaign {self.campaign}: depth {self.depth}, "
                f"{self.n_runs} runs, {teams}{built_for}")


_INFO_SQL = """
    SELECT p.pool_id, c.name, p.name, p.depth, p.team_source IS NOT NULL, p.team_source,
           p.team_pattern, p.qrels_id, q.name, p.created_at
    FROM pool p JOIN campaign c USING (campaign_id)
    LEFT JOIN qrels q ON q.qrels_id = p.qrels_id
"""


def pool_info(con: duckdb.DuckDBPyConnection, pool_id: int) -> PoolInfo:
    infos = _pool_infos(con, _INFO_SQL + " WHERE p.pool_id = ?", [pool_id])
    if not infos:
        raise WarehouseError(f"no pool with id {pool_id}")
    return infos[0]


def list_pools(con: duckdb.DuckDBPyConnection, campaign: str | None = None) -> list[PoolInfo]:
    """Every pool (of a campaign, or of all), by campaign and name."""
    if campaign is not None:
        _campaign_id(con, campaign)                  # an unknown campaign is an error
    return _pool_infos(con, _INFO_SQL + " WHERE ? IS NULL OR c.name = ? ORDER BY c.name, p.name",
                       [campaign, campaign])


def _pool_infos(con, sql: str, params: list) -> list[PoolInfo]:
    rows = con.execute(sql, params).fetchall()
    members: dict[int, list[tuple[str, str]]] = {}
    for pid, run, team in con.execute("""
            SELECT pr.pool_id, r.name, pr.team FROM pool_run pr JOIN run r USING (run_id)
            WHERE list_contains(?, pr.pool_id) ORDER BY r.name""",
            [[r[0] for r in rows]]).fetchall():
        members.setdefault(pid, []).append((run, team))
    return [PoolInfo(pid, campaign, name, depth, members.get(pid, []), recorded, source,
                     pattern, qid,
                     qname or (f"qrels id {qid}, since removed" if qid is not None else None),
                     created)
            for pid, campaign, name, depth, recorded, source, pattern, qid, qname, created
            in rows]


@dataclass(frozen=True)
class PoolStats:
    pool_id: int
    depth: int
    n_runs: int
    n_teams: int
    n_topics: int
    n_docs: int
    judged_docs: int | None           # pool docs that the qrels judge (None without qrels)
    relevant_docs: int | None         # pool docs judged relevant
    qrels_relevant: int | None        # relevant judgments of the qrels on the pool's topics
    per_team: pa.Table                # team, runs, docs, unique_docs, unique_relevant
    per_topic: pa.Table               # topic, docs, judged, relevant, unique_docs

    @property
    def mean_docs_per_topic(self) -> float:
        return self.n_docs / self.n_topics if self.n_topics else float("nan")

    @property
    def relevant_coverage(self) -> float | None:
        """Share of the qrels' relevant documents (on the pool's topics) that the pool holds."""
        if not self.qrels_relevant:
            return None
        return self.relevant_docs / self.qrels_relevant

    def record(self) -> dict:
        return {"pool_id": self.pool_id, "depth": self.depth, "runs": self.n_runs,
                "teams": self.n_teams, "topics": self.n_topics, "docs": self.n_docs,
                "mean_docs_per_topic": self.mean_docs_per_topic,
                "judged_docs": self.judged_docs, "relevant_docs": self.relevant_docs,
                "qrels_relevant": self.qrels_relevant,
                "relevant_coverage": self.relevant_coverage}


def pool_stats(con: duckdb.DuckDBPyConnection, pool_id: int, *, qrels_id: int | None = None,
               threshold: int = 1) -> PoolStats:
    """Sizes of a pool, per team (unique contributions |U_j|) and per topic; with a qrels, how
    many pool documents are judged and relevant (level >= threshold)."""
    head = con.execute("SELECT depth FROM pool WHERE pool_id = ?", [pool_id]).fetchall()
    if not head:
        raise WarehouseError(f"no pool with id {pool_id}")
    head = head[0]
    params = {"pool_id": pool_id, "qrels_id": qrels_id, "threshold": threshold}
    judged_cte = """
        WITH j AS (SELECT topic, doc, max(rel) AS rel FROM judgment
                   WHERE qrels_id = $qrels_id GROUP BY topic, doc),
             d AS (SELECT p.topic, p.doc, p.teams, j.rel FROM pool_doc p
                   LEFT JOIN j ON j.topic = p.topic AND j.doc = p.doc
                   WHERE p.pool_id = $pool_id)"""
    per_topic = con.sql(judged_cte + """
        SELECT topic, count(*) AS docs,
               count(rel) FILTER (WHERE rel >= 0) AS judged,
               count(*) FILTER (WHERE rel >= $threshold) AS relevant,
               count(*) FILTER (WHERE len(teams) = 1) AS unique_docs
        FROM d GROUP BY topic ORDER BY topic""", params=params).to_arrow_table()
    per_team = con.sql(judged_cte + """,
             runs AS (SELECT team, count(*) AS runs FROM pool_run WHERE pool_id = $pool_id
                      GROUP BY team),
             contrib AS (SELECT unnest(teams) AS team, len(teams) = 1 AS single, rel FROM d)
        SELECT r.team, r.runs, count(c.team) AS docs,
               count(c.team) FILTER (WHERE c.single) AS unique_docs,
               count(c.team) FILTER (WHERE c.single AND c.rel >= $threshold) AS unique_relevant
        FROM runs r LEFT JOIN contrib c ON c.team = r.team
        GROUP BY r.team, r.runs ORDER BY r.team""", params=params).to_arrow_table()
    n_runs = con.execute("SELECT count(*) FROM pool_run WHERE pool_id = ?",
                         [pool_id]).fetchone()[0]
    docs = sum(per_topic.column("docs").to_pylist())
    judged = relevant = qrels_relevant = None
    if qrels_id is not None:
        judged = sum(per_topic.column("judged").to_pylist())
        relevant = sum(per_topic.column("relevant").to_pylist())
        qrels_relevant = con.execute("""
            SELECT count(*) FROM (SELECT topic, doc, max(rel) AS rel FROM judgment
                                  WHERE qrels_id = $qrels_id GROUP BY topic, doc)
            WHERE rel >= $threshold
              AND topic IN (SELECT topic FROM pool_doc WHERE pool_id = $pool_id)""",
                                     params).fetchone()[0]
    return PoolStats(pool_id, head[0], n_runs, per_team.num_rows, per_topic.num_rows, docs,
                     judged, relevant, qrels_relevant, per_team, per_topic)
