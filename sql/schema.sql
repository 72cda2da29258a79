-- irwarehouse schema. Applied by `irw init`, and on a read-write connect when this file differs
-- from the one last applied (irw_meta.schema_sha256); idempotent.
-- Identifiers are the strings of the source files; integer ids are surrogate keys for joins.

-- Facts about the warehouse itself: schema_sha256 = the sha256 of the schema.sql last applied,
-- so that opening an up-to-date warehouse does not re-create every view and macro (0.03 s of
-- each command, and a catalog write).
CREATE TABLE IF NOT EXISTS irw_meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR
);

CREATE SEQUENCE IF NOT EXISTS campaign_id_seq START 1;
CREATE SEQUENCE IF NOT EXISTS qrels_id_seq START 1;
CREATE SEQUENCE IF NOT EXISTS run_id_seq START 1;

CREATE TABLE IF NOT EXISTS campaign (
    campaign_id  INTEGER PRIMARY KEY DEFAULT nextval('campaign_id_seq'),
    name         VARCHAR NOT NULL UNIQUE,
    venue        VARCHAR,
    year         INTEGER,
    description  VARCHAR,
    created_at   TIMESTAMP DEFAULT current_timestamp
);

-- A campaign's evaluation profile (`irw campaign set C --gains 1:2 --order file -c -M 1000
-- --qrels official`): the qrels and evaluation options `irw eval -C`, `report`, `compare` and
-- `meta` use on the campaign unless their command line says otherwise. NULL = not set (the
-- default applies). gains and cutoffs as written on the command line; rank_order = --order.
CREATE TABLE IF NOT EXISTS campaign_profile (
    campaign_id  INTEGER PRIMARY KEY,
    qrels_id     INTEGER,
    gains        VARCHAR,
    rank_order   VARCHAR,
    complete     BOOLEAN,
    depth        INTEGER,
    judged_only  BOOLEAN,
    level        INTEGER,
    trec_eval_version INTEGER,
    cutoffs      VARCHAR,
    updated_at   TIMESTAMP DEFAULT current_timestamp
);
-- The gains of `gains` as a table (level -> gain; {} = gain is the level), which the metric
-- macros read as the default of their gains (a profile made before it had one gains it on the
-- next read-write open).
ALTER TABLE campaign_profile ADD COLUMN IF NOT EXISTS gain_map MAP(INTEGER, DOUBLE);

CREATE TABLE IF NOT EXISTS topic (
    campaign_id  INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    title        VARCHAR,
    description  VARCHAR,
    topic_type   VARCHAR,           -- e.g. ambiguous / faceted (diversity tracks)
    PRIMARY KEY (campaign_id, topic)
);
-- Where a topic statement came from: the topic file (its resolved path), or `irds:ID` for the
-- queries of an ir_datasets dataset, with the software's version in source_version
-- (`ir_datasets 0.6.3`); NULL for topics stored before, or known only from qrels.
ALTER TABLE topic ADD COLUMN IF NOT EXISTS source_path VARCHAR;
ALTER TABLE topic ADD COLUMN IF NOT EXISTS source_version VARCHAR;

-- A topic's own novelty parameter alpha of alpha-nDCG-Pr (irw ingest alphas; Leelanupab,
-- Zuccon & Jose, ICTIR 2011); a topic without one takes the measure's alpha.
CREATE TABLE IF NOT EXISTS topic_alpha (
    campaign_id  INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    alpha        DOUBLE NOT NULL,
    PRIMARY KEY (campaign_id, topic)
);

CREATE TABLE IF NOT EXISTS intent (
    campaign_id  INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    intent       VARCHAR NOT NULL,
    probability  DOUBLE,            -- Pr(i|q); NULL = uniform
    intent_type  VARCHAR,           -- informational / navigational
    PRIMARY KEY (campaign_id, topic, intent)
);

-- A named set of judgments of a campaign (official binary, graded re-judgments, ...).
CREATE TABLE IF NOT EXISTS qrels (
    qrels_id     INTEGER PRIMARY KEY DEFAULT nextval('qrels_id_seq'),
    campaign_id  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,
    format       VARCHAR,
    source_path  VARCHAR,
    sha256       VARCHAR,
    num_rows     BIGINT,
    ingested_at  TIMESTAMP DEFAULT current_timestamp,
    UNIQUE (campaign_id, name)
);
-- The version of the software judgments came from when they came from no file:
-- `ir_datasets 0.6.3` for `irw ingest qrels irds:ID` (source_path `irds:ID`, sha256 the digest of
-- the judgments as ir_datasets yields them: irwarehouse/formats/irds.py).
ALTER TABLE qrels ADD COLUMN IF NOT EXISTS source_version VARCHAR;

-- One judgment: the graded level of a document for a topic (intent '' for ad hoc qrels).
-- Negative levels mean "in the pool but not judged" (trec_eval RELVALUE_UNJUDGED).
CREATE TABLE IF NOT EXISTS judgment (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    intent       VARCHAR NOT NULL DEFAULT '',
    doc          VARCHAR NOT NULL,
    rel          INTEGER NOT NULL
);

-- How a judged document of sampled qrels was sampled (irw ingest qrels --format sampleval or
-- prels; irwarehouse/formats/sampled.py): the stratum it was drawn from (sample_eval.pl's
-- qrels) or its inclusion probability (statAP_MQ_eval's prels), read by xinfAP, infNDCG and
-- statAP (sql/metrics/sampled.sql).
CREATE TABLE IF NOT EXISTS judgment_sample (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    stratum      VARCHAR,
    probability  DOUBLE
);

CREATE TABLE IF NOT EXISTS doc (
    campaign_id  INTEGER NOT NULL,
    doc          VARCHAR NOT NULL,
    length_words BIGINT,
    length_chars BIGINT,
    PRIMARY KEY (campaign_id, doc)
);

CREATE TABLE IF NOT EXISTS run (
    run_id       INTEGER PRIMARY KEY DEFAULT nextval('run_id_seq'),
    campaign_id  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,  -- the run tag (6th column of a TREC run) unless given
    team         VARCHAR,
    source_path  VARCHAR,
    sha256       VARCHAR,
    num_rows     BIGINT,
    ingested_at  TIMESTAMP DEFAULT current_timestamp,
    UNIQUE (campaign_id, name)
);
-- The run's ir_metadata (Breuer et al., SIGIR 2022; ir-metadata.org): the YAML document as given
-- (`irw ingest run --metadata FILE`, or the `# ir_metadata.start` ... `# ir_metadata.end` block
-- at the head of the run file without its `# ` prefixes; irwarehouse/formats/ir_metadata.py);
-- NULL when the run has none.
ALTER TABLE run ADD COLUMN IF NOT EXISTS ir_metadata VARCHAR;

