-- Linear utility of the retrieved set (trec_eval m_utility.c):
-- a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret; the last term needs the
-- collection size, which trec_eval takes from -N (default 0).
-- source: trec_eval m_utility.c

-- measure: utility
-- dialect: trec_eval
-- sets: all_trec, set
-- order: 17
-- params: coefficients DOUBLE[] = [1.0,-1.0,0.0,0.0]
-- summary: mean
-- doc: trec_eval utility (set measure, collection size 0). A topic that -c adds for a run
--      lacking it: 0 in 9.x (not evaluated); 10.0 evaluates a one-document non-pool list
--      (empty with -J or -M0) and then resets the value named exactly `utility` to 0, so with
--      coefficients other than the default (printed utility_a,b,c,d) it keeps b*ret + c*R + d*(-ret-R).
--      (An explicit utility.1,-1,0,0 is not reset by 10.0 either; we treat it as the default.)
CREATE OR REPLACE MACRO m_utility(coefficients) AS TABLE
WITH counts AS (
    SELECT run_id, topic, num_rel, num_rel_ret,
           CASE WHEN in_run THEN num_ret WHEN ev_absent_list_empty() THEN 0 ELSE 1 END AS ret,
           NOT in_run AND ((SELECT max(trec_eval_version) FROM ev_options) < 10
                           OR coefficients = CAST([1, -1, 0, 0] AS DOUBLE[])) AS is_zero
    FROM ev_set_counts()
)
SELECT run_id, topic,
       CASE WHEN is_zero THEN 0.0
            ELSE coefficients[1] * num_rel_ret + coefficients[2] * (ret - num_rel_ret)
                 + coefficients[3] * (num_rel - num_rel_ret)
                 + coefficients[4] * (0 + num_rel_ret - ret - num_rel) END AS value
FROM counts;
