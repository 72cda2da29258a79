-- Nugget-based evaluation of text outputs: TREC QA nugget F, POURPRE and the nuggetizer scores.
-- Inputs (irw ingest nuggets): nugget (gold units with weights, labels, text), nugget_match
-- (units found in a run's output), text_length (output length, whitespace excluded).
-- Every macro returns (run, topic, value, ...) for every run of the campaign that has an output
-- length or a match for a topic of the nugget set, and raises an error naming an unknown
-- campaign or nugget set.

-- measure: nuggetF
-- params: nuggets VARCHAR; beta DOUBLE = 3; allowance DOUBLE = 100
-- summary: mean
-- doc: TREC QA nugget F-measure. W-Rec = sum of the weights of the matched nuggets / sum of
--   the weights of all gold nuggets (vital = 1, okay = 0 for labels); allow = allowance x
--   (number of matched nuggets, okay ones included); Prec_allow = 1 if l <= allow, else
--   1 - (l - allow) / l with l the output length in characters, whitespace excluded;
--   F = (beta^2 + 1) Prec W-Rec / (beta^2 Prec + W-Rec). TREC 2003 used beta = 5 (preset
--   nuggetF_trec2003), TREC 2004-2005 beta = 3 (nuggetF_trec2004, the default).
-- source: Voorhees (2003) TREC 2003 QA track overview; Lin & Demner-Fushman (2006) HLT-NAACL
--   (weights from vital votes); Sakai (2014) PROMISE Winter School, eq 40-42.
CREATE OR REPLACE MACRO irw_nugget_f(campaign := NULL, nuggets := NULL, beta := 3,
                                     allowance := 100) AS TABLE
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
    SELECT n.topic, n.unit, n.weight FROM nugget n JOIN nset USING (qrels_id)
), answered AS (
    SELECT DISTINCT l.run_id, l.topic FROM text_length l
    JOIN run r ON r.run_id = l.run_id JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE l.topic IN (SELECT topic FROM gold)
    UNION
    SELECT DISTINCT m.run_id, m.topic FROM nugget_match m JOIN nset USING (qrels_id)
), matched AS (
    SELECT DISTINCT m.run_id, m.topic, m.unit FROM nugget_match m JOIN nset USING (qrels_id)
), per_run AS (
    SELECT a.run_id, a.topic,
           coalesce(sum(g.weight ORDER BY g.unit) FILTER (WHERE mt.unit IS NOT NULL), 0)
               AS matched_weight,
           count(mt.unit) AS num_matched
    FROM answered a
    JOIN gold g ON g.topic = a.topic
    LEFT JOIN matched mt ON mt.run_id = a.run_id AND mt.topic = a.topic AND mt.unit = g.unit
    GROUP BY a.run_id, a.topic
), scored AS (
    SELECT p.run_id, p.topic,
           p.matched_weight / nullif((SELECT sum(weight ORDER BY unit) FROM gold g
                                      WHERE g.topic = p.topic), 0) AS w_rec,
           CASE WHEN l.num_chars IS NULL
                THEN error(concat('no output length for run ', r.name, ' topic ', p.topic))
                WHEN l.num_chars <= allowance * p.num_matched THEN 1.0
                ELSE 1 - (l.num_chars - allowance * p.num_matched) / l.num_chars END
               AS prec_allow
    FROM per_run p JOIN run r ON r.run_id = p.run_id
    LEFT JOIN text_length l ON l.run_id = p.run_id AND l.topic = p.topic
)
SELECT r.name AS run, s.topic,
       CASE WHEN beta * beta * prec_allow + coalesce(w_rec, 0) > 0
            THEN (beta * beta + 1) * prec_allow * coalesce(w_rec, 0)
                 / (beta * beta * prec_allow + coalesce(w_rec, 0))
            ELSE 0 END AS value,
       coalesce(w_rec, 0) AS w_rec, prec_allow
FROM scored s JOIN run r ON r.run_id = s.run_id CROSS JOIN guard
WHERE guard.ok = 1;

