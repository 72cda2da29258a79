-- Discounted cumulative gain (Sakai, PROMISE 2014, eq 6; Jarvelin & Kekalainen 2002; trec_eval m_ndcg.c,
-- m_ndcg_cut.c): DCG@k = sum_{r<=k} g(r)/log2(r+1) over the evaluated list, divided by the same
-- sum over the ideal list (judged documents by gain, descending, positive gains only).
-- `gain_map` is a MAP(level -> gain); levels it does not list keep gain = level.
-- source: trec_eval m_ndcg.c, m_ndcg_cut.c; Järvelin & Kekäläinen, ACM TOIS 2002

-- block: ev_ndcg_at
-- nDCG truncated at `cutoff` (NULL = whole list) for every evaluated (run, topic); 0 when the
-- ideal DCG is 0.
CREATE OR REPLACE MACRO ev_ndcg_at(gain_map, cutoff) AS TABLE
WITH gained AS (
    SELECT r.run_id, r.topic, r.rank,
           CASE WHEN r.rel >= 0 THEN coalesce(CAST(gain_map[r.rel] AS DOUBLE), CAST(r.rel AS DOUBLE))
                ELSE 0 END AS gain
    FROM ev_ranked r
    WHERE cutoff IS NULL OR r.rank <= cutoff
),
dcg AS (
    SELECT run_id, topic, sum(gain / log2(rank + 1) ORDER BY rank) AS dcg
    FROM gained WHERE gain <> 0
    GROUP BY run_id, topic
),
ideal AS (
    SELECT topic, sum(gain / log2(rank + 1) ORDER BY rank) AS idcg
    FROM (
        SELECT topic, gain, row_number() OVER (PARTITION BY topic ORDER BY gain DESC) AS rank
        FROM (SELECT topic,
                     coalesce(CAST(gain_map[rel] AS DOUBLE), CAST(rel AS DOUBLE)) AS gain
              FROM ev_judgment WHERE rel >= 0)
        WHERE gain > 0
    )
    WHERE cutoff IS NULL OR rank <= cutoff
    GROUP BY topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(i.idcg, 0) > 0 THEN coalesce(d.dcg, 0) / i.idcg ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN dcg d ON d.run_id = b.run_id AND d.topic = b.topic
LEFT JOIN ideal i ON i.topic = b.topic;

-- measure: ndcg
-- dialect: trec_eval
-- aliases: ir_measures nDCG
-- sets: all_trec
-- order: 21
-- params: gains MAP = {}
-- summary: mean
-- doc: nDCG over the whole list; gains per level (trec_eval `ndcg.1=3,2=9`), default gain = level.
CREATE OR REPLACE MACRO m_ndcg(gains) AS TABLE
SELECT run_id, topic, value FROM ev_ndcg_at(gains, NULL);

-- measure: ndcg_cut
-- dialect: trec_eval
-- aliases: ir_measures nDCG@k; ranx ndcg@k
-- sets: all_trec
-- order: 24
-- params: cutoff INTEGER = 5,10,15,20,30,100,200,500,1000
-- summary: mean
-- doc: nDCG@k with gain = level (trec_eval ndcg_cut; ir_measures nDCG@k).
CREATE OR REPLACE MACRO m_ndcg_cut(cutoff) AS TABLE
SELECT run_id, topic, value FROM ev_ndcg_at(MAP {}::MAP(INTEGER, DOUBLE), cutoff);
