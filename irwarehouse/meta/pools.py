"""Pools: the top-k documents of chosen runs per topic, with the teams that contributed each
document (seed 000 section 5.4), stored in the `pool`, `pool_run` and `pool_doc` tables.

Pooling is SQL: a window numbers every run's documents per topic in the evaluation order of
trec_eval 9 (score as a 32-bit float descending, then docno descending; sql/context.sql), and the
documents ranked <= depth are grouped per (topic, doc) with the sorted list of their teams.

A run's team is, in this order: an explicit mapping, the match of ``team_pattern`` on the run
name (group 1 if the pattern has a group), the team stored with the run, the run name itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from ..errors import WarehouseError
from ..ingest import campaign_id as _campaign_id
from ..ingest import transaction

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
        rows = [by_name[n] for n in runs]
    pattern = re.compile(team_pattern) if team_pattern else None
    out = []
    for run_id, name, stored in rows:
        team = (teams or {}).get(name)
        if team is None and pattern is not None:
            match = pattern.search(name)
            if match:
                team = match.group(1) if pattern.groups else match.group(0)
        out.append((run_id, name, team or stored or name))
    return out


def build_pool(con: duckdb.DuckDBPyConnection, campaign: str, *, depth: int,
               runs: list[str] | None = None, name: str | None = None,
               teams: dict[str, str] | None = None, team_pattern: str | None = None,
               replace: bool = False) -> int:
    """Pool the top `depth` documents of the runs (default: all runs of the campaign) into
    the warehouse as pool `name` (default 'depth<k>'); returns its pool_id."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise WarehouseError(f"pool depth must be a positive integer, got {depth!r}")
    name = name or f"depth{depth}"
    members = run_teams(con, campaign, runs, teams=teams, team_pattern=team_pattern)
    cid = _campaign_id(con, campaign)
    with transaction(con):
        old = con.execute("SELECT pool_id FROM pool WHERE campaign_id = ? AND name = ?",
                          [cid, name]).fetchone()
        if old and not replace:
            raise WarehouseError(f"pool {name!r} is already in campaign {campaign!r} "
                                 "(use --replace to replace it)")
        if old:
            drop_pool(con, old[0])
        pool_id = con.execute("SELECT coalesce(max(pool_id), 0) + 1 FROM pool").fetchone()[0]
        con.execute("INSERT INTO pool (pool_id, campaign_id, name, depth) VALUES (?, ?, ?, ?)",
                    [pool_id, cid, name, depth])
        con.executemany("INSERT INTO pool_run VALUES (?, ?, ?)",
                        [(pool_id, run_id, team) for run_id, _, team in members])
        con.execute(POOL_SQL, {"pool_id": pool_id, "depth": depth})
    return pool_id


def drop_pool(con: duckdb.DuckDBPyConnection, pool_id: int) -> None:
    for table in ("pool_doc", "pool_run", "pool"):
        con.execute(f"DELETE FROM {table} WHERE pool_id = ?", [pool_id])


def pool_id(con: duckdb.DuckDBPyConnection, campaign: str, name: str) -> int:
    row = con.execute("""SELECT p.pool_id FROM pool p JOIN campaign c USING (campaign_id)
                         WHERE c.name = ? AND p.name = ?""", [campaign, name]).fetchone()
    if not row:
        raise WarehouseError(f"no pool {name!r} in campaign {campaign!r} "
                             "(build one with `irw meta pool`)")
    return row[0]


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
