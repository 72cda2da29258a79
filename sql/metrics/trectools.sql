-- trectools' rank-biased precision family (TrecEval.get_rbp, get_urbp, get_alpha_urbp; the RBP
-- that ir_measures' RBP(p=0.8) calls): the weight of rank r is (1 - p) p^(r-1) over the top
-- `depth` documents and, with ties = 1, every run of consecutive documents with the same score
-- shares the mean weight of its ranks (trectools' average_ties; its groups can also run across
-- two topics of one file, which these measures do not reproduce). A document is relevant when
-- its level reaches the threshold (-l; trectools: level > 0); graded = 1 multiplies its weight by
-- the level (trectools' binary_topical_relevance=False), which makes the value exceed 1 for
-- levels above 1, as in trectools and ranx. Unjudged means absent from the qrels or judged with a
-- negative level (trectools drops such lines when it reads a qrels). trectools averages over the run's
-- topics (get_rbp) or the qrels' topics (get_urbp); irw over the evaluated topics, so use -c
-- for the qrels' topics.
-- Sums are exact (ev_from_fixed(sum(ev_to_fixed(x))), sql/context.sql; trectools adds with
-- pandas, in no rank order), a tie group's mean weight its exact sum over its size: the same
-- bits whatever DuckDB's threads or plan (README "Bit-reproducible scores").
-- source: trectools (Palotti, Scells & Zuccon, SIGIR 2019) TrecEval.get_rbp, get_urbp, get_alpha_urbp; Moffat & Zobel, ACM TOIS 2008; Zuccon, ECIR 2016

-- block: ev_trectools_weighted
-- Every document of the top `depth` of each evaluated list with its level (NULL: not in the
-- qrels) and its RBP weight, averaged over runs of tied scores when `ties` <> 0.
CREATE OR REPLACE MACRO ev_trectools_weighted(p, depth, ties) AS TABLE
WITH listed AS (
    SELECT l.run_id, l.topic, l.rank, l.doc, l.rel, l.is_rel, s.score,
           lag(s.score) OVER (PARTITION BY l.run_id, l.topic ORDER BY l.rank) AS score_above
    FROM ev_listed l
    JOIN run_row s ON s.run_id = l.run_id AND s.topic = l.topic AND s.doc = l.doc
    WHERE l.rank <= depth
      AND ev_require(depth > 0, 'depth must be > 0')
      AND ev_require(p > 0 AND p < 1, 'p must be between 0 and 1')
),
grouped AS (
    SELECT *, (1.0 - p) * pow(p, rank - 1) AS weight,
           sum(CASE WHEN score_above = score THEN 0 ELSE 1 END)
               OVER (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING)
               AS tie_group
    FROM listed
)
SELECT run_id, topic, rank, doc, rel, is_rel,
       CASE WHEN ties <> 0
                THEN ev_from_fixed(sum(ev_to_fixed(weight)) OVER tied) / count(*) OVER tied
            ELSE weight END AS weight
FROM grouped
WINDOW tied AS (PARTITION BY run_id, topic, tie_group);

-- block: ev_trectools_rbp
-- sum over the relevant documents of the top depth of weight * (level if graded) * factor, the
-- factor being a document's value in the qrels `other_qrels` (a qrels_id; 0: the evaluated qrels)
-- turned into a utility by `utility` (0: the value itself; 1: trectools' alpha profile
-- 100 exp(-(v - goal)^2 / (2 sd^2))), times `scale`; 1 without another qrels (with_other = 0).
-- A relevant document absent from the other qrels counts nothing (trectools' inner merge).
CREATE OR REPLACE MACRO ev_trectools_rbp(p, depth, graded, ties, with_other, other_qrels, scale,
                                        utility, goal, sd) AS TABLE
WITH other AS (
    SELECT j.topic, j.doc, max(j.rel) AS other_level
    FROM judgment j
    WHERE with_other <> 0 AND j.rel >= 0
      AND j.qrels_id = CASE WHEN other_qrels = 0 THEN (SELECT qrels_id FROM ev_scope)
                            ELSE other_qrels END
    GROUP BY j.topic, j.doc
),
known AS (
    SELECT count(*) AS n FROM qrels q
    WHERE with_other = 0 OR other_qrels = 0 OR q.qrels_id = other_qrels
),
credited AS (
    SELECT w.run_id, w.topic,
           w.weight * CASE WHEN graded <> 0 THEN w.rel ELSE 1 END
           * CASE WHEN with_other = 0 THEN 1.0
                  WHEN utility <> 0
                      THEN 100.0 * exp(-pow(o.other_level - goal, 2) / (2.0 * pow(sd, 2))) * scale
                  ELSE o.other_level * scale END AS credit
    FROM ev_trectools_weighted(p, depth, ties) w
    LEFT JOIN other o ON o.topic = w.topic AND o.doc = w.doc
    WHERE w.is_rel AND (with_other = 0 OR o.other_level IS NOT NULL)
)
SELECT b.run_id, b.topic, coalesce(x.s, 0.0) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(credit))) AS s FROM credited GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic
WHERE ev_require((SELECT n FROM known) > 0, 'other_qrels: no qrels with id ' || other_qrels);

