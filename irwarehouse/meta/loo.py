"""Leave-one-team-out test of pool reusability (Sakai, PROMISE 2014, section 5.4, Fig 18).

For a pool P built from the runs of m teams, C_j is what team j contributed, U_j = C_j minus the
union of the other teams' contributions (the pool documents whose only contributor is j), and
LOO_j = P - U_j. Here the judgments of LOO_j are the qrels minus the judgments of U_j's documents:
team j's unique documents become unjudged, as if team j had not taken part in the pooling.

Each team's runs are evaluated with its LOO_j judgments (a derived qrels per team, written to the
warehouse inside a transaction that is rolled back unless ``keep=True``) and compared with the
full judgments: per run the score, its rank among all pool runs when only its own score is
replaced by its LOO score (the others keep their full-judgment scores), and the rank change; per
measure Kendall's tau between the full ranking and the ranking with every run at its LOO score,
and the largest rank change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import duckdb
import numpy as np

from ..engine.evaluate import EvalOptions, evaluate
from ..errors import WarehouseError
from ..measures import parse_measures
from ..store import digests
from ..store.rollback import rollback
from .pools import PoolInfo, pool_info
from .rankcorr import kendall_tau

LOO_JUDGMENTS = """
INSERT INTO judgment (qrels_id, topic, intent, doc, rel)
SELECT $loo_id, j.topic, j.intent, j.doc, j.rel
FROM judgment j
WHERE j.qrels_id = $qrels_id
  AND NOT EXISTS (SELECT 1 FROM pool_doc p
                  WHERE p.pool_id = $pool_id AND p.topic = j.topic AND p.doc = j.doc
                    AND p.teams = [$team])
"""


@dataclass(frozen=True)
class LooRun:
    run: str
    team: str
    measure: str
    full: float
    loo: float
    full_rank: int
    loo_rank: int

    @property
    def rank_change(self) -> int:
        """Positive: the run falls down the ranking without its team's unique documents."""
        return self.loo_rank - self.full_rank

    def record(self) -> dict:
        return {"run": self.run, "team": self.team, "measure": self.measure,
                "full": self.full, "loo": self.loo, "difference": self.loo - self.full,
                "full_rank": self.full_rank, "loo_rank": self.loo_rank,
                "rank_change": self.rank_change}


