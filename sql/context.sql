-- The evaluation context: the relations every metric macro (sql/metrics/*.sql) reads, and the
-- macros that build them. A metric never names a campaign, a qrels or an option: it reads these
-- relations by name, and whoever calls it decides what they hold:
--   * the metric macros an analyst calls, irw_<measure>(campaign := ..., ...) (generated from
--     this file and the metric headers by irwarehouse.sqlfiles), define each relation as a CTE
--     built by the macro below from the call's parameters;
--   * `irw eval` (irwarehouse.engine.evaluate) materialises the relations its measures need as TEMP
--     tables, once for all of them, with the same macros (and two plans of its own for ranking
--     files: sorted, counting).
-- Every builder is `ev_make_<relation>` below a `-- relation: ev_<relation>` header; its
-- parameters are named as the metric macros' evaluation options:
--   campaign, qrels, run          the campaign, its qrels (default: its only one), one run or all
--   relevance_level               trec_eval -l: a level >= relevance_level is relevant
--   judged_only                   trec_eval -J: drop unjudged documents first (condensed list)
--   max_docs                      trec_eval -M: evaluate the top max_docs documents (NULL: all)
--   sort_order                    'score' (trec_eval: score desc, docno desc), 'rank' (the rank
--                                 column, ndeval's default), 'file' (the file's order, NTCIREVAL)
--   trec_eval_version             9 (9.0.8: scores read as 32-bit floats) or 10 (doubles)
--   complete                      trec_eval -c: every judged topic counts, an absent one empty
--   gains                         NTCIREVAL diversity gain per level, MAP(level -> gain)
-- Sections separated by `-- name:` lines are run by irwarehouse.store.connection in file order.

-- name: shapes
-- Empty TEMP shapes of every context relation: DuckDB checks a macro's table references when
-- the macro is created, so these exist whenever macros are (re)created.
CREATE TEMP TABLE IF NOT EXISTS ev_scope (campaign_id INTEGER, qrels_id INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_runs (run_id INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_options (trec_eval_version INTEGER, complete BOOLEAN,
                                           absent_list_empty BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_judgment (topic VARCHAR, doc VARCHAR, rel INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_sample (topic VARCHAR, doc VARCHAR, stratum VARCHAR,
                                         probability DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_topic (topic VARCHAR, num_rel BIGINT, num_nonrel BIGINT);
CREATE TEMP TABLE IF NOT EXISTS ev_sorted (run_id INTEGER, topic VARCHAR, doc VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS ev_file_marks (run_id INTEGER, topic VARCHAR, doc VARCHAR,
                                              pos BIGINT, k DOUBLE, prev_run INTEGER,
                                              prev_topic VARCHAR, prev_k DOUBLE,
                                              prev_pos BIGINT);
CREATE TEMP TABLE IF NOT EXISTS ev_full_ranked (run_id INTEGER, topic VARCHAR, full_rank BIGINT,
                                               rel INTEGER);
CREATE TEMP TABLE IF NOT EXISTS ev_ranked (run_id INTEGER, topic VARCHAR, rank BIGINT,
                                          rel INTEGER, is_rel BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_relevant (run_id INTEGER, topic VARCHAR, rank BIGINT,
                                            rel INTEGER, rel_so_far BIGINT,
                                            precision_sum DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_counted (
    run_id INTEGER, topic VARCHAR, rank BIGINT, rel INTEGER, is_rel BOOLEAN,
    rel_so_far BIGINT, nonrel_so_far BIGINT, unjudged_so_far BIGINT);
CREATE TEMP TABLE IF NOT EXISTS ev_run_topic (run_id INTEGER, topic VARCHAR, num_ret BIGINT,
                                             in_run BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_lists (run_id INTEGER, topic VARCHAR, num_ret BIGINT,
                                         num_rel BIGINT, num_nonrel BIGINT, in_run BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_gain_ideal (
    gain_levels INTEGER[], gain_values DOUBLE[], topic VARCHAR, k BIGINT, gain DOUBLE,
    idcg DOUBLE, extra_cost DOUBLE, ends_level BOOLEAN, num_ideal BIGINT, ideal_total DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_listed (
    run_id INTEGER, topic VARCHAR, rank BIGINT, doc VARCHAR, rel INTEGER, is_rel BOOLEAN,
    length_words DOUBLE, length_chars DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_div_listed (
    run_id INTEGER, topic VARCHAR, rank BIGINT, doc VARCHAR, rel INTEGER, is_rel BOOLEAN,
    length_words DOUBLE, length_chars DOUBLE);
CREATE TEMP TABLE IF NOT EXISTS ev_div_judgment (topic VARCHAR, intent VARCHAR, doc VARCHAR,
                                                rel INTEGER, gain DOUBLE, is_rel BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_div_ranked (run_id INTEGER, topic VARCHAR, rank BIGINT,
                                              intent VARCHAR, rel INTEGER, gain DOUBLE,
                                              is_rel BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS ev_div_ideal (alpha_key DOUBLE, topic VARCHAR, rank BIGINT,
                                             doc VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS ev_div_intent (topic VARCHAR, intent VARCHAR, probability DOUBLE,
                                              intent_type VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS ev_div_alpha (topic VARCHAR, alpha DOUBLE);

-- name: macros

-- block: ev_require
-- `cond`, or an error with `message` (checks of macro parameters; constant conditions fail
-- when the query is planned, before anything is read).
CREATE OR REPLACE MACRO ev_require(cond, message) AS
CASE WHEN cond THEN true ELSE error(message) END;

-- block: ev_to_fixed / ev_from_fixed
-- Exact sums (README "Bit-reproducible scores"): x as a fixed-point integer, x * 2^80 in a
-- HUGEINT, whose addition is exact, so that ev_from_fixed(sum(ev_to_fixed(x))) is the same bits
-- in any order of addition. Every term of magnitude >= 2^-27 (7.5e-9) is represented exactly,
-- smaller ones to within 2^-81, and the exact sum is rounded to a double once. Used for
--   * every running sum: DuckDB computes a window aggregate over a tree of partial sums whose
--     shape depends on where the partition sits among the others (the run ids, the other runs
--     evaluated, the threads), so `sum(x) OVER w` over doubles can differ between a run and
--     its renamed copy; a running product is exp of the running sum of the logarithms;
--   * the per-list sums of the measures trec_eval does not define (NTCIREVAL, ndeval, TBG,
--     U, ...), about 10 times cheaper than an ordered aggregate. trec_eval's own sums are
--     ordered aggregates, `sum(x ORDER BY rank)`, added in rank order as trec_eval adds them.
-- A term or sum of magnitude 2^47 (1.4e14) or more is a conversion (overflow) error. (No
-- error() call here: DuckDB could then no longer drop an unused sum from a plan.)
CREATE OR REPLACE MACRO ev_to_fixed(x) AS
CAST(x * 1208925819614629174706176.0 AS HUGEINT);

CREATE OR REPLACE MACRO ev_from_fixed(s) AS
CAST(s AS DOUBLE) / 1208925819614629174706176.0;

-- relation: ev_scope
-- The campaign and the qrels evaluated: the qrels named, or the campaign's only one. An error
-- names a campaign or qrels that does not exist, and lists the choices when the campaign has
-- several qrels and none is named.
CREATE OR REPLACE MACRO ev_make_scope(campaign, qrels) AS TABLE
WITH a AS (
    -- each argument read once, where no table is in scope (an analyst's macro passes a scalar
    -- subquery, or a column of the caller's row)
    SELECT campaign AS campaign_name, qrels AS qrels_name
),
c AS (
    SELECT any_value(c.campaign_id) AS campaign_id, count(c.campaign_id) AS n
    FROM a LEFT JOIN campaign c ON c.name = a.campaign_name
),
q AS (
    SELECT any_value(q.qrels_id) AS qrels_id, count(q.qrels_id) AS n,
           string_agg(q.name, ', ' ORDER BY q.name) AS names
    FROM a LEFT JOIN qrels q
      ON q.campaign_id = (SELECT campaign_id FROM c)
     AND (a.qrels_name IS NULL OR q.name = a.qrels_name)
)
SELECT c.campaign_id,
       CASE WHEN a.campaign_name IS NULL THEN error('campaign := ''NAME'' is required')
            WHEN c.n = 0 THEN error('no campaign ''' || a.campaign_name || ''' in the warehouse')
            WHEN q.n = 0 AND a.qrels_name IS NOT NULL
                THEN error('no qrels ''' || a.qrels_name || ''' in campaign '''
                           || a.campaign_name || '''')
            WHEN q.n = 0 THEN error('campaign ''' || a.campaign_name || ''' has no qrels')
            WHEN q.n > 1 THEN error('campaign ''' || a.campaign_name || ''' has several qrels ('
                                    || q.names || '); choose one with qrels := ''NAME''')
            ELSE q.qrels_id END AS qrels_id
FROM a, c, q;

-- relation: ev_runs
-- The runs evaluated: every run of the campaign, or the one named (an error names a run that
-- does not exist, or a campaign without runs).
CREATE OR REPLACE MACRO ev_make_runs(run) AS TABLE
WITH a AS (SELECT run AS run_name),            -- the argument read once (see ev_make_scope)
campaign_runs AS (
    SELECT r.run_id, r.name FROM run r WHERE r.campaign_id = (SELECT campaign_id FROM ev_scope)
),
chosen AS (
    SELECT cr.run_id FROM campaign_runs cr, a WHERE a.run_name IS NULL OR cr.name = a.run_name
)
SELECT run_id FROM chosen
UNION ALL
SELECT CAST(error(CASE WHEN a.run_name IS NULL THEN 'the campaign has no runs'
                       ELSE 'no run ''' || a.run_name || ''' in the campaign' END) AS INTEGER)
FROM a WHERE NOT EXISTS (SELECT 1 FROM chosen);

-- relation: ev_options
-- The options a few measures read besides the ranking: the trec_eval version, -c, and whether
-- a topic that -c adds for a run lacking it counts as an empty list (10.0 with -J or -M0; 9.x
-- and otherwise a one-document list of a non-pool document).
CREATE OR REPLACE MACRO ev_make_options(trec_eval_version, complete, judged_only, max_docs)
AS TABLE
SELECT CAST(trec_eval_version AS INTEGER) AS trec_eval_version,
       CAST(complete AS BOOLEAN) AS complete,
       CAST(trec_eval_version AS INTEGER) >= 10 AND (judged_only OR coalesce(max_docs, 1) = 0)
           AS absent_list_empty;

-- relation: ev_judgment
-- Ad hoc judgments of the qrels: one level per (topic, doc); diversity qrels collapse to the
-- highest level over intents. Qrels without intents (every intent '') hold each (topic, doc)
-- once already, as ingestion refuses a document judged twice, and are read as they are: their
-- grouping cost 18 ms of CPU for the 135,000 Robust 2003 judgments, the copy 8.
CREATE OR REPLACE MACRO ev_make_judgment() AS TABLE
WITH intents AS (
    SELECT EXISTS (SELECT 1 FROM judgment j
                   WHERE j.qrels_id = (SELECT qrels_id FROM ev_scope) AND j.intent <> '')
        AS any_intent
)
SELECT j.topic, j.doc, j.rel
FROM judgment j
WHERE j.qrels_id = (SELECT qrels_id FROM ev_scope)
  AND NOT (SELECT any_intent FROM intents)
UNION ALL
SELECT j.topic, j.doc, max(j.rel) AS rel
FROM judgment j
WHERE j.qrels_id = (SELECT qrels_id FROM ev_scope)
  AND (SELECT any_intent FROM intents)
GROUP BY j.topic, j.doc;

-- relation: ev_sample
-- How the judged documents of sampled qrels were sampled (judgment_sample: `irw ingest qrels
-- --format sampleval` or `prels`): a stratum or an inclusion probability per (topic, doc);
-- empty for other qrels.
CREATE OR REPLACE MACRO ev_make_sample() AS TABLE
SELECT s.topic, s.doc, s.stratum, s.probability
FROM judgment_sample s
WHERE s.qrels_id = (SELECT qrels_id FROM ev_scope);

-- relation: ev_topic
-- Per-topic counts of the qrels: R (level >= relevance_level) and N (judged, 0 <= level <
-- relevance_level). Negative levels are "in the pool but unjudged" and count in neither
-- (trec_eval form_res_rels.c).
CREATE OR REPLACE MACRO ev_make_topic(relevance_level) AS TABLE
SELECT topic,
       count(*) FILTER (WHERE rel >= relevance_level) AS num_rel,
       count(*) FILTER (WHERE rel >= 0 AND rel < relevance_level) AS num_nonrel
FROM ev_judgment
GROUP BY topic;

-- block: ev_float32 / ev_sort_num / ev_sort_doc / ev_sort_tie
-- A score as trec_eval 9.x holds it: `float sim = atof(...)` (trec_format.h), so a score beyond
-- float's range (|score| >= 2^128 - 2^103, about 3.4e38) is +-infinity, as C's conversion gives
-- (DuckDB's CAST raises there; TRY_CAST gives NULL exactly where C gives infinity).
CREATE OR REPLACE MACRO ev_float32(score) AS
coalesce(TRY_CAST(score AS FLOAT), CAST(sign(score) AS FLOAT) * CAST('inf' AS FLOAT));

-- The one definition of a ranking's order, used by every plan that ranks run rows: sort by
-- (ev_sort_num DESC, ev_sort_doc DESC, ev_sort_tie DESC).
--   'score': trec_eval's order, score descending then docno descending (comp_sim_docno);
--            float32_scores reads the score as trec_eval 9.x's `float` (which creates ties)
--   'rank':  the rank column ascending, ties in file order (ndeval's default)
--   'file':  the order of the file (NTCIREVAL)
CREATE OR REPLACE MACRO ev_sort_num(sort_order, float32_scores, score, given_rank, position) AS
CASE sort_order
    WHEN 'score' THEN CASE WHEN float32_scores THEN CAST(ev_float32(score) AS DOUBLE)
                           ELSE score END
    WHEN 'rank' THEN -CAST(given_rank AS DOUBLE)
    ELSE -CAST(position AS DOUBLE) END;

CREATE OR REPLACE MACRO ev_sort_doc(sort_order, doc) AS
CASE WHEN sort_order = 'score' THEN doc ELSE '' END;

CREATE OR REPLACE MACRO ev_sort_tie(sort_order, position) AS
CASE WHEN sort_order = 'rank' THEN -position ELSE 0 END;

-- block: ev_check_ranking
-- The ranking options are valid: sort_order one of 'score', 'rank', 'file'; trec_eval_version
-- 9 or 10; max_docs NULL or >= 0.
CREATE OR REPLACE MACRO ev_check_ranking(sort_order, trec_eval_version, max_docs) AS
ev_require(sort_order IN ('score', 'rank', 'file'),
           'sort_order must be ''score'', ''rank'' or ''file''')
AND ev_require(trec_eval_version IN (9, 10), 'trec_eval_version must be 9 or 10')
AND ev_require(max_docs IS NULL OR max_docs >= 0, 'max_docs must be >= 0');

-- block: ev_stored_order / ev_float32_scores / ev_within
-- ev_stored_order: the options rank as judged_row and relevant_row hold their ranks, trec_eval
-- 9's score order (sql/schema.sql). ev_float32_scores: trec_eval 9.x reads a score as a float
-- (ev_float32), 10.0 as a double. ev_within: a rank within the top max_docs (every rank when
-- max_docs is NULL), one comparison: an option a metric macro resolves when it runs is a scalar
-- subquery, and `max_docs IS NULL OR rank <= max_docs` joins every row with it twice (alone,
-- a read of bench's 974,019 relevant rows took 5.5 ms instead of 6.7).
CREATE OR REPLACE MACRO ev_stored_order(sort_order, trec_eval_version) AS
sort_order = 'score' AND trec_eval_version < 10;

CREATE OR REPLACE MACRO ev_float32_scores(trec_eval_version) AS
trec_eval_version < 10;

CREATE OR REPLACE MACRO ev_within(rank, max_docs) AS
rank <= coalesce(max_docs, 9223372036854775807);

-- block: ev_stored_runs
-- The evaluated runs whose judged documents for the evaluated qrels are stored in judged_row
-- (every run and qrels ingested by irw; sql/schema.sql).
CREATE OR REPLACE MACRO ev_stored_runs() AS TABLE
SELECT p.run_id FROM judged_pair p
WHERE p.qrels_id = (SELECT qrels_id FROM ev_scope)
  AND p.run_id IN (SELECT run_id FROM ev_runs);

-- block: ev_list_order
-- Every retrieved document of the evaluated lists (runs in ev_runs, topics in ev_topic)
-- numbered 1..n in the ranking's order, by a window per list: the lists of every retrieved
-- document (ev_listed), the diversity ranking (ev_div_ranked) and the window plan of ev_ranked.
-- `skip_stored`: leave out the runs whose judged documents judged_row holds (the stored plan
-- ranks those), before the window is computed.
CREATE OR REPLACE MACRO ev_list_order(sort_order, float32_scores, skip_stored) AS TABLE
SELECT r.run_id, r.topic, r.doc,
       row_number() OVER (
           PARTITION BY r.run_id, r.topic
           ORDER BY ev_sort_num(sort_order, float32_scores, r.score, r.rank, r.file_order) DESC,
                    ev_sort_doc(sort_order, r.doc) DESC,
                    ev_sort_tie(sort_order, r.file_order) DESC
       ) AS full_rank
FROM run_row r
WHERE r.run_id IN (SELECT run_id FROM ev_runs
                   WHERE NOT (skip_stored AND run_id IN (SELECT run_id FROM ev_stored_runs())))
  AND r.topic IN (SELECT topic FROM ev_topic);

-- block: ev_relevant_runs
-- The evaluated runs whose relevant documents relevant_row holds for the evaluated qrels, when
-- those rows are what the options rank: -l 1, no -J, trec_eval 9's score order (ingestion
-- numbers them so: sql/schema.sql). Empty under any other option.
CREATE OR REPLACE MACRO ev_relevant_runs(relevance_level, judged_only, sort_order,
                                         trec_eval_version) AS TABLE
SELECT p.run_id FROM relevant_pair p
WHERE p.qrels_id = (SELECT qrels_id FROM ev_scope)
  AND p.run_id IN (SELECT run_id FROM ev_stored_runs())
  AND relevance_level = 1 AND NOT judged_only AND ev_stored_order(sort_order, trec_eval_version);

-- plan: stored (ev_full_ranked)
-- Runs ingested into a warehouse, trec_eval 9's score order: the stored ranks (judged_row).
CREATE OR REPLACE MACRO ev_make_full_ranked_stored(max_docs) AS TABLE
SELECT j.run_id, j.topic, j.score_rank AS full_rank, j.rel
FROM judged_row j
WHERE j.qrels_id = (SELECT qrels_id FROM ev_scope)
  AND j.run_id IN (SELECT run_id FROM ev_stored_runs())
  AND (max_docs IS NULL OR j.score_rank <= max_docs);

-- plan: window (ev_full_ranked)
-- A window per list over run_row; `skip_stored`: leave out the runs the stored plan ranks.
CREATE OR REPLACE MACRO ev_make_full_ranked_window(sort_order, float32_scores, max_docs,
                                                  skip_stored) AS TABLE
SELECT l.run_id, l.topic, l.full_rank, j.rel
FROM ev_list_order(sort_order, float32_scores, skip_stored) l
JOIN ev_judgment j ON j.topic = l.topic AND j.doc = l.doc
WHERE max_docs IS NULL OR l.full_rank <= max_docs;

-- plan: sorted (ev_full_ranked), step 1 (ev_sorted)
-- Densely judged files (irwarehouse.engine.evaluate): every retrieved document of the evaluated lists
-- in ranking order, one list after another. A plain sort written in that order and numbered by
-- its rowid (step 2) is cheaper than a window's row_number() per list (campaign bench, 5M rows:
-- 0.65 s instead of 0.95 s); it needs a materialised table, hence `irw eval` only.
CREATE OR REPLACE MACRO ev_make_sorted(sort_order, float32_scores) AS TABLE
SELECT r.run_id, r.topic, r.doc
FROM run_row r
WHERE r.run_id IN (SELECT run_id FROM ev_runs)
  AND r.topic IN (SELECT topic FROM ev_topic)
ORDER BY r.run_id, r.topic,
         ev_sort_num(sort_order, float32_scores, r.score, r.rank, r.file_order) DESC,
         ev_sort_doc(sort_order, r.doc) DESC,
         ev_sort_tie(sort_order, r.file_order) DESC;

-- plan: sorted (ev_full_ranked), step 2
-- A document's rank is its row's distance from the first row of its list, plus one; only the
-- judged documents are kept.
CREATE OR REPLACE MACRO ev_make_full_ranked_sorted(max_docs) AS TABLE
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
WHERE max_docs IS NULL OR full_rank <= max_docs;

-- plan: counting (ev_full_ranked)
-- Sparsely judged files (few judged documents per topic): the rank of a judged document is 1 +
-- the number of documents of its list that sort before it; no full sort of the run. One join
-- of the judged documents (keyed by an integer id) with their lists counts the documents with a
-- greater sort key and those with an equal one (numbers only, no docno strings in the many
-- pairs); only a judged document that shares its key is then ranked among its equals by docno
-- (score order) or file position (rank order). The judged documents are found first
-- (`matched`, materialised) and numbered afterwards: row_number() OVER () in the same step
-- would run the join with the whole run on one thread (7M-line bench run: 0.12 s instead of
-- 0.23 s).
CREATE OR REPLACE MACRO ev_make_full_ranked_counting(sort_order, float32_scores, max_docs)
AS TABLE
WITH matched AS MATERIALIZED (
    SELECT r.run_id, r.topic, r.doc, j.rel,
           ev_sort_num(sort_order, float32_scores, r.score, r.rank, r.file_order) AS key_num,
           ev_sort_tie(sort_order, r.file_order) AS key_tie
    FROM run_row r JOIN ev_judgment j ON j.topic = r.topic AND j.doc = r.doc
    WHERE r.run_id IN (SELECT run_id FROM ev_runs)
),
judged AS MATERIALIZED (
    SELECT row_number() OVER () AS jid, * FROM matched
),
above AS MATERIALIZED (
    SELECT jd.jid,
           count(*) FILTER (WHERE ev_sort_num(sort_order, float32_scores, r.score, r.rank,
                                              r.file_order) > jd.key_num) AS greater,
           count(*) FILTER (WHERE ev_sort_num(sort_order, float32_scores, r.score, r.rank,
                                              r.file_order) = jd.key_num) AS equal
    FROM judged jd JOIN run_row r ON r.run_id = jd.run_id AND r.topic = jd.topic
    WHERE ev_sort_num(sort_order, float32_scores, r.score, r.rank, r.file_order) >= jd.key_num
    GROUP BY jd.jid
),
tied AS (
    SELECT jd.* FROM judged jd JOIN above a ON a.jid = jd.jid WHERE a.equal > 1
),
above_tie AS (
    SELECT t.jid, count(*) AS n
    FROM tied t JOIN run_row r
      ON r.run_id = t.run_id AND r.topic = t.topic
     AND ev_sort_num(sort_order, float32_scores, r.score, r.rank, r.file_order) = t.key_num
    WHERE CASE WHEN sort_order = 'score' THEN r.doc > t.doc
               ELSE ev_sort_tie(sort_order, r.file_order) > t.key_tie END
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
WHERE max_docs IS NULL OR full_rank <= max_docs;

-- plan: file order, step 1 (ev_file_marks)
-- Files evaluated in one command (irwarehouse.engine.files): run_row is then a view over the
-- staged rows of a batch of files, scanned in the files' order (file_order, each file's lines
-- one after another). Runs are nearly always written in their ranking's order, so a judged
-- document's rank is its position in its list, and only documents that share a sort key
-- with a neighbour (ties, ~3% of bench/bench_eval.py's campaign) are ranked among themselves:
-- no sort of the lists (100-run campaign, 5M rows: 0.55 s CPU less than the sorted plan).
-- One pass compares every row with the row before it in scan order (lag over no ordering:
-- DuckDB's streaming window, which keeps the scan's order) and keeps only the rows where
-- something happens (the marks, materialised: step 2 and the list lengths read them): a list
-- starts, the sort key stays equal (a tie) or rises (the list is out of order), or the
-- position is not the previous one plus one (the scan order is not the file order: then
-- every list is out of order). No staged value is NULL, so only the first row's lags are, and
-- coalesce keeps it: plain comparisons, 15% cheaper here than IS DISTINCT FROM.
CREATE OR REPLACE MACRO ev_make_file_marks(sort_order, float32_scores) AS TABLE
SELECT * FROM (
    SELECT run_id, topic, doc, pos, k,
           lag(run_id) OVER () AS prev_run, lag(topic) OVER () AS prev_topic,
           lag(k) OVER () AS prev_k, lag(pos) OVER () AS prev_pos
    FROM (SELECT run_id, topic, doc, file_order AS pos,
                 ev_sort_num(sort_order, float32_scores, score, rank, file_order) AS k
          FROM run_row))
WHERE coalesce(prev_run <> run_id OR prev_topic <> topic OR prev_k <= k OR prev_pos <> pos - 1,
               true);

-- plan: file order, the list lengths (run_list)
-- Every list's length from the marks, where they give it: when the scan is in file order and
-- every list is contiguous, a list runs from its first row to the next list's (the last to the
-- batch's last row). irwarehouse.engine.evaluate stores them as run_list, where ev_run_topic
-- reads stored lengths, instead of counting every row of the batch again (100 files: 0.1 s
-- CPU). Empty when the marks do not give them (ev_run_topic then counts).
CREATE OR REPLACE MACRO ev_file_list_lengths() AS TABLE
WITH starts AS (
    SELECT run_id, topic, pos FROM ev_file_marks
    WHERE prev_run IS DISTINCT FROM run_id OR prev_topic IS DISTINCT FROM topic
),
usable AS (
    SELECT NOT EXISTS (SELECT 1 FROM ev_file_marks
                       WHERE prev_pos IS NOT NULL AND prev_pos <> pos - 1)
           AND (SELECT count(*) = count(DISTINCT (run_id, topic)) FROM starts) AS ok
)
SELECT run_id, topic,
       lead(pos, 1, (SELECT max(file_order) + 1 FROM run_row)) OVER (ORDER BY pos) - pos AS n
FROM starts
WHERE (SELECT ok FROM usable);

-- plan: file order, step 2 (ev_full_ranked, or ev_ranked: engine.evaluate)
-- From the marks (step 1): a list that is out of order or not contiguous is ranked by a
-- window, as the window plan does; the others by position, a run of equal keys ordered by the
-- ranking's own tie order and each of its documents moved by the difference. `min_rel`: only
-- the judged documents of level >= min_rel (NULL: every judged document), for the measures
-- that read only the relevant documents of a ranking (engine.relevant_rows: then ev_ranked
-- holds those alone, as when it is a view of relevant_row; 100 files: 0.35 s CPU less, the
-- judgments' hash table and every row after the join a third of the size).
CREATE OR REPLACE MACRO ev_make_full_ranked_file(sort_order, float32_scores, max_docs, min_rel)
AS TABLE
WITH judged AS (
    SELECT topic, doc, rel FROM ev_judgment WHERE min_rel IS NULL OR rel >= min_rel
),
scan_in_order AS (
    SELECT count(*) = 0 AS ok FROM ev_file_marks
    WHERE prev_pos IS NOT NULL AND prev_pos <> pos - 1
),
starts AS (
    -- the lists of the evaluated runs: every row ranked below is of one of them (a filter on
    -- the lists, not on the ranked rows: 100 files, 0.05 s CPU)
    SELECT run_id, topic, min(pos) AS first,
           count(*) = 1 AND (SELECT ok FROM scan_in_order) AS contiguous
    FROM ev_file_marks
    WHERE (prev_run IS DISTINCT FROM run_id OR prev_topic IS DISTINCT FROM topic)
      AND run_id IN (SELECT run_id FROM ev_runs)
    GROUP BY run_id, topic
),
disordered AS (
    SELECT run_id, topic FROM starts WHERE NOT contiguous
    UNION
    SELECT run_id, topic FROM ev_file_marks
    WHERE prev_run = run_id AND prev_topic = topic AND prev_k < k
      AND run_id IN (SELECT run_id FROM ev_runs)
),
in_order AS (
    SELECT s.run_id, s.topic, s.first
    FROM starts s
    ANTI JOIN disordered d ON d.run_id = s.run_id AND d.topic = s.topic
),
tied AS (
    SELECT run_id, topic, k, pos, doc FROM ev_file_marks
    WHERE prev_run = run_id AND prev_topic = topic AND prev_k = k
),
tie_first AS (
    -- the first document of each run of equal keys: the row before its first tied row (its
    -- docno looked up by position: as cheap as a lead of the key in the marks' pass, and
    -- cheaper than a lag of every docno)
    SELECT t.run_id, t.topic, t.k, r.file_order AS pos, r.doc
    FROM (SELECT * FROM tied t
          ANTI JOIN tied u ON u.run_id = t.run_id AND u.topic = t.topic AND u.pos = t.pos - 1) t
    JOIN run_row r ON r.file_order = t.pos - 1
),
tie_members AS (
    SELECT run_id, topic, k, pos, doc FROM tied
    UNION ALL
    SELECT run_id, topic, k, pos, doc FROM tie_first
),
shift AS (
    -- within a run of equal keys, the ranking's own tie order; the shift from the position
    SELECT m.pos,
           f.pos - m.pos - 1 + row_number() OVER (
               PARTITION BY m.run_id, m.topic, m.k
               ORDER BY ev_sort_doc(sort_order, m.doc) DESC, ev_sort_tie(sort_order, m.pos) DESC)
           AS moved
    FROM tie_members m
    JOIN tie_first f ON f.run_id = m.run_id AND f.topic = m.topic AND f.k = m.k
),
by_position AS (
    SELECT r.run_id, r.topic, r.file_order - l.first + 1 + coalesce(s.moved, 0) AS full_rank,
           j.rel
    FROM run_row r
    JOIN judged j ON j.topic = r.topic AND j.doc = r.doc
    JOIN in_order l ON l.run_id = r.run_id AND l.topic = r.topic
    LEFT JOIN shift s ON s.pos = r.file_order
),
by_window AS (
    SELECT l.run_id, l.topic, l.full_rank, j.rel
    FROM (SELECT r.run_id, r.topic, r.doc,
                 row_number() OVER (
                     PARTITION BY r.run_id, r.topic
                     ORDER BY ev_sort_num(sort_order, float32_scores, r.score, r.rank,
                                          r.file_order) DESC,
                              ev_sort_doc(sort_order, r.doc) DESC,
                              ev_sort_tie(sort_order, r.file_order) DESC) AS full_rank
          FROM run_row r
          SEMI JOIN disordered d ON d.run_id = r.run_id AND d.topic = r.topic) l
    JOIN judged j ON j.topic = l.topic AND j.doc = l.doc
)
SELECT * FROM (SELECT * FROM by_position UNION ALL SELECT * FROM by_window)
WHERE max_docs IS NULL OR full_rank <= max_docs;

-- block: ev_full_ranked_plans
-- ev_full_ranked's two plans, the options unchecked: the stored ranks when `stored_order`
-- (ev_stored_order), a window per list for the other runs or orders. ev_make_full_ranked checks
-- the options; a metric macro over the stored relevant rows checks them once, in its resolved
-- call (its stored rows take them too), and gives this the runs it ranks (store/macros.py).
CREATE OR REPLACE MACRO ev_full_ranked_plans(sort_order, float32_scores, max_docs, stored_order)
AS TABLE
SELECT * FROM ev_make_full_ranked_stored(max_docs)
WHERE stored_order
UNION ALL
SELECT * FROM ev_make_full_ranked_window(sort_order, float32_scores, max_docs, stored_order);

-- relation: ev_full_ranked
-- The judged documents of every evaluated list with their rank in the list (before -J) and
-- their level, the top max_docs only. trec_eval 9's score order reads the ranks stored at
-- ingestion (judged_row: no docno is read, nothing is sorted); any other order, or a run
-- stored without them, is ranked by a window per list. Constant options prune the other
-- branch when the query is planned.
CREATE OR REPLACE MACRO ev_make_full_ranked(sort_order, trec_eval_version, max_docs) AS TABLE
SELECT * FROM ev_full_ranked_plans(sort_order, ev_float32_scores(trec_eval_version), max_docs,
                                   ev_stored_order(sort_order, trec_eval_version))
WHERE ev_check_ranking(sort_order, trec_eval_version, max_docs);

-- relation: ev_ranked
-- The judged documents of each evaluated list with their rank and level; is_rel = level >=
-- relevance_level. Judged-only (-J) renumbers the judged documents 1..n in the same order
-- (trec_eval keeps the original tie-breaking).
-- Two branches, one of them empty: without -J no window is computed (a metric macro's options
-- are known only when it runs, and a CASE would number every judged row anyway: 0.26 s of
-- each metric macro over bench's 100-run campaign).
CREATE OR REPLACE MACRO ev_make_ranked(relevance_level, judged_only) AS TABLE
SELECT run_id, topic, full_rank AS rank, rel, rel >= relevance_level AS is_rel
FROM ev_full_ranked
WHERE NOT judged_only
UNION ALL
SELECT run_id, topic, rank, rel, rel >= relevance_level AS is_rel
FROM (
    SELECT run_id, topic, rel,
           row_number() OVER (PARTITION BY run_id, topic ORDER BY full_rank) AS rank
    FROM ev_full_ranked
    WHERE judged_only AND rel >= 0
);

-- plan: stored (ev_ranked)
-- The stored plan without -J: ev_ranked straight from the stored ranks (judged_row), with no
-- ev_full_ranked copy in between (100-run campaign bench: one 2.5M-row table less).
CREATE OR REPLACE MACRO ev_make_ranked_stored(relevance_level, max_docs) AS TABLE
SELECT run_id, topic, full_rank AS rank, rel, rel >= relevance_level AS is_rel
FROM ev_make_full_ranked_stored(max_docs);

-- relation: ev_relevant
-- The relevant documents of each evaluated list with C(r) (rel_so_far): the number of relevant
-- documents at ranks <= r, the running count of precision-based measures (AP, interpolated
-- precision). A window over the relevant documents only.
-- A stored run's relevant documents at -l 1 in trec_eval 9's score order without -J are the
-- rows relevant_row keeps for its qrels, numbered at ingestion (sql/schema.sql): those are
-- read, and the window counts only the other runs' (`counted`: the runs whose rows are
-- stored and apply; empty under any other option). precision_sum: AP's running sum stored
-- with those rows (sql/schema.sql), NULL for the rows counted here (ev_precision_sums then
-- adds the terms itself).
CREATE OR REPLACE MACRO ev_make_relevant(relevance_level, judged_only, sort_order,
                                         trec_eval_version, max_docs) AS TABLE
WITH counted AS (
    FROM ev_relevant_runs(relevance_level, judged_only, sort_order, trec_eval_version)
)
SELECT r.run_id, r.topic, r.score_rank AS rank, r.rel, r.rel_so_far, r.precision_sum
FROM relevant_row r
WHERE r.qrels_id = (SELECT qrels_id FROM ev_scope) AND r.run_id IN (SELECT run_id FROM counted)
  AND ev_within(r.score_rank, max_docs)
UNION ALL
SELECT run_id, topic, rank, rel,
       row_number() OVER (PARTITION BY run_id, topic ORDER BY rank) AS rel_so_far,
       CAST(NULL AS DOUBLE) AS precision_sum
FROM ev_ranked
WHERE is_rel AND run_id NOT IN (SELECT run_id FROM counted);

-- relation: ev_counted
-- The relevant documents of each evaluated list (is_rel) with the three running counts of the
-- measures that look at the judged documents above them (bpref, infAP): rel_so_far = C(r),
-- nonrel_so_far = judged non-relevant at ranks <= r, unjudged_so_far = in-pool-unjudged
-- (negative level) at ranks <= r. Those measures read the relevant documents only, so the
-- counts are taken without a window over every judged document (all_trec on one TREC 2003
-- Robust run: 46,000 judged, 3,200 relevant; 0.016 -> 0.010 s CPU, bench/README.md, target 2):
--   * judged_so_far, the number of judged documents at ranks <= r, is the position of the
--     document in its list's judged documents in rank order (one ordered list per list, the
--     positions of the kept ones read off it by list_where);
--   * the kept documents (relevant or unjudged: usually the relevant ones only) are counted by
--     a window over them alone: C(r), unjudged_so_far, and kept_so_far (their own number);
--   * nonrel_so_far = judged_so_far - kept_so_far: the judged documents above that are
--     neither relevant nor unjudged. At a threshold (-l) of 0 or below a negative level can be
--     both relevant and unjudged; each count is still the one its definition gives.
CREATE OR REPLACE MACRO ev_make_counted() AS TABLE
WITH lists AS (
    SELECT run_id, topic,
           list(is_rel OR rel < 0 ORDER BY rank) AS kept,         -- every judged document
           list({'rank': rank, 'rel': rel, 'is_rel': is_rel} ORDER BY rank)
               FILTER (WHERE is_rel OR rel < 0) AS docs           -- the kept ones
    FROM ev_ranked
    GROUP BY run_id, topic
),
kept_docs AS (
    SELECT run_id, topic, unnest(docs) AS d,
           unnest(list_where(range(1, len(kept) + 1), kept)) AS judged_so_far
    FROM lists
),
counted AS (
    SELECT run_id, topic, d.rank AS rank, d.rel AS rel, d.is_rel AS is_rel, judged_so_far,
           sum(CASE WHEN d.is_rel THEN 1 ELSE 0 END) OVER w AS rel_so_far,
           sum(CASE WHEN d.rel < 0 THEN 1 ELSE 0 END) OVER w AS unjudged_so_far,
           row_number() OVER w AS kept_so_far
    FROM kept_docs
    WINDOW w AS (PARTITION BY run_id, topic ORDER BY d.rank ROWS UNBOUNDED PRECEDING)
)
SELECT run_id, topic, rank, rel, is_rel, CAST(rel_so_far AS BIGINT) AS rel_so_far,
       CAST(judged_so_far - kept_so_far AS BIGINT) AS nonrel_so_far,
       CAST(unjudged_so_far AS BIGINT) AS unjudged_so_far
FROM counted
WHERE is_rel;

-- relation: ev_run_topic
-- The evaluated (run, topic) pairs and the length of each evaluated list. Topics of a run that
-- have no judgments are not evaluated; with `complete` (-c) every judged topic is, an absent
-- one as an empty list. With -J a list's length is its number of judged documents.
CREATE OR REPLACE MACRO ev_make_run_topic(judged_only, max_docs, complete) AS TABLE
WITH stored AS (
    SELECT run_id, topic, num_docs AS n FROM run_list WHERE run_id IN (SELECT run_id FROM ev_runs)
),
list_length AS (
    -- the lengths stored at ingestion (run_list), counted for runs it lacks
    SELECT * FROM stored
    UNION ALL
    SELECT run_id, topic, count(*) AS n
    FROM run_row
    WHERE run_id IN (SELECT run_id FROM ev_runs
                     WHERE run_id NOT IN (SELECT DISTINCT run_id FROM stored))
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
    SELECT e.run_id, t.topic FROM ev_runs e CROSS JOIN ev_topic t WHERE complete
),
judged_counts AS (
    -- -J's list lengths, counted only under -J (a count per list in a CASE would be computed
    -- for every list whatever the option: 0.03 s of every stored evaluation of 100 runs)
    SELECT run_id, topic, count(*) AS n FROM ev_ranked WHERE judged_only GROUP BY run_id, topic
)
SELECT p.run_id, p.topic,
       CASE WHEN judged_only THEN coalesce(c.n, 0)
            ELSE least(coalesce(r.n, 0), coalesce(max_docs, coalesce(r.n, 0))) END AS num_ret,
       r.n IS NOT NULL AS in_run
FROM pairs p
LEFT JOIN retrieved r ON r.run_id = p.run_id AND r.topic = p.topic
LEFT JOIN judged_counts c ON c.run_id = p.run_id AND c.topic = p.topic;

-- relation: ev_lists
-- One row per evaluated (run, topic): its list length (ev_run_topic), R and N (ev_topic), and
-- whether the run has the topic; what nearly every metric reads first (ev_base,
-- sql/metrics/_base.sql). Joined once per evaluation instead of once in the plan of every
-- metric (all_trec on one TREC 2003 Robust run: its 33 calls ~0.015 s CPU less;
-- bench/README.md, target 2).
CREATE OR REPLACE MACRO ev_make_lists() AS TABLE
SELECT rt.run_id, rt.topic, rt.num_ret, t.num_rel, t.num_nonrel, rt.in_run
FROM ev_run_topic rt JOIN ev_topic t ON t.topic = rt.topic;

-- block: ev_gain_table
-- trec_eval's gain table per judged topic (G, ndcg_rel, Rndcg: sql/metrics/gain.sql), one row
-- per entry: the level=gain parameters first, then each level 0..max level of the topic's
-- judgments that is not a parameter (gain = level);
-- num_at_level = judged documents at that level (0 for absent or negative levels).
-- walk_order is the position in which trec_eval's ideal walk visits the entry (1 = first).
CREATE OR REPLACE MACRO ev_gain_table(gain_map) AS TABLE
WITH level_counts AS (
    SELECT topic, rel AS level, count(*) AS num_at_level
    FROM ev_judgment WHERE rel >= 0
    GROUP BY topic, rel
),
param_entries AS (                     -- "level=gain" parameters, in the order they were given
    SELECT i AS table_pos, map_keys(gain_map)[i] AS level,
           CAST(map_values(gain_map)[i] AS DOUBLE) AS gain
    FROM range(1, len(map_keys(gain_map)) + 1) AS p(i)
),
entries AS (
    SELECT t.topic, p.table_pos, p.level, p.gain
    FROM ev_topic t CROSS JOIN param_entries p
    UNION ALL
    SELECT topic, len(map_keys(gain_map)) + 1 + level AS table_pos, level,
           CAST(level AS DOUBLE) AS gain
    FROM (SELECT topic, unnest(range(0, max(level) + 1)) AS level FROM level_counts
          GROUP BY topic)
    WHERE gain_map[level] IS NULL
),
by_gain AS (                           -- gains less than 1 apart (after chaining) form a group
    SELECT *, coalesce(gain - lag(gain) OVER w >= 1, false) AS starts_group
    FROM entries
    WINDOW w AS (PARTITION BY topic ORDER BY gain, table_pos)
),
grouped AS (
    SELECT *, sum(CAST(starts_group AS INTEGER)) OVER (PARTITION BY topic ORDER BY gain, table_pos
                                                       ROWS UNBOUNDED PRECEDING) AS gain_group
    FROM by_gain
)
SELECT g.topic, g.level, g.gain, coalesce(c.num_at_level, 0) AS num_at_level,
       row_number() OVER (PARTITION BY g.topic ORDER BY g.gain_group DESC, g.table_pos DESC)
           AS walk_order
FROM grouped g
LEFT JOIN level_counts c ON c.topic = g.topic AND c.level = g.level;

-- relation: ev_gain_ideal
-- trec_eval's ideal ranking of each topic for the gain table `gains` (G, ndcg_rel, Rndcg;
-- sql/metrics/gain.sql reads it through ev_gain_ideal_of), keyed by the table's levels and
-- gains in the order given (the order decides ties: gain.sql). Built once for the three
-- measures, where each rebuilt it (all_trec on one TREC 2003 Robust run: 0.02 s CPU less;
-- bench/README.md, target 2); `irw eval` builds it for every gain table asked for.
-- The ideal ranking of each topic, one row per position k = 1..Rg:
--   gain      = the k-th ideal gain (always > 0),
--   idcg      = sum_{j<=k} gain_j / log2(j + 1),
--   extra_cost = sum_{j<=k} (max(gain_j, 1) - 1)   (G's "ideal cost" above 1 per document),
--   ends_level = the next ideal position has a different gain, or k = Rg (Rndcg's R levels),
--   num_ideal = Rg, ideal_total = sum of all ideal gains (undiscounted).
-- The walk starts only when the last entry of the sorted table has a positive gain, and it
-- stops at the first entry (with documents) whose gain is <= 0.
CREATE OR REPLACE MACRO ev_make_gain_ideal(gains) AS TABLE
WITH gain_table AS (
    SELECT * FROM ev_gain_table(gains)
),
walk_stop AS (                         -- where the ideal walk ends, per topic
    SELECT topic,
           CASE WHEN max(gain) FILTER (WHERE walk_order = 1) > 0
                THEN coalesce(min(walk_order) FILTER (WHERE num_at_level > 0 AND gain <= 0),
                              max(walk_order) + 1)
                ELSE 1 END AS stop_order
    FROM gain_table GROUP BY topic
),
ideal_entries AS (
    SELECT t.topic, t.walk_order, t.gain, t.num_at_level
    FROM gain_table t JOIN walk_stop s ON s.topic = t.topic
    WHERE t.num_at_level > 0 AND t.walk_order < s.stop_order
),
ideal_docs AS (                        -- one row per ideal document, in walk order
    SELECT topic, walk_order, gain, unnest(range(num_at_level)) AS copy
    FROM ideal_entries
),
ranked AS (
    SELECT topic, gain,
           row_number() OVER (PARTITION BY topic ORDER BY walk_order, copy) AS k
    FROM ideal_docs
),
totals AS (                            -- added in ideal order, as trec_eval's loop does
    SELECT topic, count(*) AS num_ideal, sum(gain ORDER BY k) AS ideal_total
    FROM ranked GROUP BY topic
)
SELECT map_keys(gains) AS gain_levels,
       CAST(map_values(gains) AS DOUBLE[]) AS gain_values,
       r.topic, r.k, r.gain,
       ev_from_fixed(sum(ev_to_fixed(r.gain / log2(r.k + 1))) OVER w) AS idcg,
       ev_from_fixed(sum(ev_to_fixed(greatest(r.gain, 1.0) - 1.0)) OVER w) AS extra_cost,
       coalesce(lead(r.gain) OVER (PARTITION BY r.topic ORDER BY r.k) <> r.gain, true)
           AS ends_level,
       t.num_ideal, t.ideal_total
FROM ranked r JOIN totals t ON t.topic = r.topic
WINDOW w AS (PARTITION BY r.topic ORDER BY r.k ROWS UNBOUNDED PRECEDING);

-- relation: ev_listed
-- Every document of each evaluated list, judged or not (ev_ranked holds the judged ones only),
-- for the measures that charge the user for reading any document (sql/metrics/tbg.sql,
-- trailtext.sql). The same order, -M depth and -J renumbering as ev_ranked (ranks agree with
-- it); rel is NULL for a document outside the qrels; is_rel = level >= relevance_level.
-- Lengths come from the `doc` table of the qrels' campaign (irw ingest doclengths), NULL when
-- not given.
CREATE OR REPLACE MACRO ev_make_listed(sort_order, trec_eval_version, judged_only, max_docs,
                                      relevance_level) AS TABLE
WITH listed AS (
    SELECT l.run_id, l.topic, l.doc, j.rel, l.full_rank
    FROM ev_list_order(sort_order, trec_eval_version < 10, false) l
    LEFT JOIN ev_judgment j ON j.topic = l.topic AND j.doc = l.doc
    WHERE ev_check_ranking(sort_order, trec_eval_version, max_docs)
),
kept AS (
    SELECT run_id, topic, doc, rel,
           CASE WHEN judged_only
                THEN row_number() OVER (PARTITION BY run_id, topic ORDER BY full_rank)
                ELSE full_rank END AS rank
    FROM listed
    WHERE (max_docs IS NULL OR full_rank <= max_docs) AND (NOT judged_only OR rel >= 0)
),
lengths AS (
    SELECT d.doc, CAST(d.length_words AS DOUBLE) AS length_words,
           CAST(d.length_chars AS DOUBLE) AS length_chars
    FROM doc d
    WHERE d.campaign_id = (SELECT q.campaign_id FROM qrels q
                           WHERE q.qrels_id = (SELECT qrels_id FROM ev_scope))
)
SELECT k.run_id, k.topic, k.rank, k.doc, k.rel,
       coalesce(k.rel >= relevance_level, false) AS is_rel, n.length_words, n.length_chars
FROM kept k LEFT JOIN lengths n ON n.doc = k.doc;

-- relation: ev_div_listed
-- The diversity measures' ev_listed (sql/metrics/diversity_u.sql): scores read as doubles, as
-- ev_div_ranked reads them, so that its ranks agree with ev_div_ranked's.
CREATE OR REPLACE MACRO ev_make_div_listed(sort_order, judged_only, max_docs, relevance_level)
AS TABLE
SELECT * FROM ev_make_listed(sort_order, 10, judged_only, max_docs, relevance_level);

-- relation: ev_div_judgment
-- Per-intent judgments of the qrels (diversity qrels keep the subtopic in `intent`; an ad hoc
-- qrels is one intent ''), with the gain of the level for NTCIREVAL's measures: `gains` (MAP
-- level -> gain, `irw eval --diversity ... -g`) or the level itself, as DIN-splitqrels' L1G..L9G
-- table (default L1..L9 = 1..9); 0 below L1. is_rel: the level reaches relevance_level (-l;
-- ir_measures' rel=), the binary relevance of ndeval's measures (ndeval itself: level > 0, the
-- default -l 1; pyndeval, which ir_measures calls, binarises at rel=); NTCIREVAL's measures read
-- levels and gains and ignore it.
CREATE OR REPLACE MACRO ev_make_div_judgment(gains, relevance_level) AS TABLE
SELECT j.topic, j.intent, j.doc, j.rel,
       CASE WHEN j.rel >= 1
            THEN coalesce(CAST(gains[j.rel] AS DOUBLE), CAST(j.rel AS DOUBLE))
            ELSE 0.0 END AS gain,
       j.rel >= relevance_level AS is_rel
FROM judgment j
WHERE j.qrels_id = (SELECT qrels_id FROM ev_scope);

-- relation: ev_div_intent
-- Intent probabilities and types of the qrels' campaign (the `intent` table).
CREATE OR REPLACE MACRO ev_make_div_intent() AS TABLE
SELECT i.topic, i.intent, i.probability, i.intent_type
FROM intent i
WHERE i.campaign_id = (SELECT q.campaign_id FROM qrels q
                       WHERE q.qrels_id = (SELECT qrels_id FROM ev_scope));

-- relation: ev_div_alpha
-- Per-topic novelty parameters of the qrels' campaign (topic_alpha: `irw ingest alphas`).
CREATE OR REPLACE MACRO ev_make_div_alpha() AS TABLE
SELECT t.topic, t.alpha
FROM topic_alpha t
WHERE t.campaign_id = (SELECT q.campaign_id FROM qrels q
                       WHERE q.qrels_id = (SELECT qrels_id FROM ev_scope));

-- relation: ev_div_ranked
-- Every retrieved document that has a per-intent judgment, with its rank, one row per intent.
-- Order: 'score' = ndeval -traditional (score desc, docno desc; scores as doubles, as ndeval
-- reads them with %lf), 'rank' = ndeval's default (the rank column), 'file' = NTCIREVAL (file
-- order). max_docs (-M) truncates the list; judged_only (-J) renumbers the documents judged
-- for some intent (level >= 0) 1..n in the same order.
CREATE OR REPLACE MACRO ev_make_div_ranked(sort_order, judged_only, max_docs) AS TABLE
WITH listed AS (
    SELECT * FROM ev_list_order(sort_order, false, false)
    WHERE ev_check_ranking(sort_order, 10, max_docs)
),
judged_docs AS (
    SELECT DISTINCT topic, doc FROM ev_div_judgment WHERE rel >= 0
),
kept AS (
    SELECT l.run_id, l.topic, l.doc,
           CASE WHEN judged_only
                THEN row_number() OVER (PARTITION BY l.run_id, l.topic ORDER BY l.full_rank)
                ELSE l.full_rank END AS rank
    FROM listed l
    WHERE (max_docs IS NULL OR l.full_rank <= max_docs)
      AND (NOT judged_only
           OR EXISTS (SELECT 1 FROM judged_docs jd WHERE jd.topic = l.topic AND jd.doc = l.doc))
)
SELECT k.run_id, k.topic, k.rank, j.intent, j.rel, j.gain, j.is_rel
FROM kept k JOIN ev_div_judgment j ON j.topic = k.topic AND j.doc = k.doc;

-- relation: ev_div_ideal
-- ndeval's greedy ideal list of every topic for novelty discount `alpha` (ndeval.c
-- idealResult; docs/diversity_semantics.md section 1): at each rank, the remaining relevant
-- document with the largest sum, over its relevant subtopics in ascending order, of the
-- subtopic's current gain (1 at first, times 1 - alpha for every earlier pick relevant to it);
-- exact ties go to the larger docno (byte order). Documents relevant to the same subtopics
-- always score the same, so the recursion walks their groups (`signature`s), taking each
-- group's documents by descending docno, instead of every document at every step (TREC 2012
-- Web: 5,559 documents in 2 s, 0.2 s by groups). The gains are multiplied step by step, as
-- ndeval does, so that ties come out as exact as in ndeval.
CREATE OR REPLACE MACRO ev_make_div_ideal(alpha) AS TABLE
WITH RECURSIVE
relevant AS (
    SELECT DISTINCT topic, intent, doc FROM ev_div_judgment WHERE is_rel
),
intent_number AS (
    -- ndeval's subtopic order: numbers ascending (they are its array indices), then names
    SELECT topic, intent,
           row_number() OVER (PARTITION BY topic
                              ORDER BY CASE WHEN regexp_full_match(intent, '[0-9]+')
                                            THEN CAST(intent AS HUGEINT) END NULLS LAST,
                                       intent) AS k,
           count(*) OVER (PARTITION BY topic) AS m
    FROM (SELECT DISTINCT topic, intent FROM relevant)
),
doc_signature AS (
    SELECT r.topic, r.doc, list(i.k ORDER BY i.k) AS ks, any_value(i.m) AS m
    FROM relevant r JOIN intent_number i ON i.topic = r.topic AND i.intent = r.intent
    GROUP BY r.topic, r.doc
),
signature AS MATERIALIZED (
    SELECT topic, ks, count(*) AS size, any_value(m) AS m,
           row_number() OVER (PARTITION BY topic ORDER BY ks) AS s
    FROM doc_signature
    GROUP BY topic, ks
),
signature_doc AS MATERIALIZED (
    SELECT g.topic, g.s, d.doc,
           row_number() OVER (PARTITION BY g.topic, g.s ORDER BY d.doc DESC) AS pos
    FROM signature g JOIN doc_signature d ON d.topic = g.topic AND d.ks = g.ks
),
topic_start AS (
    SELECT topic, sum(size) AS n, count(*) AS signatures, any_value(m) AS m
    FROM signature GROUP BY topic
),
greedy(topic, step, n, taken, gains, doc) AS (
    SELECT topic, 0, n, [0 for x in range(signatures)], [1.0::DOUBLE for x in range(m)],
           NULL::VARCHAR
    FROM topic_start
    UNION ALL
    SELECT topic, step + 1, n,
           list_transform(taken, lambda c, i: CASE WHEN i = s THEN c + 1 ELSE c END),
           list_transform(gains, lambda x, k: CASE WHEN list_contains(ks, k)
                                                  THEN x * (1 - alpha) ELSE x END),
           next_doc
    FROM (
        SELECT g.topic, g.step, g.n, g.taken, g.gains, c.s, c.ks, sd.doc AS next_doc,
               row_number() OVER (
                   PARTITION BY g.topic
                   ORDER BY list_reduce(list_transform(c.ks, lambda k: g.gains[k]),
                                        lambda a, b: a + b) DESC,
                            sd.doc DESC) AS best
        FROM greedy g
        JOIN signature c ON c.topic = g.topic
        JOIN signature_doc sd ON sd.topic = g.topic AND sd.s = c.s
                             AND sd.pos = g.taken[c.s] + 1
        WHERE g.step < g.n
    )
    WHERE best = 1
)
SELECT CAST(alpha AS DOUBLE) AS alpha_key, topic, CAST(step AS BIGINT) AS rank, doc
FROM greedy
WHERE step > 0;

-- block: ev_make_judged_rows
-- The rows of judged_row for some qrels and runs (irwarehouse.store.ingest keeps it): every judged
-- document a run retrieved, with its stored trec_eval 9 rank and its level (the highest over
-- intents, as ev_judgment).
CREATE OR REPLACE MACRO ev_make_judged_rows(qrels_ids, run_ids) AS TABLE
SELECT j.qrels_id, r.run_id, r.topic, r.score_rank, j.rel
FROM run_row r
JOIN (SELECT qrels_id, topic, doc, max(rel) AS rel FROM judgment
      WHERE list_contains(qrels_ids, qrels_id)
      GROUP BY qrels_id, topic, doc) j
  ON j.topic = r.topic AND j.doc = r.doc
WHERE list_contains(run_ids, r.run_id);

-- block: ev_make_relevant_rows
-- The rows of relevant_row for some qrels and runs (irwarehouse.store.ingest keeps it): the
-- judged_row rows of level >= 1, each with rel_so_far = the number of them at ranks <= its own
-- in its list, as ev_relevant numbers them at relevance_level 1 (ranks are unique in a list),
-- and precision_sum = AP's running sum there, sum of C(r)/r over those rows in rank order:
-- one fold per list over its terms in rank order, each sum the previous one plus a term, so
-- the additions are the ordered aggregate's, `sum(rel_so_far / rank ORDER BY rank)` of
-- sql/metrics/ap.sql, one by one (a windowed sum would add partial sums in a tree instead;
-- the fold copies its list at every step: 0.34 s per million relevant rows).
CREATE OR REPLACE MACRO ev_make_relevant_rows(qrels_ids, run_ids) AS TABLE
WITH lists AS (
    SELECT qrels_id, run_id, topic,
           list(score_rank ORDER BY score_rank) AS ranks, list(rel ORDER BY score_rank) AS rels
    FROM judged_row
    WHERE list_contains(qrels_ids, qrels_id) AND list_contains(run_ids, run_id) AND rel >= 1
    GROUP BY qrels_id, run_id, topic
)
SELECT qrels_id, run_id, topic, unnest(ranks) AS score_rank, unnest(rels) AS rel,
       unnest(range(1, len(ranks) + 1)) AS rel_so_far,
       unnest(list_reduce(list_transform(ranks, lambda r, c: c / r),
                          lambda sums, x: list_append(sums, sums[-1] + x),
                          [0.0::DOUBLE])[2:]) AS precision_sum
FROM lists;

-- name: summary
-- The `all` row of every measure of an `irw eval` (irwarehouse.engine.evaluate): irw_summarise
-- (sql/schema.sql) of the per-topic values in topic order, by the measure's summary kind. Run
-- for the $measures of one group of options and the runs of one context, while that context
-- is built (-c counts the relevant documents of that context).
INSERT INTO ev_summary
SELECT s.run_id, s.measure,
       irw_summarise(any_value(m.summary), list(s.value ORDER BY s.topic),
                     CASE WHEN $complete
                          THEN (SELECT count(*) FROM ev_judgment WHERE rel > 0) END) AS value
FROM ev_scores s JOIN ev_measures m ON m.measure = s.measure
WHERE m.summary <> 'none' AND list_contains($measures, s.measure)
  AND s.run_id IN (SELECT run_id FROM ev_runs)  -- the runs of this context (engine.evaluate)
GROUP BY s.run_id, s.measure;
