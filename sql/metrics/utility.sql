-- Linear utility of the retrieved set (trec_eval m_utility.c):
-- a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret; the last term needs the
-- collection size, which trec_eval takes from -N (default 0).

-- measure: utility
-- params: coefficients DOUBLE[] = [1.0,-1.0,0.0,0.0]
-- summary: mean
-- doc: trec_eval utility (set measure, collection size 0).
CREATE OR REPLACE TEMP MACRO utility(coefficients) AS TABLE
SELECT run_id, topic,
       coefficients[1] * num_rel_ret + coefficients[2] * (num_ret - num_rel_ret)
       + coefficients[3] * (num_rel - num_rel_ret)
       + coefficients[4] * (0 + num_rel_ret - num_ret - num_rel) AS value
FROM ev_set_counts();