-- Ranked rows of a run as submitted: the rank column and the position in the file are kept so
-- that every ordering (trec_eval's score order, the rank column, NTCIREVAL's file order) can be used.
CREATE TABLE IF NOT EXISTS run_row (
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    score        DOUBLE NOT NULL,
    rank         BIGINT,
    file_order   BIGINT NOT NULL
);
-- The row's position in trec_eval 9.x's ranking of its topic (score read as float32, desc; docno
-- desc), computed when a run is ingested into a warehouse so that re-evaluations need no sort;
-- NULL where not computed (runs evaluated straight from files, older warehouses).
ALTER TABLE run_row ADD COLUMN IF NOT EXISTS score_rank BIGINT;

-- The judged documents of every stored run for every qrels of its campaign, with the run's rank
-- in trec_eval 9's order (run_row.score_rank) and the level (the highest over intents): the
-- join of run_row and judgment every evaluation starts from, made once when a run or a qrels is
-- ingested, so that re-evaluations and the metric macros read no docno and sort nothing
-- (sql/context.sql, ev_make_full_ranked). judged_pair lists the (qrels, run) pairs whose rows
-- are here; a pair missing from it (rows written by hand) is ranked from run_row instead.
CREATE TABLE IF NOT EXISTS judged_row (
    qrels_id     INTEGER NOT NULL,
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    score_rank   BIGINT NOT NULL,
    rel          INTEGER NOT NULL
);

