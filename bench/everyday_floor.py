"""The least a DuckDB pipeline does for the everyday case (bench/bench_everyday.py): read both
files with typed columns (no line checks), rank each list by score as trec_eval 9 does, join the
judgments, and compute map and P@10 in one statement; it prints the two means, which agree with
trec_eval's. What irw does beyond it (strict line checks with file:line errors, duplicate checks,
the evaluation context every measure shares, trec_eval's options, the CLI) is irw's own cost.

    python bench/everyday_floor.py QRELS RUN        (RUN tab-separated, QRELS single-spaced)
"""

import sys

import duckdb

QUERY = """
WITH qrels AS (SELECT * FROM read_csv($q, delim = ' ', header = false, auto_detect = false,
                   columns = {'topic': 'VARCHAR', 'it': 'VARCHAR', 'doc': 'VARCHAR',
                              'rel': 'INTEGER'})),
run AS (SELECT * FROM read_csv($r, delim = '\t', header = false, auto_detect = false,
                 columns = {'topic': 'VARCHAR', 'q0': 'VARCHAR', 'doc': 'VARCHAR',
                            'rank': 'INTEGER', 'score': 'DOUBLE', 'tag': 'VARCHAR'})),
ranked AS (SELECT topic, doc, row_number() OVER (PARTITION BY topic
                  ORDER BY CAST(score AS FLOAT) DESC, doc DESC) AS k FROM run),
hits AS (SELECT r.topic, r.k, row_number() OVER (PARTITION BY r.topic ORDER BY r.k) AS h
         FROM ranked r JOIN qrels j ON j.topic = r.topic AND j.doc = r.doc WHERE j.rel > 0),
nrel AS (SELECT topic, count(*) FILTER (WHERE rel > 0) AS nrel FROM qrels GROUP BY topic),
per AS (SELECT n.topic, coalesce(sum(h.h / h.k) / n.nrel, 0) AS ap,
               count(*) FILTER (WHERE h.k <= 10) / 10 AS p10
        FROM nrel n JOIN (SELECT DISTINCT topic FROM run) t USING (topic)
        LEFT JOIN hits h USING (topic) GROUP BY n.topic, n.nrel)
SELECT avg(ap), avg(p10) FROM per
"""

if __name__ == "__main__":
    ap, p10 = duckdb.connect().execute(QUERY, {"q": sys.argv[1], "r": sys.argv[2]}).fetchone()
    print(f"map all {ap:.4f}\nP_10 all {p10:.4f}")
