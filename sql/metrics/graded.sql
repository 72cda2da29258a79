-- Graded-relevance generalisations of precision, recall and AP, and single figures of the
-- cumulated gain vectors. Notation (docs/measures_more.md): rel(r) the level at rank r (0 for
-- an unjudged document), g(r) its gain, cg(r) = sum_{k<=r} g(k), cg*(r) the same over the ideal
-- list (judged documents by gain, descending, positive gains only: ev_ideal, _base.sql).
-- Every per-list sum is exact (ev_from_fixed(sum(ev_to_fixed(x))), sql/context.sql), or an
-- ordered aggregate: the same bits whatever DuckDB's threads or plan.
-- source: Robertson, Kanoulas & Yilmaz, SIGIR 2010; Kishida, NII Technical Report 2005; Kekäläinen & Järvelin, JASIST 2002; Järvelin & Kekäläinen, ACM TOIS 2002; Sakai, SIGIR 2007 / PROMISE 2014

-- block: ev_cg_at
-- cg(k) of every evaluated list and cg*(k) of its topic (k NULL: the whole list and the whole
-- ideal list), with gain = the level unless `gain_map` maps it, as ev_ideal.
CREATE OR REPLACE MACRO ev_cg_at(gain_map, cutoff) AS TABLE
WITH run_cg AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed(coalesce(CAST(gain_map[rel] AS DOUBLE),
                                                  CAST(rel AS DOUBLE))))) AS cg
    FROM ev_ranked
    WHERE rel > 0 AND (cutoff IS NULL OR rank <= cutoff)
    GROUP BY run_id, topic
),
ideal_cg AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(gain))) AS cg
    FROM ev_ideal(gain_map)
    WHERE cutoff IS NULL OR rank <= cutoff
    GROUP BY topic
)
SELECT b.run_id, b.topic, coalesce(r.cg, 0.0) AS cg, coalesce(i.cg, 0.0) AS ideal_cg
FROM ev_base() b
LEFT JOIN run_cg r ON r.run_id = b.run_id AND r.topic = b.topic
LEFT JOIN ideal_cg i ON i.topic = b.topic
WHERE ev_require(cutoff IS NULL OR cutoff > 0, 'cutoff must be > 0');

