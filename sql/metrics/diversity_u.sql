-- The diversity forms of the U-measure (Sakai & Dou, SIGIR 2013; Sakai, "Metrics, Statistics,
-- Tests", PROMISE Winter School 2013, LNCS 8173, 2014, section 3.1 eq 30-31, Fig 4): U over a
-- linear-traversal trailtext as sql/metrics/trailtext.sql defines it,
--   pos(r) = snippet * r + F * sum_{k<=r, k read} len(k),  D(pos) = max(0, 1 - pos/L),
-- with per-intent gains g_i = (2^level_i - 1) / 2^H and Pr(i|q) from ev_ntd_intent()
-- (diversity_ntcir.sql: intents with a relevant document; uniform without probabilities).
-- H, the highest level: max_level when > 0, else the TOPIC's highest level, the largest level
-- judged for any intent of the topic (retrieved or not). The same H serves D-U's global gain and
-- every per-intent U_i of U-IA. Eq 30-31 leave H open for U_i; one H per topic keeps the
-- intents' gains on one scale, the scale of D-U's global gain: with H per intent, an intent
-- judged only up to L1 would give its L1 documents gain 1/2, as much as another intent's L2 ones
-- would give at H = 2 (tests/test_diversity_u.py pins the choice).
--   D-U  = (1/N) sum_r GG(r) D(pos(r)),  GG(r) = sum_i Pr(i|q) g_i(r)                  (eq 30)
--          one trailtext: F of a document is read when it is relevant to some intent;
--   U-IA = sum_i Pr(i|q) U_i                                                          (eq 31)
--          U_i on intent i's own trailtext: its user reads F of the documents relevant to i.
-- (With one trailtext for every intent, U-IA would equal D-U by linearity; Sakai, PROMISE 2014 says they
-- "behave similarly", which the per-intent trailtexts give.) Lengths in characters from the
-- `doc` table (missing_length when absent); the list is ev_div_listed (every retrieved
-- document, ranks as ev_div_ranked, -M and -J applied).
-- source: Sakai & Dou, SIGIR 2013; Sakai, PROMISE 2014, eq 30-31

-- block: ev_ntd_u_docs
-- The relevant (level >= 1) per-intent judgments of the retrieved documents, with the rank,
-- the document's length in characters, Pr(i|q) and the gain (2^level - 1)/2^H.
CREATE OR REPLACE MACRO ev_ntd_u_docs(max_level, missing_length) AS TABLE
WITH top_level AS (
    SELECT topic, max(rel) AS h FROM ev_div_judgment GROUP BY topic
)
SELECT l.run_id, l.topic, l.rank, j.intent, i.prob,
       coalesce(l.length_chars, missing_length) AS len,
       (pow(2.0, j.rel) - 1.0) / pow(2.0, CASE WHEN max_level > 0 THEN max_level ELSE t.h END)
           AS gain
FROM ev_div_listed l
JOIN ev_div_judgment j ON j.topic = l.topic AND j.doc = l.doc
JOIN ev_ntd_intent() i ON i.topic = j.topic AND i.intent = j.intent
JOIN top_level t ON t.topic = l.topic
WHERE j.rel >= 1;

-- measure: D-U
-- dialect: irw
-- params: snippet DOUBLE = 200; f DOUBLE = 0.2; l DOUBLE = 132000; norm DOUBLE = 1; max_level INTEGER = 0; missing_length DOUBLE = 0
-- needs: div_listed
-- summary: mean
-- doc: D-U (Sakai & Dou 2013; Sakai, PROMISE 2014, eq 30 in eq 19): U-measure with the global gain
--      sum_i Pr(i|q) (2^l_i - 1)/2^H, F of every document relevant to some intent read; H =
--      max_level or the topic's highest level over all its intents.
CREATE OR REPLACE MACRO m_ntd_d_u(snippet, f, l, norm, max_level, missing_length) AS TABLE
WITH docs AS (
    SELECT run_id, topic, rank, any_value(len) AS len,
           ev_from_fixed(sum(ev_to_fixed(prob * gain))) AS gg
    FROM ev_ntd_u_docs(max_level, missing_length)
    GROUP BY run_id, topic, rank
),
placed AS (
    SELECT run_id, topic, rank, gg,
           rank * snippet
           + f * ev_from_fixed(sum(ev_to_fixed(len)) OVER (PARTITION BY run_id, topic
                                                           ORDER BY rank
                                                           ROWS UNBOUNDED PRECEDING)) AS pos
    FROM docs
),
s AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed(gg * greatest(0.0, 1.0 - pos / l)))) AS v
    FROM placed GROUP BY run_id, topic
)
SELECT b.run_id, b.topic, coalesce(s.v, 0.0) / norm AS value
FROM ev_base() b
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;

-- measure: U-IA
-- dialect: irw
-- params: snippet DOUBLE = 200; f DOUBLE = 0.2; l DOUBLE = 132000; norm DOUBLE = 1; max_level INTEGER = 0; missing_length DOUBLE = 0
-- needs: div_listed
-- summary: mean
-- doc: U-IA (Sakai & Dou 2013; Sakai, PROMISE 2014, eq 31): sum_i Pr(i|q) U_i, U_i the U-measure of intent
--      i's levels on its own trailtext (F of the documents relevant to i read), with gains
--      (2^l_i - 1)/2^H, H = max_level or the topic's highest level over all its intents (not
--      intent i's own highest level).
CREATE OR REPLACE MACRO m_ntd_u_ia(snippet, f, l, norm, max_level, missing_length) AS TABLE
WITH placed AS (
    SELECT run_id, topic, intent, rank, prob, gain,
           rank * snippet
           + f * ev_from_fixed(sum(ev_to_fixed(len)) OVER (PARTITION BY run_id, topic, intent
                                                           ORDER BY rank
                                                           ROWS UNBOUNDED PRECEDING)) AS pos
    FROM ev_ntd_u_docs(max_level, missing_length)
),
s AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed(prob * gain * greatest(0.0, 1.0 - pos / l)))) AS v
    FROM placed GROUP BY run_id, topic
)
SELECT b.run_id, b.topic, coalesce(s.v, 0.0) / norm AS value
FROM ev_base() b
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;
