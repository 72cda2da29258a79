#!/usr/bin/env python
"""How fast could any DuckDB evaluation be? (not a test)

    PATH=/dir/with/trec_eval:$PATH python bench/bench_floor.py [--out bench/out] [--repeat 3]

Reads the data bench_eval.py generated into --out (run that first) and times, in fresh Python
processes, the least work a DuckDB pipeline does for the two workloads, next to trec_eval in
the same run:

  7M-line run (sparsely judged): read (topic, doc, score) of the run into a table, join the
      judgments, rank each judged document by counting the documents of its list above it.
  100-run campaign (densely judged): read the 100 files into one table, sort every list, join
      the judgments, one running count of relevant documents per list.

Nothing else: no input checks (field counts, number syntax, empty fields), no duplicate check,
no list lengths, no measure, no output. irw does all of those on top (bench_eval.py), so its
time cannot drop below these floors with DuckDB doing the reading, sorting and joining; the
printed ratios say how much of the issue's targets (1/4 and 1/3 of trec_eval) the floor
alone uses up.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_eval import PY, find_trec_eval, run_cmd, trec_eval_loop

# The run's six fields; only score is typed (DuckDB's own double parser, no syntax check).
_COLUMNS = ("{'topic': 'VARCHAR', 'q0': 'VARCHAR', 'doc': 'VARCHAR', 'rank': 'VARCHAR', "
            "'score': 'DOUBLE', 'tag': 'VARCHAR'}")
_CSV = ("columns = " + _COLUMNS + ", delim = ' ', quote = '', escape = '', header = false, "
        "auto_detect = false")
_QRELS = """
CREATE TEMP TABLE judged AS
SELECT column0 AS topic, column2 AS doc, CAST(column3 AS INTEGER) AS rel
FROM read_csv($qrels, delim = ' ', header = false, all_varchar = true)"""

SPARSE = f"""
import sys, duckdb
con = duckdb.connect()
con.execute('''{_QRELS}''', {{"qrels": sys.argv[1]}})
con.execute('''CREATE TEMP TABLE run AS
    SELECT topic, doc, CAST(CAST(score AS FLOAT) AS DOUBLE) AS score
    FROM read_csv($run, {_CSV})''', {{"run": sys.argv[2]}})
con.execute('''CREATE TEMP TABLE matched AS
    SELECT row_number() OVER () AS jid, * FROM (
        SELECT r.topic, r.doc, r.score, j.rel FROM run r JOIN judged j USING (topic, doc))''')
print(con.execute('''
    SELECT count(*), sum(rank) FROM (
        SELECT m.jid, 1 + count(*) FILTER (WHERE r.score > m.score OR r.doc > m.doc) AS rank
        FROM matched m JOIN run r ON r.topic = m.topic AND r.score >= m.score
        GROUP BY m.jid)''').fetchone())
"""

DENSE = f"""
import sys, duckdb
con = duckdb.connect()
con.execute('''{_QRELS}''', {{"qrels": sys.argv[1]}})
con.execute('''CREATE TEMP TABLE run AS
    SELECT f.fi, r.topic, r.doc, CAST(CAST(r.score AS FLOAT) AS DOUBLE) AS score
    FROM read_csv($runs, {_CSV}, filename = true) r
    JOIN (SELECT unnest($runs) AS filename, generate_subscripts($runs, 1) AS fi) f
      USING (filename)''', {{"runs": sys.argv[2:]}})
con.execute('''CREATE TEMP TABLE sorted AS
    SELECT fi, topic, doc FROM run ORDER BY fi, topic, score DESC, doc DESC''')
con.execute('''CREATE TEMP TABLE ranked AS
    WITH list_start AS (SELECT fi, topic, min(rowid) AS first FROM sorted GROUP BY fi, topic)
    SELECT s.fi, s.topic, s.rowid - l.first + 1 AS rank, j.rel
    FROM sorted s JOIN list_start l USING (fi, topic) JOIN judged j USING (topic, doc)''')
print(con.execute('''
    SELECT count(*), sum(rel_so_far) FROM (
        SELECT sum(CASE WHEN rel >= 1 THEN 1 ELSE 0 END)
               OVER (PARTITION BY fi, topic ORDER BY rank) AS rel_so_far
        FROM ranked)''').fetchone())
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "out",
                    help="where bench_eval.py generated its data")
    ap.add_argument("--repeat", type=int, default=3, help="keep the fastest of this many runs")
    args = ap.parse_args(argv)
    big_qrels, big_run = args.out / "big" / "qrels", args.out / "big" / "run"
    camp_qrels = args.out / "campaign" / "qrels"
    camp_runs = sorted((args.out / "campaign" / "runs").glob("run.*"))
    if not big_run.is_file() or not camp_runs:
        sys.exit(f"no generated data in {args.out}: run bench/bench_eval.py --out {args.out}")
    trec_eval = find_trec_eval()
    if trec_eval is None:
        sys.exit("no trec_eval on PATH (or $TREC_EVAL)")
    flags = [x for m in ("map", "P.10", "ndcg_cut.10", "recip_rank") for x in ("-m", m)]
    results = args.out / "results"
    results.mkdir(exist_ok=True)

    def best(fn):
        return min(fn() for _ in range(max(1, args.repeat)))[0]

    te_big = best(lambda: run_cmd([trec_eval, *flags, str(big_qrels), str(big_run)]))
    floor_big = best(lambda: run_cmd([PY, "-c", SPARSE, str(big_qrels), str(big_run)]))
    te_camp = best(lambda: trec_eval_loop(trec_eval, camp_qrels, camp_runs, results))
    floor_camp = best(lambda: run_cmd([PY, "-c", DENSE, str(camp_qrels), *map(str, camp_runs)]))
    print("| workload | trec_eval s | DuckDB floor s | floor / trec_eval | target |")
    print("|---|---:|---:|---:|---:|")
    print(f"| 7M-line run | {te_big:.2f} | {floor_big:.2f} | {floor_big / te_big:.2f} | 0.25 |")
    print(f"| 100-run campaign | {te_camp:.2f} | {floor_camp:.2f} | "
          f"{floor_camp / te_camp:.2f} | 0.33 |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
