-- Summary counts per topic (trec_eval m_num_*.c; Baeza-Yates & Ribeiro-Neto 2011 "summary table statistics").
-- source: trec_eval m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c

-- measure: num_q
-- dialect: trec_eval
-- aliases: ir_measures NumQ
-- sets: all_trec, official, set
-- order: 1
-- summary: sum
-- per_topic: false
-- shares: ev_set_values
-- doc: Number of topics evaluated (trec_eval num_q).
CREATE OR REPLACE MACRO m_num_q() AS TABLE
SELECT run_id, topic, num_q AS value FROM ev_set_values();

-- measure: num_ret
-- dialect: trec_eval
-- aliases: ir_measures NumRet
-- sets: all_trec, official, set
-- order: 2
-- summary: sum
-- integer: true
-- shares: ev_set_values
-- doc: Number of documents retrieved (after -M and -J).
CREATE OR REPLACE MACRO m_num_ret() AS TABLE
SELECT run_id, topic, num_ret AS value FROM ev_set_values();

-- measure: num_rel
-- dialect: trec_eval
-- aliases: ir_measures NumRel
-- sets: all_trec, official, set
-- order: 3
-- summary: num_rel
-- integer: true
-- shares: ev_set_values
-- doc: Number of relevant judged documents R (level >= -l threshold). Summary: the sum over
--      topics; with -c, the number of judgments with level > 0 in the whole qrels, whatever -l
--      (trec_eval's te_calc_avg_num_rel; context.sql, section summary).
CREATE OR REPLACE MACRO m_num_rel() AS TABLE
SELECT run_id, topic, num_rel AS value FROM ev_set_values();

-- measure: num_rel_ret
-- dialect: trec_eval
-- aliases: ir_measures NumRelRet; ir_measures NumRet(rel=*)
-- sets: all_trec, official, set
-- order: 4
-- summary: sum
-- integer: true
-- shares: ev_set_values
-- doc: Number of relevant documents retrieved.
CREATE OR REPLACE MACRO m_num_rel_ret() AS TABLE
SELECT run_id, topic, num_rel_ret AS value FROM ev_set_values();

-- measure: num_nonrel_judged_ret
-- dialect: trec_eval
-- sets: all_trec
-- order: 33
-- summary: sum
-- integer: true
-- shares: ev_set_values
-- doc: Number of judged non-relevant documents retrieved (0 <= level < threshold).
CREATE OR REPLACE MACRO m_num_nonrel_judged_ret() AS TABLE
SELECT run_id, topic, num_nonrel_judged_ret AS value FROM ev_set_values();