-- measure: POURPRE
-- params: nuggets VARCHAR; beta DOUBLE = 3; allowance DOUBLE = 100; stem_tokens BOOLEAN = false
-- summary: mean
-- doc: Nugget F with automatic matching. Each nugget's text and each sentence (line) of the
--   output are tokenised as ROUGE does, stopwords removed; match(v, s) = |terms(v) & terms(s)|
--   / |terms(v)| over distinct terms, m(v) = its maximum over the output's sentences.
--   W-Rec = sum w(v) m(v) / sum w(v); allowance counts the nuggets with m(v) > 0;
--   Prec_allow and F as in nuggetF.
-- source: Lin & Demner-Fushman (2005) HLT/EMNLP "Automatically evaluating answers to
--   definition questions" (unigram-overlap matching, the macro-averaged variant);
--   Sakai (2014) PROMISE Winter School, section 3.3.
CREATE OR REPLACE MACRO irw_pourpre(campaign := NULL, nuggets := NULL, beta := 3,
                                    allowance := 100, stem_tokens := false) AS TABLE
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
    SELECT n.topic, n.unit, n.weight FROM nugget n JOIN nset USING (qrels_id)
), nugget_term AS (
    SELECT DISTINCT t.topic, t.ref_id AS unit,
           CASE WHEN stem_tokens THEN t.stem ELSE t.token END AS term
    FROM text_token t JOIN nset ON t.source = 'nugget' AND t.owner_id = nset.qrels_id
    WHERE NOT t.is_stop
), nugget_size AS (
    SELECT topic, unit, count(*) AS num_terms FROM nugget_term GROUP BY topic, unit
), output_term AS (
    SELECT DISTINCT t.owner_id AS run_id, t.topic, t.sentence,
           CASE WHEN stem_tokens THEN t.stem ELSE t.token END AS term
    FROM text_token t JOIN run r ON t.source = 'run' AND r.run_id = t.owner_id
    JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE NOT t.is_stop AND t.topic IN (SELECT topic FROM gold)
), overlap AS (
    SELECT o.run_id, o.topic, n.unit, o.sentence, count(*) AS shared
    FROM output_term o JOIN nugget_term n ON n.topic = o.topic AND n.term = o.term
    GROUP BY o.run_id, o.topic, n.unit, o.sentence
), best AS (
    SELECT v.run_id, v.topic, v.unit, max(v.shared / s.num_terms) AS m
    FROM overlap v JOIN nugget_size s ON s.topic = v.topic AND s.unit = v.unit
    GROUP BY v.run_id, v.topic, v.unit
), answered AS (
    SELECT DISTINCT l.run_id, l.topic FROM text_length l
    JOIN run r ON r.run_id = l.run_id JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE l.topic IN (SELECT topic FROM gold)
), per_run AS (
    SELECT a.run_id, a.topic,
           sum(g.weight * coalesce(b.m, 0) ORDER BY g.unit)
               / nullif(sum(g.weight ORDER BY g.unit), 0) AS w_rec,
           count(*) FILTER (WHERE b.m > 0) AS num_matched
    FROM answered a JOIN gold g ON g.topic = a.topic
    LEFT JOIN best b ON b.run_id = a.run_id AND b.topic = a.topic AND b.unit = g.unit
    GROUP BY a.run_id, a.topic
), scored AS (
    SELECT p.run_id, p.topic, coalesce(p.w_rec, 0) AS w_rec,
           CASE WHEN l.num_chars <= allowance * p.num_matched THEN 1.0
                ELSE 1 - (l.num_chars - allowance * p.num_matched) / l.num_chars END
               AS prec_allow
    FROM per_run p JOIN text_length l ON l.run_id = p.run_id AND l.topic = p.topic
)
SELECT r.name AS run, s.topic,
       CASE WHEN beta * beta * prec_allow + w_rec > 0
            THEN (beta * beta + 1) * prec_allow * w_rec / (beta * beta * prec_allow + w_rec)
            ELSE 0 END AS value,
       w_rec, prec_allow
FROM scored s JOIN run r ON r.run_id = s.run_id CROSS JOIN guard
WHERE guard.ok = 1;

