-- Measures that ir_measures computes with its own providers (judged, msmarco, accuracy, compat,
-- pytrec_eval with a gain map) and that trec_eval lacks. A cutoff of 0 means the whole list (as
-- a measure written without @k in ir_measures). The ranking is trec_eval's (score descending,
-- docno descending); ir_measures' judged, msmarco and compat providers break score ties by docno
-- ascending instead, which can change a value only when scores tie.
-- Compat's sums add their terms in depth order (`sum(x ORDER BY d)`): the same bits whatever
-- DuckDB's threads or plan (README "Bit-reproducible scores").
-- source: ir_measures (MacAvaney, Macdonald & Ounis, ECIR 2022), providers judged, msmarco, accuracy, compat, pytrec_eval

-- block: ev_depth
-- The number of documents a measure at `cutoff` looks at in a list of `num_ret`: all of them
-- for cutoff 0, else min(cutoff, num_ret).
CREATE OR REPLACE MACRO ev_depth(cutoff, num_ret) AS
CASE WHEN cutoff = 0 THEN num_ret ELSE least(cutoff, num_ret) END;

-- block: ev_cutoff_ok
-- A cutoff of these measures is >= 0 (0: the whole list), or an error.
CREATE OR REPLACE MACRO ev_cutoff_ok(cutoff) AS
ev_require(cutoff >= 0, 'cutoff must be >= 0 (0: the whole list)');

-- measure: judged
-- aliases: ir_measures Judged
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: ir_measures' Judged@k: judged documents in the top k over min(k, documents retrieved)
--      (trec_eval 10's unj.k divides by k instead); 0 for an empty list. A negative level is
--      unjudged here (ir_measures counts every qrels line as judged).
-- source: ir_measures Judged (judged provider, from OpenNIR); MacAvaney et al., ECIR 2022
CREATE OR REPLACE MACRO m_judged(cutoff) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN ev_depth(cutoff, b.num_ret) = 0 THEN 0.0
            ELSE coalesce(x.judged, 0) / ev_depth(cutoff, b.num_ret) END AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS judged FROM ev_ranked
           WHERE rel >= 0 AND (cutoff = 0 OR rank <= cutoff) GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic
WHERE ev_cutoff_ok(cutoff);

-- measure: recip_rank_cut
-- aliases: ir_measures RR@k; ranx mrr@k; ranx mrr
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: Reciprocal rank within the top k: 1/r1 when the first relevant document is at rank
--      r1 <= k, else 0 (ir_measures RR@k, MS MARCO's MRR@k, ranx mrr@k); k = 0 is recip_rank.
-- source: ir_measures RR@k (msmarco provider, msmarco_eval.compute_metrics); ranx mrr@k; Voorhees, TREC-8 QA 1999
CREATE OR REPLACE MACRO m_recip_rank_cut(cutoff) AS TABLE
SELECT b.run_id, b.topic, coalesce(1.0 / x.r1, 0.0) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, min(rank) AS r1 FROM ev_ranked
           WHERE is_rel AND (cutoff = 0 OR rank <= cutoff) GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic
WHERE ev_cutoff_ok(cutoff);

-- measure: accuracy
-- aliases: ir_measures Accuracy
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: ir_measures' Accuracy@k: the share of (relevant, non-relevant) pairs of the top k that
--      the list orders correctly, 1 - sum over relevant r of nonrel_above(r) / (n_rel n_nonrel)
--      (non-relevant: below the threshold or unjudged); only topics with a relevant document in
--      the top k have a value; 1 when the top k holds no non-relevant document (ir_measures
--      divides by zero there).
-- source: ir_measures Accuracy (accuracy provider); MacAvaney et al., ECIR 2022
CREATE OR REPLACE MACRO m_accuracy(cutoff) AS TABLE
WITH relevant AS (
    SELECT run_id, topic, count(*) AS n_rel, sum(rank - rel_so_far) AS nonrel_above
    FROM ev_relevant
    WHERE cutoff = 0 OR rank <= cutoff
    GROUP BY run_id, topic
)
SELECT b.run_id, b.topic,
       CASE WHEN ev_depth(cutoff, b.num_ret) = x.n_rel THEN 1.0
            ELSE 1.0 - x.nonrel_above / ((ev_depth(cutoff, b.num_ret) - x.n_rel) * x.n_rel)
       END AS value
FROM ev_base() b
JOIN relevant x ON x.run_id = b.run_id AND x.topic = b.topic
WHERE ev_cutoff_ok(cutoff);

-- measure: compat
-- aliases: ir_measures Compat
-- syntax: named
-- params: p DOUBLE = 0.95; normalize INTEGER = 1
-- summary: mean
-- doc: Compatibility (Clarke, Vtyurina & Smucker 2021): rank-biased overlap of the list with
--      the ideal list (relevant documents by level, descending; ties in the list's order, the
--      unretrieved last), RBO = sum_{d<=D} p^(d-1) |L_d & I_d|/d / sum_{d<=D} p^(d-1), D =
--      max(list length, R); normalize = 1 divides by the ideal list's own RBO instead. 0 for
--      an empty list without relevant documents.
-- source: ir_measures Compat (compat provider); Clarke, Vtyurina & Smucker, ACM TOIS 2021
CREATE OR REPLACE MACRO m_compat(p, normalize) AS TABLE
WITH higher AS (
    -- judged documents above each level: for a relevant level, the relevant documents that
    -- come first in the ideal list
    SELECT DISTINCT topic, rel,
           count(*) OVER (PARTITION BY topic ORDER BY rel DESC
                          RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS n_above
    FROM ev_judgment
),
matched AS (
    -- a retrieved relevant document enters the overlap at max(its rank, its ideal rank)
    SELECT r.run_id, r.topic,
           greatest(r.rank, coalesce(h.n_above, 0)
                            + row_number() OVER (PARTITION BY r.run_id, r.topic, r.rel
                                                 ORDER BY r.rank)) AS joins_at
    FROM ev_ranked r JOIN higher h ON h.topic = r.topic AND h.rel = r.rel
    WHERE r.is_rel
),
entering AS (
    SELECT run_id, topic, joins_at, count(*) AS n FROM matched GROUP BY ALL
),
depths AS (
    SELECT b.run_id, b.topic, b.num_rel,
           unnest(range(1, greatest(b.num_ret, b.num_rel) + 1)) AS d
    FROM ev_base() b
),
overlap AS (
    SELECT s.run_id, s.topic, s.d, s.num_rel,
           sum(CAST(coalesce(e.n, 0) AS BIGINT)) OVER (PARTITION BY s.run_id, s.topic ORDER BY s.d) AS shared
    FROM depths s
    LEFT JOIN entering e ON e.run_id = s.run_id AND e.topic = s.topic AND e.joins_at = s.d
),
rbo AS (
    SELECT run_id, topic, sum(pow(p, d - 1) * shared / d ORDER BY d) AS score,
           sum(pow(p, d - 1) * least(d, num_rel) / d ORDER BY d) AS best,
           sum(pow(p, d - 1) ORDER BY d) AS weight
    FROM overlap GROUP BY run_id, topic
)
SELECT b.run_id, b.topic,
       CASE WHEN x.weight IS NULL THEN 0.0
            WHEN normalize <> 0 AND x.best > 0 THEN x.score / x.best
            ELSE x.score / x.weight END AS value
FROM ev_base() b
LEFT JOIN rbo x ON x.run_id = b.run_id AND x.topic = b.topic;