@dataclass(frozen=True)
class LooMeasure:
    measure: str
    kendall_tau: float                # full ranking vs every run at its LOO score
    max_rank_change: int              # largest |rank change|
    max_rank_change_run: str
    mean_difference: float            # mean of loo - full over the runs
    max_drop: float                   # largest full - loo

    def record(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LooResult:
    pool_id: int
    qrels_id: int
    measures: list[str]
    unique_docs: dict[str, int]       # team -> |U_j| over all topics
    unique_judged: dict[str, int]     # team -> judgments removed for LOO_j
    runs: list[LooRun] = field(default_factory=list)
    summary: list[LooMeasure] = field(default_factory=list)
    pool: PoolInfo | None = None      # how the pool was built
    qrels: str | None = None          # the full qrels' name

    def pool_record(self) -> dict:
        """The pool's build parameters and the qrels, as columns for every output row
        (prefixed pool_ where the name alone would be ambiguous)."""
        if self.pool is None:
            return {}
        info = self.pool.record()
        return {"pool": info["pool"], "pool_depth": info["depth"], "pool_runs": info["runs"],
                "pool_teams": info["teams"], "team_source": info["team_source"],
                "team_pattern": info["team_pattern"], "pool_qrels": info["qrels"],
                "loo_qrels": self.qrels}

    def describe(self) -> str:
        """One line naming the pool's build and the qrels, for the table output."""
        head = self.pool.describe() if self.pool else f"pool {self.pool_id}"
        return f"{head}; LOO with qrels {self.qrels!r}"

    def largest_rank_change(self, measure: str | None = None) -> LooRun | None:
        """The run whose rank moves most (ties: the one losing most score)."""
        runs = [r for r in self.runs if measure is None or r.measure == measure]
        if not runs:
            return None
        return max(runs, key=lambda r: (abs(r.rank_change), r.full - r.loo))


def competition_rank(scores: np.ndarray, i: int, value: float) -> int:
    """1 + the number of other runs scoring strictly more than `value` (run i excluded)."""
    others = np.delete(scores, i)
    return int(1 + np.count_nonzero(others > value))


def _means(result, measure: str) -> dict[str, float]:
    table = result.summary.to_pydict()
    return {run: value for run, m, value in zip(table["run"], table["measure"], table["value"])
            if m == measure}


def leave_one_team_out(con: duckdb.DuckDBPyConnection, *, pool_id: int, qrels_id: int,
                       measures: list[str], options: EvalOptions | None = None,
                       keep: bool = False) -> LooResult:
    """Evaluate every contributing team's runs with LOO_j and compare with the full qrels."""
    options = options or EvalOptions()
    requests = parse_measures(measures, version=options.version)
    # report in the order the measures were given (parse_measures sorts as trec_eval prints)
    order = {r.name: i for i, r in enumerate(
        q for m in measures for q in parse_measures([m], version=options.version))}
    names = sorted((r.name for r in requests), key=lambda n: order.get(n, len(order)))
    members = con.execute("""
        SELECT pr.run_id, r.name, pr.team FROM pool_run pr JOIN run r USING (run_id)
        WHERE pr.pool_id = ? ORDER BY r.name""", [pool_id]).fetchall()
    if not members:
        raise WarehouseError(f"pool {pool_id} has no runs")
    info = pool_info(con, pool_id)
    pool_name, campaign_id = con.execute("SELECT name, campaign_id FROM pool WHERE pool_id = ?",
                                         [pool_id]).fetchone()
    qrels_name = con.execute("SELECT name FROM qrels WHERE qrels_id = ?", [qrels_id]).fetchone()
    if qrels_name is None:
        raise WarehouseError(f"no qrels with id {qrels_id}")
    teams = sorted({t for _, _, t in members})
    run_ids = [m[0] for m in members]
    full = evaluate(con, run_ids, qrels_id, requests, options)
    full_means = {m: _means(full, m) for m in names}
    loo_means: dict[str, dict[str, float]] = {m: {} for m in names}
    unique_docs, unique_judged = {}, {}
    con.execute("BEGIN TRANSACTION")
    try:
        for team in teams:
            loo_id = _derived_qrels(con, campaign_id, qrels_id, f"loo:{pool_name}:{team}")
            con.execute(LOO_JUDGMENTS, {"loo_id": loo_id, "qrels_id": qrels_id,
                                        "pool_id": pool_id, "team": team})
            unique_docs[team], unique_judged[team] = con.execute("""
                SELECT count(*),
                       (SELECT count(*) FROM judgment WHERE qrels_id = $q)
                       - (SELECT count(*) FROM judgment WHERE qrels_id = $l)
                FROM pool_doc WHERE pool_id = $p AND teams = [$t]""",
                {"q": qrels_id, "l": loo_id, "p": pool_id, "t": team}).fetchone()
            con.execute("UPDATE qrels SET num_rows = (SELECT count(*) FROM judgment "
                        "WHERE qrels_id = $l) WHERE qrels_id = $l", {"l": loo_id})
            digests.touch_owner(con, "qrels_id", [loo_id])
            team_runs = [rid for rid, _, t in members if t == team]
            result = evaluate(con, team_runs, loo_id, requests, options)
            for m in names:
                loo_means[m].update(_means(result, m))
        if keep:
            digests.seal(con)
    except BaseException:
        rollback(con)
        raise
    con.execute("COMMIT" if keep else "ROLLBACK")
    result = _compare(pool_id, qrels_id, names, members, full_means, loo_means, unique_docs,
                      unique_judged)
    return replace(result, pool=info, qrels=qrels_name[0])


def _derived_qrels(con, campaign_id: int, qrels_id: int, name: str) -> int:
    old = con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ? AND name = ?",
                      [campaign_id, name]).fetchone()
    if old:
        for table in ("judgment", "score", "qrels"):
            digests.delete(con, table, "qrels_id = ?", [old[0]])
    return con.execute("""
        INSERT INTO qrels (campaign_id, name, format, source_path, sha256, num_rows)
        SELECT campaign_id, ?, format, 'derived from qrels ' || ?, NULL, 0
        FROM qrels WHERE qrels_id = ? RETURNING qrels_id""",
                       [name, str(qrels_id), qrels_id]).fetchone()[0]


def _compare(pool_id, qrels_id, names, members, full_means, loo_means, unique_docs,
             unique_judged) -> LooResult:
    runs_out, summary = [], []
    for m in names:
        present = [(name, team) for _, name, team in members
                   if name in full_means[m] and name in loo_means[m]]
        if not present:
            continue
        # 12 decimals: SQL float sums may differ in the last bits from one evaluation to the
        # next, and such noise must not break a tie between two runs
        full = np.round([full_means[m][n] for n, _ in present], 12)
        loo = np.round([loo_means[m][n] for n, _ in present], 12)
        rows = []
        for i, (name, team) in enumerate(present):
            rows.append(LooRun(name, team, m, float(full[i]), float(loo[i]),
                               competition_rank(full, i, full[i]),
                               competition_rank(full, i, loo[i])))
        runs_out.extend(rows)
        worst = max(rows, key=lambda r: (abs(r.rank_change), r.full - r.loo))
        tau = kendall_tau(full, loo) if len(present) > 1 else float("nan")
        summary.append(LooMeasure(m, tau, abs(worst.rank_change), worst.run,
                                  float(np.mean(loo - full)), float(np.max(full - loo))))
    return LooResult(pool_id, qrels_id, names, unique_docs, unique_judged, runs_out, summary)