-- measure: nuggetizer
-- params: nuggets VARCHAR; variant VARCHAR = 'all'; partial DOUBLE = 0.5
-- summary: mean
-- doc: The nugget scores of RAG evaluation (TREC 2024 RAG track, castorini/nuggetizer): over
--   the vital nuggets (strict_vital, vital) or all nuggets (strict_all, all), the fraction
--   supported by the answer; strict_* count full support only, the others add `partial`
--   (0.5) per partially supported nugget. 0 when a topic has no nugget of the kind.
--   value = the `variant` column.
-- source: Pradeep et al. (2024) "Initial nugget evaluation results for the TREC 2024 RAG
--   track with the AutoNuggetizer framework" (arXiv 2411.09607); castorini/nuggetizer
--   calculate_nugget_scores.
CREATE OR REPLACE MACRO irw_nuggetizer(campaign := NULL, nuggets := NULL, variant := 'all',
                                       partial := 0.5) AS TABLE
WITH nset AS (
    SELECT q.qrels_id, q.campaign_id FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = nuggets AND q.format = 'nuggets'
), guard AS (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
                THEN error(concat('no campaign ', campaign, ' in the warehouse'))
                WHEN NOT EXISTS (SELECT 1 FROM nset)
                THEN error(concat('no nugget set ', nuggets, ' in campaign ', campaign))
                WHEN variant NOT IN ('strict_vital', 'strict_all', 'vital', 'all')
                THEN error(concat('unknown nuggetizer variant ', variant,
                                  ' (strict_vital, strict_all, vital, all)'))
                ELSE 1 END AS ok
), gold AS (
    SELECT n.topic, n.unit, n.label = 'vital' AS vital FROM nugget n JOIN nset USING (qrels_id)
), answered AS (
    SELECT DISTINCT l.run_id, l.topic FROM text_length l
    JOIN run r ON r.run_id = l.run_id JOIN nset ON nset.campaign_id = r.campaign_id
    WHERE l.topic IN (SELECT topic FROM gold)
    UNION
    SELECT DISTINCT m.run_id, m.topic FROM nugget_match m JOIN nset USING (qrels_id)
), support AS (
    SELECT m.run_id, m.topic, m.unit,
           max(CASE m.support WHEN 'support' THEN 1.0 WHEN 'partial_support' THEN 0.5
                              ELSE 0 END) AS level
    FROM nugget_match m JOIN nset USING (qrels_id)
    GROUP BY m.run_id, m.topic, m.unit
), per_run AS (
    SELECT a.run_id, a.topic,
           count(*) FILTER (WHERE g.vital) AS num_vital, count(*) AS num_all,
           count(*) FILTER (WHERE g.vital AND s.level = 1) AS full_vital,
           count(*) FILTER (WHERE s.level = 1) AS full_all,
           count(*) FILTER (WHERE g.vital AND s.level = 0.5) AS part_vital,
           count(*) FILTER (WHERE s.level = 0.5) AS part_all
    FROM answered a JOIN gold g ON g.topic = a.topic
    LEFT JOIN support s ON s.run_id = a.run_id AND s.topic = a.topic AND s.unit = g.unit
    GROUP BY a.run_id, a.topic
), scored AS (
    SELECT run_id, topic,
           CASE WHEN num_vital > 0 THEN full_vital / num_vital ELSE 0 END AS strict_vital,
           CASE WHEN num_all > 0 THEN full_all / num_all ELSE 0 END AS strict_all,
           CASE WHEN num_vital > 0 THEN (full_vital + partial * part_vital) / num_vital
                ELSE 0 END AS vital,
           CASE WHEN num_all > 0 THEN (full_all + partial * part_all) / num_all
                ELSE 0 END AS "all"
    FROM per_run
)
SELECT r.name AS run, s.topic,
       CASE variant WHEN 'strict_vital' THEN strict_vital WHEN 'strict_all' THEN strict_all
                    WHEN 'vital' THEN vital ELSE "all" END AS value,
       strict_vital, strict_all, vital, "all"
FROM scored s JOIN run r ON r.run_id = s.run_id CROSS JOIN guard
WHERE guard.ok = 1;
