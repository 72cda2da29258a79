-- trec_eval's graded-gain measures besides ndcg: G, ndcg_rel and Rndcg (trec_eval 9.0.8 m_G.c,
-- m_ndcg_rel.c, m_Rndcg.c; the same in 10.0). All three share trec_eval's gain table
-- (setup_gains in each of those files) and walk the "ideal" ranking built from it.
--
-- Gains (`gain_map` = MAP(level -> gain), trec_eval `G.1=3,2=9`):
--   * a judged level v >= 0 has gain gain_map[v] when listed, else v;
--   * a retrieved document in the pool but unjudged (negative level in the qrels) has gain
--     gain_map[-2], and one not in the qrels at all gain_map[-1]; 0 when not listed.
--   The -l threshold does not change gains (only Rndcg's R = 0 test reads it).
-- Ideal ranking: the gain table sorted ascending and read from its end (largest gain first), one
-- entry per judged document of that level, stopping at the first gain <= 0. trec_eval compares
-- gains with `(int)(g1 - g2)`, so gains less than 1 apart compare equal and keep the table order
-- (parameters in the order given, then the unlisted levels 0, 1, 2, ...): e.g.
-- `ndcg_rel.2=4.5,1=4.2` puts the 4.2 documents first in the ideal ranking.
-- Rg = length of the ideal ranking.
-- Division by zero follows IEEE as in C (inf, nan), e.g. G with "-1=g" gains, Rndcg when R > 0
-- but no gain is positive.
-- Known differences from trec_eval, both outside any ordinary use:
--   * when "equal" gains chain over a span of 1 or more (e.g. gains 0, 0.6, 1.2) the comparator is
--     not an ordering and glibc's merge sort result depends on the input order; here the chain is
--     one group kept in table order;
--   * for a topic whose judgments are all negative trec_eval reuses the level counts of the topic
--     evaluated before it (stale state in form_res_rels.c); here it has no levels. This shows only
--     with "-1=g" / "-2=g" gains.
-- Sums over a list add in rank order (`sum(x ORDER BY rank)`) as trec_eval does; running sums
-- (DCG(k), IDCG(k), cumulated gains) are exact sums (ev_to_fixed, sql/context.sql).
-- source: trec_eval 9.0.8 m_G.c, m_ndcg_rel.c, m_Rndcg.c

-- block: ev_gain_ideal_of
-- The ideal ranking of the gain table `gain_map`: its rows of the context relation
-- ev_gain_ideal (sql/context.sql, which also builds trec_eval's gain table), one row per
-- position k = 1..Rg:
--   gain      = the k-th ideal gain (always > 0),
--   idcg      = sum_{j<=k} gain_j / log2(j + 1),
--   extra_cost = sum_{j<=k} (max(gain_j, 1) - 1)   (G's "ideal cost" above 1 per document),
--   ends_level = the next ideal position has a different gain, or k = Rg (Rndcg's R levels),
--   num_ideal = Rg, ideal_total = sum of all ideal gains (undiscounted).
CREATE OR REPLACE MACRO ev_gain_ideal_of(gain_map) AS TABLE
SELECT topic, k, gain, idcg, extra_cost, ends_level, num_ideal, ideal_total
FROM ev_gain_ideal
WHERE gain_levels IS NOT DISTINCT FROM map_keys(gain_map)
  AND gain_values IS NOT DISTINCT FROM CAST(map_values(gain_map) AS DOUBLE[]);

-- block: ev_gain_lists
-- The evaluated lists with the length the gain measures see: num_ret, except that trec_eval
-- 10.0 with -c scores a judged topic absent from the run as the one-document list
-- ['ceci_nest_pas_un_docno'] (a document outside the qrels, so it has gain "-1=g").
CREATE OR REPLACE MACRO ev_gain_lists() AS TABLE
SELECT b.run_id, b.topic, b.num_rel,
       CASE WHEN NOT rt.in_run AND (SELECT max(trec_eval_version) FROM ev_options) >= 10
            THEN 1 ELSE b.num_ret END AS num_ret
FROM ev_base() b
JOIN ev_run_topic rt ON rt.run_id = b.run_id AND rt.topic = b.topic;

-- block: ev_gain_ranked
-- The retrieved documents with a non-zero gain, per (run, topic), with running sums by rank:
--   sum_gain = sum_{j<=k} g(j) and dcg = sum_{j<=k} g(j) / log2(j + 1).
-- Documents outside the qrels are the rank gaps of ev_ranked; they are listed only when
-- gain_map gives them a gain (trec_eval's "-1=g"), and retrieved unjudged pool documents take
-- "-2=g".
CREATE OR REPLACE MACRO ev_gain_ranked(gain_map) AS TABLE
WITH pooled AS (
    SELECT run_id, topic, rank,
           CASE WHEN rel >= 0 THEN coalesce(CAST(gain_map[rel] AS DOUBLE), CAST(rel AS DOUBLE))
                ELSE coalesce(CAST(gain_map[-2] AS DOUBLE), 0.0) END AS gain
    FROM ev_ranked
),
outside_pool AS (                      -- only when a "-1=g" parameter exists
    SELECT run_id, topic, rank, CAST(gain_map[-1] AS DOUBLE) AS gain
    FROM (SELECT run_id, topic, unnest(range(1, num_ret + 1)) AS rank FROM ev_gain_lists()
          WHERE coalesce(gain_map[-1], 0) <> 0) all_ranks
    WHERE NOT EXISTS (SELECT 1 FROM ev_ranked r WHERE r.run_id = all_ranks.run_id
                        AND r.topic = all_ranks.topic AND r.rank = all_ranks.rank)
),
gained AS (
    SELECT * FROM pooled WHERE gain <> 0
    UNION ALL
    SELECT * FROM outside_pool
)
SELECT run_id, topic, rank, gain,
       ev_from_fixed(sum(ev_to_fixed(gain)) OVER w) AS sum_gain,
       ev_from_fixed(sum(ev_to_fixed(gain / log2(rank + 1))) OVER w) AS dcg
FROM gained
WINDOW w AS (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING);

-- block: ev_gain_values
-- G, ndcg_rel and Rndcg of every evaluated list for the gain table `gains`, one column each:
-- the measures below read their column (`shares: ev_gain_values`), and an evaluation asking for
-- two or three of them calls this once, so that the ideal ranking (ev_gain_ideal) and the
-- retrieved gains (ev_gain_ranked, a window) are read and computed once for all of them
-- (all_trec on one TREC 2003 Robust run: 0.007 s CPU less than three calls; bench/README.md,
-- target 2). Each measure's part is the CTEs named after it; its definition is in its header.
CREATE OR REPLACE MACRO ev_gain_values(gains) AS TABLE
WITH ideal AS (
    SELECT * FROM ev_gain_ideal_of(gains)
),
ideal_totals AS (
    SELECT topic, any_value(num_ideal) AS num_ideal, any_value(ideal_total) AS ideal_total,
           max(extra_cost) AS total_extra_cost, max(idcg) AS idcg_full
    FROM ideal GROUP BY topic
),
gained AS (
    SELECT * FROM ev_gain_ranked(gains)
),
g_contributions AS (                   -- G: cost(k) = k + extra ideal cost over min(k, Rg) positions
    SELECT d.run_id, d.topic, d.rank,
           d.gain / log2(2 + d.rank + coalesce(i.extra_cost, t.total_extra_cost, 0)
                         - d.sum_gain) AS g
    FROM gained d
    LEFT JOIN ideal i ON i.topic = d.topic AND i.k = d.rank
    LEFT JOIN ideal_totals t ON t.topic = d.topic
),
g_summed AS (
    SELECT run_id, topic, sum(g ORDER BY rank) AS g FROM g_contributions GROUP BY run_id, topic
),
ndcg_rel_ideal AS (                    -- ndcg_rel: Rg and IDCG(Rg); 0 and 0.0 for an empty ideal
    SELECT t.topic, coalesce(max(i.k), 0) AS num_ideal, coalesce(max(i.idcg), 0.0) AS idcg_full
    FROM ev_topic t LEFT JOIN ideal i ON i.topic = t.topic
    GROUP BY t.topic
),
ndcg_rel_retrieved AS (                -- ndcg at each retrieved document of positive gain
    SELECT d.run_id, d.topic, count(*) AS num_pos,
           sum(d.dcg / coalesce(i.idcg, t.idcg_full) ORDER BY d.rank) AS ndcg_sum
    FROM gained d
    JOIN ndcg_rel_ideal t ON t.topic = d.topic
    LEFT JOIN ideal i ON i.topic = d.topic AND i.k = d.rank
    WHERE d.gain > 0
    GROUP BY d.run_id, d.topic
),
final_dcg AS (                         -- DCG of the whole retrieved list
    SELECT run_id, topic, arg_max(dcg, rank) AS dcg FROM gained GROUP BY run_id, topic
),
ndcg_rel_summed AS (
    -- Rg = 0 (possible when "-1=g"/"-2=g" give gains to documents outside the ideal ranking)
    -- divides by IDCG = 0 as trec_eval does: IEEE inf/nan, then "sum > 0" decides.
    SELECT b.run_id, b.topic, t.num_ideal,
           coalesce(r.ndcg_sum, 0.0)
             + ((t.num_ideal - coalesce(r.num_pos, 0)) * coalesce(f.dcg, 0.0)) / t.idcg_full
             AS s
    FROM ev_base() b
    JOIN ndcg_rel_ideal t ON t.topic = b.topic
    LEFT JOIN ndcg_rel_retrieved r ON r.run_id = b.run_id AND r.topic = b.topic
    LEFT JOIN final_dcg f ON f.run_id = b.run_id AND f.topic = b.topic
),
rndcg_level_ends AS (                  -- Rndcg: the R-level cutoffs b and IDCG(b)
    SELECT topic, k AS cutoff, idcg FROM ideal WHERE ends_level
),
rndcg_points AS (                      -- ndcg at each R-level cutoff (DCG frozen at num_ret)
    -- DCG(b) is the running DCG at the last gained rank <= min(b, num_ret) (a join, not a
    -- correlated subquery: one plan less to decorrelate, bench/README.md, target 2)
    SELECT l.run_id, l.topic, e.cutoff AS k,
           coalesce(arg_max(d.dcg, d.rank), 0) / any_value(e.idcg) AS ndcg
    FROM ev_gain_lists() l JOIN rndcg_level_ends e ON e.topic = l.topic
    LEFT JOIN gained d ON d.run_id = l.run_id AND d.topic = l.topic
                      AND d.rank <= least(e.cutoff, l.num_ret)
    GROUP BY l.run_id, l.topic, e.cutoff
    UNION ALL                          -- the implied last level change at num_ret
    SELECT l.run_id, l.topic, l.num_ret AS k, coalesce(f.dcg, 0) / t.idcg_full
    FROM ev_gain_lists() l JOIN ideal_totals t ON t.topic = l.topic
    LEFT JOIN final_dcg f ON f.run_id = l.run_id AND f.topic = l.topic
    WHERE l.num_ret > t.num_ideal + 1
),
rndcg_averaged AS (                    -- added in rank order, then divided, as trec_eval
    SELECT run_id, topic, sum(ndcg ORDER BY k) / count(*) AS ndcg
    FROM rndcg_points GROUP BY run_id, topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(t.ideal_total, 0) > 0 THEN coalesce(g.g, 0) / t.ideal_total
            ELSE 0 END AS G,
       CASE WHEN r.s > 0 AND NOT isnan(r.s) THEN r.s / r.num_ideal ELSE 0.0 END AS ndcg_rel,
       CASE WHEN b.num_rel = 0 THEN 0.0
            ELSE coalesce(a.ndcg, CAST('nan' AS DOUBLE)) END AS Rndcg
FROM ev_base() b
LEFT JOIN ideal_totals t ON t.topic = b.topic
LEFT JOIN g_summed g ON g.run_id = b.run_id AND g.topic = b.topic
LEFT JOIN ndcg_rel_summed r ON r.run_id = b.run_id AND r.topic = b.topic
LEFT JOIN rndcg_averaged a ON a.run_id = b.run_id AND a.topic = b.topic;

-- measure: G
-- dialect: trec_eval
-- sets: all_trec
-- order: 20
-- params: gains MAP = {}
-- summary: mean
-- shares: ev_gain_values
-- doc: trec_eval's normalised gain G (m_G.c): at each rank k with gain g(k) <> 0 add
--      g(k) / log2(2 + cost(k) - sum_{j<=k} g(j)), cost(k) = sum_{j<=k} max(ideal_j, 1) with
--      ideal_j = 0 past the ideal ranking; divide by the sum of the ideal gains (0 if none).
CREATE OR REPLACE MACRO m_G(gains) AS TABLE
SELECT run_id, topic, G AS value FROM ev_gain_values(gains);

-- measure: ndcg_rel
-- dialect: trec_eval
-- sets: all_trec
-- order: 22
-- params: gains MAP = {}
-- summary: mean
-- shares: ev_gain_values
-- doc: trec_eval's nDCG averaged over the relevant documents (m_ndcg_rel.c): the sum over
--      retrieved documents of positive gain at rank k of DCG(k)/IDCG(min(k, Rg)), plus
--      (Rg - their number) * DCG(num_ret)/IDCG(Rg) for the ones not retrieved, divided by Rg,
--      Rg = length of the ideal ranking; 0 when the sum is not positive.
CREATE OR REPLACE MACRO m_ndcg_rel(gains) AS TABLE
SELECT run_id, topic, ndcg_rel AS value FROM ev_gain_values(gains);

-- measure: Rndcg
-- dialect: trec_eval
-- sets: all_trec
-- order: 23
-- params: gains MAP = {}
-- summary: mean
-- shares: ev_gain_values
-- doc: trec_eval's nDCG averaged at the R levels (m_Rndcg.c): the mean of DCG(b)/IDCG(b) over
--      the ranks b where the ideal gain changes (the ends of the ideal gain levels, the last one
--      at Rg; DCG stops at num_ret), plus DCG(num_ret)/IDCG(Rg) when num_ret > Rg + 1.
--      0 when R = 0 (R at the -l threshold); NaN (0/0, as trec_eval) when R > 0 but Rg = 0.
CREATE OR REPLACE MACRO m_Rndcg(gains) AS TABLE
SELECT run_id, topic, Rndcg AS value FROM ev_gain_values(gains);
