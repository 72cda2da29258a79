-- irwarehouse schema. Applied by `irw init` and on every read-write connect; idempotent.
-- Identifiers are the strings of the source files; integer ids are surrogate keys for joins.

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

CREATE TABLE IF NOT EXISTS topic (
    campaign_id  INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    title        VARCHAR,
    description  VARCHAR,
    topic_type   VARCHAR,           -- e.g. ambiguous / faceted (diversity tracks)
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

-- One judgment: the graded level of a document for a topic (intent '' for ad hoc qrels).
-- Negative levels mean "in the pool but not judged" (trec_eval RELVALUE_UNJUDGED).
CREATE TABLE IF NOT EXISTS judgment (
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    intent       VARCHAR NOT NULL DEFAULT '',
    doc          VARCHAR NOT NULL,
    rel          INTEGER NOT NULL
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

CREATE TABLE IF NOT EXISTS pool (
    pool_id      INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,
    depth        INTEGER NOT NULL,
    created_at   TIMESTAMP DEFAULT current_timestamp
);

CREATE TABLE IF NOT EXISTS pool_doc (
    pool_id      INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    doc          VARCHAR NOT NULL,
    teams        VARCHAR[]          -- contributing teams
);

-- Materialised per-topic metric values. `measure` is the canonical name with its parameters
-- (e.g. P_10, ndcg_cut_10); `options` records the evaluation options (-l, -J, -M, order, version).
CREATE TABLE IF NOT EXISTS score (
    run_id       INTEGER NOT NULL,
    qrels_id     INTEGER NOT NULL,
    topic        VARCHAR NOT NULL,
    measure      VARCHAR NOT NULL,
    family       VARCHAR NOT NULL,
    params       VARCHAR NOT NULL,
    options      VARCHAR NOT NULL,
    value        DOUBLE,
    definition_hash VARCHAR NOT NULL,
    computed_at  TIMESTAMP DEFAULT current_timestamp
);

-- Analyst views: the original ids, never the surrogate keys.
CREATE OR REPLACE VIEW run_info AS
SELECT r.run_id, c.name AS campaign, r.name AS run, r.team, r.num_rows, r.source_path, r.sha256,
       r.ingested_at
FROM run r JOIN campaign c USING (campaign_id);

CREATE OR REPLACE VIEW topic_score AS
SELECT c.name AS campaign, r.name AS run, r.team, q.name AS qrels, s.topic, s.measure, s.family,
       s.params, s.options, s.value, s.computed_at
FROM score s
JOIN run r USING (run_id)
JOIN campaign c ON c.campaign_id = r.campaign_id
JOIN qrels q ON q.qrels_id = s.qrels_id;

CREATE OR REPLACE VIEW run_score AS
SELECT campaign, run, team, qrels, measure, options, count(*) AS num_topics, avg(value) AS mean,
       stddev_samp(value) AS sd
FROM topic_score
GROUP BY ALL;