-- measure: NCG
-- aliases: sakai2014 WP
-- params: cutoff INTEGER = 10; gains MAP = {}
-- summary: mean
-- doc: Normalised cumulated gain at k, NCG@k = cg(k) / cg*(k) (Järvelin & Kekäläinen's nCG at
--      rank k; Sakai's weighted precision WP(k) = cg(k)/cg_I(k), the same quantity); gain =
--      level unless `gains` maps it. 0 when cg*(k) = 0 (no relevant document judged). -l is not
--      read (the gains decide).
-- source: Järvelin & Kekäläinen, ACM TOIS 2002 (nCG); Sakai, "On the reliability of IR metrics based on graded relevance", AIRS 2005 / PROMISE 2014 §3.1 (WP)
CREATE OR REPLACE MACRO m_ncg(cutoff, gains) AS TABLE
SELECT run_id, topic, CASE WHEN ideal_cg > 0 THEN cg / ideal_cg ELSE 0.0 END AS value
FROM ev_cg_at(gains, cutoff);

-- block: ev_generalised_relevance
-- Kekäläinen & Järvelin's relevance degree r(d) in [0, 1] of a document of each level of the
-- evaluated qrels: `gain_map[level]` when the map lists the level, else level / H with H the
-- highest level of the qrels (1 for binary qrels); 0 for levels <= 0.
CREATE OR REPLACE MACRO ev_generalised_relevance(gain_map) AS TABLE
WITH top AS (SELECT greatest(max(rel), 1) AS h FROM ev_judgment)
SELECT l.rel,
       CASE WHEN l.rel <= 0 THEN 0.0
            ELSE coalesce(CAST(gain_map[l.rel] AS DOUBLE), l.rel / top.h) END AS degree
FROM (SELECT DISTINCT rel FROM ev_judgment) l CROSS JOIN top
WHERE ev_require(l.rel <= 0 OR coalesce(CAST(gain_map[l.rel] AS DOUBLE), 0.0) BETWEEN 0 AND 1,
                 'generalised precision and recall take gains in [0, 1]');

-- block: ev_generalised_sums
-- sum_{r<=k} r(d_r) of every evaluated list (k NULL: the whole list), the topic's total
-- sum_d r(d), and the depth divided by: k, or the list's length without a cutoff.
CREATE OR REPLACE MACRO ev_generalised_sums(gain_map, cutoff) AS TABLE
WITH degree AS (SELECT * FROM ev_generalised_relevance(gain_map)),
listed AS (
    SELECT r.run_id, r.topic, ev_from_fixed(sum(ev_to_fixed(d.degree))) AS s
    FROM ev_ranked r JOIN degree d ON d.rel = r.rel
    WHERE r.rel > 0 AND (cutoff IS NULL OR r.rank <= cutoff)
    GROUP BY r.run_id, r.topic
),
topic_total AS (
    SELECT j.topic, ev_from_fixed(sum(ev_to_fixed(d.degree))) AS total
    FROM ev_judgment j JOIN degree d ON d.rel = j.rel
    GROUP BY j.topic
)
SELECT b.run_id, b.topic, coalesce(l.s, 0.0) AS s, coalesce(t.total, 0.0) AS total,
       coalesce(cutoff, b.num_ret) AS depth
FROM ev_base() b
LEFT JOIN listed l ON l.run_id = b.run_id AND l.topic = b.topic
LEFT JOIN topic_total t ON t.topic = b.topic
WHERE ev_require(cutoff IS NULL OR cutoff > 0, 'cutoff must be > 0');

-- measure: gP
-- params: cutoff INTEGER = NULL; gains MAP = {}
-- summary: mean
-- doc: Generalised precision (Kekäläinen & Järvelin 2002): gP = sum over the retrieved
--      documents of r(d) / n, r(d) in [0, 1] the relevance degree (gains maps levels to degrees;
--      default level / H, H the qrels' highest level), n = k at a cutoff (as P@k) or the list's
--      length; binary qrels give P. 0 for an empty list.
-- source: Kekäläinen & Järvelin, "Using graded relevance assessments in IR evaluation", JASIST 53(13), 2002
CREATE OR REPLACE MACRO m_gp(cutoff, gains) AS TABLE
SELECT run_id, topic, CASE WHEN depth > 0 THEN s / depth ELSE 0.0 END AS value
FROM ev_generalised_sums(gains, cutoff);

-- measure: gR
-- params: cutoff INTEGER = NULL; gains MAP = {}
-- summary: mean
-- doc: Generalised recall (Kekäläinen & Järvelin 2002): gR = sum over the retrieved documents
--      (the top k at a cutoff) of r(d) / sum over every judged document of r(d); degrees as
--      gP's; binary qrels give recall. 0 when no judged document has a positive degree.
-- source: Kekäläinen & Järvelin, "Using graded relevance assessments in IR evaluation", JASIST 53(13), 2002
CREATE OR REPLACE MACRO m_gr(cutoff, gains) AS TABLE
SELECT run_id, topic, CASE WHEN total > 0 THEN s / total ELSE 0.0 END AS value
FROM ev_generalised_sums(gains, cutoff);

-- measure: Kishida_gAP
-- params: gains MAP = {}
-- summary: mean
-- doc: Kishida's generalised (graded) average precision: sum_r I(r) cg(r)/r over
--      sum_{r<=R} cg*(r)/r, I(r) = 1 when g(r) > 0, R the number of documents with a positive
--      gain (the ideal list's length); gain = level unless `gains` maps it; binary qrels give
--      AP. 0 when R = 0.
-- source: Kishida, "Property of average precision and its generalization", NII Technical Report NII-2005-014E, 2005; Sakai, SIGIR 2007
CREATE OR REPLACE MACRO m_kishida_gap(gains) AS TABLE
WITH gained AS (
    SELECT run_id, topic, rank,
           coalesce(CAST(gains[rel] AS DOUBLE), CAST(rel AS DOUBLE)) AS gain
    FROM ev_ranked WHERE rel > 0
),
positive AS (
    SELECT run_id, topic, rank,
           ev_from_fixed(sum(ev_to_fixed(gain)) OVER (PARTITION BY run_id, topic ORDER BY rank
                                                      ROWS UNBOUNDED PRECEDING)) AS cg, gain
    FROM gained
    WHERE gain > 0
),
ideal AS (
    SELECT topic, rank,
           ev_from_fixed(sum(ev_to_fixed(gain)) OVER (PARTITION BY topic ORDER BY rank
                                                      ROWS UNBOUNDED PRECEDING)) AS cg
    FROM ev_ideal(gains)
),
run_sum AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(cg / rank))) AS s
    FROM positive GROUP BY run_id, topic
),
ideal_sum AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(cg / rank))) AS s FROM ideal GROUP BY topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(i.s, 0) > 0 THEN coalesce(r.s, 0.0) / i.s ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN run_sum r ON r.run_id = b.run_id AND r.topic = b.topic
LEFT JOIN ideal_sum i ON i.topic = b.topic;

-- block: ev_gap_grades
-- GAP's grades 1..C with G(i) = g_1 + ... + g_i, the probability that a user's threshold is
-- at most grade i: `g` as given (it must sum to 1), or uniform over the levels 1..H of the
-- qrels (H its highest level) when empty. G is an exact running sum.
CREATE OR REPLACE MACRO ev_gap_grades(g) AS TABLE
WITH top AS (SELECT greatest(max(rel), 1) AS h FROM ev_judgment),
grades AS (
    SELECT unnest(range(1, CASE WHEN len(g) = 0 THEN h ELSE len(g) END + 1)) AS grade, h
    FROM top
    WHERE ev_require(len(g) = 0 OR abs(list_sum(g) - 1.0) <= 1e-9,
                     'GAP: g (the probabilities of the grades) must sum to 1')
),
probs AS (
    SELECT grade, CASE WHEN len(g) = 0 THEN CAST(1 AS DOUBLE) / h ELSE g[grade] END AS p
    FROM grades
)
SELECT grade,
       ev_from_fixed(sum(ev_to_fixed(p)) OVER (ORDER BY grade ROWS UNBOUNDED PRECEDING))
           AS cum_prob
