-- iUnit-based evaluation of one-click outputs: S-measure, T-measure, S#, U over iUnits, and
-- MobileClick's M-measure. Inputs (irw ingest nuggets): nugget (gold iUnits: weight, vital
-- string and its length), nugget_match (iUnits found in an output with the end offset of each
-- match, characters without whitespace), text_length, nugget_intent and mobileclick_element.

-- The parts of S, T and S# per run and topic (a building block of the three macros above).
CREATE OR REPLACE MACRO irw_iunit_parts(campaign := NULL, nuggets := NULL, patience := 1000)
AS TABLE
WITH nset AS (
    SELECT q.qrels_id, q.campaign_id FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = nuggets AND q.format = 'nuggets'
), guard AS (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
                THEN error(concat('no campaign ', campaign, ' in the warehouse'))
                WHEN NOT EXISTS (SELECT 1 FROM nset)
                THEN error(concat('no nugget set ', nuggets, ' in campaign ', campaign))
                ELSE 1 END AS ok
), gold AS (
    SELECT n.topic, n.unit, n.weight, n.vital_length,
           sum(n.vital_length) OVER (PARTITION BY n.topic
                                     ORDER BY n.weight DESC, n.vital_length, n.unit
                                     ROWS UNBOUNDED PRECEDING) AS ideal_pos
    FROM nugget n JOIN nset USING (qrels_id)
), ideal AS (
    SELECT topic, sum(weight * greatest(0, patience - ideal_pos) ORDER BY ideal_pos, unit)
               AS denominator
    FROM gold GROUP BY topic
), first_match AS (
    SELECT m.run_id, m.topic, m.unit,
           CASE WHEN count(m.end_offset) < count(*)
                THEN error(concat('no end offset for unit ', m.unit, ' of topic ', m.topic))
                ELSE min(m.end_offset) END AS pos
    FROM nugget_match m JOIN nset USING (qrels_id)
    GROUP BY m.run_id, m.topic, m.unit
), answered AS (
    SELECT DISTINCT l.run_id, l.topic FROM text_length l
    JOIN run r ON r.run_id = l.run_id JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE l.topic IN (SELECT topic FROM gold)
    UNION
    SELECT DISTINCT run_id, topic FROM first_match
), per_run AS (
    SELECT a.run_id, a.topic,
           coalesce(sum(g.weight * greatest(0, patience - f.pos) ORDER BY f.unit), 0) AS gain,
           coalesce(sum(g.vital_length) FILTER (WHERE f.unit IS NOT NULL), 0) AS vital_chars
    FROM answered a
    LEFT JOIN first_match f ON f.run_id = a.run_id AND f.topic = a.topic
    LEFT JOIN gold g ON g.topic = f.topic AND g.unit = f.unit
    GROUP BY a.run_id, a.topic
), scored AS (
    SELECT p.run_id, p.topic,
           CASE WHEN i.denominator > 0 THEN p.gain / i.denominator ELSE 0 END AS s,
           CASE WHEN l.num_chars IS NULL
                THEN error(concat('no output length for run ', r.name, ' topic ', p.topic))
                WHEN l.num_chars > 0 THEN p.vital_chars / l.num_chars ELSE 0 END AS t
    FROM per_run p JOIN run r ON r.run_id = p.run_id
    JOIN ideal i ON i.topic = p.topic
    LEFT JOIN text_length l ON l.run_id = p.run_id AND l.topic = p.topic
)
SELECT r.name AS run, s.topic, s.s, s.t, least(1, s.s) AS s_flat, least(1, s.t) AS t_flat
FROM scored s JOIN run r ON r.run_id = s.run_id CROSS JOIN guard
WHERE guard.ok = 1;

