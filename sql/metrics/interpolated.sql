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

-- block: ev_iprec_levels
-- The interpolated precision of every evaluated list at each of `recall_levels` that a
-- retrieved relevant document reaches: the best C(r)/r at the relevant documents from the c-th
-- on, c = trec_eval's ev_recall_cut, or with `textbook` the smallest c >= x R (the textbook
-- rule below).
CREATE OR REPLACE MACRO ev_iprec_levels(recall_levels, textbook) AS TABLE
SELECT r.run_id, r.topic, lv.level, max(r.rel_so_far / r.rank) AS p
FROM ev_relevant r
JOIN ev_topic t ON t.topic = r.topic
CROSS JOIN (SELECT unnest(recall_levels) AS level) lv
WHERE r.rel_so_far >= CASE WHEN textbook THEN ceil(lv.level * t.num_rel - 1e-9)
                           ELSE ev_recall_cut(lv.level, t.num_rel) END
GROUP BY r.run_id, r.topic, lv.level;

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
    FROM ev_iprec_levels(recall_levels, false) GROUP BY run_id, topic
) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- block: ev_iprec_textbook
-- Interpolated precision by the textbook rule (Baeza-Yates & Ribeiro-Neto, Modern Information
-- Retrieval, 2nd ed. 2011, ch. 4; Sakai, PROMISE 2014, eq 7-8): P(r_j) = max precision at any
-- recall >= r_j, the recall of the k-th relevant document being k/R exactly. So the level x is
-- reached by the k-th relevant document for the smallest k >= x R (ceil), where trec_eval's
-- (long)(x R + 0.9) gives k = 2 for x = 0.7, R = 3 (0.7 * 3 + 0.9 is 2.9999999999999996 in
-- doubles). The 1e-9 absorbs the binary rounding of a decimal level (0.3 * 10 =
-- 3.0000000000000004 is recall 0.3 at k = 3). Undefined cases, decided: a level no retrieved
-- relevant document reaches, a topic without relevant documents (R = 0) and an empty list give
-- 0 (trec_eval's NaN for an empty list is not kept: nothing is retrieved, so no precision).
CREATE OR REPLACE MACRO ev_iprec_textbook(recall_level) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.p, 0.0) AS value
FROM ev_base() b
LEFT JOIN ev_iprec_levels([recall_level], true) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: textbook_iprec_at_recall
-- params: recall_level DOUBLE = 0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0
-- summary: mean
-- doc: Interpolated precision at recall level x by the textbook rule, max precision at any
--      recall >= x (recall k/R compared exactly), not trec_eval's iprec_at_recall (which rounds
--      x R + 0.9 down). Baeza-Yates & Ribeiro-Neto's q2 (R = 3, relevant at ranks 3, 8, 15):
--      0.20 at recall 0.7 where iprec_at_recall gives 0.25. 0 when no retrieved relevant
--      document reaches x, R = 0 or the list is empty.
-- source: Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval (2nd ed., Addison-Wesley 2011), ch. 4; Sakai, PROMISE 2014, eq 7-8
CREATE OR REPLACE MACRO m_textbook_iprec_at_recall(recall_level) AS TABLE
SELECT run_id, topic, value FROM ev_iprec_textbook(recall_level);

-- measure: textbook_11pt_avg
-- params: recall_levels DOUBLE[] = [0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0]
-- summary: mean
-- doc: Mean of textbook_iprec_at_recall over the recall levels (the 11-point average by
--      default), not trec_eval's 11pt_avg: Baeza-Yates & Ribeiro-Neto's q2 gives 0.2621 where
--      11pt_avg gives 0.2667. Same undefined cases as textbook_iprec_at_recall (0).
-- source: Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval (2nd ed., Addison-Wesley 2011), ch. 4; Sakai, PROMISE 2014, eq 7-8
CREATE OR REPLACE MACRO m_textbook_pt11_avg(recall_levels) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.s, 0.0) / len(recall_levels) AS value
FROM ev_base() b
LEFT JOIN (
    SELECT run_id, topic, sum(p ORDER BY level) AS s
    FROM ev_iprec_levels(recall_levels, true) GROUP BY run_id, topic
) x ON x.run_id = b.run_id AND x.topic = b.topic
WHERE ev_require(len(recall_levels) > 0, 'recall_levels must not be empty');