-- The length of every list of a stored run (one row per run and topic), counted once at
-- ingestion for the same reason; a run without rows here (written by hand) is counted from
-- run_row.
CREATE TABLE IF NOT EXISTS run_list (
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    num_docs     BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS judged_pair (
    qrels_id     INTEGER NOT NULL,
    run_id       INTEGER NOT NULL,
    PRIMARY KEY (qrels_id, run_id)
);

-- The relevant documents (level >= 1) of judged_row with C(r), the number of them at ranks <= r
-- of their list (rel_so_far): all that AP, P@k, recall@k, nDCG@k and RR read of a ranking at
-- trec_eval's default -l 1 (irwarehouse/engine/relevant_rows.py). Written with judged_row, in
-- the same transaction (store/ingest.py: store_judged_rows), so that re-evaluating a stored
-- campaign reads a third to a tenth of judged_row's rows and computes no running count.
-- precision_sum is AP's running sum at the row: C(r)/r of the list's relevant documents at
-- ranks <= this one, added in rank order as trec_eval adds them (sql/context.sql,
-- ev_make_relevant_rows), so that AP reads one value per list instead of sorting its
-- relevant documents (sql/metrics/ap.sql, ev_precision_sums); NULL only in rows stored
-- before it existed, which the first read-write open recomputes (store/relevant.py).
-- relevant_pair lists the (qrels, run) pairs whose rows are here (a pair may have none: a
-- run that retrieved no relevant document); a pair missing from it is evaluated from
-- judged_row as before.
CREATE TABLE IF NOT EXISTS relevant_row (
    qrels_id     INTEGER NOT NULL,
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    score_rank   BIGINT NOT NULL,
    rel          INTEGER NOT NULL,
    rel_so_far   BIGINT NOT NULL,
    precision_sum DOUBLE
);
ALTER TABLE relevant_row ADD COLUMN IF NOT EXISTS precision_sum DOUBLE;

CREATE TABLE IF NOT EXISTS relevant_pair (
    qrels_id     INTEGER NOT NULL,
    run_id       INTEGER NOT NULL,
    PRIMARY KEY (qrels_id, run_id)
);

CREATE TABLE IF NOT EXISTS pool (
    pool_id      INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,
    depth        INTEGER NOT NULL,
    created_at   TIMESTAMP DEFAULT current_timestamp
);
-- How a pool was built, beside depth (above) and the runs and their teams (pool_run):
-- team_source = how the teams were given ('pattern', 'mapping', 'mapping+pattern', or 'stored':
-- each run's stored team, else its name), team_pattern = the regex on the run names, qrels_id =
-- the qrels the pool was built for (NULL: none). Pools built before these columns existed have
-- team_source NULL: their pattern and qrels were not recorded (irwarehouse/meta/pools.py).
ALTER TABLE pool ADD COLUMN IF NOT EXISTS team_source VARCHAR;
ALTER TABLE pool ADD COLUMN IF NOT EXISTS team_pattern VARCHAR;
ALTER TABLE pool ADD COLUMN IF NOT EXISTS qrels_id INTEGER;

CREATE TABLE IF NOT EXISTS pool_doc (
    pool_id      INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    teams        VARCHAR[]          -- contributing teams
);

-- The runs a pool was built from and the team each run was counted for.
CREATE TABLE IF NOT EXISTS pool_run (
    pool_id      INTEGER NOT NULL,
    run_id       INTEGER NOT NULL,
    team         VARCHAR NOT NULL
);

-- Materialised per-topic metric values, keyed by (run, qrels, topic, measure, options).
-- `measure` is the canonical name of what was computed, whatever spelling asked for it (AP, map
-- and MAP are stored as map; nDCG@10, ndcg_cut.10 and ndcg_cut_10 as ndcg_cut_10: a trec_eval
-- measure as trec_eval prints it, any other as name(param=value)@cutoff); `spelling` is the name as
-- typed, for display; `family` is its measure in measure_catalog (P, ndcg_cut), which says how a
-- run's value is formed (summary); `cutoff` its @k (P_10: 10), so that
-- `WHERE family = 'ndcg_cut' AND cutoff = 10` finds it too. The evaluation options are columns
-- named as the metric macros' parameters (irwarehouse/options.py declares them):
-- relevance_level (-l), judged_only (-J), max_docs (-M), sort_order (--order), trec_eval_version,
-- complete (-c), gains (-g; {} = gain is the level); an ir_measures name's own options (AP(rel=2))
-- and a condensed M' are those of the row (AP(rel=2) is map at relevance_level 2). `options` holds
-- the same options as text (l=1;J=0;M=;c=0;order=score;v=9), and the online and text measures'
-- own settings (level=session, ROUGE's options), whose option columns are NULL.
CREATE TABLE IF NOT EXISTS score (
    run_id       INTEGER NOT NULL,
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    measure      VARCHAR NOT NULL,
    family       VARCHAR NOT NULL,
    params       VARCHAR NOT NULL,
    options      VARCHAR NOT NULL,
    value        DOUBLE,
    text         VARCHAR,           -- text-valued measures (relstring): value is NULL then
    definition_hash VARCHAR NOT NULL,
    computed_at  TIMESTAMP DEFAULT current_timestamp
);
-- Warehouses created before text-valued measures existed gain the column on connect; those
-- created before the structured key gain its columns (and are re-keyed: store/rekey.py).
ALTER TABLE score ADD COLUMN IF NOT EXISTS text VARCHAR;
ALTER TABLE score ADD COLUMN IF NOT EXISTS spelling VARCHAR;
ALTER TABLE score ADD COLUMN IF NOT EXISTS cutoff DOUBLE;
ALTER TABLE score ADD COLUMN IF NOT EXISTS relevance_level INTEGER;
ALTER TABLE score ADD COLUMN IF NOT EXISTS judged_only BOOLEAN;
ALTER TABLE score ADD COLUMN IF NOT EXISTS max_docs BIGINT;
ALTER TABLE score ADD COLUMN IF NOT EXISTS sort_order VARCHAR;
ALTER TABLE score ADD COLUMN IF NOT EXISTS trec_eval_version INTEGER;
ALTER TABLE score ADD COLUMN IF NOT EXISTS complete BOOLEAN;
ALTER TABLE score ADD COLUMN IF NOT EXISTS gains MAP(INTEGER, DOUBLE);


-- Results of `irw compare --store`: one row per run pair, with what is needed to reproduce it
-- (the test, B and the seed of the random generator).
CREATE TABLE IF NOT EXISTS significance (
    campaign     VARCHAR NOT NULL,
    measure      VARCHAR NOT NULL,
    test         VARCHAR NOT NULL,
    correction   VARCHAR,
    B            INTEGER,
    seed         BIGINT,
    alpha        DOUBLE,
    n_topics     INTEGER,
    run_a        VARCHAR NOT NULL,
    run_b        VARCHAR NOT NULL,
    mean_a       DOUBLE,
    mean_b       DOUBLE,
    delta        DOUBLE,
    statistic    DOUBLE,
    p            DOUBLE,
    p_adjusted   DOUBLE,
    computed_at  TIMESTAMP DEFAULT current_timestamp
);
-- Tukey HSD's tie rule (ge: range >= |difference|, gt: range > |difference|); NULL for the other
-- tests and for rows stored before the option existed (they used ge).
ALTER TABLE significance ADD COLUMN IF NOT EXISTS tie_rule VARCHAR;

-- Analyst views: the original ids, never the surrogate keys.
CREATE OR REPLACE VIEW run_info AS
SELECT r.run_id, c.name AS campaign, r.name AS run, r.team, r.num_rows, r.source_path, r.sha256,
       r.ingested_at
FROM run r JOIN campaign c USING (campaign_id);

CREATE OR REPLACE VIEW topic_score AS
SELECT c.name AS campaign, r.name AS run, r.team, q.name AS qrels, s.topic, s.measure, s.family,
       s.params, s.options, s.value, s.text, s.computed_at, s.spelling, s.cutoff,
       s.relevance_level, s.judged_only, s.max_docs, s.sort_order, s.trec_eval_version,
       s.complete, s.gains
FROM score s
JOIN run r USING (run_id)
JOIN campaign c ON c.campaign_id = r.campaign_id
JOIN qrels q ON q.qrels_id = s.qrels_id;

-- The measures of the warehouse, one row per measure family (parameters apart): `measure` is
-- the canonical name (as printed in trec_eval / NTCIREVAL / ndeval layouts), `macro` the table
-- macro that computes it from stored runs (`SELECT * FROM irw_map(campaign := 'C')`), with its
-- `parameters` (name, SQL type, default); `summary` says how a run's value is formed from the
-- per-topic values (irw_summarise); `doc` and `source` give the definition and where it comes
-- from. Written from the comment headers of sql/metrics/*.sql whenever they change.
CREATE TABLE IF NOT EXISTS measure_catalog (
    measure      VARCHAR PRIMARY KEY,
    macro        VARCHAR NOT NULL,
    parameters   STRUCT(name VARCHAR, type VARCHAR, "default" VARCHAR)[],
    summary      VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,   -- number | text (relstring)
    per_topic    BOOLEAN NOT NULL,   -- printed per topic by trec_eval -q
    doc          VARCHAR,
    source       VARCHAR,
    sql_file     VARCHAR NOT NULL,   -- sql/metrics/<sql_file>.sql
    kernel       VARCHAR NOT NULL,   -- the macro over the evaluation context (sql/context.sql)
    context      VARCHAR[],          -- the context relations it reads
    domain       VARCHAR             -- ranked (sql/metrics), online (sql/online: sessions,
                                     -- clicks, users) or texts (sql/texts: ROUGE, nuggets)
);
-- Warehouses made before the online and text measures joined the catalog gain the column.
ALTER TABLE measure_catalog ADD COLUMN IF NOT EXISTS domain VARCHAR;

-- A run's value of a measure from its per-topic values, by the measure's summary kind
-- (measure_catalog.summary); topic_values in topic order (byte order, as trec_eval adds them),
-- added one by one in that order (list_reduce), so a run value is the same bits on every path:
--   mean     the arithmetic mean (the values added one by one in that order, then divided)
--   gmean    the geometric mean, exp(mean of ln v), each v floored at 1e-5 first (trec_eval's
--            MIN_GEO_MEAN; the gm_ measures' values are floored already)
--   sum      the sum (num_ret, num_rel_ret, num_q, ...)
--   num_rel  the sum; with trec_eval -c, `judged_relevant` instead: the number of judged
--            documents of level > 0 over every topic, whatever -l (te_calc_avg_num_rel)
--   none     no run value (relstring)
CREATE OR REPLACE MACRO irw_summarise(summary, topic_values, judged_relevant) AS
CASE WHEN summary = 'none' OR len(topic_values) = 0 THEN NULL
     WHEN summary = 'num_rel' AND judged_relevant IS NOT NULL
         THEN CAST(judged_relevant AS DOUBLE)
     WHEN summary IN ('sum', 'num_rel') THEN list_reduce(topic_values, lambda a, b: a + b)
     WHEN summary = 'gmean'
         THEN exp(list_reduce(list_transform(topic_values, lambda v: ln(greatest(v, 0.00001))),
                              lambda a, b: a + b) / len(topic_values))
     ELSE list_reduce(topic_values, lambda a, b: a + b) / len(topic_values) END;

-- Per-run values of every stored measure: `mean` is the run's value formed by the measure's
-- summary kind (the arithmetic mean for most; the geometric mean for gm_map and gm_bpref; the
-- sum for num_ret, num_rel, num_rel_ret, num_q: trec_eval's `all` lines), sd the standard
-- deviation of the per-topic values; the key columns of `score` (cutoff, the options) too.
CREATE OR REPLACE VIEW run_score AS
WITH judged_relevant AS (
    SELECT qrels_id, count(*) AS n
    FROM (SELECT qrels_id FROM judgment GROUP BY qrels_id, topic, doc HAVING max(rel) > 0)
    GROUP BY qrels_id
),
scored AS (
    SELECT s.*, CASE WHEN starts_with(s.measure, 'gm:') THEN 'gmean'   -- gm:NAME
                     ELSE coalesce(m.summary, 'mean') END AS summary,
           CASE WHEN s.complete THEN coalesce(jr.n, 0) END AS judged_relevant
    FROM score s
    LEFT JOIN measure_catalog m ON m.measure = s.family
    LEFT JOIN judged_relevant jr ON jr.qrels_id = s.qrels_id
)
SELECT c.name AS campaign, r.name AS run, r.team, q.name AS qrels, s.measure, s.family,
       s.options, s.summary, count(*) AS num_topics,
       irw_summarise(s.summary, list(s.value ORDER BY s.topic),
                     any_value(s.judged_relevant)) AS mean,
       stddev_samp(s.value ORDER BY s.topic) AS sd,
       s.cutoff, s.relevance_level, s.judged_only, s.max_docs, s.sort_order,
       s.trec_eval_version, s.complete, s.gains
FROM scored s
JOIN run r ON r.run_id = s.run_id
JOIN campaign c ON c.campaign_id = r.campaign_id
JOIN qrels q ON q.qrels_id = s.qrels_id
GROUP BY c.name, r.name, r.team, q.name, s.measure, s.family, s.options, s.summary, s.cutoff,
         s.relevance_level, s.judged_only, s.max_docs, s.sort_order, s.trec_eval_version,
         s.complete, s.gains;

-- ==== analyst views (issue 7) =====================================================================
-- Stable, documented relations for analysts; `irw schema` prints each one with the comment
-- block just above it (first line = the one-line doc). Every view keeps qrels and evaluation
-- options as columns: means over different judgment sets or options are never mixed.

-- Cornish-Fisher expansion of the Student t quantile from the normal quantile z (Abramowitz &
-- Stegun 26.7.5); used by t_quantile_975 above 30 degrees of freedom.
CREATE OR REPLACE MACRO t_cornish_fisher(z, df) AS
    z + (z ^ 3 + z) / (4 * df)
      + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
      + (3 * z ^ 7 + 19 * z ^ 5 + 17 * z ^ 3 - 15 * z) / (384 * df ^ 3)
      + (79 * z ^ 9 + 776 * z ^ 7 + 1482 * z ^ 5 - 1920 * z ^ 3 - 945 * z) / (92160 * df ^ 4);

-- Two-sided 95% Student t critical value t(0.975, df): exact table for df 1..30 (scipy
-- t.ppf, 10 digits), Cornish-Fisher expansion around z = 1.959964 above (error < 1e-7).
CREATE OR REPLACE MACRO t_quantile_975(df) AS CASE
    WHEN df IS NULL OR df < 1 THEN NULL
    WHEN df <= 30 THEN [12.7062047362, 4.3026527297, 3.1824463053, 2.7764451052, 2.5705818356,
                        2.4469118511, 2.3646242516, 2.3060041352, 2.2621571628, 2.2281388520,
                        2.2009851601, 2.1788128297, 2.1603686565, 2.1447866879, 2.1314495456,
                        2.1199052992, 2.1098155778, 2.1009220402, 2.0930240544, 2.0859634473,
                        2.0796138447, 2.0738730679, 2.0686576104, 2.0638985616, 2.0595385528,
                        2.0555294386, 2.0518305165, 2.0484071418, 2.0452296421,
                        2.0422724563][CAST(df AS INTEGER)]
    ELSE t_cornish_fisher(CAST(1.959963984540054 AS DOUBLE), CAST(df AS DOUBLE))
END;

-- Runs with their campaign's venue and year and a system family (team, else run-name prefix).
-- family: the team when known, else the run name up to its first digit, dot, dash or underscore.
CREATE OR REPLACE VIEW run_family AS
SELECT r.run_id, c.name AS campaign, c.venue, c.year, r.name AS run, r.team,
       coalesce(nullif(r.team, ''),
                nullif(regexp_extract(r.name, '^([^0-9._-]+)', 1), ''), r.name) AS family
FROM run r JOIN campaign c USING (campaign_id);

-- Per-run means with t-based 95% confidence intervals over topics (one row per run x measure).
-- ci = mean +- t(0.975, n-1) * sd / sqrt(n), the interval of Sakai (2014) "Statistical reform
-- in IR"; topics are the sample, so it says how stable the mean is to another topic set. NULL
-- bounds when n < 2.
CREATE OR REPLACE VIEW run_mean_ci AS
SELECT campaign, run, team, qrels, measure, options, num_topics, mean, sd,
       sd / sqrt(num_topics) AS se,
       t_quantile_975(num_topics - 1) AS t_crit,
       mean - t_quantile_975(num_topics - 1) * sd / sqrt(num_topics) AS ci_low,
       mean + t_quantile_975(num_topics - 1) * sd / sqrt(num_topics) AS ci_high
FROM run_score;

-- Topic difficulty: each topic's mean, spread and range of a measure over the runs of a campaign.
-- difficulty_rank 1 = the hardest topic (lowest mean over runs) of that campaign and measure.
CREATE OR REPLACE VIEW topic_difficulty AS
SELECT *, rank() OVER (PARTITION BY campaign, qrels, measure, options
                       ORDER BY mean ASC, topic) AS difficulty_rank
FROM (
    SELECT campaign, qrels, measure, options, topic, count(*) AS num_runs,
           avg(value ORDER BY run) AS mean, stddev_samp(value ORDER BY run) AS sd,
           min(value) AS min, median(value) AS median,
           max(value) AS max
    FROM topic_score
    GROUP BY campaign, qrels, measure, options, topic
);

-- Per-topic deltas of every run of the baseline's campaign against the baseline run.
-- delta = value - baseline_value; usage: SELECT * FROM run_delta('STANDARD', 'map').
-- Runs are paired within a campaign; add WHERE campaign = '...' when the baseline's name
-- exists in several campaigns. (No `param := default` here: sqlglot checks this file.)
CREATE OR REPLACE MACRO run_delta(baseline_run, measure_name) AS TABLE
SELECT s.campaign, s.run, b.run AS baseline, s.qrels, s.measure, s.options, s.topic, s.value,
       b.value AS baseline_value, s.value - b.value AS delta
FROM topic_score s
JOIN topic_score b
  ON b.campaign = s.campaign AND b.qrels = s.qrels AND b.measure = s.measure
 AND b.options = s.options AND b.topic = s.topic
WHERE b.run = baseline_run AND s.run <> baseline_run AND s.measure = measure_name;

-- Per-run summary of run_delta: mean delta, topics won/lost/tied against the baseline.
-- usage: SELECT * FROM run_delta_summary('STANDARD', 'map') ORDER BY mean_delta DESC.
CREATE OR REPLACE MACRO run_delta_summary(baseline_run, measure_name) AS TABLE
SELECT campaign, run, baseline, qrels, measure, options, count(*) AS num_topics,
       avg(delta ORDER BY topic) AS mean_delta, stddev_samp(delta ORDER BY topic) AS sd_delta,
       count(*) FILTER (WHERE delta > 0) AS wins, count(*) FILTER (WHERE delta < 0) AS losses,
       count(*) FILTER (WHERE delta = 0) AS ties
FROM run_delta(baseline_run, measure_name)
GROUP BY ALL;

-- Cross-campaign line-up: every run's mean of a measure with its campaign, year and family.
-- rank_in_campaign 1 = best mean of that campaign/measure; relative_to_best = mean / best mean;
-- compare a family over years with WHERE family = 'X', or a measure with WHERE measure = 'map'.
CREATE OR REPLACE VIEW cross_campaign AS
SELECT f.campaign, f.venue, f.year, f.family, f.team, f.run, s.qrels, s.measure, s.options,
       s.num_topics, s.mean,
       rank() OVER w_desc AS rank_in_campaign,
       count(*) OVER w AS runs_in_campaign,
       s.mean / nullif(max(s.mean) OVER w, 0) AS relative_to_best,
       s.mean - median(s.mean) OVER w AS minus_campaign_median
FROM run_score s
JOIN run_family f ON f.campaign = s.campaign AND f.run = s.run
WINDOW w AS (PARTITION BY s.campaign, s.qrels, s.measure, s.options),
       w_desc AS (PARTITION BY s.campaign, s.qrels, s.measure, s.options ORDER BY s.mean DESC);

-- One row per campaign and measure: how many runs, and the best, median and worst run means.
CREATE OR REPLACE VIEW campaign_measure AS
SELECT campaign, venue, year, qrels, measure, options, count(*) AS num_runs,
       max(mean) AS best, median(mean) AS median, min(mean) AS worst,
       first(run ORDER BY mean DESC, run) AS best_run
FROM cross_campaign
GROUP BY ALL;
-- ==== end of analyst views ========================================================================

-- ==== text outputs, references, nuggets and iUnits (issue 17) ==============================
-- System outputs as text: one row per sentence of a run's output for a topic (`irw ingest texts`;
-- a run's sentences keep their order). Runs are rows of `run` (the ROUGE peer or RAG system).
CREATE TABLE IF NOT EXISTS text_output (
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    sentence     INTEGER NOT NULL,  -- 0-based order within the output
    body         VARCHAR NOT NULL
);

-- Reference texts (ROUGE models): a reference set is a row of `qrels` (format 'text_references'),
-- so scores against it are stored like scores against a judgment set.
CREATE TABLE IF NOT EXISTS text_reference (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    ref_id       VARCHAR NOT NULL,
    ref_no       INTEGER NOT NULL,  -- order of first appearance (ROUGE's model order)
    sentence     INTEGER NOT NULL,
    body         VARCHAR NOT NULL
);

-- Tokens of outputs (source 'run', owner_id = run_id, ref_id '') and references (source 'ref',
-- owner_id = qrels_id), tokenised as ROUGE-1.5.5 does: only tokens ROUGE can count (starting
-- with a letter or digit); word_no = the whitespace-separated word it comes from (ROUGE's -l);
-- stem = ROUGE's stemmer (-m, tokens longer than 3); is_stop = on ROUGE's stopword list (-s).
CREATE TABLE IF NOT EXISTS text_token (
    source       VARCHAR NOT NULL,
    owner_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    ref_id       VARCHAR NOT NULL,
    sentence     INTEGER NOT NULL,
    word_no      INTEGER NOT NULL,
    pos          INTEGER NOT NULL,  -- 0-based position among the text's tokens
    token        VARCHAR NOT NULL,
    stem         VARCHAR NOT NULL,
    is_stop      BOOLEAN NOT NULL
);

-- Output lengths in characters, whitespace excluded (nugget allowance precision, T-measure):
-- from the stored text, or given with `irw ingest nuggets --lengths` when only matches exist.
CREATE TABLE IF NOT EXISTS text_length (
    run_id       INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    num_chars    BIGINT NOT NULL,
    PRIMARY KEY (run_id, topic)
);

-- Gold nuggets / iUnits of a nugget set (a `qrels` row, format 'nuggets'): weight (vital = 1,
-- okay = 0 when given as labels), the vital/okay label when given, and the nugget text or vital
-- string (its length without whitespace is vital_length).
CREATE TABLE IF NOT EXISTS nugget (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    unit         VARCHAR NOT NULL,
    weight       DOUBLE NOT NULL,
    label        VARCHAR,           -- 'vital' | 'okay' | NULL
    body         VARCHAR NOT NULL,
    vital_length BIGINT NOT NULL,
    PRIMARY KEY (qrels_id, topic, unit)
);

-- Per-intent importance of iUnits and intent probabilities for the M-measure (MobileClick).
CREATE TABLE IF NOT EXISTS nugget_intent (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    intent       VARCHAR NOT NULL,
    unit         VARCHAR NOT NULL,  -- '' for the intent's own row (its probability)
    importance   DOUBLE,
    probability  DOUBLE
);

-- Units found in a run's output: the end offset of the match in characters (whitespace
-- excluded; NULL when unknown) and the support (nuggetizer: support / partial_support).
CREATE TABLE IF NOT EXISTS nugget_match (
    run_id       INTEGER NOT NULL,
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    unit         VARCHAR NOT NULL,
    end_offset   BIGINT,
    support      VARCHAR NOT NULL DEFAULT 'support'
);

-- A MobileClick two-layer output: the first layer (layer '') and one second layer per intent,
-- each a sequence of iUnits (kind 'iunit') and intent links (kind 'link', unit = the intent).
CREATE TABLE IF NOT EXISTS mobileclick_element (
    run_id       INTEGER NOT NULL,
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    layer        VARCHAR NOT NULL,
    seq          INTEGER NOT NULL,
    kind         VARCHAR NOT NULL,
    unit         VARCHAR NOT NULL,
    length       BIGINT NOT NULL
);
-- A pyramid of summary content units (Nenkova & Passonneau, NAACL 2004; `irw ingest pyramid`):
-- a `qrels` row (format 'pyramid') and one row per (SCU, model summary that expresses it); an
-- SCU's weight is the number of its model summaries.
CREATE TABLE IF NOT EXISTS pyramid_scu (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    scu          VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,
    label        VARCHAR NOT NULL DEFAULT '',
    PRIMARY KEY (qrels_id, topic, scu, model)
);

-- The content units of a run's (peer) summary annotated against a pyramid: scu NULL for a unit
-- that matches no SCU of the pyramid (weight 0; it counts in the peer's SCU total X).
CREATE TABLE IF NOT EXISTS pyramid_peer (
    run_id       INTEGER NOT NULL,
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    unit_no      INTEGER NOT NULL,  -- order in the annotation file
    scu          VARCHAR
);
-- ==== end of text outputs ==========================================================================
-- ==== online evaluation (issue 16): sessions, clicks, interleaving, preferences ================
-- A search log is stored as the rows a system showed; the system is a `run` of the campaign
-- (`irw ingest sessions --run NAME`) with no run_row, so that session and click measures land in
-- `score` under that run and `irw compare` / `irw meta` treat systems alike.

-- One shown result of a session log: the session's query number query_no shows doc at rank;
-- clicked (NULL when the log has no click column), click_time in seconds from the session start,
-- dwell in seconds. One topic per session; file_order keeps the line order of the file.
CREATE TABLE IF NOT EXISTS session_row (
    run_id       INTEGER NOT NULL,
    session      VARCHAR NOT NULL,
    topic        VARCHAR NOT NULL,
    query_no     INTEGER NOT NULL,
    rank         INTEGER NOT NULL,
    doc          VARCHAR NOT NULL,
    clicked      BOOLEAN,
    click_time   DOUBLE,
    dwell        DOUBLE,
    file_order   BIGINT NOT NULL
);

-- Provenance of a session log: the file it came from and which optional columns it had.
CREATE TABLE IF NOT EXISTS session_log (
    run_id         INTEGER PRIMARY KEY,
    campaign_id    INTEGER NOT NULL,
    source_path    VARCHAR,
    sha256         VARCHAR,
    num_rows       BIGINT,
    num_sessions   BIGINT,
    has_clicked    BOOLEAN,
    has_click_time BOOLEAN,
    has_dwell      BOOLEAN,
    ingested_at    TIMESTAMP DEFAULT current_timestamp
);

CREATE SEQUENCE IF NOT EXISTS interleaving_id_seq START 1;

-- An interleaving of two stored runs (`irw interleave`): method, seed and depth reproduce it.
CREATE TABLE IF NOT EXISTS interleaving (
    interleaving_id INTEGER PRIMARY KEY DEFAULT nextval('interleaving_id_seq'),
    campaign_id  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,
    run_a        VARCHAR NOT NULL,
    run_b        VARCHAR NOT NULL,
    method       VARCHAR NOT NULL,  -- balanced | team_draft | probabilistic | optimized
    seed         BIGINT NOT NULL,
    depth        INTEGER NOT NULL,
    params       VARCHAR NOT NULL,  -- method parameters, e.g. first=random; tau=3
    created_at   TIMESTAMP DEFAULT current_timestamp,
    UNIQUE (campaign_id, name)
);

-- The interleaved list of a topic: team = the run a document was taken from (A or B; NULL for
-- balanced interleaving, where credit follows the ranks), its ranks in A and B (NULL = absent)
-- and, for optimized interleaving, its credits and the probability of the list.
CREATE TABLE IF NOT EXISTS interleaved_row (
    interleaving_id INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    rank         INTEGER NOT NULL,
    doc          VARCHAR NOT NULL,
    team         VARCHAR,
    rank_a       INTEGER,
    rank_b       INTEGER,
    credit_a     DOUBLE,
    credit_b     DOUBLE,
    list_probability DOUBLE
);

-- The outcome of one impression (session, query) of an interleaved list, inferred from clicks.
CREATE TABLE IF NOT EXISTS interleaving_outcome (
    interleaving_id INTEGER NOT NULL,
    session      VARCHAR NOT NULL,
    query_no     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    clicks       INTEGER NOT NULL,
    credit_a     DOUBLE NOT NULL,
    credit_b     DOUBLE NOT NULL,
    outcome      VARCHAR NOT NULL   -- A | B | tie
);

-- Side-by-side preference judgments (`irw ingest preferences`): which of two runs' results an
-- assessor preferred for a topic.
CREATE TABLE IF NOT EXISTS preference (
    campaign_id  INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    left_run     VARCHAR NOT NULL,
    right_run    VARCHAR NOT NULL,
    preference   VARCHAR NOT NULL,  -- left | right | tie
    assessor     VARCHAR NOT NULL,
    source_path  VARCHAR,
    file_order   BIGINT NOT NULL
);

-- Documents a user already knew for a topic (`irw ingest known`), for coverage and novelty.
CREATE TABLE IF NOT EXISTS known_doc (
    campaign_id  INTEGER NOT NULL,
    "user"       VARCHAR NOT NULL,
    topic        VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    PRIMARY KEY (campaign_id, "user", topic, doc)
);
-- ==== end of online evaluation ====================================================================

-- Integrity (`irw check`, irwarehouse/store/digests.py): the number of rows and a digest of
-- every table, per value of its owner column (part: the run_id, qrels_id, ... of its rows; 0 for
-- a table without one), recorded by the transaction that writes them, so that a change to any
-- stored row is found even where DuckDB's block checksum misses it. digest = the hex hash() of
-- a fixed probe row (a later DuckDB may hash otherwise), ':', the sum of hash() of every row.
CREATE TABLE IF NOT EXISTS irw_digest (
    table_name   VARCHAR NOT NULL,
    part         BIGINT,
    num_rows     BIGINT NOT NULL,
    digest       VARCHAR NOT NULL
);
-- Earlier versions kept a digest of each run's and qrels' rows alone in these columns.
ALTER TABLE run DROP COLUMN IF EXISTS rows_digest;
ALTER TABLE qrels DROP COLUMN IF EXISTS rows_digest;
-- ==== Spark (issue 18) ============================================================================
-- Whether a measure's SQL runs on Spark (irwarehouse.spark: the macros inlined and transpiled
-- by sqlglot), and if not, why: the DuckDB-only construct without a Spark translation
-- (docs/sql_portability.md). `irw eval --engine spark` refuses a measure that is not portable.
ALTER TABLE measure_catalog ADD COLUMN IF NOT EXISTS portable BOOLEAN;
ALTER TABLE measure_catalog ADD COLUMN IF NOT EXISTS portable_reason VARCHAR;
-- ==== end of Spark ================================================================================
