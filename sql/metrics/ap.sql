-- Average precision and its relatives (Sakai, PROMISE 2014, eq 9-10; trec_eval m_map.c, m_map_cut.c,
-- m_gm_map.c, m_infap.c). C(r) = rel_so_far at a relevant document of rank r. Every sum adds
-- its terms in rank order, as trec_eval does (`sum(x ORDER BY rank)`: the same bits whatever
-- DuckDB's threads or plan; README "Bit-reproducible scores").
-- source: trec_eval m_map.c, m_map_cut.c, m_gm_map.c, m_infap.c, m_recip_rank.c, m_binG.c; Sakai, PROMISE 2014, eq 9-10

-- block: ev_precision_sums
-- Per evaluated list, AP's numerator: the sum of C(r)/r over its relevant documents at ranks
-- <= cutoff (NULL: all), added in rank order as trec_eval adds them. A list whose relevant rows
-- carry AP's running sum (ev_relevant.precision_sum: stored at ingestion by the same additions
-- in the same order, sql/context.sql ev_make_relevant_rows) reads it at its last relevant
-- document within the cutoff: the same bits, no sort (100-run campaign bench: 0.01 s instead
-- of 0.06). Every other list adds its terms by an ordered aggregate. A list's rows are all of
-- one kind (ev_relevant reads a run's from relevant_row or counts them all).
CREATE OR REPLACE MACRO ev_precision_sums(cutoff) AS TABLE
SELECT run_id, topic, arg_max(precision_sum, rank) AS s
FROM ev_relevant
WHERE precision_sum IS NOT NULL AND (cutoff IS NULL OR rank <= cutoff)
GROUP BY run_id, topic
UNION ALL
SELECT run_id, topic, sum(rel_so_far / rank ORDER BY rank) AS s
FROM ev_relevant
WHERE precision_sum IS NULL AND (cutoff IS NULL OR rank <= cutoff)
GROUP BY run_id, topic;

-- block: ev_map_values
-- AP of every evaluated list (map) and AP floored at 1e-5 (gm_map, whose run value is the
-- geometric mean), one column each: map and gm_map read their column (`shares:`), and an
-- evaluation asking for both computes AP once (irwarehouse.engine.evaluate.macro_calls). "map"
-- quoted: the transpiler to Spark SQL (sqlglot) reads a bare map as the MAP function.
CREATE OR REPLACE MACRO ev_map_values() AS TABLE
SELECT run_id, topic, "map", greatest("map", 0.00001) AS gm_map
FROM (
    SELECT b.run_id, b.topic,
           CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS "map"
    FROM ev_base() b
    LEFT JOIN ev_precision_sums(NULL) x ON x.run_id = b.run_id AND x.topic = b.topic
);

-- measure: map
-- dialect: trec_eval
-- aliases: ir_measures AP; ranx map
-- sets: all_trec, official
-- order: 5
-- summary: mean
-- shares: ev_map_values
-- doc: AP = (1/R) sum over relevant retrieved r of C(r)/r.
CREATE OR REPLACE MACRO m_map() AS TABLE
SELECT run_id, topic, "map" AS value FROM ev_map_values();

-- measure: map_cut
-- dialect: trec_eval
-- aliases: ir_measures AP@k; ranx map@k
-- sets: all_trec
-- order: 25
-- params: cutoff INTEGER = 5,10,15,20,30,100,200,500,1000
-- summary: mean
-- doc: AP truncated at k, still divided by R (trec_eval map_cut).
CREATE OR REPLACE MACRO m_map_cut(cutoff) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN ev_precision_sums(cutoff) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: gm_map
-- dialect: trec_eval
-- aliases: ir_measures GMAP
-- sets: all_trec, official
-- order: 6
-- summary: gmean
-- per_topic: false
-- shares: ev_map_values
-- doc: Geometric mean of AP over topics, AP floored at 1e-5 (trec_eval MIN_GEO_MEAN).
CREATE OR REPLACE MACRO m_gm_map() AS TABLE
SELECT run_id, topic, gm_map AS value FROM ev_map_values();

-- measure: infAP
-- dialect: trec_eval
-- sets: all_trec
-- order: 14
-- summary: mean
-- doc: Inferred AP (Yilmaz and Aslam, CIKM 2006) as trec_eval computes it: at the relevant
--      document of 0-based position j, 1/(j+1) + (j/(j+1)) * ((rel-1 + nonrel + unjudged)/j)
--      * ((rel-1 + eps) / (rel-1 + nonrel + 2 eps)), eps = 1e-5, counts over the documents above;
--      1 at j = 0; divided by R.
CREATE OR REPLACE MACRO m_infAP() AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN (
    SELECT run_id, topic,
           sum(CASE WHEN rank = 1 THEN 1.0
                    ELSE 1.0 / rank
                         + ((rank - 1.0) / rank)
                           * ((rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / (rank - 1.0))
                           * ((rel_so_far - 1 + 0.00001)
                              / (rel_so_far - 1 + nonrel_so_far + 2 * 0.00001)) END
               ORDER BY rank) AS s
    FROM ev_counted WHERE is_rel GROUP BY run_id, topic
) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: recip_rank
-- dialect: trec_eval
-- aliases: ir_measures RR
-- sets: all_trec, official
-- order: 9
-- summary: mean
-- doc: Reciprocal rank of the first relevant document, 0 when none is retrieved.
CREATE OR REPLACE MACRO m_recip_rank() AS TABLE
SELECT b.run_id, b.topic, coalesce(1.0 / x.r1, 0) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, min(rank) AS r1 FROM ev_ranked WHERE is_rel
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: binG
-- dialect: trec_eval
-- sets: all_trec
-- order: 19
-- summary: mean
-- doc: trec_eval's binary G: sum over relevant retrieved documents of
--      1/log2(2 + number of non-relevant or unjudged documents above it), divided by R.
CREATE OR REPLACE MACRO m_binG() AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel > 0 THEN coalesce(x.s, 0) / b.num_rel ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, sum(1.0 / log2(2 + rank - rel_so_far) ORDER BY rank) AS s
           FROM ev_relevant GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;
