-- gdeval.pl, the graded evaluation script of the TREC 2010-2014 Web tracks (v1.2/1.3; ir_measures
-- runs it for ERR@k and nDCG(dcg='exp-log2')@k), whose ERR and nDCG differ from NTCIREVAL's and
-- trec_eval's:
--   * gains are exponential, 2^g - 1 for the judged level g (0 for unjudged, non-relevant and
--     negative levels);
--   * ERR's stop probability at rank r is R(r) = (2^g - 1) / 2^MAX_JUDGMENT with gdeval's fixed
--     MAX_JUDGMENT = 4 (not the topic's highest level, as Chapelle et al. and NTCIREVAL have it):
--     ERR@k = sum_{r<=k} R(r)/r prod_{i<r} (1 - R(i)), unnormalised;
--   * nDCG@k = sum_{r<=k} (2^g - 1)/log(r+1) over the same sum for the ideal list (every judged
--     level > 0 of the topic, descending), gdeval's log base cancelling in the ratio;
--   * only topics with a judged level > 0 are evaluated (gdeval's `seen`): a topic without one
--     has no value, so a run's mean is over the others, as gdeval's `amean` line. (ir_measures
--     reports such a topic as 0.)
-- A level is a gain whatever -l says; gdeval refuses levels above MAX_JUDGMENT, and so does
-- gdeval_ERR (an error names the level: its stop probability would exceed 1). Ranking is the context's (score descending, docno
-- descending: gdeval's runOrder; scores compared as doubles there, so use trec_eval_version 10
-- to reproduce gdeval on runs whose scores tie only in float32).
-- Sums add their terms in rank order, as gdeval's loops do (`sum(x ORDER BY rank)`), and ERR's
-- running product is exp of the exact running sum of ln(1 - R(i)) (sql/context.sql, ev_to_fixed):
-- the same bits whatever DuckDB's threads or plan (README "Bit-reproducible scores").
-- source: gdeval.pl 1.2 (TREC 2012 Web track), subs err and dcg; ir_measures ERR@k and nDCG(dcg='exp-log2')@k; Chapelle et al., CIKM 2009; Järvelin & Kekäläinen, ACM TOIS 2002

-- block: ev_gdeval_gain
-- gdeval's gain of a judged level: 2^g - 1 for 0 < g <= max_judgment, 0 for g <= 0; an error for
-- a level above max_judgment (gdeval dies on such a qrels line).
CREATE OR REPLACE MACRO ev_gdeval_gain(level, max_judgment) AS
CASE WHEN level > max_judgment
         THEN CAST(error('gdeval: relevance level ' || level || ' exceeds max_judgment '
                         || max_judgment) AS DOUBLE)
     WHEN level > 0 THEN pow(2.0, level) - 1
     ELSE 0.0 END;

-- block: ev_gdeval_topics
-- The evaluated (run, topic) pairs of a topic with a judged level > 0 (gdeval's `seen`).
CREATE OR REPLACE MACRO ev_gdeval_topics() AS TABLE
SELECT b.run_id, b.topic FROM ev_base() b
WHERE b.topic IN (SELECT topic FROM ev_judgment WHERE rel > 0);

-- measure: gdeval_ERR
-- aliases: ir_measures ERR@k
-- syntax: named
-- positive: max_judgment
-- params: cutoff INTEGER = 20; max_judgment INTEGER = 4
-- summary: mean
-- doc: gdeval's ERR@k: sum_{r<=k} R(r)/r prod_{i<r} (1 - R(i)), R = (2^g - 1)/2^max_judgment
--      (gdeval's MAX_JUDGMENT = 4); only topics with a judged level > 0.
-- source: gdeval.pl 1.2 sub err; ir_measures ERR@k (gdeval provider); Chapelle et al., CIKM 2009
CREATE OR REPLACE MACRO m_gdeval_err(cutoff, max_judgment) AS TABLE
WITH stops AS (
    SELECT run_id, topic, rank,
           ev_gdeval_gain(rel, max_judgment) / pow(2.0, max_judgment) AS stop
    FROM ev_ranked
    WHERE rank <= cutoff AND rel > 0
),
reached AS (
    SELECT run_id, topic, rank, stop,
           -- prod_{i<r} (1 - R(i)), R(i) < 1 (R <= (2^m - 1)/2^m): exp of an exact sum of logs
           coalesce(exp(ev_from_fixed(sum(ev_to_fixed(ln(1.0 - stop)))
                                      OVER (PARTITION BY run_id, topic ORDER BY rank
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))),
                    1.0) AS go_on
    FROM stops
),
summed AS (
    SELECT run_id, topic, sum(stop * go_on / rank ORDER BY rank) AS err FROM reached GROUP BY run_id, topic
)
SELECT t.run_id, t.topic, coalesce(s.err, 0.0) AS value
FROM ev_gdeval_topics() t
LEFT JOIN summed s ON s.run_id = t.run_id AND s.topic = t.topic;

-- measure: gdeval_nDCG
-- syntax: named
-- params: cutoff INTEGER = 20
-- summary: mean
-- doc: gdeval's nDCG@k with exponential gains: sum_{r<=k} (2^g - 1)/log2(r+1) over the ideal
--      list's (judged levels > 0, descending, top k); only topics with a judged level > 0.
-- source: gdeval.pl 1.2 sub dcg; ir_measures nDCG(dcg='exp-log2')@k; Järvelin & Kekäläinen, ACM TOIS 2002; Burges et al., ICML 2005
CREATE OR REPLACE MACRO m_gdeval_ndcg(cutoff) AS TABLE
WITH dcg AS (
    SELECT run_id, topic, sum(ev_gdeval_gain(rel, 1000) / log2(rank + 1) ORDER BY rank) AS dcg
    FROM ev_ranked
    WHERE rank <= cutoff AND rel > 0
    GROUP BY run_id, topic
),
ideal AS (
    SELECT topic, sum(ev_gdeval_gain(rel, 1000) / log2(pos + 1) ORDER BY pos) AS idcg
    FROM (SELECT topic, rel, row_number() OVER (PARTITION BY topic ORDER BY rel DESC) AS pos
          FROM ev_judgment WHERE rel > 0)
    WHERE pos <= cutoff
    GROUP BY topic
)
SELECT t.run_id, t.topic, coalesce(d.dcg, 0.0) / i.idcg AS value
FROM ev_gdeval_topics() t
JOIN ideal i ON i.topic = t.topic
LEFT JOIN dcg d ON d.run_id = t.run_id AND d.topic = t.topic;
