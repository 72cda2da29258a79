-- User-oriented measures with the documents each user already knew (known_doc), and the E- and
-- F-measures at rank j, over stored ranked runs (run_row, trec_eval's order: score desc, docno
-- desc). Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval (2nd ed., 2011), ch. 4.

-- block: irw_ranked
-- The ranked runs of a campaign (or `run`): rank = trec_eval's order (the stored score_rank).
CREATE OR REPLACE MACRO irw_ranked(campaign := NULL, run := NULL) AS TABLE
SELECT r.run_id, r.name AS run, rr.topic, rr.doc,
       coalesce(rr.score_rank, row_number() OVER (PARTITION BY rr.run_id, rr.topic
                                                  ORDER BY rr.score DESC, rr.doc DESC)) AS rank
FROM run_row rr JOIN run r USING (run_id) JOIN campaign c USING (campaign_id)
WHERE c.name = campaign AND (run IS NULL OR r.name = run)
UNION ALL   -- no rows, or an error naming an unknown campaign or run
SELECT CAST(error(m.msg) AS INTEGER), NULL, NULL, NULL, NULL
FROM (
    SELECT CASE
        WHEN (SELECT count(*) FROM campaign c2 WHERE c2.name = campaign) = 0
        THEN 'no campaign ' || coalesce('''' || campaign || '''', 'given')
        WHEN run IS NOT NULL AND (SELECT count(*) FROM run r2 JOIN campaign c3
                                  USING (campaign_id)
                                  WHERE c3.name = campaign AND r2.name = run) = 0
        THEN 'no run ''' || run || ''' in campaign ''' || campaign || ''''
        END AS msg
) m
WHERE m.msg IS NOT NULL;

-- block: irw_rel_flags
-- The campaign's judgments with is_rel = level >= relevance_level.
CREATE OR REPLACE MACRO irw_rel_flags(campaign := NULL, qrels := NULL,
                                      relevance_level := 1) AS TABLE
SELECT j.topic, j.doc, j.rel, j.rel >= relevance_level AS is_rel
FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
WHERE j.intent = '';

-- block: irw_rank_counts
-- Per (run, topic) of the judged topics: R (relevant judged), hits = relevant in the top
-- `cutoff` (NULL: whole list) and the list length there.
CREATE OR REPLACE MACRO irw_rank_counts(campaign := NULL, run := NULL, qrels := NULL,
                                        cutoff := NULL, relevance_level := 1) AS TABLE
WITH judged AS (
    SELECT * FROM irw_rel_flags(campaign := campaign, qrels := qrels,
                                relevance_level := relevance_level)
),
r_count AS (
    SELECT topic, count(*) FILTER (WHERE is_rel) AS num_rel FROM judged GROUP BY topic
),
listed AS (
    SELECT k.run, k.topic, k.rank, coalesce(j.is_rel, false) AS is_rel
    FROM irw_ranked(campaign := campaign, run := run) k
    LEFT JOIN judged j ON j.topic = k.topic AND j.doc = k.doc
    WHERE cutoff IS NULL OR k.rank <= cutoff
)
SELECT l.run, l.topic, any_value(c.num_rel) AS num_rel,
       count(*) FILTER (WHERE l.is_rel) AS hits, count(*) AS listed
FROM listed l JOIN r_count c ON c.topic = l.topic
GROUP BY l.run, l.topic;

-- measure: E
-- macro: irw_e_measure
-- params: cutoff INTEGER = 10; b DOUBLE = 1; relevance_level INTEGER = 1
-- summary: mean
-- doc: E(j) = 1 - (1 + b^2) / (b^2 / r(j) + 1 / P(j)) at rank j = cutoff, r(j) = hits/R,
--      P(j) = hits/j (j, not the number retrieved, as P@k); 1 when nothing relevant is in the
--      top j. b = 0 gives 1 - P(j); b -> infinity gives 1 - r(j); b = 1 gives 1 - F(j).
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "The E-Measure" (van Rijsbergen 1979).
CREATE OR REPLACE MACRO irw_e_measure(campaign := NULL, run := NULL, qrels := NULL,
                                      cutoff := 10, b := 1.0, relevance_level := 1) AS TABLE
SELECT c.run, c.topic,
       CASE WHEN c.hits = 0 THEN 1.0
            ELSE 1.0 - (1.0 + b * b)
                       / (b * b / (c.hits / c.num_rel) + 1.0 / (c.hits / cutoff)) END AS value
FROM irw_rank_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                     relevance_level := relevance_level) c;

-- measure: F
-- macro: irw_f_measure
-- params: cutoff INTEGER = 10; relevance_level INTEGER = 1
-- summary: mean
-- doc: F(j) = 2 / (1/r(j) + 1/P(j)), the harmonic mean of recall and precision at rank j =
--      cutoff (P(j) = hits/j); 0 when nothing relevant is in the top j. F(j) = 1 - E(j) at b = 1.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "F-Measure: Harmonic Mean".
CREATE OR REPLACE MACRO irw_f_measure(campaign := NULL, run := NULL, qrels := NULL,
                                      cutoff := 10, relevance_level := 1) AS TABLE
SELECT c.run, c.topic,
       CASE WHEN c.hits = 0 THEN 0.0
            ELSE 2.0 / (1.0 / (c.hits / c.num_rel) + 1.0 / (c.hits / cutoff)) END AS value
FROM irw_rank_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                     relevance_level := relevance_level) c;

-- block: irw_known_counts
-- Per run, topic and user with known documents: |K∩R|, |K∩R∩A|, |R∩A|, the list length |A|
-- (top `cutoff`, NULL: all), and `examined` = the rank where the list first holds |K∩R|
-- relevant documents (|A| when it never does) with the relevant documents found by then.
-- K = the user's known documents, R = relevant judged (level >= relevance_level), A = the run.
CREATE OR REPLACE MACRO irw_known_counts(campaign := NULL, run := NULL, qrels := NULL,
                                         cutoff := NULL, relevance_level := 1) AS TABLE
WITH judged AS (
    SELECT topic, doc FROM irw_rel_flags(campaign := campaign, qrels := qrels,
                                         relevance_level := relevance_level)
    WHERE is_rel
),
known AS (
    SELECT k."user", k.topic, k.doc
    FROM known_doc k JOIN campaign c USING (campaign_id)
    WHERE c.name = campaign
),
known_rel AS (
    SELECT k."user", k.topic, count(*) AS known_rel
    FROM known k JOIN judged j ON j.topic = k.topic AND j.doc = k.doc
    GROUP BY k."user", k.topic
),
listed AS (
    SELECT a.run, a.topic, a.doc, a.rank, j.doc IS NOT NULL AS is_rel,
           count(j.doc) OVER (PARTITION BY a.run, a.topic ORDER BY a.rank
                              ROWS UNBOUNDED PRECEDING) AS found
    FROM irw_ranked(campaign := campaign, run := run) a
    LEFT JOIN judged j ON j.topic = a.topic AND j.doc = a.doc
    WHERE cutoff IS NULL OR a.rank <= cutoff
),
users AS (
    SELECT DISTINCT l.run, l.topic, u."user", coalesce(kr.known_rel, 0) AS known_rel
    FROM listed l
    JOIN (SELECT DISTINCT "user", topic FROM known) u ON u.topic = l.topic
    LEFT JOIN known_rel kr ON kr."user" = u."user" AND kr.topic = u.topic
),
per_doc AS (
    SELECT u.run, u.topic, u."user", u.known_rel, l.rank, l.is_rel, l.found,
           k.doc IS NOT NULL AS known
    FROM users u
    JOIN listed l ON l.run = u.run AND l.topic = u.topic
    LEFT JOIN known k ON k."user" = u."user" AND k.topic = l.topic AND k.doc = l.doc
),
agg AS (
    SELECT d.run, d.topic, d."user", any_value(d.known_rel) AS known_rel,
           count(*) FILTER (WHERE d.is_rel AND d.known) AS known_rel_listed,
           count(*) FILTER (WHERE d.is_rel) AS rel_listed,
           count(*) AS listed,
           coalesce(min(d.rank) FILTER (WHERE d.found >= d.known_rel AND d.known_rel > 0),
                    max(d.rank)) AS examined
    FROM per_doc d
    GROUP BY d.run, d.topic, d."user"
)
-- found_by_then: |K∩R| when the list reaches it (found grows by one), else all it holds
SELECT *, least(known_rel, rel_listed) AS found_by_then FROM agg;

-- measure: coverage
-- macro: irw_coverage
-- params: cutoff INTEGER = NULL; relevance_level INTEGER = 1
-- summary: mean
-- doc: |K∩R∩A| / |K∩R|, the share of the known relevant documents that the run retrieved, per
--      user; a topic's value is the mean over its users with |K∩R| > 0.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "User-oriented measures" (Korfhage 1997).
CREATE OR REPLACE MACRO irw_coverage(campaign := NULL, run := NULL, qrels := NULL,
                                     cutoff := NULL, relevance_level := 1) AS TABLE
SELECT k.run, k.topic, avg(k.known_rel_listed / k.known_rel ORDER BY k."user") AS value,
       count(*) AS users
FROM irw_known_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                      relevance_level := relevance_level) k
WHERE k.known_rel > 0
GROUP BY k.run, k.topic;

-- measure: novelty
-- macro: irw_novelty
-- params: cutoff INTEGER = NULL; relevance_level INTEGER = 1
-- summary: mean
-- doc: |(R∩A) - K| / |R∩A|, the share of the retrieved relevant documents the user did not
--      know, per user; a topic's value is the mean over its users when |R∩A| > 0.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "User-oriented measures".
CREATE OR REPLACE MACRO irw_novelty(campaign := NULL, run := NULL, qrels := NULL,
                                    cutoff := NULL, relevance_level := 1) AS TABLE
SELECT k.run, k.topic,
       avg((k.rel_listed - k.known_rel_listed) / k.rel_listed ORDER BY k."user") AS value,
       count(*) AS users
FROM irw_known_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                      relevance_level := relevance_level) k
WHERE k.rel_listed > 0
GROUP BY k.run, k.topic;

-- measure: relative_recall
-- macro: irw_relative_recall
-- params: cutoff INTEGER = NULL; relevance_level INTEGER = 1
-- summary: mean
-- doc: relevant documents found / relevant documents the user expected to find, the expected
--      number being |K∩R| (the relevant documents the user knew): |R∩A| / |K∩R|, not capped
--      (above 1 when the run finds more than the user knew); mean over users with |K∩R| > 0.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "User-oriented measures".
CREATE OR REPLACE MACRO irw_relative_recall(campaign := NULL, run := NULL, qrels := NULL,
                                            cutoff := NULL, relevance_level := 1) AS TABLE
SELECT k.run, k.topic, avg(k.rel_listed / k.known_rel ORDER BY k."user") AS value, count(*) AS users
FROM irw_known_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                      relevance_level := relevance_level) k
WHERE k.known_rel > 0
GROUP BY k.run, k.topic;

-- measure: recall_effort
-- macro: irw_recall_effort
-- params: cutoff INTEGER = NULL; relevance_level INTEGER = 1
-- summary: mean
-- doc: relevant documents the user expected to find (|K∩R|) / documents examined to find that
--      many, i.e. |K∩R| / e with e the rank where the list first holds |K∩R| relevant
--      documents; when it never does, the user examines the whole list and finds fewer:
--      C(|A|) / |A|. In both cases C(e)/e. Mean over users with |K∩R| > 0.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4 "User-oriented measures".
CREATE OR REPLACE MACRO irw_recall_effort(campaign := NULL, run := NULL, qrels := NULL,
                                          cutoff := NULL, relevance_level := 1) AS TABLE
SELECT k.run, k.topic, avg(k.found_by_then / k.examined ORDER BY k."user") AS value,
       count(*) AS users
FROM irw_known_counts(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                      relevance_level := relevance_level) k
WHERE k.known_rel > 0
GROUP BY k.run, k.topic;
