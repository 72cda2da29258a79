-- Binary preference (Buckley & Voorhees 2004; Sakai, PROMISE 2014, eq 22-23; trec_eval m_bpref.c): each
-- relevant retrieved document scores 1 - min(n, R)/min(N, R), n = judged non-relevant documents
-- above it, N = judged non-relevant documents of the topic; the sum is divided by R.
-- source: trec_eval m_bpref.c, m_gm_bpref.c; Buckley & Voorhees, SIGIR 2004; Sakai, PROMISE 2014, eq 22-23

-- block: ev_bpref_values
-- bpref of every evaluated list and bpref floored at 1e-5 (gm_bpref, whose run value is the
-- geometric mean), one column each: bpref and gm_bpref read their column (`shares:`), and an
-- evaluation asking for both computes bpref once (irwarehouse.engine.evaluate.macro_calls).
CREATE OR REPLACE MACRO ev_bpref_values() AS TABLE
SELECT run_id, topic, bpref, greatest(bpref, 0.00001) AS gm_bpref
FROM (
    SELECT b.run_id, b.topic,
           CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS bpref
    FROM ev_base() b
    LEFT JOIN (
        SELECT r.run_id, r.topic,
               sum(CASE WHEN r.nonrel_so_far > 0
                        THEN 1.0 - least(r.nonrel_so_far, t.num_rel)
                                   / least(t.num_nonrel, t.num_rel)
                        ELSE 1.0 END ORDER BY r.rank) AS s
        FROM ev_counted r JOIN ev_topic t ON t.topic = r.topic
        WHERE r.is_rel GROUP BY r.run_id, r.topic
    ) x ON x.run_id = b.run_id AND x.topic = b.topic
);

-- measure: bpref
-- dialect: trec_eval
-- aliases: ir_measures Bpref
-- sets: all_trec, official
-- order: 8
-- summary: mean
-- shares: ev_bpref_values
-- doc: trec_eval's bpref.
CREATE OR REPLACE MACRO m_bpref() AS TABLE
SELECT run_id, topic, bpref AS value FROM ev_bpref_values();

-- measure: gm_bpref
-- dialect: trec_eval
-- sets: all_trec
-- order: 15
-- summary: gmean
-- per_topic: false
-- shares: ev_bpref_values
-- doc: Geometric mean of bpref over topics, floored at 1e-5.
CREATE OR REPLACE MACRO m_gm_bpref() AS TABLE
SELECT run_id, topic, gm_bpref AS value FROM ev_bpref_values();

-- measure: bpref-10
-- dialect: irw
-- summary: mean
-- doc: bpref-10 (Buckley & Voorhees, SIGIR 2004; Baeza-Yates & Ribeiro-Neto 2011 "BPREF-10"): bpref with at least 10
--      preference pairs per relevant document, (1/R) sum over relevant retrieved d of
--      1 - min(n(d), R + 10) / min(R + 10, N_ret), n(d) = judged non-relevant documents above
--      d, N_ret = judged non-relevant documents retrieved (Baeza-Yates & Ribeiro-Neto 2011's |(J - R) ∩ A|; trec_eval
--      8.1's old_bpref_top10pRnonrel, the SIGIR 2004 paper's form); 1 when no judged
--      non-relevant document is above d.
CREATE OR REPLACE MACRO m_bpref_10() AS TABLE
WITH nonrel_ret AS (                   -- N_ret: judged non-relevant documents retrieved
    SELECT run_id, topic, count(*) FILTER (WHERE rel >= 0 AND NOT is_rel) AS n
    FROM ev_ranked GROUP BY run_id, topic
),
x AS (
    SELECT r.run_id, r.topic,
           sum(CASE WHEN r.nonrel_so_far > 0
                    THEN 1.0 - least(r.nonrel_so_far, t.num_rel + 10)
                               / least(t.num_rel + 10, n.n)
                    ELSE 1.0 END ORDER BY r.rank) AS s
    FROM ev_counted r
    JOIN ev_topic t ON t.topic = r.topic
    JOIN nonrel_ret n ON n.run_id = r.run_id AND n.topic = r.topic
    WHERE r.is_rel
    GROUP BY r.run_id, r.topic
)
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN x ON x.run_id = b.run_id AND x.topic = b.topic;
