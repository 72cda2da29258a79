-- Cumulated gain curves (Järvelin & Kekäläinen 2002; Baeza-Yates & Ribeiro-Neto 2011 "cumulated gain";
-- Sakai, PROMISE 2014, eq 6): per run, topic and rank r = 1..depth, with g(r) the gain of the level at r
-- (gain_map, default gain = level) and g*(r) that of the ideal list (judged documents by gain,
-- descending):
--   CG[r]  = sum_{k<=r} g(k)
--   DCG[r] = CG[r] for r < b, DCG[r-1] + g(r)/log_b(r) for r >= b   (no discount before rank b)
--   nCG[r] = CG[r]/CG*[r], nDCG[r] = DCG[r]/DCG*[r]   (NULL while the ideal is still 0)
-- Järvelin & Kekäläinen's example (ACM TOIS 2002), b = 2: G = (1,0,1,0,0,3,0,0,0,2,0,0,0,0,3) gives
-- DCG = (1, 1, 1.63, 1.63, 1.63, 2.79, ..., 3.39, ..., 4.16).
-- The `1 + log_b(r)` variant (Jarvelin et al. 2008) divides every gain by 1 + log_b(r):
-- variant := 'one_plus_log'.

-- block: cg_curve
-- analyst: irw_cg_curve
-- params: gain_map MAP = {}; depth INTEGER = 20; log_base DOUBLE = 2; variant VARCHAR = 'jk'
-- doc: CG, DCG, nCG and nDCG by rank, per run and topic (run, topic, rank, cg, dcg, ideal_cg,
--      ideal_dcg, ncg, ndcg).
CREATE OR REPLACE MACRO cg_curve(gain_map, depth, log_base, variant) AS TABLE
WITH ranks AS (
    SELECT b.run_id, b.topic, g.rank
    FROM ev_base() b, generate_series(1, CAST(depth AS BIGINT)) g(rank)
),
gains AS (
    SELECT run_id, topic, rank,
           coalesce(CAST(gain_map[rel] AS DOUBLE), CAST(rel AS DOUBLE)) AS gain
    FROM ev_ranked
    WHERE rel >= 0
),
ideal AS (
    SELECT topic, gain, row_number() OVER (PARTITION BY topic ORDER BY gain DESC) AS rank
    FROM (SELECT topic, coalesce(CAST(gain_map[rel] AS DOUBLE), CAST(rel AS DOUBLE)) AS gain
          FROM ev_judgment WHERE rel >= 0)
    WHERE gain > 0
),
discounted AS (
    SELECT r.run_id, r.topic, r.rank,
           coalesce(g.gain, 0) AS gain, coalesce(i.gain, 0) AS ideal_gain,
           CASE WHEN variant = 'one_plus_log' THEN 1 + log(r.rank) / log(log_base)
                WHEN r.rank < log_base THEN 1.0
                ELSE log(r.rank) / log(log_base) END AS discount
    FROM ranks r
    LEFT JOIN gains g ON g.run_id = r.run_id AND g.topic = r.topic AND g.rank = r.rank
    LEFT JOIN ideal i ON i.topic = r.topic AND i.rank = r.rank
),
curve AS (
    SELECT run_id, topic, rank,
           -- exact running sums (ev_to_fixed, sql/context.sql): the same bits for every run
           ev_from_fixed(sum(ev_to_fixed(gain)) OVER w) AS cg,
           ev_from_fixed(sum(ev_to_fixed(gain / discount)) OVER w) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(ideal_gain)) OVER w) AS ideal_cg,
           ev_from_fixed(sum(ev_to_fixed(ideal_gain / discount)) OVER w) AS ideal_dcg
    FROM discounted
    WINDOW w AS (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING)
)
SELECT run_id, topic, rank, cg, dcg, ideal_cg, ideal_dcg,
       cg / nullif(ideal_cg, 0) AS ncg, dcg / nullif(ideal_dcg, 0) AS ndcg
FROM curve;

-- block: cg_curve_mean
-- Curves averaged over topics, both ways of the literature: the mean of the per-topic
-- normalised values (topics whose ideal is 0 count as 0), and Järvelin & Kekäläinen 2002's
-- normalisation of the averaged vectors, mean DCG[r] / mean DCG*[r]. Means add the topics in
-- topic order.
-- analyst: irw_cg_curve_mean
-- params: gain_map MAP = {}; depth INTEGER = 20; log_base DOUBLE = 2; variant VARCHAR = 'jk'
-- doc: The curves averaged over topics per run (run, rank, cg, dcg, mean_ncg, mean_ndcg,
--      ncg_of_means, ndcg_of_means).
CREATE OR REPLACE MACRO cg_curve_mean(gain_map, depth, log_base, variant) AS TABLE
SELECT run_id, rank,
       avg(cg ORDER BY topic) AS cg, avg(dcg ORDER BY topic) AS dcg,
       avg(coalesce(ncg, 0) ORDER BY topic) AS mean_ncg,
       avg(coalesce(ndcg, 0) ORDER BY topic) AS mean_ndcg,
       avg(cg ORDER BY topic) / nullif(avg(ideal_cg ORDER BY topic), 0) AS ncg_of_means,
       avg(dcg ORDER BY topic) / nullif(avg(ideal_dcg ORDER BY topic), 0) AS ndcg_of_means
FROM cg_curve(gain_map, depth, log_base, variant)
GROUP BY run_id, rank;
