-- Session measures over stored search logs (session_row), evaluated per session: the session id
-- is the `topic` column of the result and of `score`. Persistent macros: any DuckDB client can
-- call them on a warehouse file, e.g.
--   SELECT * FROM irw_sdcg(campaign := 'demo', cutoff := 10);
-- Installed by irwarehouse.online.store.install_macros. See docs/online.md.

-- block: irw_session_logs
-- The session logs (systems) of a campaign, or the one named `run`; an error names an unknown
-- campaign, an unknown run, or a campaign without session logs.
CREATE OR REPLACE MACRO irw_session_logs(campaign := NULL, run := NULL) AS TABLE
SELECT r.run_id, r.name AS run, l.has_clicked, l.has_click_time, l.has_dwell
FROM session_log l
JOIN run r USING (run_id)
JOIN campaign c ON c.campaign_id = l.campaign_id
WHERE c.name = campaign AND (run IS NULL OR r.name = run)
UNION ALL   -- no rows, or an error naming what is missing (DuckDB evaluates this branch alone)
SELECT CAST(error(m.msg) AS INTEGER), NULL, NULL, NULL, NULL
FROM (
    SELECT CASE
        WHEN (SELECT count(*) FROM campaign c2 WHERE c2.name = campaign) = 0
        THEN 'no campaign ' || coalesce('''' || campaign || '''', 'given')
        WHEN (SELECT count(*) FROM session_log l2 JOIN run r2 USING (run_id)
              JOIN campaign c3 ON c3.campaign_id = l2.campaign_id
              WHERE c3.name = campaign AND (run IS NULL OR r2.name = run)) = 0
        THEN CASE WHEN run IS NULL THEN 'campaign ''' || campaign || ''' has no session logs'
                  ELSE 'no session log ''' || run || ''' in campaign ''' || campaign || ''''
             END
        END AS msg
) m
WHERE m.msg IS NOT NULL;

-- block: irw_qrels_of
-- The judgment set of a campaign: the one named `qrels`, else the campaign's only one; an error
-- when it is unknown or when several exist and none is named.
CREATE OR REPLACE MACRO irw_qrels_of(campaign := NULL, qrels := NULL) AS TABLE
SELECT q.qrels_id, q.name AS qrels
FROM qrels q JOIN campaign c USING (campaign_id)
WHERE c.name = campaign AND (qrels IS NULL OR q.name = qrels)
  AND (SELECT count(*) FROM qrels q2 JOIN campaign c2 USING (campaign_id)
       WHERE c2.name = campaign AND (qrels IS NULL OR q2.name = qrels)) = 1
UNION ALL
SELECT CAST(error(m.msg) AS INTEGER), NULL
FROM (
    SELECT CASE
        WHEN (SELECT count(*) FROM campaign c4 WHERE c4.name = campaign) = 0
        THEN 'no campaign ' || coalesce('''' || campaign || '''', 'given')
        ELSE CASE n.found
        WHEN 0 THEN CASE WHEN qrels IS NULL
                         THEN 'campaign ''' || coalesce(campaign, '') || ''' has no qrels'
                         ELSE 'no qrels ''' || qrels || ''' in campaign '''
                              || coalesce(campaign, '') || '''' END
        WHEN 1 THEN NULL
        ELSE 'campaign ''' || campaign || ''' has several qrels; name one (qrels := ...)'
        END END AS msg
    FROM (SELECT count(*) AS found FROM qrels q3 JOIN campaign c3 USING (campaign_id)
          WHERE c3.name = campaign AND (qrels IS NULL OR q3.name = qrels)) n
) m
WHERE m.msg IS NOT NULL;

-- block: irw_session_list
-- The concatenated list of every session (Sakai, PROMISE 2014, sec 3.2): the top `cutoff` results of each
-- query in query order (qnum = 1, 2, ... by query_no), only the first occurrence of a document
-- kept unless keep_duplicates; r_session = rank in that concatenation, r_query = rank within its
-- query's (de-duplicated) list; gain = the judged level (gains[level] when the map lists it),
-- 0 for non-relevant and unjudged documents; num_queries = the session's query count.
CREATE OR REPLACE MACRO irw_session_list(campaign := NULL, run := NULL, qrels := NULL,
                                         cutoff := 10, keep_duplicates := false,
                                         gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
WITH logs AS (
    SELECT g.run_id, g.run FROM irw_session_logs(campaign := campaign, run := run) g
),
judged AS (
    SELECT j.topic, j.doc, j.rel
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
    WHERE j.intent = ''
),
shown AS (
    SELECT s.run_id, l.run, s.session, s.topic, s.query_no, s.rank, s.doc,
           dense_rank() OVER (PARTITION BY s.run_id, s.session ORDER BY s.query_no) AS qnum,
           count(DISTINCT s.query_no) OVER (PARTITION BY s.run_id, s.session) AS num_queries
    FROM session_row s JOIN logs l USING (run_id)
),
firsts AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, session, doc ORDER BY qnum, rank)
              AS occurrence
    FROM shown
    WHERE rank <= cutoff
),
kept AS (
    SELECT * FROM firsts WHERE keep_duplicates OR occurrence = 1
)
SELECT k.run_id, k.run, k.session, k.topic, k.qnum, k.num_queries, k.rank, k.doc,
       row_number() OVER (PARTITION BY k.run_id, k.session ORDER BY k.qnum, k.rank) AS r_session,
       row_number() OVER (PARTITION BY k.run_id, k.session, k.qnum ORDER BY k.rank) AS r_query,
       coalesce(j.rel, 0) AS rel,
       CASE WHEN coalesce(j.rel, 0) > 0
            THEN coalesce(CAST(gains[j.rel] AS DOUBLE), CAST(j.rel AS DOUBLE)) ELSE 0.0 END AS gain
FROM kept k
LEFT JOIN judged j ON j.topic = k.topic AND j.doc = k.doc;

-- block: irw_session_discount
-- The discount of a document at query qnum and rank r: 'log' = log_bq(qnum + bq - 1) *
-- log_b(r + b - 1) (Sakai, PROMISE 2014, eq 35 with bq = 4, b = 2: log4(qnum + 3) log2(r + 1)); 'one_plus_log'
-- = (1 + log_bq(qnum)) (1 + log_b(r)) (Jarvelin et al. ECIR 2008; trec-dd-jig's sDCG).
CREATE OR REPLACE MACRO irw_session_discount(qnum, r, bq, b, discount) AS
CASE WHEN discount = 'log' THEN (ln(qnum + bq - 1) / ln(bq)) * (ln(r + b - 1) / ln(b))
     WHEN discount = 'one_plus_log' THEN (1 + ln(qnum) / ln(bq)) * (1 + ln(r) / ln(b))
     ELSE error('discount must be ''log'' or ''one_plus_log'', not ''' || discount || '''') END;

-- block: irw_session_ideal
-- The ideal gains of every judged topic, by rank (positive gains only, descending).
CREATE OR REPLACE MACRO irw_session_ideal(campaign := NULL, qrels := NULL,
                                          gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
SELECT topic, gain, row_number() OVER (PARTITION BY topic ORDER BY gain DESC) AS irank
FROM (
    SELECT j.topic, coalesce(CAST(gains[j.rel] AS DOUBLE), CAST(j.rel AS DOUBLE)) AS gain
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
    WHERE j.intent = '' AND j.rel > 0
)
WHERE gain > 0;

-- measure: sDCG
-- macro: irw_sdcg
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; keep_duplicates BOOLEAN = false;
--         discount VARCHAR = 'log'; rank_in VARCHAR = 'session'; gains MAP = {}
-- summary: mean
-- doc: session DCG (Sakai, PROMISE 2014, eq 35): the top `cutoff` of each query's list concatenated in
--      query order, first occurrences only (keep_duplicates keeps the others),
--      sDCG = sum_r g(r) / (log_bq(qnum(r) + bq - 1) log_b(r + b - 1)), r the rank in the
--      concatenation (rank_in = 'query': the rank within the query's list); gain = level
--      unless `gains` maps it. One value per session whose topic is judged.
-- source: Sakai, "Metrics, statistics, tests" (PROMISE Winter School 2013, LNCS 8173, 2014)
--         eq 35; Jarvelin, Price, Delcambre, Nielsen (ECIR 2008) as irw_sdcg_jarvelin2008.
CREATE OR REPLACE MACRO irw_sdcg(campaign := NULL, run := NULL, qrels := NULL, cutoff := 10,
                                 bq := 4.0, b := 2.0, keep_duplicates := false,
                                 discount := 'log', rank_in := 'session',
                                 gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
WITH lists AS (
    SELECT * FROM irw_session_list(campaign := campaign, run := run, qrels := qrels,
                                   cutoff := cutoff, keep_duplicates := keep_duplicates,
                                   gains := gains)
),
judged_topics AS (
    SELECT DISTINCT j.topic
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
)
SELECT l.run, l.session AS topic, l.topic AS session_topic,
       sum(l.gain / irw_session_discount(l.qnum,
                                         CASE WHEN rank_in = 'query' THEN l.r_query
                                              WHEN rank_in = 'session' THEN l.r_session
                                              ELSE error('rank_in must be ''session'' or '
                                                         || '''query''') END,
                                         bq, b, discount)
           ORDER BY l.r_session) AS value
FROM lists l
WHERE l.topic IN (SELECT topic FROM judged_topics)
GROUP BY l.run, l.session, l.topic;

-- measure: nsDCG
-- macro: irw_nsdcg
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; keep_duplicates BOOLEAN = false;
--         discount VARCHAR = 'log'; rank_in VARCHAR = 'session'; ideal VARCHAR = 'single';
--         gains MAP = {}
-- summary: mean
-- doc: sDCG over the sDCG of an ideal session. ideal = 'single' (Sakai, PROMISE 2014): one ideal list, all
--      at qnum = 1, the judged documents by gain descending, truncated at cutoff x m (m = the
--      session's number of queries: the most documents its concatenation can hold), so the
--      value is at most 1 without duplicates; ideal = 'per_query' (Jarvelin et al. 2008): m
--      copies of the ideal list's top `cutoff`, concatenated, duplicates allowed, discounted
--      as the system's list. 0 when the ideal is 0.
-- source: Sakai (2014) sec 3.2 below eq 35; Jarvelin et al. (ECIR 2008); jiepujiang/ir_metrics
--         NSDCG (per_query).
CREATE OR REPLACE MACRO irw_nsdcg(campaign := NULL, run := NULL, qrels := NULL, cutoff := 10,
                                  bq := 4.0, b := 2.0, keep_duplicates := false,
                                  discount := 'log', rank_in := 'session', ideal := 'single',
                                  gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
WITH s AS (
    SELECT * FROM irw_sdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                           bq := bq, b := b, keep_duplicates := keep_duplicates,
                           discount := discount, rank_in := rank_in, gains := gains)
),
sizes AS (
    SELECT DISTINCT l.run, l.session, l.topic, l.num_queries
    FROM irw_session_list(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                          keep_duplicates := true, gains := gains) l
),
slots AS (   -- the ideal session's (qnum, r, ideal rank) positions
    SELECT z.run, z.session, z.topic,
           CASE WHEN ideal = 'single' THEN 1 ELSE (g.i - 1) // cutoff + 1 END AS qnum,
           CASE WHEN ideal = 'single' OR rank_in = 'session' THEN g.i
                ELSE (g.i - 1) % cutoff + 1 END AS r,
           CASE WHEN ideal = 'single' THEN g.i ELSE (g.i - 1) % cutoff + 1 END AS irank
    FROM sizes z, generate_series(1, z.num_queries * cutoff) AS g(i)
    WHERE CASE WHEN ideal IN ('single', 'per_query') THEN true
               ELSE error('ideal must be ''single'' or ''per_query''') END
),
best AS (
    SELECT p.run, p.session,
           sum(i.gain / irw_session_discount(p.qnum, p.r, bq, b, discount)
               ORDER BY p.qnum, p.r, p.irank) AS v
    FROM slots p
    JOIN irw_session_ideal(campaign := campaign, qrels := qrels, gains := gains) i
      ON i.topic = p.topic AND i.irank = p.irank
    GROUP BY p.run, p.session
)
SELECT s.run, s.topic, s.session_topic,
       CASE WHEN coalesce(best.v, 0) > 0 THEN s.value / best.v ELSE 0.0 END AS value
