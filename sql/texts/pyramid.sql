-- The pyramid method (Nenkova & Passonneau, NAACL 2004) over stored SCU annotations
-- (`irw ingest pyramid`: pyramid_scu, pyramid_peer). Persistent macro: e.g.
--   SELECT * FROM irw_pyramid(campaign := 'c', pyramid := 'duc');
-- Installed by irwarehouse.texts.store.install_text_macros. See docs/texts_sessions_meta.md.

-- measure: pyramid
-- params: pyramid VARCHAR; variant VARCHAR = 'original'
-- summary: mean
-- doc: pyramid score of every run's summary of a topic with an SCU annotation: an SCU's
--   weight w is the number of the topic's model summaries that express it (tier T_w);
--   D = sum of the weights of the distinct SCUs the peer expresses (units matching no SCU
--   weigh 0); Max = the largest D that X SCUs can reach, sum_{i>j} i|T_i| + j (X -
--   sum_{i>j}|T_i|), i.e. the X heaviest SCUs, the last one in part when X is fractional;
--   score = D / Max. variant 'original': X = the peer's number of content units (matched or
--   not; NAACL 2004); 'modified': X = the mean number of SCUs of the topic's model summaries
--   (Passonneau, Nenkova, McKeown & Sigelman, DUC 2005), a recall-like score. When X exceeds
--   the pyramid's SCUs the rest weigh 0; X = 0 or Max = 0 gives 0 (decided here).
-- source: Nenkova & Passonneau, "Evaluating content selection in summarization: the pyramid
--   method", NAACL 2004 sec 3; Passonneau et al., "Applying the pyramid method in DUC 2005".
CREATE OR REPLACE MACRO irw_pyramid(campaign := NULL, pyramid := NULL,
                                    variant := 'original') AS TABLE
WITH pset AS (
    SELECT q.qrels_id FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = pyramid AND q.format = 'pyramid'
), guard AS (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
                THEN error(concat('no campaign ', campaign, ' in the warehouse'))
                WHEN NOT EXISTS (SELECT 1 FROM pset)
                THEN error(concat('no pyramid ', pyramid, ' in campaign ', campaign))
                WHEN variant NOT IN ('original', 'modified')
                THEN error(concat('variant must be original or modified, not ', variant))
                ELSE 1 END AS ok
), weight AS (
    SELECT s.topic, s.scu, count(DISTINCT s.model) AS w
    FROM pyramid_scu s JOIN pset USING (qrels_id)
    GROUP BY s.topic, s.scu
), heaviest AS (   -- the topic's SCUs from the heaviest down (the order within a tier is moot)
    SELECT topic, w, row_number() OVER (PARTITION BY topic ORDER BY w DESC, scu) AS k
    FROM weight
), model_size AS ( -- the mean number of SCUs of a model summary of the topic
    SELECT topic, count(*) / count(DISTINCT model) AS x
    FROM pyramid_scu JOIN pset USING (qrels_id)
    GROUP BY topic
), peer AS (
    SELECT p.run_id, p.topic, count(*) AS units,
           list(DISTINCT p.scu) FILTER (WHERE p.scu IS NOT NULL) AS scus
    FROM pyramid_peer p JOIN pset USING (qrels_id)
    GROUP BY p.run_id, p.topic
), observed AS (
    SELECT p.run_id, p.topic,
           CASE WHEN variant = 'modified' THEN m.x ELSE CAST(p.units AS DOUBLE) END AS x,
           coalesce((SELECT sum(CAST(w.w AS BIGINT)) FROM weight w
                     WHERE w.topic = p.topic AND list_contains(p.scus, w.scu)), 0) AS d
    FROM peer p JOIN model_size m ON m.topic = p.topic
), best AS (       -- Max: the x heaviest SCUs, the last one counted in part when x is fractional
    SELECT o.run_id, o.topic,
           sum(h.w * greatest(0.0, least(1.0, o.x - (h.k - 1))) ORDER BY h.k) AS max_d
    FROM observed o JOIN heaviest h ON h.topic = o.topic
    GROUP BY o.run_id, o.topic
)
SELECT r.name AS run, o.topic,
       CASE WHEN b.max_d > 0 THEN o.d / b.max_d ELSE 0.0 END AS value,
       CAST(o.d AS DOUBLE) AS d, b.max_d, o.x
FROM observed o JOIN best b ON b.run_id = o.run_id AND b.topic = o.topic
JOIN run r ON r.run_id = o.run_id
CROSS JOIN guard
WHERE guard.ok = 1;
