-- The relevance string of the top of a ranking, a debugging aid (trec_eval m_relstring.c):
-- one character per rank for the first min(k, retrieved) ranks: the level 0-9, '>' above 9,
-- '-' not in the qrels, '.' in the pool but unjudged (negative level). Per topic only.
-- source: trec_eval m_relstring.c

-- measure: relstring
-- dialect: trec_eval
-- sets: all_trec
-- order: 12
-- params: length DOUBLE = 10
-- summary: none
-- kind: text
-- doc: The levels of the top k documents as a string.
CREATE OR REPLACE MACRO m_relstring(length) AS TABLE
WITH positions AS (
    SELECT b.run_id, b.topic, g.rank
    FROM ev_base() b, generate_series(1, CAST(least(trunc(length), b.num_ret) AS BIGINT)) g(rank)
)
SELECT b.run_id, b.topic, coalesce(x.value, '') AS value
FROM ev_base() b
LEFT JOIN (
    SELECT p.run_id, p.topic,
           string_agg(CASE WHEN r.rel IS NULL THEN '-'
                           WHEN r.rel > 9 THEN '>'
                           WHEN r.rel >= 0 THEN CAST(r.rel AS VARCHAR)
                           ELSE '.' END, '' ORDER BY p.rank) AS value
    FROM positions p
    LEFT JOIN ev_ranked r ON r.run_id = p.run_id AND r.topic = p.topic AND r.rank = p.rank
    GROUP BY p.run_id, p.topic
) x ON x.run_id = b.run_id AND x.topic = b.topic;
