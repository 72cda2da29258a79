"""Time NTCIREVAL's measures against trec_eval's on one big run (not a test).

    PYTHONPATH=. python bench/bench_ntcir.py [--topics 7000] [--depth 1000] [--judged 12]

Builds, inside an in-memory warehouse, a run of --topics x --depth documents and graded qrels
with about --judged judged documents per topic (levels 0-2, most of them retrieved), then times
`evaluate` for map + ndcg_cut.10 and for Q, nERR@10, P+ and nDCG@10 (issue 3's target: at most
2x). Both include building the evaluation context, as `irw eval` does.
"""

from __future__ import annotations

import argparse
import statistics
import time

from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import NtcirSettings, parse_measures
from irwarehouse.store.connection import connect


def build(con, topics: int, depth: int, judged: int) -> tuple[int, int]:
    cid = con.execute("INSERT INTO campaign (name) VALUES ('bench') "
                      "RETURNING campaign_id").fetchone()[0]
    qid = con.execute("INSERT INTO qrels (campaign_id, name) VALUES (?, 'q') "
                      "RETURNING qrels_id", [cid]).fetchone()[0]
    rid = con.execute("INSERT INTO run (campaign_id, name) VALUES (?, 'r') "
                      "RETURNING run_id", [cid]).fetchone()[0]
    con.execute(f"""
        INSERT INTO run_row (run_id, topic, doc, score, rank, file_order)
        SELECT {rid}, 't' || t, 'd' || d, 1000.0 - d + (hash(t, d) % 7) / 10.0, d,
               t * {depth} + d
        FROM range({topics}) a(t), range(1, {depth} + 1) b(d)""")
    con.execute(f"""
        INSERT INTO judgment (qrels_id, topic, intent, doc, rel)
        SELECT DISTINCT ON (topic, doc) {qid}, topic, '', doc, rel FROM (
            SELECT 't' || t AS topic, 'd' || (1 + hash(t, j) % ({depth} + {depth} // 4)) AS doc,
                   CASE WHEN j = 0 THEN 2 ELSE (hash(j, t, 7) % 3)::INTEGER END AS rel
            FROM range({topics}) a(t), range({judged}) b(j))""")
    return qid, rid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    con = connect(None)
    qid, rid = build(con, args.topics, args.depth, args.judged)
    settings = NtcirSettings(gains={1: 1.0, 2: 2.0})
    sets = {"map + ndcg_cut.10": ["map", "ndcg_cut.10"],
            "Q + nERR@10 + P+ + nDCG@10": ["Q", "nERR@10", "P+", "ntcir:nDCG@10"]}
    best = {}
    for _ in range(args.repeat):
        for label, names in sets.items():
            reqs = parse_measures(names, ntcir=settings)
            start = time.perf_counter()
            evaluate(con, [rid], qid, reqs, EvalOptions())
            best.setdefault(label, []).append(time.perf_counter() - start)
    for label, times in best.items():
        print(f"{label:<30} best {min(times):6.2f} s   median {statistics.median(times):6.2f} s")
    a, b = (min(t) for t in best.values())
    print(f"ratio {b / a:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
