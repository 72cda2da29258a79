-- Measures of the retrieved set as a whole (Sakai, PROMISE 2014, eq 1-5; trec_eval m_set_*.c).
-- source: trec_eval m_set_P.c, m_set_recall.c, m_set_relative_P.c, m_set_map.c, m_set_F.c; Sakai, PROMISE 2014, eq 1-5

-- block: ev_set_counts
-- Per evaluated list: its length, R, the relevant documents retrieved (num_rel_ret) and the judged
-- non-relevant ones (num_nonrel_judged_ret: 0 <= level < the -l threshold), both counted in
-- one pass over ev_ranked.
CREATE OR REPLACE MACRO ev_set_counts() AS TABLE
SELECT b.run_id, b.topic, b.num_ret, b.num_rel, coalesce(x.n, 0) AS num_rel_ret,
       coalesce(x.n_nonrel, 0) AS num_nonrel_judged_ret, b.in_run
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) FILTER (WHERE is_rel) AS n,
                  count(*) FILTER (WHERE rel >= 0 AND NOT is_rel) AS n_nonrel
           FROM ev_ranked GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- block: ev_set_values
-- The count measures of counts.sql and the set measures below, one column each (named after
-- the measure), for every evaluated list: the measures that say `shares: ev_set_values`. Each
-- of those macros reads its own column; an evaluation that asks for several of them calls this
-- once (irwarehouse.engine.evaluate.macro_calls): all_trec's nine in one plan instead of nine.
CREATE OR REPLACE MACRO ev_set_values() AS TABLE
SELECT run_id, topic,
       1.0 AS num_q,
       CAST(num_ret AS DOUBLE) AS num_ret,
       CAST(num_rel AS DOUBLE) AS num_rel,
       CAST(num_rel_ret AS DOUBLE) AS num_rel_ret,
       CAST(num_nonrel_judged_ret AS DOUBLE) AS num_nonrel_judged_ret,
       CASE WHEN num_ret > 0 THEN num_rel_ret / num_ret ELSE 0 END AS set_P,
       CASE WHEN num_rel > 0 THEN num_rel_ret / num_rel ELSE 0 END AS set_recall,
       CASE WHEN num_ret > 0 AND num_rel > 0 THEN num_rel_ret / least(num_ret, num_rel) ELSE 0 END
           AS set_relative_P,
       CASE WHEN num_ret > 0 AND num_rel > 0
            THEN CAST(num_rel_ret * num_rel_ret AS DOUBLE) / CAST(num_ret * num_rel AS DOUBLE)
            ELSE 0 END AS set_map
FROM ev_set_counts();

-- measure: set_P
-- dialect: trec_eval
-- aliases: ir_measures SetP; ranx precision
-- sets: all_trec, set
-- order: 28
-- summary: mean
-- shares: ev_set_values
-- doc: Precision of the retrieved set: |rel ∩ ret| / |ret|.
CREATE OR REPLACE MACRO m_set_P() AS TABLE
SELECT run_id, topic, set_P AS value FROM ev_set_values();

-- measure: set_recall
-- dialect: trec_eval
-- aliases: ir_measures SetR
-- sets: all_trec, set
-- order: 30
-- summary: mean
-- shares: ev_set_values
-- doc: Recall of the retrieved set: |rel ∩ ret| / R.
CREATE OR REPLACE MACRO m_set_recall() AS TABLE
SELECT run_id, topic, set_recall AS value FROM ev_set_values();

-- measure: set_relative_P
-- dialect: trec_eval
-- aliases: ir_measures SetRelP; ir_measures SetP(relative=True)
-- sets: all_trec, set
-- order: 29
-- summary: mean
-- shares: ev_set_values
-- doc: |rel ∩ ret| / min(|ret|, R).
CREATE OR REPLACE MACRO m_set_relative_P() AS TABLE
SELECT run_id, topic, set_relative_P AS value FROM ev_set_values();

-- measure: set_map
-- dialect: trec_eval
-- aliases: ir_measures SetAP
-- sets: all_trec, set
-- order: 31
-- summary: mean
-- shares: ev_set_values
-- doc: set_P * set_recall, computed as trec_eval does: rel_ret^2 / (ret * R) (one division,
--      so that the printed rounding matches; m_set_map.c).
CREATE OR REPLACE MACRO m_set_map() AS TABLE
SELECT run_id, topic, set_map AS value FROM ev_set_values();

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
