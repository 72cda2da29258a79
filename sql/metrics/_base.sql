-- Shared building blocks of the metric macros. Every metric reads the evaluation context
-- (sql/context.sql): ev_run_topic, ev_topic, ev_lists, ev_ranked (ev_relevant, ev_counted),
-- ev_judgment.

-- block: ev_base
-- One row per evaluated (run, topic): list length, R (relevant judged) and N (judged non-relevant);
-- in_run is false for a topic the run lacks that -c adds as an empty list. The context relation
-- ev_lists (sql/context.sql), built once per evaluation.
CREATE OR REPLACE MACRO ev_base() AS TABLE
SELECT run_id, topic, num_ret, num_rel, num_nonrel, in_run FROM ev_lists;

-- block: ev_ideal
-- The ideal list of a topic: its judged documents sorted by gain, descending, positive gains only
-- (trec_eval stops the ideal list at the first non-positive gain); the gain is the level unless
-- `gain_map` (a MAP(level -> gain)) maps it. Read by the graded measures (graded.sql).
CREATE OR REPLACE MACRO ev_ideal(gain_map) AS TABLE
SELECT topic, gain,
       row_number() OVER (PARTITION BY topic ORDER BY gain DESC) AS rank
FROM (
    SELECT j.topic, coalesce(gain_map[j.rel], CAST(j.rel AS DOUBLE)) AS gain
    FROM ev_judgment j
    WHERE j.rel >= 0
)
WHERE gain > 0;

-- block: ev_recall_cut
-- The number of relevant documents that reaches recall level x: trec_eval 9.x truncates
-- (long)(x*R + 0.9); 10.0 rounds, lround(x*R) (m_iprec_at_recall.c, m_11pt_avg.c).
CREATE OR REPLACE MACRO ev_recall_cut(x, num_rel) AS
CASE WHEN (SELECT max(trec_eval_version) FROM ev_options) >= 10
     THEN CAST(round(x * num_rel) AS BIGINT)
     ELSE CAST(trunc(x * num_rel + 0.9) AS BIGINT) END;

-- block: ev_absent_list_empty
-- Whether a topic that -c adds for a run lacking it counts as an empty evaluated list (10.0 with
-- -J or -M0; see context.sql, options).
CREATE OR REPLACE MACRO ev_absent_list_empty() AS
coalesce((SELECT bool_or(absent_list_empty) FROM ev_options), false);