FROM probs
WHERE ev_require(p >= 0, 'GAP: g must be >= 0');

-- measure: GAP
-- params: g DOUBLE[] = []
-- summary: mean
-- doc: Graded average precision (Robertson, Kanoulas & Yilmaz 2010): a user's relevance
--      threshold is grade j with probability g_j; a document of level >= 1 has grade
--      c = min(level, C). GAP = sum_n (x_n / n) sum_{m<=n} x_m delta(m, n) over
--      sum_i R_i G(i), delta(m, n) = G(min(c_m, c_n)), G(i) = g_1 + ... + g_i, R_i the judged
--      documents of grade i. g default: uniform over the qrels' levels 1..H. One grade gives AP.
--      0 when the topic has no document of level >= 1. -l is not read (the grades decide).
-- source: Robertson, Kanoulas & Yilmaz, "Extending average precision to graded relevance judgments", SIGIR 2010
CREATE OR REPLACE MACRO m_gap(g) AS TABLE
WITH grades AS (SELECT * FROM ev_gap_grades(g)),
top_grade AS (SELECT max(grade) AS c FROM grades),
retrieved AS (
    SELECT r.run_id, r.topic, r.rank, least(r.rel, t.c) AS grade
    FROM ev_ranked r CROSS JOIN top_grade t
    WHERE r.rel >= 1
),
pairs AS (
    -- every relevant n with every relevant m at or above it
    SELECT n.run_id, n.topic, gr.cum_prob / n.rank AS term
    FROM retrieved n
    JOIN retrieved m ON m.run_id = n.run_id AND m.topic = n.topic AND m.rank <= n.rank
    JOIN grades gr ON gr.grade = least(m.grade, n.grade)
),
numerator AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(term))) AS s FROM pairs
    GROUP BY run_id, topic
),
denominator AS (
    SELECT j.topic, ev_from_fixed(sum(ev_to_fixed(gr.cum_prob))) AS s
    FROM ev_judgment j
    CROSS JOIN top_grade t
    JOIN grades gr ON gr.grade = least(j.rel, t.c)
    WHERE j.rel >= 1
    GROUP BY j.topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(d.s, 0) > 0 THEN coalesce(x.s, 0.0) / d.s ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN numerator x ON x.run_id = b.run_id AND x.topic = b.topic
LEFT JOIN denominator d ON d.topic = b.topic;

-- block: ev_dcg_vector_mean
-- The mean of the DCG and nDCG vectors of Järvelin & Kekäläinen over ranks 1..k (cg_curves.sql's
-- cg_curve: no discount before rank b, g(r)/log_b(r) after), added in rank order; nDCG[r] is 0
-- while the ideal DCG[r] is 0 (a topic without relevant documents: 0 throughout).
CREATE OR REPLACE MACRO ev_dcg_vector_mean(gain_map, cutoff, log_base) AS TABLE
SELECT run_id, topic, sum(dcg ORDER BY rank) / cutoff AS dcg_mean,
       sum(coalesce(ndcg, 0.0) ORDER BY rank) / cutoff AS ndcg_mean
FROM cg_curve(gain_map, cutoff, log_base, 'jk')
WHERE ev_require(cutoff > 0, 'cutoff must be > 0')
  AND ev_require(log_base > 1, 'log_base must be > 1')
GROUP BY run_id, topic;

-- measure: DCG_vector_mean
-- params: cutoff INTEGER = 10; log_base DOUBLE = 2; gains MAP = {}
-- summary: mean
-- doc: The single figure of the DCG vector (Järvelin & Kekäläinen 2002, section 2.4): the mean
--      of DCG[1..k], DCG[r] = CG[r] for r < b and DCG[r-1] + g(r)/log_b(r) after (the area
--      under the curve over k); gain = level unless `gains` maps it.
-- source: Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002, §2.4
CREATE OR REPLACE MACRO m_dcg_vector_mean(cutoff, log_base, gains) AS TABLE
SELECT run_id, topic, dcg_mean AS value FROM ev_dcg_vector_mean(gains, cutoff, log_base);

-- measure: nDCG_vector_mean
-- params: cutoff INTEGER = 10; log_base DOUBLE = 2; gains MAP = {}
-- summary: mean
-- doc: The single figure of the nDCG vector (Järvelin & Kekäläinen 2002, section 2.4): the mean
--      of nDCG[1..k] = DCG[r]/DCG*[r] (DCG_vector_mean's discount); nDCG[r] = 0 while the
--      ideal DCG*[r] is 0.
-- source: Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002, §2.4
CREATE OR REPLACE MACRO m_ndcg_vector_mean(cutoff, log_base, gains) AS TABLE
SELECT run_id, topic, ndcg_mean AS value FROM ev_dcg_vector_mean(gains, cutoff, log_base);
