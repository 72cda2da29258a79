-- Share of unjudged documents in the top k (trec_eval 10.0 m_unjudged.c): documents not in the
-- qrels or with a negative level, over k (k, not the number retrieved, is the denominator).
-- source: trec_eval 10.0 m_unjudged.c

-- measure: unj
-- dialect: trec_eval
-- sets: all_trec
-- order: 36
-- params: cutoff INTEGER = 5,10,20
-- summary: mean
-- since: 10
-- doc: Fraction of the top k that is unjudged.
CREATE OR REPLACE MACRO m_unj(cutoff) AS TABLE
SELECT b.run_id, b.topic, (least(cutoff, b.num_ret) - coalesce(x.judged, 0)) / cutoff AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS judged FROM ev_ranked
           WHERE rel >= 0 AND rank <= cutoff GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;