-- measure: trectools_RBP
-- aliases: ir_measures RBP(graded=1,depth=1000000000); ir_measures RBP(rel=*,graded=0)@k
-- syntax: named
-- positive: depth
-- params: p DOUBLE = 0.8; depth INTEGER = 1000; graded INTEGER = 0; ties INTEGER = 1
-- summary: mean
-- doc: trectools' RBP@depth: sum over the relevant documents of the top depth of (1 - p)
--      p^(r-1), averaged over tied scores (ties = 1) and times the level (graded = 1; what
--      ir_measures' RBP(p=0.8) computes, with depth = the whole list). RBP(rel=r)@k, which
--      ir_measures has no provider for, is graded = 0 at threshold r over the top k (binary at
--      r as ir_measures' RBP(rel=r), cut at k as its RBP@k).
-- source: trectools TrecEval.get_rbp; ir_measures RBP (trectools provider); Moffat & Zobel, ACM TOIS 2008
CREATE OR REPLACE MACRO m_trectools_rbp(p, depth, graded, ties) AS TABLE
SELECT run_id, topic, value
FROM ev_trectools_rbp(p, depth, graded, ties, 0, 0, 1.0, 0, 0.0, 1.0);

-- measure: trectools_RBP_resid
-- syntax: named
-- positive: depth
-- params: p DOUBLE = 0.8; depth INTEGER = 1000; ties INTEGER = 1
-- summary: mean
-- doc: trectools' RBP residual: the weight of the unjudged documents of the top depth (absent
--      from the qrels or of a negative level), averaged over tied scores, plus p^depth (trectools adds p^depth, not
--      p^(list length), for the ranks below); binary relevance.
-- source: trectools TrecEval.get_rbp (second value); Moffat & Zobel, ACM TOIS 2008
CREATE OR REPLACE MACRO m_trectools_rbp_resid(p, depth, ties) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.s, 0.0) + pow(p, depth) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(weight))) AS s
           FROM ev_trectools_weighted(p, depth, ties)
           WHERE rel IS NULL OR rel < 0 GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: uRBP
-- syntax: named
-- positive: depth
-- params: p DOUBLE = 0.8; depth INTEGER = 1000; other_qrels INTEGER = 0; scale DOUBLE = 1;
--         graded INTEGER = 0; ties INTEGER = 1
-- summary: mean
-- doc: Understandability-biased RBP: trectools_RBP with each relevant document's weight times
--      its value u in a second qrels of the campaign (other_qrels = its qrels_id; 0: the
--      evaluated qrels) times scale (trectools' normalization_factor); a relevant document
--      without a value there counts nothing.
-- source: trectools TrecEval.get_urbp (strategy direct_multiplication); Zuccon, ECIR 2016; Zuccon & Koopman, SIGIR MedIR workshop 2014
CREATE OR REPLACE MACRO m_urbp(p, depth, other_qrels, scale, graded, ties) AS TABLE
SELECT run_id, topic, value
FROM ev_trectools_rbp(p, depth, graded, ties, 1, other_qrels, scale, 0, 0.0, 1.0);

-- measure: alpha_uRBP
-- syntax: named
-- positive: depth, sd
-- params: p DOUBLE = 0.8; depth INTEGER = 1000; other_qrels INTEGER = 0; goal DOUBLE = 1;
--         sd DOUBLE = 1; scale DOUBLE = 1; graded INTEGER = 0; ties INTEGER = 1
-- summary: mean
-- doc: uRBP for a user profile: the second qrels' value u becomes 100 exp(-(u - goal)^2 /
--      (2 sd^2)) (a normal density scaled to 100 at the goal) before scale; one goal and sd
--      for every topic (trectools takes them per topic).
-- source: trectools TrecEval.get_alpha_urbp; Zuccon, ECIR 2016
CREATE OR REPLACE MACRO m_alpha_urbp(p, depth, other_qrels, goal, sd, scale, graded, ties) AS TABLE
SELECT run_id, topic, value
FROM ev_trectools_rbp(p, depth, graded, ties, 1, other_qrels, scale, 1, goal, sd);
