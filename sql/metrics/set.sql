-- Measures of the retrieved set as a whole (Sakai, PROMISE 2014, eq 1-5; trec_eval m_set_*.c).
-- source: trec_eval m_set_P.c, m_set_recall.c, m_set_relative_P.c, m_set_map.c, m_set_F.c; Sakai, PROMISE 2014, eq 1-5

-- block: ev_set_counts
CREATE OR REPLACE MACRO ev_set_counts() AS TABLE
SELECT b.run_id, b.topic, b.num_ret, b.num_rel, coalesce(x.n, 0) AS num_rel_ret, b.in_run
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS n FROM ev_ranked WHERE is_rel
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: set_P
-- dialect: trec_eval
-- aliases: ir_measures SetP; ranx precision
-- sets: all_trec, set
-- order: 28
-- summary: mean
-- doc: Precision of the retrieved set: |rel ∩ ret| / |ret|.
CREATE OR REPLACE MACRO m_set_P() AS TABLE
SELECT run_id, topic, CASE WHEN num_ret > 0 THEN num_rel_ret / num_ret ELSE 0 END AS value
FROM ev_set_counts();

-- measure: set_recall
-- dialect: trec_eval
-- aliases: ir_measures SetR
-- sets: all_trec, set
-- order: 30
-- summary: mean
-- doc: Recall of the retrieved set: |rel ∩ ret| / R.
CREATE OR REPLACE MACRO m_set_recall() AS TABLE
SELECT run_id, topic, CASE WHEN num_rel > 0 THEN num_rel_ret / num_rel ELSE 0 END AS value
FROM ev_set_counts();

-- measure: set_relative_P
-- dialect: trec_eval
-- aliases: ir_measures SetRelP; ir_measures SetP(relative=True)
-- sets: all_trec, set
-- order: 29
-- summary: mean
-- doc: |rel ∩ ret| / min(|ret|, R).
CREATE OR REPLACE MACRO m_set_relative_P() AS TABLE
SELECT run_id, topic,
       CASE WHEN num_ret > 0 AND num_rel > 0 THEN num_rel_ret / least(num_ret, num_rel) ELSE 0 END
           AS value
FROM ev_set_counts();

-- measure: set_map
-- dialect: trec_eval
-- aliases: ir_measures SetAP
-- sets: all_trec, set
-- order: 31
-- summary: mean
-- doc: set_P * set_recall, computed as trec_eval does: rel_ret^2 / (ret * R) (one division,
--      so that the printed rounding matches; m_set_map.c).
CREATE OR REPLACE MACRO m_set_map() AS TABLE
SELECT run_id, topic,
       CASE WHEN num_ret > 0 AND num_rel > 0
            THEN CAST(num_rel_ret * num_rel_ret AS DOUBLE) / CAST(num_ret * num_rel AS DOUBLE)
            ELSE 0 END AS value
FROM ev_set_counts();

-- measure: set_F
-- dialect: trec_eval
-- aliases: ir_measures SetF
-- sets: all_trec, set
-- order: 32
-- params: beta DOUBLE = 1.0
-- summary: mean
-- doc: F of the retrieved set, trec_eval's form (x+1) P R / (x P + R) with x = beta (default 1).
CREATE OR REPLACE MACRO m_set_F(beta) AS TABLE
SELECT run_id, topic,
       CASE WHEN num_rel_ret > 0
            THEN (beta + 1.0) * (num_rel_ret / num_ret) * (num_rel_ret / num_rel)
                 / (beta * (num_rel_ret / num_ret) + num_rel_ret / num_rel)
            ELSE 0 END AS value
FROM ev_set_counts();
