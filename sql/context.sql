-- The evaluation context: the relations every metric macro reads (sql/metrics/*.sql).
-- Built once per evaluation by irwarehouse.evaluate from bound parameters:
--   $qrels_id, $threshold (trec_eval -l), $judged_only (-J), $depth (-M; NULL = all),
--   $order ('score' | 'rank' | 'file'), $version (trec_eval 9 or 10 semantics), $float_scores (trec_eval 9.x parses scores as
--   32-bit floats, which creates ties; 10.0 keeps doubles), $complete (-c).
-- Sections are separated by `-- name:` lines and run in order.

-- name: create_empty
-- Empty shapes so that the metric macros can be created before any evaluation.
CREATE TEMP TABLE IF NOT EXISTS ev_runs (run_id INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_options (trec_eval_version INTEGER, complete BOOLEAN,
                                           absent_list_empty BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_judgment (topic VARCHAR, doc VARCHAR, rel INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_topic (topic VARCHAR, num_rel BIGINT, num_nonrel BIGINT);
CREATE TEMP TABLE IF NOT EXISTS ev_run_topic (run_id INTEGER, topic VARCHAR, num_ret BIGINT,
                                             in_run BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_ranked (
    run_id INTEGER, topic VARCHAR, rank BIGINT, rel INTEGER, is_rel BOOLEAN,
    rel_so_far BIGINT, nonrel_so_far BIGINT, unjudged_so_far BIGINT);
CREATE TEMP TABLE IF NOT EXISTS ev_listed (
    run_id INTEGER, topic VARCHAR, rank BIGINT, doc VARCHAR, rel INTEGER, is_rel BOOLEAN,
    length_words DOUBLE, length_chars DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_div_listed (
    run_id INTEGER, topic VARCHAR, rank BIGINT, doc VARCHAR, rel INTEGER, is_rel BOOLEAN,
    length_words DOUBLE, length_chars DOUBLE);

-- name: options
-- absent_list_empty: with -c, trec_eval 10.0 evaluates a topic the run lacks on a one-document
-- list of a non-pool document; -J or -M0 empty that list (9.x does not evaluate such topics).
CREATE OR REPLACE TEMP TABLE ev_options AS
SELECT CAST($version AS INTEGER) AS trec_eval_version, CAST($complete AS BOOLEAN) AS complete,
       CAST($version AS INTEGER) >= 10 AND ($judged_only OR coalesce($depth, 1) = 0)
           AS absent_list_empty;

-- name: judgment
-- Ad hoc judgments of one qrels: one level per (topic, doc); diversity qrels collapse to the
-- highest level over intents.
CREATE OR REPLACE TEMP TABLE ev_judgment AS
SELECT topic, doc, max(rel) AS rel
FROM judgment
WHERE qrels_id = $qrels_id
GROUP BY topic, doc;

-- name: topic
-- Per-topic counts of the qrels: R (level >= threshold) and N (judged, 0 <= level < threshold).
-- Negative levels are "in the pool but unjudged" and count in neither (trec_eval form_res_rels.c).
CREATE OR REPLACE TEMP TABLE ev_topic AS
SELECT topic,
       count(*) FILTER (WHERE rel >= $threshold) AS num_rel,
       count(*) FILTER (WHERE rel >= 0 AND rel < $threshold) AS num_nonrel
FROM ev_judgment
GROUP BY topic;

-- name: sorted_window
-- Plan for densely judged runs, step 1: every retrieved document of the evaluated lists in
-- ranking order, one list after another. Order: trec_eval's (score desc, docno desc), the rank
-- column, or the file order (ev_sort_* in sql/metrics/_base.sql). A plain sort written in that
-- order is numbered by its rowid below, which is cheaper than a window's row_number() per list
-- (campaign bench, 5M rows: 0.65 s instead of 0.95 s).
CREATE OR REPLACE TEMP TABLE ev_sorted AS
SELECT r.run_id, r.topic, r.doc
FROM run_row r
WHERE r.run_id IN (SELECT run_id FROM ev_runs)
  AND r.topic IN (SELECT topic FROM ev_topic)
ORDER BY r.run_id, r.topic,
         ev_sort_num($order, $float_scores, r.score, r.rank, r.file_order) DESC,
         ev_sort_doc($order, r.doc) DESC,
         ev_sort_tie($order, r.file_order) DESC;

-- name: ranked_window
-- Step 2: a document's rank is its row's distance from the first row of its list, plus one;
-- only the judged documents are kept.
CREATE OR REPLACE TEMP TABLE ev_ranked AS
WITH list_start AS (
    SELECT run_id, topic, min(rowid) AS first_row
    FROM ev_sorted
    GROUP BY run_id, topic
),
judged AS (
    SELECT s.run_id, s.topic, s.rowid - ls.first_row + 1 AS full_rank, j.rel
    FROM ev_sorted s
    JOIN list_start ls ON ls.run_id = s.run_id AND ls.topic = s.topic
    JOIN ev_judgment j ON j.topic = s.topic AND j.doc = s.doc
)
SELECT * FROM judged
WHERE $depth IS NULL OR full_rank <= $depth;

-- name: ranked_stored
-- Plan for runs ingested into a warehouse, in trec_eval 9's score order: the rank stored at
-- ingestion (run_row.score_rank); only the judged documents are read, nothing is sorted.
CREATE OR REPLACE TEMP TABLE ev_ranked AS
SELECT r.run_id, r.topic, r.score_rank AS full_rank, j.rel
FROM run_row r JOIN ev_judgment j ON j.topic = r.topic AND j.doc = r.doc
WHERE r.run_id IN (SELECT run_id FROM ev_runs)
  AND ($depth IS NULL OR r.score_rank <= $depth);

-- name: ranked_counting
-- Plan for sparsely judged runs (few judged documents per topic): the rank of a judged document
-- is 1 + the number of documents of its list that sort before it; no full sort of the run.
-- One join of the judged documents (keyed by an integer id) with their lists counts the
-- documents with a greater sort key and those with an equal one (numbers only, no docno
-- strings in the many pairs); only a judged document that shares its key is then ranked among
-- its equals by docno (score order) or file position (rank order).
-- The judged documents are found first (`matched`, materialised) and numbered afterwards:
-- row_number() OVER () in the same step would run the join with the whole run on one thread
-- (7M-line bench run: 0.12 s instead of 0.23 s).
CREATE OR REPLACE TEMP TABLE ev_ranked AS
WITH matched AS MATERIALIZED (
    SELECT r.run_id, r.topic, r.doc, j.rel,
           ev_sort_num($order, $float_scores, r.score, r.rank, r.file_order) AS key_num,
           ev_sort_tie($order, r.file_order) AS key_tie
    FROM run_row r JOIN ev_judgment j ON j.topic = r.topic AND j.doc = r.doc
    WHERE r.run_id IN (SELECT run_id FROM ev_runs)
),
judged AS MATERIALIZED (
    SELECT row_number() OVER () AS jid, * FROM matched
),
above AS MATERIALIZED (
    SELECT jd.jid,
           count(*) FILTER (WHERE ev_sort_num($order, $float_scores, r.score, r.rank,
                                              r.file_order) > jd.key_num) AS greater,
           count(*) FILTER (WHERE ev_sort_num($order, $float_scores, r.score, r.rank,
                                              r.file_order) = jd.key_num) AS equal
    FROM judged jd JOIN run_row r ON r.run_id = jd.run_id AND r.topic = jd.topic
    WHERE ev_sort_num($order, $float_scores, r.score, r.rank, r.file_order) >= jd.key_num
    GROUP BY jd.jid
),
tied AS (
    SELECT jd.* FROM judged jd JOIN above a ON a.jid = jd.jid WHERE a.equal > 1
),
above_tie AS (
    SELECT t.jid, count(*) AS n
    FROM tied t JOIN run_row r
      ON r.run_id = t.run_id AND r.topic = t.topic
     AND ev_sort_num($order, $float_scores, r.score, r.rank, r.file_order) = t.key_num
    WHERE CASE WHEN $order = 'score' THEN r.doc > t.doc
               ELSE ev_sort_tie($order, r.file_order) > t.key_tie END
    GROUP BY t.jid
),
counted AS (
    SELECT jd.run_id, jd.topic, jd.rel,
           1 + coalesce(a.greater, 0) + coalesce(t.n, 0) AS full_rank
    FROM judged jd
    LEFT JOIN above a ON a.jid = jd.jid
    LEFT JOIN above_tie t ON t.jid = jd.jid
)
SELECT run_id, topic, full_rank, rel
FROM counted
WHERE $depth IS NULL OR full_rank <= $depth;

-- name: finish_ranked
-- Judged-only (-J) renumbers the judged documents 1..n in the same order (trec_eval keeps the
-- original tie-breaking); then the running counts every metric uses:
--   rel_so_far = C(r), nonrel_so_far = judged non-relevant at ranks <= r,
--   unjudged_so_far = in-pool-unjudged (negative level) at ranks <= r.
-- The three counts are one running sum of relevant * 2^64 + non-relevant * 2^32 + unjudged (a
-- HUGEINT; each count stays below 2^32) split afterwards: every running sum is a pass of DuckDB's
-- window operator, and one sum instead of three halves this step (campaign bench, 2.5M judged
-- rows: 0.38 s instead of 0.61 s).
CREATE OR REPLACE TEMP TABLE ev_ranked AS
WITH kept AS (
    SELECT run_id, topic, rel,
           CASE WHEN $judged_only
                THEN row_number() OVER (PARTITION BY run_id, topic ORDER BY full_rank)
                ELSE full_rank END AS rank
    FROM ev_ranked
    WHERE NOT $judged_only OR rel >= 0
),
counted AS (
    SELECT run_id, topic, rank, rel,
           sum((CAST(CASE WHEN rel >= $threshold THEN 1 ELSE 0 END AS HUGEINT) << 64)
               + (CAST(CASE WHEN rel >= 0 AND rel < $threshold THEN 1 ELSE 0 END AS HUGEINT) << 32)
               + CAST(CASE WHEN rel < 0 THEN 1 ELSE 0 END AS HUGEINT))
           OVER (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING) AS so_far
    FROM kept
)
SELECT run_id, topic, rank, rel, rel >= $threshold AS is_rel,
       CAST(so_far >> 64 AS BIGINT) AS rel_so_far,
       CAST((so_far >> 32) & 4294967295 AS BIGINT) AS nonrel_so_far,
       CAST(so_far & 4294967295 AS BIGINT) AS unjudged_so_far
FROM counted;

-- name: run_topic
-- The evaluated (run, topic) pairs and the length of each evaluated list. Topics of a run that
-- have no judgments are not evaluated; with $complete (-c) every judged topic is, an absent one
-- as an empty list.
CREATE OR REPLACE TEMP TABLE ev_run_topic AS
WITH list_length AS (
    SELECT run_id, topic, count(*) AS n
    FROM run_row
    WHERE run_id IN (SELECT run_id FROM ev_runs)
    GROUP BY run_id, topic
),
retrieved AS (
    -- judged topics only, filtered after counting: one lookup per list instead of one per row
    -- (7M-line bench run: 0.07 s instead of 0.13 s)
    SELECT * FROM list_length WHERE topic IN (SELECT topic FROM ev_topic)
),
pairs AS (
    SELECT run_id, topic FROM retrieved
    UNION
    SELECT e.run_id, t.topic FROM ev_runs e CROSS JOIN ev_topic t WHERE $complete
),
judged_kept AS (
    SELECT run_id, topic, count(*) AS n FROM ev_ranked GROUP BY run_id, topic
)
SELECT p.run_id, p.topic,
       CASE WHEN $judged_only THEN coalesce(jk.n, 0)
            ELSE least(coalesce(r.n, 0), coalesce($depth, coalesce(r.n, 0))) END AS num_ret,
       r.n IS NOT NULL AS in_run
FROM pairs p
LEFT JOIN retrieved r ON r.run_id = p.run_id AND r.topic = p.topic
LEFT JOIN judged_kept jk ON jk.run_id = p.run_id AND jk.topic = p.topic;

-- name: listed
-- Every document of each evaluated list, judged or not (ev_ranked holds the judged ones only),
-- for the metrics that charge the user for reading any document (sql/metrics/tbg.sql,
-- trailtext.sql); built only when such a metric is requested (measure header `needs: listed`).
-- The same order, -M depth and -J renumbering as ev_ranked (ranks agree with it); rel is NULL
-- for a document outside the qrels; is_rel = level >= $threshold (trec_eval -l). Lengths come
-- from the `doc` table of the qrels' campaign (irw ingest doclengths), NULL when not given.
-- $float_scores is the ranking's float32 reading of scores: the caller passes false for the
-- diversity list (ev_div_listed, as div_ranked reads scores as doubles).
CREATE OR REPLACE TEMP TABLE ev_listed AS
WITH listed AS (
    SELECT l.run_id, l.topic, l.doc, j.rel, l.full_rank
    FROM ev_list_order($order, $float_scores) l
    LEFT JOIN ev_judgment j ON j.topic = l.topic AND j.doc = l.doc
),
kept AS (
    SELECT run_id, topic, doc, rel,
           CASE WHEN $judged_only
                THEN row_number() OVER (PARTITION BY run_id, topic ORDER BY full_rank)
                ELSE full_rank END AS rank
    FROM listed
    WHERE ($depth IS NULL OR full_rank <= $depth) AND (NOT $judged_only OR rel >= 0)
),
lengths AS (
    SELECT d.doc, CAST(d.length_words AS DOUBLE) AS length_words,
           CAST(d.length_chars AS DOUBLE) AS length_chars
    FROM doc d JOIN qrels q ON q.campaign_id = d.campaign_id
    WHERE q.qrels_id = $qrels_id
)
SELECT k.run_id, k.topic, k.rank, k.doc, k.rel, coalesce(k.rel >= $threshold, false) AS is_rel,
       n.length_words, n.length_chars
FROM kept k LEFT JOIN lengths n ON n.doc = k.doc;

-- name: div_listed
-- The diversity measures' copy of ev_listed (sql/metrics/diversity_u.sql), made right after
-- `listed` ran with $float_scores = false; ranks agree with ev_div_ranked's.
CREATE OR REPLACE TEMP TABLE ev_div_listed AS SELECT * FROM ev_listed;

-- name: summary
-- The `all` row of every measure: the arithmetic mean over evaluated topics, a sum for counts,
-- or the geometric mean (values already floored at 1e-5 by the gm_ macros).
-- Like trec_eval (te_acc_meas_s, calc_avg), the per-topic values are added one by one in topic
-- byte order and the sum is divided by the number of topics; avg()/sum() add in an unspecified
-- (parallel) order, which changes the last bit and then the printed 4th decimal
-- (TREC 2003 Robust uic0301 P_200: 11.105/100 prints 0.1111, not 0.1110).
CREATE OR REPLACE TEMP TABLE ev_summary AS
SELECT s.run_id, s.measure,
       CASE any_value(m.summary)
           WHEN 'sum' THEN list_reduce(list(s.value ORDER BY s.topic), lambda a, b: a + b)
           -- num_rel: with -c, trec_eval's te_calc_avg_num_rel replaces the sum by the number
           -- of qrels lines with rel > 0 over every topic, whatever -l
           WHEN 'num_rel' THEN
               CASE WHEN (SELECT bool_or(complete) FROM ev_options)
                    THEN (SELECT count(*) FROM ev_judgment WHERE rel > 0)
                    ELSE list_reduce(list(s.value ORDER BY s.topic), lambda a, b: a + b) END
           WHEN 'gmean' THEN exp(list_reduce(list(ln(s.value) ORDER BY s.topic),
                                             lambda a, b: a + b) / count(*))
           ELSE list_reduce(list(s.value ORDER BY s.topic), lambda a, b: a + b) / count(*)
       END AS value
FROM ev_scores s JOIN ev_measures m ON m.measure = s.measure
WHERE m.summary <> 'none'
GROUP BY s.run_id, s.measure;

-- name: create_empty_div
-- Empty shapes of the diversity context (sql/metrics/diversity_*.sql), built only when a
-- diversity measure is requested (irwarehouse.diversity.prepare).
CREATE TEMP TABLE IF NOT EXISTS ev_div_judgment (topic VARCHAR, intent VARCHAR, doc VARCHAR,
                                                rel INTEGER, gain DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_div_ranked (run_id INTEGER, topic VARCHAR, rank BIGINT,
                                              intent VARCHAR, rel INTEGER, gain DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_div_ideal (alpha_key DOUBLE, topic VARCHAR, rank BIGINT,
                                             doc VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS ev_div_intent (topic VARCHAR, intent VARCHAR, probability DOUBLE,
                                              intent_type VARCHAR);

-- name: div_judgment
-- Per-intent judgments of one qrels (diversity qrels keep the subtopic in `intent`; an ad hoc
-- qrels is one intent ''), with the gain of the level for NTCIREVAL's measures: $div_gains
-- (MAP level -> gain, `irw eval --diversity ... -g`) or the level itself, as DIN-splitqrels'
-- L1G..L9G table (default L1..L9 = 1..9); 0 below L1.
CREATE OR REPLACE TEMP TABLE ev_div_judgment AS
SELECT topic, intent, doc, rel,
       CASE WHEN rel >= 1
            THEN coalesce(CAST($div_gains AS MAP(INTEGER, DOUBLE))[rel], CAST(rel AS DOUBLE))
            ELSE 0.0 END AS gain
FROM judgment
WHERE qrels_id = $qrels_id;

-- name: div_intent
-- Intent probabilities and types of the qrels' campaign (the `intent` table).
CREATE OR REPLACE TEMP TABLE ev_div_intent AS
SELECT i.topic, i.intent, i.probability, i.intent_type
FROM intent i JOIN qrels q ON q.campaign_id = i.campaign_id
WHERE q.qrels_id = $qrels_id;

-- name: div_ranked
-- Every retrieved document that has a per-intent judgment, with its rank, one row per intent.
-- Order: 'score' = ndeval -traditional (score desc, docno desc; scores as doubles, as ndeval
-- reads them with %lf), 'rank' = ndeval's default (the rank column), 'file' = NTCIREVAL (file
-- order). $depth (-M) truncates the list; $judged_only (-J) renumbers the documents judged for
-- some intent (level >= 0) 1..n in the same order.
CREATE OR REPLACE TEMP TABLE ev_div_ranked AS
WITH listed AS (
    -- ndeval reads scores as doubles (%lf): no float32 ties here
    SELECT * FROM ev_list_order($order, false)
),
judged_docs AS (
    SELECT DISTINCT topic, doc FROM ev_div_judgment WHERE rel >= 0
),
kept AS (
    SELECT l.run_id, l.topic, l.doc,
           CASE WHEN $judged_only
                THEN row_number() OVER (PARTITION BY l.run_id, l.topic ORDER BY l.full_rank)
                ELSE l.full_rank END AS rank
    FROM listed l
    WHERE ($depth IS NULL OR l.full_rank <= $depth)
      AND (NOT $judged_only
           OR EXISTS (SELECT 1 FROM judged_docs jd WHERE jd.topic = l.topic AND jd.doc = l.doc))
)
SELECT k.run_id, k.topic, k.rank, j.intent, j.rel, j.gain
FROM kept k JOIN ev_div_judgment j ON j.topic = k.topic AND j.doc = k.doc;