-- measure: S
-- params: nuggets VARCHAR; patience DOUBLE = 1000
-- summary: mean
-- doc: S-measure, a position-aware weighted recall: S = sum over matched iUnits of
--   w(v) max(0, L - pos(v)) / sum over gold iUnits of w(v) max(0, L - pos*(v)), where pos(v)
--   is the end offset of v in the output (its first match) and pos*(v) its end offset in the
--   pseudo-minimal output: the vital strings sorted by weight (descending), then length
--   (ascending), then unit id, and concatenated. L = patience.
-- source: Sakai, Kato & Song (2011) CIKM "Click the search button and be happy"; Sakai (2014)
--   PROMISE Winter School, eq 43-44.
CREATE OR REPLACE MACRO irw_s_measure(campaign := NULL, nuggets := NULL, patience := 1000)
AS TABLE
SELECT run, topic, s AS value, s, t, s_flat, t_flat
FROM irw_iunit_parts(campaign := campaign, nuggets := nuggets, patience := patience);

-- measure: T
-- params: nuggets VARCHAR
-- summary: mean
-- doc: T-measure, a precision-like measure: T = sum over matched iUnits of |vs(v)| / l, with
--   l the output length in characters (whitespace excluded).
-- source: Sakai & Kato (2012) AIRS "One click one revisited"; Sakai (2014) eq 45.
CREATE OR REPLACE MACRO irw_t_measure(campaign := NULL, nuggets := NULL) AS TABLE
SELECT run, topic, t AS value, s, t, s_flat, t_flat
FROM irw_iunit_parts(campaign := campaign, nuggets := nuggets, patience := 1000);

-- measure: S#
-- params: nuggets VARCHAR; patience DOUBLE = 1000; beta DOUBLE = 1
-- summary: mean
-- doc: S# = (1 + beta^2) T' S' / (beta^2 T' + S') with S' = min(1, S) and T' = min(1, T)
--   (S-flat and T-flat: the raw measures are not bounded by 1); 0 when both are 0.
-- source: Sakai & Kato (2012) AIRS; Sakai (2014) eq 46.
CREATE OR REPLACE MACRO irw_s_sharp(campaign := NULL, nuggets := NULL, patience := 1000,
                                    beta := 1) AS TABLE
SELECT run, topic,
       CASE WHEN beta * beta * t_flat + s_flat > 0
            THEN (1 + beta * beta) * t_flat * s_flat / (beta * beta * t_flat + s_flat)
            ELSE 0 END AS value,
       s, t, s_flat, t_flat
FROM irw_iunit_parts(campaign := campaign, nuggets := nuggets, patience := patience);

