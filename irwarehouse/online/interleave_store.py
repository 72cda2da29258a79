"""`irw interleave`: interleave two stored runs topic by topic (seeded, recorded in the
`interleaving` and `interleaved_row` tables, and written as a TREC run file), infer every
impression's outcome from a click log of the interleaved lists (`interleaving_outcome`), and
summarise a pair: wins, losses, ties, a sign (binomial) test and a bootstrap interval.

The inputs of each topic are the top `depth` documents of each run in trec_eval's order.
One interleaved list is drawn per topic with a generator seeded from (seed, topic), so a list
does not depend on which other topics exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, WarehouseError
from ..store import digests
from ..store.ingest import campaign_id, check_name, replace_named, transaction
from . import interleave as il


def _ranked(con, cid: int, run: str, depth: int) -> dict[str, list[str]]:
    rows = con.execute("""
        SELECT rr.topic, rr.doc,
               coalesce(rr.score_rank, row_number() OVER (PARTITION BY rr.topic
                        ORDER BY rr.score DESC, rr.doc DESC)) AS rank
        FROM run_row rr JOIN run r USING (run_id)
        WHERE r.campaign_id = ? AND r.name = ? ORDER BY rr.topic, rank""",
                       [cid, run]).fetchall()
    if not rows:
        raise WarehouseError(f"no ranked run {run!r} in the campaign (a stored run with rows)")
    out: dict[str, list[str]] = {}
    for topic, doc, rank in rows:
        if rank <= depth:
            out.setdefault(topic, []).append(doc)
    return out


def topic_rng(seed: int, topic: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}\x00{topic}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@dataclass
class MadeInterleaving:
    interleaving_id: int
    name: str
    topics: int
    skipped: list[str]


def make(con, campaign: str, run_a: str, run_b: str, *, method: str = "team_draft",
         seed: int = 1, depth: int = 10, name: str | None = None, out: Path | None = None,
         replace: bool = False, **params) -> MadeInterleaving:
    if method not in il.METHODS:
        raise WarehouseError(f"unknown method {method!r}; use one of {', '.join(il.METHODS)}")
    if depth < 1:
        raise WarehouseError("--depth must be at least 1")
    if run_a == run_b:
        raise WarehouseError("interleave two different runs")
    cid = campaign_id(con, campaign)
    a, b = _ranked(con, cid, run_a, depth), _ranked(con, cid, run_b, depth)
    topics = sorted(set(a) & set(b))
    skipped = sorted(set(a) ^ set(b))
    if not topics:
        raise WarehouseError(f"runs {run_a!r} and {run_b!r} share no topic")
    name = check_name("interleaving",
                      f"{run_a}~{run_b}.{method}.{seed}" if name is None else name)
    lists = {t: il.interleave(method, a[t], b[t], depth, topic_rng(seed, t), **params)
             for t in topics}
    param_text = ";".join(f"{k}={v}" for k, v in sorted(params.items()) if v is not None)
    with transaction(con):
        replace_named(con, "interleaving", cid, name, kind="interleaving", campaign=campaign,
                      source=None, replace=replace,
                      dependents=("interleaved_row", "interleaving_outcome", "interleaving"))
        iid = con.execute("""
            INSERT INTO interleaving (campaign_id, name, run_a, run_b, method, seed, depth,
                                      params)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING interleaving_id""",
                          [cid, name, run_a, run_b, method, seed, depth, param_text]).fetchone()[0]
        con.executemany("""
            INSERT INTO interleaved_row (interleaving_id, topic, rank, doc, team, rank_a, rank_b,
                                         credit_a, credit_b, list_probability)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", list(_rows(iid, lists, a, b)))
        digests.touch_owner(con, "interleaving_id", [iid])
    if out is not None:
        write_run_file(out, lists, name)
    return MadeInterleaving(iid, name, len(topics), skipped)


def _rows(iid: int, lists, a, b):
    for topic, lst in lists.items():
        for i, doc in enumerate(lst.docs):
            team = "AB"[lst.teams[i]] if lst.teams else None
            ca, cb = lst.credits[i] if lst.credits else (None, None)
            yield (iid, topic, i + 1, doc, team,
                   a[topic].index(doc) + 1 if doc in a[topic] else None,
                   b[topic].index(doc) + 1 if doc in b[topic] else None, ca, cb,
                   lst.probability)


