-- Precision, recall and success at rank cutoffs (Sakai, PROMISE 2014, sec 2; Baeza-Yates & Ribeiro-Neto 2011; trec_eval m_P.c,
-- m_recall.c, m_rel_P.c, m_success.c, m_Rprec.c, m_Rprec_mult.c).
-- C(k) = number of relevant documents in the top k of the evaluated list.
-- source: trec_eval m_P.c, m_recall.c, m_relative_P.c, m_success.c, m_Rprec.c, m_Rprec_mult.c; Sakai, PROMISE 2014, sec 2

-- block: ev_hits_at
-- C(k) for every evaluated (run, topic), 0 when nothing relevant is in the top k.
CREATE OR REPLACE MACRO ev_hits_at(cutoff) AS TABLE
SELECT b.run_id, b.topic, b.num_ret, b.num_rel, coalesce(x.hits, 0) AS hits
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS hits FROM ev_ranked
           WHERE is_rel AND rank <= cutoff GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- block: ev_hits_values
-- P, recall, relative_P and success at `cutoff` of every evaluated list, one column each, all
-- from C(k): the measures below read their column (`shares: ev_hits_values`), and an
-- evaluation asking for several of them calls this once, LATERAL over their cutoffs
-- (irwarehouse.engine.evaluate.macro_calls), so that DuckDB plans C(k) once instead of once
-- per measure (all_trec on one TREC 2003 Robust run: four calls one; bench/README.md, target
-- 2). Each column's definition is in its measure's header.
CREATE OR REPLACE MACRO ev_hits_values(cutoff) AS TABLE
SELECT run_id, topic,
       hits / cutoff AS P,
       CASE WHEN num_rel > 0 THEN hits / num_rel ELSE 0 END AS recall,
       CASE WHEN num_rel > 0 THEN hits / least(cutoff, num_rel) ELSE 0 END AS relative_P,
       CASE WHEN hits > 0 THEN 1.0 ELSE 0.0 END AS success
FROM ev_hits_at(cutoff);

-- measure: P
-- dialect: trec_eval
-- aliases: ir_measures P@k; ranx precision@k
-- sets: all_trec, official
-- order: 11
-- params: cutoff INTEGER = 5,10,15,20,30,100,200,500,1000
-- summary: mean
-- shares: ev_hits_values
-- doc: Precision at k: C(k)/k; k, not the number retrieved, is the denominator.
CREATE OR REPLACE MACRO m_P(cutoff) AS TABLE
SELECT run_id, topic, P AS value FROM ev_hits_values(cutoff);

-- measure: recall
-- dialect: trec_eval
-- aliases: ir_measures R@k; ranx recall@k
-- sets: all_trec
-- order: 13
-- params: cutoff INTEGER = 5,10,15,20,30,100,200,500,1000
-- summary: mean
-- shares: ev_hits_values
-- doc: Recall at k: C(k)/R (0 when R = 0).
CREATE OR REPLACE MACRO m_recall(cutoff) AS TABLE
SELECT run_id, topic, recall AS value FROM ev_hits_values(cutoff);

-- measure: relative_P
-- dialect: trec_eval
-- aliases: ir_measures RelP@k
-- sets: all_trec
-- order: 26
-- params: cutoff INTEGER = 5,10,15,20,30,100,200,500,1000
-- summary: mean
-- shares: ev_hits_values
-- doc: Relative precision at k: C(k)/min(k, R) (0 when R = 0).
CREATE OR REPLACE MACRO m_relative_P(cutoff) AS TABLE
SELECT run_id, topic, relative_P AS value FROM ev_hits_values(cutoff);

-- measure: success
-- dialect: trec_eval
-- aliases: ir_measures Success@k; ranx hit_rate@k
-- sets: all_trec
-- order: 27
-- params: cutoff INTEGER = 1,5,10
-- summary: mean
-- shares: ev_hits_values
-- doc: Success at k: 1 when a relevant document is in the top k.
CREATE OR REPLACE MACRO m_success(cutoff) AS TABLE
SELECT run_id, topic, success AS value FROM ev_hits_values(cutoff);

-- measure: Rprec
-- aliases: ranx r-precision
-- dialect: trec_eval
-- sets: all_trec, official
-- order: 7
-- summary: mean
-- doc: R-precision: C(R)/R, counting only the min(R, retrieved) first documents.
CREATE OR REPLACE MACRO m_Rprec() AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel > 0 THEN coalesce(x.hits, 0) / b.num_rel ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN (SELECT r.run_id, r.topic, count(*) AS hits
           FROM ev_ranked r JOIN ev_topic t ON t.topic = r.topic
           WHERE r.is_rel AND r.rank <= t.num_rel GROUP BY r.run_id, r.topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: Rprec_mult
-- dialect: trec_eval
-- sets: all_trec
-- order: 16
-- params: mult DOUBLE = 0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0
-- summary: mean
-- doc: Precision at rank c = (long)(mult*R + 0.9), i.e. C(c)/c (0 when c = 0).
CREATE OR REPLACE MACRO m_Rprec_mult(mult) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.cut > 0 THEN coalesce(x.hits, 0) / b.cut ELSE 0 END AS value
FROM (SELECT *, CAST(trunc(mult * num_rel + 0.9) AS BIGINT) AS cut FROM ev_base()) b
LEFT JOIN (SELECT r.run_id, r.topic, count(*) AS hits
           FROM ev_ranked r JOIN ev_topic t ON t.topic = r.topic
           WHERE r.is_rel AND r.rank <= CAST(trunc(mult * t.num_rel + 0.9) AS BIGINT)
           GROUP BY r.run_id, r.topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;
