-- Interpolated precision at recall levels (Sakai, PROMISE 2014, eq 7-8; Baeza-Yates & Ribeiro-Neto 2011; trec_eval
-- m_iprec_at_recall.c, m_11pt_avg.c). A recall level x is the c-th relevant document with
-- c = (long)(x*R + 0.9) (trec_eval 9.x truncation; 10.0 rounds: lround(x*R),
-- chosen by $iprec_rounding of the context); the interpolated precision there is the
-- largest precision C(r)/r at any relevant document at or below it, k/r_k for k >= c
-- (0 when fewer than c relevant documents are retrieved).
-- An evaluated list that is empty (-J with nothing judged retrieved, -M0) gives trec_eval's
-- 0/0 = NaN at every c = 0 (precision num_rel_ret/num_ret before its loop); printed `  -nan`.
-- A topic -c adds for a run that lacks it is such a list only in 10.0 with -J or -M0 (10.0
-- evaluates a one-document list of a non-pool document; 9.x does not evaluate the topic).
-- source: trec_eval m_iprec_at_recall.c, m_11pt_avg.c; Sakai, PROMISE 2014, eq 7-8

-- block: ev_iprec
CREATE OR REPLACE MACRO ev_iprec(recall_level) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_ret = 0 AND (b.in_run OR ev_absent_list_empty())
                 AND ev_recall_cut(recall_level, b.num_rel) = 0
            THEN CAST('NaN' AS DOUBLE) ELSE coalesce(x.p, 0) END AS value
FROM ev_base() b
LEFT JOIN (
    SELECT r.run_id, r.topic, max(r.rel_so_far / r.rank) AS p
    FROM ev_relevant r JOIN ev_topic t ON t.topic = r.topic
    WHERE r.rel_so_far >= ev_recall_cut(recall_level, t.num_rel)
    GROUP BY r.run_id, r.topic
) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: iprec_at_recall
-- dialect: trec_eval
-- aliases: ir_measures IPrec@k
-- sets: all_trec, official
-- order: 10
-- params: recall_level DOUBLE = 0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0
-- summary: mean
-- doc: Interpolated precision at a recall level.
CREATE OR REPLACE MACRO m_iprec_at_recall(recall_level) AS TABLE
SELECT run_id, topic, value FROM ev_iprec(recall_level);

-- measure: 11pt_avg
-- dialect: trec_eval
-- sets: all_trec
-- order: 18
-- params: recall_levels DOUBLE[] = [0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0]
-- summary: mean
-- doc: Mean interpolated precision over recall levels (11-point average by default).
CREATE OR REPLACE MACRO m_pt11_avg(recall_levels) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN b.num_ret = 0 AND (b.in_run OR ev_absent_list_empty())
                 AND ev_recall_cut(list_min(recall_levels), b.num_rel) = 0
            THEN CAST('NaN' AS DOUBLE) ELSE coalesce(x.s, 0) / len(recall_levels) END AS value
FROM ev_base() b
LEFT JOIN (
    SELECT run_id, topic, sum(p ORDER BY level) AS s
    FROM (
        SELECT r.run_id, r.topic, lv.level, max(r.rel_so_far / r.rank) AS p
        FROM ev_relevant r
        JOIN ev_topic t ON t.topic = r.topic
        CROSS JOIN (SELECT unnest(recall_levels) AS level) lv
        WHERE r.rel_so_far >= ev_recall_cut(lv.level, t.num_rel)
        GROUP BY r.run_id, r.topic, lv.level
    ) GROUP BY run_id, topic
) x ON x.run_id = b.run_id AND x.topic = b.topic;