def write_run_file(path: Path, lists, tag: str) -> None:
    """TREC run format: topic Q0 doc rank score tag, score = list length - rank + 1."""
    from ..outfiles import written
    with written(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for topic in sorted(lists):
            docs = lists[topic].docs
            f.writelines(f"{topic} Q0 {doc} {i + 1} {len(docs) - i} {tag}\n" for i, doc in enumerate(docs))


def _load(con, campaign: str, name: str):
    cid = campaign_id(con, campaign)
    row = con.execute("""SELECT interleaving_id, run_a, run_b, method, depth, params
                         FROM interleaving WHERE campaign_id = ? AND name = ?""",
                      [cid, name]).fetchone()
    if row is None:
        raise WarehouseError(f"no interleaving {name!r} in campaign {campaign!r}")
    return cid, row


def _params(text: str) -> dict:
    out: dict = {}
    for item in filter(None, text.split(";")):
        key, _, value = item.partition("=")
        out[key] = {"True": True, "False": False}.get(value, value)
        if key == "tau":
            out[key] = float(value)
    return out


def infer_outcomes(con, campaign: str, name: str, clicks_path) -> int:
    """Read a click log of the interleaved lists (the session-log format; each (session,
    query_no) is one impression of its topic's list, its docs must be the stored list's),
    credit each impression, and store its outcome (replacing earlier outcomes of the same
    sessions). Returns the number of impressions."""
    from .formats import read_sessions
    path = Path(clicks_path)
    table, has = read_sessions(path)
    if not has["clicked"]:
        raise InputError(path, None, "the click log has no clicked column")
    cid, (iid, run_a, run_b, method, depth, ptext) = _load(con, campaign, name)
    params = _params(ptext)
    stored: dict[str, dict] = {}
    for topic, rank, doc, team, ca, cb in con.execute("""
            SELECT topic, rank, doc, team, credit_a, credit_b FROM interleaved_row
            WHERE interleaving_id = ? ORDER BY topic, rank""", [iid]).fetchall():
        entry = stored.setdefault(topic, {"docs": [], "teams": [], "credits": []})
        entry["docs"].append(doc)
        entry["teams"].append("AB".index(team) if team else None)
        entry["credits"].append((ca, cb))
    a, b = _ranked(con, cid, run_a, depth), _ranked(con, cid, run_b, depth)
    impressions: dict[tuple, dict] = {}
    for row in table.to_pylist():
        lst = stored.get(row["topic"])
        if lst is None:
            raise InputError(path, row["line"], f"topic {row['topic']!r} has no interleaved "
                             f"list in {name!r}")
        r = row["rank"]
        if r > len(lst["docs"]) or lst["docs"][r - 1] != row["doc"]:
            raise InputError(path, row["line"], f"document {row['doc']!r} is not at rank {r} "
                             f"of the interleaved list of topic {row['topic']!r}")
        imp = impressions.setdefault((row["session"], row["query_no"]),
                                     {"topic": row["topic"], "clicks": []})
        if row["clicked"]:
            imp["clicks"].append(r - 1)
    out = []
    for (session, query_no), imp in impressions.items():
        lst = stored[imp["topic"]]
        ca, cb = il.credit(method, a[imp["topic"]], b[imp["topic"]], lst["docs"], lst["teams"],
                           lst["credits"], sorted(imp["clicks"]), **params)
        out.append((iid, session, query_no, imp["topic"], len(imp["clicks"]), ca, cb,
                    il.outcome(ca, cb)))
    with transaction(con):
        digests.delete(con, "interleaving_outcome", "interleaving_id = ? AND "
                       "list_contains(?, session)", [iid, sorted({k[0] for k in impressions})])
        con.executemany("""
            INSERT INTO interleaving_outcome (interleaving_id, session, query_no, topic, clicks,
                                              credit_a, credit_b, outcome)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)""", out)
        digests.touch(con, "interleaving_outcome", "interleaving_id = ?", [iid])
    return len(out)


@dataclass(frozen=True)
class PairSummary:
    interleaving: str
    method: str
    run_a: str
    run_b: str
    impressions: int
    no_click: int
    wins: int
    losses: int
    ties: int
    delta: float | None          # (wins + ties/2) / (wins + losses + ties) - 1/2
    p_sign: float | None         # two-sided binomial test of wins vs losses, p = 1/2
    ci_low: float | None
    ci_high: float | None
    B: int
    seed: int

    def record(self) -> dict:
        return dict(self.__dict__)


def summarise(con, campaign: str, *, name: str | None = None, B: int = 1000, seed: int = 1,
              level: float = 0.95) -> list[PairSummary]:
    """Per interleaving (pair of runs): impressions with a click count as wins (A), losses
    (B) or ties; impressions without a click are reported but left out (they carry no
    preference). delta = (wins + ties/2)/n - 1/2 (Chapelle et al., TOIS 2012), a percentile
    bootstrap interval over impressions (B resamples, seeded) and the sign test of wins
    against losses (ties dropped)."""
    from ..stats.special import binomial_two_sided_half
    cid = campaign_id(con, campaign)
    rows = con.execute("""
        SELECT i.name, i.method, i.run_a, i.run_b,
               list(o.outcome ORDER BY o.session, o.query_no) FILTER (WHERE o.clicks > 0),
               count(o.session), count(o.session) FILTER (WHERE o.clicks = 0)
        FROM interleaving i LEFT JOIN interleaving_outcome o USING (interleaving_id)
        WHERE i.campaign_id = ? AND (? IS NULL OR i.name = ?)
        GROUP BY ALL ORDER BY i.name""", [cid, name, name]).fetchall()
    if name is not None and not rows:
        raise WarehouseError(f"no interleaving {name!r} in campaign {campaign!r}")
    out = []
    for iname, method, ra, rb, outcomes, n_imp, no_click in rows:
        scores = np.array([{"A": 1.0, "B": 0.0, "tie": 0.5}[o] for o in outcomes or []])
        wins = int((scores == 1.0).sum())
        losses = int((scores == 0.0).sum())
        ties = int((scores == 0.5).sum())
        delta = lo = hi = None
        if scores.size:
            delta = float(scores.mean() - 0.5)
            rng = np.random.default_rng(seed)
            means = scores[rng.integers(0, scores.size, (B, scores.size))].mean(axis=1) - 0.5
            lo, hi = (float(x) for x in np.quantile(means, [(1 - level) / 2, (1 + level) / 2]))
        p = binomial_two_sided_half(wins, wins + losses) if wins + losses else None
        out.append(PairSummary(iname, method, ra, rb, n_imp, no_click, wins, losses, ties,
                               delta, p, lo, hi, B, seed))
    return out