FROM s LEFT JOIN best ON best.run = s.run AND best.session = s.topic;

-- measure: sDCG_jarvelin2008
-- macro: irw_sdcg_jarvelin2008
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; gains MAP = {}
-- summary: mean
-- doc: the original session DCG of Jarvelin et al. (ECIR 2008) as a preset of irw_sdcg: each
--      query's top `cutoff` kept whole (duplicates too), rank discount 1 + log_b(r) with r the
--      rank within the query, query discount 1 + log_bq(qnum).
-- source: Jarvelin, Price, Delcambre, Nielsen, "Discounted cumulated gain based evaluation of
--         multiple-query IR sessions", ECIR 2008 (LNCS 4956).
CREATE OR REPLACE MACRO irw_sdcg_jarvelin2008(campaign := NULL, run := NULL, qrels := NULL,
                                              cutoff := 10, bq := 4.0, b := 2.0,
                                              gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
SELECT * FROM irw_sdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                       bq := bq, b := b, keep_duplicates := true, discount := 'one_plus_log',
                       rank_in := 'query', gains := gains);

-- measure: nsDCG_jarvelin2008
-- macro: irw_nsdcg_jarvelin2008
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; gains MAP = {}
-- summary: mean
-- doc: irw_sdcg_jarvelin2008 normalised by m ideal lists of `cutoff` documents, concatenated
--      with duplicates (Jarvelin et al.'s normalisation).
-- source: Jarvelin et al. (ECIR 2008).
CREATE OR REPLACE MACRO irw_nsdcg_jarvelin2008(campaign := NULL, run := NULL, qrels := NULL,
                                               cutoff := 10, bq := 4.0, b := 2.0,
                                               gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
SELECT * FROM irw_nsdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                        bq := bq, b := b, keep_duplicates := true, discount := 'one_plus_log',
                        rank_in := 'query', ideal := 'per_query', gains := gains);
