-- Summary counts per topic (trec_eval m_num_*.c; Baeza-Yates & Ribeiro-Neto 2011 "summary table statistics").
-- source: trec_eval m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c

-- measure: num_q
-- dialect: trec_eval
-- aliases: ir_measures NumQ
-- sets: all_trec, official, set
-- order: 1
-- summary: sum
-- per_topic: false
-- doc: Number of topics evaluated (trec_eval num_q).
CREATE OR REPLACE MACRO m_num_q() AS TABLE
SELECT run_id, topic, 1.0 AS value FROM ev_base();

-- measure: num_ret
-- dialect: trec_eval
-- aliases: ir_measures NumRet
-- sets: all_trec, official, set
-- order: 2
-- summary: sum
-- integer: true
-- doc: Number of documents retrieved (after -M and -J).
CREATE OR REPLACE MACRO m_num_ret() AS TABLE
SELECT run_id, topic, CAST(num_ret AS DOUBLE) AS value FROM ev_base();

-- measure: num_rel
-- dialect: trec_eval
-- aliases: ir_measures NumRel
-- sets: all_trec, official, set
-- order: 3
-- summary: num_rel
-- integer: true
-- doc: Number of relevant judged documents R (level >= -l threshold). Summary: the sum over
--      topics; with -c, the number of judgments with level > 0 in the whole qrels, whatever -l
--      (trec_eval's te_calc_avg_num_rel; context.sql, section summary).
CREATE OR REPLACE MACRO m_num_rel() AS TABLE
SELECT run_id, topic, CAST(num_rel AS DOUBLE) AS value FROM ev_base();

-- measure: num_rel_ret
-- dialect: trec_eval
-- aliases: ir_measures NumRelRet; ir_measures NumRet(rel=*)
-- sets: all_trec, official, set
-- order: 4
-- summary: sum
-- integer: true
-- doc: Number of relevant documents retrieved.
CREATE OR REPLACE MACRO m_num_rel_ret() AS TABLE
SELECT b.run_id, b.topic, CAST(coalesce(x.n, 0) AS DOUBLE) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS n FROM ev_ranked WHERE is_rel
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: num_nonrel_judged_ret
-- dialect: trec_eval
-- sets: all_trec
-- order: 33
-- summary: sum
-- integer: true
-- doc: Number of judged non-relevant documents retrieved (0 <= level < threshold).
CREATE OR REPLACE MACRO m_num_nonrel_judged_ret() AS TABLE
SELECT b.run_id, b.topic, CAST(coalesce(x.n, 0) AS DOUBLE) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS n FROM ev_ranked WHERE rel >= 0 AND NOT is_rel
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;
