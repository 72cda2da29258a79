-- Diversity measures that weigh intents by Pr(i|q) (docs/measures_more.md): alpha-nDCG with
-- intent probabilities (Clarke, Craswell, Soboroff & Ashkan, WSDM 2011) and a per-topic alpha
-- (Leelanupab, Zuccon & Jose, ICTIR 2011), and the intent-aware reciprocal rank RR-IA (Sakai,
-- PROMISE 2014, eq 26: M-IA = sum_i Pr(i|q) M_i). Pr(i|q) as the NTCIREVAL measures read it
-- (diversity_ntcir.sql's ev_ntd_intent: the intent file's probabilities, uniform over a
-- topic's intents with a relevant document when it has none). A document is relevant to an
-- intent when its level there reaches -l (is_rel, default 1), as ndeval's measures read it.
-- Sums over a list are exact (ev_from_fixed(sum(ev_to_fixed(x)))), sums over intents in intent
-- order: the same bits whatever DuckDB's threads or plan.
-- source: Clarke, Craswell, Soboroff & Ashkan, WSDM 2011; Leelanupab, Zuccon & Jose, ICTIR 2011; Sakai, PROMISE 2014, eq 26

-- block: ev_div_weighted
-- The intents of each topic with their weight Pr(i|q), their number k (1..m, ndeval's
-- subtopic order) and the topic's alpha: its own (ev_div_alpha, `irw ingest alphas`), else
-- `alpha`.
CREATE OR REPLACE MACRO ev_div_weighted(alpha) AS TABLE
SELECT i.topic, i.intent, i.prob,
       row_number() OVER (PARTITION BY i.topic
                          ORDER BY CASE WHEN regexp_full_match(i.intent, '[0-9]+')
                                        THEN CAST(i.intent AS HUGEINT) END NULLS LAST,
                                   i.intent) AS k,
       coalesce(a.alpha, alpha) AS topic_alpha
FROM ev_ntd_intent() i
LEFT JOIN ev_div_alpha a ON a.topic = i.topic
WHERE ev_require(alpha >= 0 AND alpha <= 1, 'alpha must be between 0 and 1');

-- block: ev_div_pr_ideal
-- The greedy ideal list of the weighted novelty gain (Clarke et al. 2011), its top `cutoff`:
-- at each rank the remaining relevant document with the largest G = sum_i Pr(i|q) J_i
-- (1 - alpha_q)^c_i (c_i: documents relevant to i placed above), ties to the larger docno
-- (as ndeval's greedy ideal); with uniform Pr(i|q) this is ndeval's ideal list.
CREATE OR REPLACE MACRO ev_div_pr_ideal(alpha, cutoff) AS TABLE
WITH RECURSIVE
weighted AS (SELECT * FROM ev_div_weighted(alpha)),
topic_intents AS (
    SELECT topic, list(prob ORDER BY k) AS w, any_value(topic_alpha) AS a, count(*) AS m
    FROM weighted GROUP BY topic
),
candidate AS (
    SELECT j.topic, j.doc, list(w.k ORDER BY w.k) AS ks
    FROM ev_div_judgment j JOIN weighted w ON w.topic = j.topic AND w.intent = j.intent
    WHERE j.is_rel
    GROUP BY j.topic, j.doc
),
greedy(topic, step, counts, taken, gain) AS (
    SELECT topic, 0, [0 for x in range(m)], []::VARCHAR[], NULL::DOUBLE
    FROM topic_intents
    UNION ALL
    SELECT topic, step + 1,
           list_transform(counts, lambda c, i: CASE WHEN list_contains(ks, i) THEN c + 1
                                                    ELSE c END),
           list_append(taken, doc), score
    FROM (
        SELECT g.topic, g.step, g.counts, g.taken, c.doc, c.ks,
               list_sum(list_transform(c.ks, lambda k: t.w[k] * pow(1 - t.a, g.counts[k])))
                   AS score,
               row_number() OVER (PARTITION BY g.topic
                                  ORDER BY list_sum(list_transform(
                                               c.ks, lambda k: t.w[k] * pow(1 - t.a,
                                                                            g.counts[k]))) DESC,
                                           c.doc DESC) AS best
        FROM greedy g
        JOIN topic_intents t ON t.topic = g.topic
        JOIN candidate c ON c.topic = g.topic AND NOT list_contains(g.taken, c.doc)
        WHERE g.step < cutoff
    )
    WHERE best = 1
)
SELECT topic, CAST(step AS BIGINT) AS rank, gain FROM greedy WHERE step > 0;

-- measure: alpha-nDCG-Pr
-- params: cutoff INTEGER = 5,10,20; alpha DOUBLE = 0.5
-- summary: mean
-- doc: alpha-nDCG with intent probabilities (Clarke et al. 2011): gain G(r) = sum_i Pr(i|q)
--      J_i(r) (1 - alpha_q)^{C_i(r-1)}, alpha-DCG@k = sum_{r<=k} G(r)/log2(r+1), over the
--      same of the greedy ideal list; alpha_q is the topic's own alpha when `irw ingest
--      alphas` gave one (Leelanupab, Zuccon & Jose 2011), else `alpha`. Uniform Pr(i|q) gives
--      ndeval's alpha-nDCG@k. 0 when the topic has no relevant document.
-- source: Clarke, Craswell, Soboroff & Ashkan, "A comparative analysis of cascade measures for novelty and diversity", WSDM 2011; Leelanupab, Zuccon & Jose, "A query-basis approach to parametrizing novelty-biased cumulative gain", ICTIR 2011
CREATE OR REPLACE MACRO m_div_alpha_ndcg_pr(cutoff, alpha) AS TABLE
WITH weighted AS (SELECT * FROM ev_div_weighted(alpha)),
pairs AS (
    SELECT r.run_id, r.topic, r.rank, w.prob, w.topic_alpha,
           count(*) OVER (PARTITION BY r.run_id, r.topic, r.intent ORDER BY r.rank
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior
    FROM ev_div_ranked r JOIN weighted w ON w.topic = r.topic AND w.intent = r.intent
    WHERE r.is_rel AND r.rank <= cutoff
),
run_dcg AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed(prob * pow(1 - topic_alpha, prior) / log2(rank + 1))))
               AS dcg
    FROM pairs GROUP BY ALL
),
ideal AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(gain / log2(rank + 1)))) AS dcg
    FROM ev_div_pr_ideal(alpha, cutoff) GROUP BY topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(i.dcg, 0) > 0 THEN coalesce(d.dcg, 0.0) / i.dcg ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN run_dcg d ON d.run_id = b.run_id AND d.topic = b.topic
LEFT JOIN ideal i ON i.topic = b.topic
WHERE ev_require(cutoff > 0, 'cutoff must be > 0');

-- measure: RR-IA
-- params: cutoff INTEGER = 5,10,20
-- summary: mean
-- doc: Intent-aware reciprocal rank (Sakai, PROMISE 2014, eq 26, M-IA = sum_i Pr(i|q) M_i):
--      sum_i Pr(i|q) / r_i, r_i the rank of the first document relevant to intent i within
--      the top k (the intent adds 0 when there is none). 0 when the topic has no relevant
--      document.
-- source: Sakai, "Statistical reform in information retrieval?" / PROMISE Winter School 2013, LNCS 8173 (2014), eq 26; Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009 (intent-aware measures)
CREATE OR REPLACE MACRO m_div_rr_ia(cutoff) AS TABLE
WITH firsts AS (
    SELECT r.run_id, r.topic, r.intent, min(r.rank) AS first_rank
    FROM ev_div_ranked r
    WHERE r.is_rel AND r.rank <= cutoff
    GROUP BY ALL
),
summed AS (
    SELECT f.run_id, f.topic, ev_from_fixed(sum(ev_to_fixed(i.prob / f.first_rank))) AS s
    FROM firsts f JOIN ev_ntd_intent() i ON i.topic = f.topic AND i.intent = f.intent
    GROUP BY ALL
)
SELECT b.run_id, b.topic, coalesce(s.s, 0.0) AS value
FROM ev_base() b
LEFT JOIN summed s ON s.run_id = b.run_id AND s.topic = b.topic
WHERE ev_require(cutoff > 0, 'cutoff must be > 0');
