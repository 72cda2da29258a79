-- Rank-biased precision (Moffat & Zobel 2008; Sakai, PROMISE 2014, sec 2.2; trec_eval 10.0 m_rbp.c,
-- m_rbp_resid.c): RBP = (1-p) sum_r p^(r-1) g(r), gains in [0,1]: the topic's level gains
-- (gain = level) are rescaled into [0,1]. trec_eval 10.0 rescales (g - min)/(max - min) with
-- min and max read uninitialised; on every all_trec output observed that equals level/max_level
-- when the highest level exceeds 1 (see README, "trec_eval 9 and 10"), which is what we compute.
-- source: trec_eval 10.0 m_rbp.c, m_rbp_resid.c; Moffat & Zobel, ACM TOIS 2008

-- measure: rbp
-- dialect: trec_eval
-- sets: all_trec
-- order: 34
-- params: p DOUBLE = 0.9
-- summary: mean
-- since: 10
-- doc: Rank-biased precision with persistence p.
CREATE OR REPLACE MACRO m_rbp(p) AS TABLE
WITH levels AS (
    SELECT topic, max(rel) AS hi FROM ev_judgment WHERE rel >= 0 GROUP BY topic
),
gained AS (
    SELECT r.run_id, r.topic, r.rank,
           CASE WHEN l.hi > 1 THEN r.rel / l.hi
                ELSE CAST(r.rel AS DOUBLE) END AS gain
    FROM ev_ranked r JOIN levels l ON l.topic = r.topic
    WHERE r.rel >= 0
)
SELECT b.run_id, b.topic, (1.0 - p) * coalesce(x.s, 0) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, sum(gain * pow(p, rank - 1) ORDER BY rank) AS s
           FROM gained
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: rbp_resid
-- dialect: trec_eval
-- sets: all_trec
-- order: 35
-- params: p DOUBLE = 0.9
-- summary: mean
-- since: 10
-- doc: The most unjudged documents could add to RBP: p^n + (1-p) sum over unjudged ranks
--      of p^(r-1) = 1 - (1-p) sum over judged ranks of p^(r-1); 0 when every document is judged.
--      A topic -c adds for a run lacking it: 10.0 evaluates a one-document non-pool list (1)
--      and resets the value named exactly `rbp_resid` to 0; rbp_resid_p=x is not reset, so it
--      stays 1 unless -J or -M0 empties the list. (An explicit p=0.9 counts as the default.)
CREATE OR REPLACE MACRO m_rbp_resid(p) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN NOT b.in_run THEN
                CASE WHEN p = 0.9 OR ev_absent_list_empty() THEN 0.0 ELSE 1.0 END
            WHEN b.num_ret > coalesce(x.judged, 0) THEN 1.0 - (1.0 - p) * coalesce(x.s, 0)
            ELSE 0 END AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS judged,
                  sum(pow(p, rank - 1) ORDER BY rank) AS s
           FROM ev_ranked WHERE rel >= 0 GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;