-- measure: U-iUnit
-- params: nuggets VARCHAR; patience DOUBLE = 1000
-- summary: mean
-- doc: U-measure over iUnits: U = sum over the iUnits of the output, each counted at its first
--   occurrence only, of w(v) max(0, 1 - pos(v) / L), pos(v) the end offset of v (characters
--   without whitespace) and L = patience; no normalisation (S-measure's numerator / L).
-- source: Sakai & Dou (2013) SIGIR "Summaries, ranked retrieval and sessions"; Kato et al.
--   (2014-2015) NTCIR MobileClick, mpkato/mobileclick-eval Umeasure (duplicates ignored).
CREATE OR REPLACE MACRO irw_u_iunit(campaign := NULL, nuggets := NULL, patience := 1000)
AS TABLE
WITH nset AS (
    SELECT q.qrels_id, q.campaign_id FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = nuggets AND q.format = 'nuggets'
), guard AS (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
                THEN error(concat('no campaign ', campaign, ' in the warehouse'))
                WHEN NOT EXISTS (SELECT 1 FROM nset)
                THEN error(concat('no nugget set ', nuggets, ' in campaign ', campaign))
                ELSE 1 END AS ok
), first_match AS (
    SELECT m.run_id, m.topic, m.unit,
           CASE WHEN count(m.end_offset) < count(*)
                THEN error(concat('no end offset for unit ', m.unit, ' of topic ', m.topic))
                ELSE min(m.end_offset) END AS pos
    FROM nugget_match m JOIN nset USING (qrels_id)
    GROUP BY m.run_id, m.topic, m.unit
), answered AS (
    SELECT DISTINCT l.run_id, l.topic FROM text_length l
    JOIN run r ON r.run_id = l.run_id JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE l.topic IN (SELECT n.topic FROM nugget n JOIN nset USING (qrels_id))
    UNION
    SELECT DISTINCT run_id, topic FROM first_match
)
SELECT r.name AS run, a.topic,
       coalesce(sum(n.weight * greatest(0, 1 - f.pos / patience) ORDER BY f.unit), 0) AS value
FROM answered a JOIN run r ON r.run_id = a.run_id
LEFT JOIN first_match f ON f.run_id = a.run_id AND f.topic = a.topic
LEFT JOIN nugget n ON n.qrels_id = (SELECT qrels_id FROM nset) AND n.topic = f.topic
                  AND n.unit = f.unit
CROSS JOIN guard
WHERE guard.ok = 1
GROUP BY r.name, a.topic;

-- measure: M
-- params: nuggets VARCHAR; patience DOUBLE = 1000
-- summary: mean
-- doc: MobileClick's M-measure: M = sum over intents i of P(i) U_i, where U_i is the U-measure
--   of the trailtext of i: the output's first layer in order, with the second layer of i read
--   right after each link to i; an element's position is the running sum of element lengths,
--   an iUnit counts importance(i, v) max(0, 1 - pos / L) at its first occurrence only, links
--   count 0.
-- source: Kato, Sakai, Yamamoto, Pavlu, Morita & Fujita (2016) NTCIR-12 MobileClick-2
--   overview; mpkato/mobileclick-eval Mmeasure / TrailtextFactory.
CREATE OR REPLACE MACRO irw_m_measure(campaign := NULL, nuggets := NULL, patience := 1000)
AS TABLE
WITH nset AS (
    SELECT q.qrels_id, q.campaign_id FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = nuggets AND q.format = 'nuggets'
), guard AS (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
                THEN error(concat('no campaign ', campaign, ' in the warehouse'))
                WHEN NOT EXISTS (SELECT 1 FROM nset)
                THEN error(concat('no nugget set ', nuggets, ' in campaign ', campaign))
                ELSE 1 END AS ok
), intent AS (
    SELECT topic, intent, probability FROM nugget_intent JOIN nset USING (qrels_id)
    WHERE unit = ''
), element AS (
    SELECT e.* FROM mobileclick_element e JOIN nset USING (qrels_id)
), trail AS (
    -- first layer: read by every intent of the topic
    SELECT e.run_id, e.topic, i.intent, e.seq AS k1, 0 AS k2, e.kind, e.unit, e.length
    FROM element e JOIN intent i ON i.topic = e.topic
    WHERE e.layer = ''
    UNION ALL
    -- the second layer of intent i, read after each link to i
    SELECT s.run_id, s.topic, s.layer, l.seq, 1 + s.seq, s.kind, s.unit, s.length
    FROM element s
    JOIN element l ON l.run_id = s.run_id AND l.topic = s.topic AND l.layer = ''
                  AND l.kind = 'link' AND l.unit = s.layer
    WHERE s.layer <> ''
), positioned AS (
    SELECT *, sum(length) OVER (PARTITION BY run_id, topic, intent ORDER BY k1, k2
                                ROWS UNBOUNDED PRECEDING) AS pos,
           row_number() OVER (PARTITION BY run_id, topic, intent, kind, unit
                              ORDER BY k1, k2) AS occurrence
    FROM trail
), u AS (
    SELECT p.run_id, p.topic, p.intent,
           sum(CASE WHEN p.kind = 'iunit' AND p.occurrence = 1
                    THEN coalesce(w.importance, 0) * greatest(0, 1 - p.pos / patience)
                    ELSE 0 END ORDER BY p.k1, p.k2, p.kind, p.unit) AS u
    FROM positioned p
    LEFT JOIN nugget_intent w ON w.qrels_id = (SELECT qrels_id FROM nset) AND w.topic = p.topic
                             AND w.intent = p.intent AND w.unit = p.unit
    GROUP BY p.run_id, p.topic, p.intent
)
SELECT r.name AS run, u.topic, sum(i.probability * u.u ORDER BY u.intent) AS value
FROM u JOIN intent i ON i.topic = u.topic AND i.intent = u.intent
JOIN run r ON r.run_id = u.run_id CROSS JOIN guard
WHERE guard.ok = 1
GROUP BY r.name, u.topic;
