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
-- truncate = 'lowest_click': each query's list ends at its lowest clicked rank instead of at
-- `cutoff` (Sakai, PROMISE 2014, sec 3.2, after Sakai & Dou, SIGIR 2013: the browsing depth of
-- Jarvelin et al., ECIR 2008, read from the clicks); a query without a click adds nothing
-- (decided here: no click is no evidence that the user scanned its list). depth = the rank
-- at which the query's list is truncated.
CREATE OR REPLACE MACRO irw_session_list(campaign := NULL, run := NULL, qrels := NULL,
                                         cutoff := 10, keep_duplicates := false,
                                         gains := MAP {}::MAP(INTEGER, DOUBLE),
                                         truncate := 'cutoff') AS TABLE
WITH logs AS (
    SELECT g.run_id, g.run FROM irw_session_logs(campaign := campaign, run := run) g
    WHERE CASE WHEN truncate = 'cutoff' THEN true
               WHEN truncate = 'lowest_click' AND NOT g.has_clicked
               THEN error('truncate := ''lowest_click'' needs clicks; session log '''
                          || g.run || ''' has no clicked column')
               WHEN truncate = 'lowest_click' THEN true
               ELSE error('truncate must be ''cutoff'' or ''lowest_click'', not '''
                          || truncate || '''') END
),
judged AS (
    SELECT j.topic, j.doc, j.rel
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
    WHERE j.intent = ''
),
shown AS (
    SELECT s.run_id, l.run, s.session, s.topic, s.query_no, s.rank, s.doc,
           dense_rank() OVER (PARTITION BY s.run_id, s.session ORDER BY s.query_no) AS qnum,
           count(DISTINCT s.query_no) OVER (PARTITION BY s.run_id, s.session) AS num_queries,
           CASE WHEN truncate = 'lowest_click'
                THEN coalesce(max(s.rank) FILTER (WHERE s.clicked)
                                  OVER (PARTITION BY s.run_id, s.session, s.query_no), 0)
                ELSE cutoff END AS depth
    FROM session_row s JOIN logs l USING (run_id)
),
firsts AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, session, doc ORDER BY qnum, rank)
              AS occurrence
    FROM shown
    WHERE rank <= depth
),
kept AS (
    SELECT * FROM firsts WHERE keep_duplicates OR occurrence = 1
)
SELECT k.run_id, k.run, k.session, k.topic, k.qnum, k.num_queries, k.depth, k.rank, k.doc,
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
--         discount VARCHAR = 'log'; rank_in VARCHAR = 'session'; gains MAP = {};
--         truncate VARCHAR = 'cutoff'
-- summary: mean
-- doc: session DCG (Sakai, PROMISE 2014, eq 35): the top `cutoff` of each query's list concatenated in
--      query order, first occurrences only (keep_duplicates keeps the others),
--      sDCG = sum_r g(r) / (log_bq(qnum(r) + bq - 1) log_b(r + b - 1)), r the rank in the
--      concatenation (rank_in = 'query': the rank within the query's list); gain = level
--      unless `gains` maps it; truncate = 'lowest_click' ends each query's list at its
--      lowest click instead of at `cutoff` (Jarvelin et al., ECIR 2008; preset
--      sDCG_lowest_click). One value per session whose topic is judged.
-- source: Sakai, "Metrics, statistics, tests" (PROMISE Winter School 2013, LNCS 8173, 2014)
--         eq 35; Jarvelin, Price, Delcambre, Nielsen (ECIR 2008) as irw_sdcg_jarvelin2008.
CREATE OR REPLACE MACRO irw_sdcg(campaign := NULL, run := NULL, qrels := NULL, cutoff := 10,
                                 bq := 4.0, b := 2.0, keep_duplicates := false,
                                 discount := 'log', rank_in := 'session',
                                 gains := MAP {}::MAP(INTEGER, DOUBLE),
                                 truncate := 'cutoff') AS TABLE
WITH lists AS (
    SELECT * FROM irw_session_list(campaign := campaign, run := run, qrels := qrels,
                                   cutoff := cutoff, keep_duplicates := keep_duplicates,
                                   gains := gains, truncate := truncate)
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
--         gains MAP = {}; truncate VARCHAR = 'cutoff'
-- summary: mean
-- doc: sDCG over the sDCG of an ideal session. ideal = 'single' (Sakai, PROMISE 2014): one ideal list, all
--      at qnum = 1, the judged documents by gain descending, truncated at cutoff x m (m = the
--      session's number of queries: the most documents its concatenation can hold), so the
--      value is at most 1 without duplicates; ideal = 'per_query' (Jarvelin et al. 2008): m
--      copies of the ideal list's top `cutoff`, concatenated, duplicates allowed, discounted
--      as the system's list. With truncate = 'lowest_click' each query holds its click depth
--      instead of `cutoff` (the single ideal list the sum of those depths). 0 when the ideal
--      is 0.
-- source: Sakai (2014) sec 3.2 below eq 35; Jarvelin et al. (ECIR 2008); jiepujiang/ir_metrics
--         NSDCG (per_query).
CREATE OR REPLACE MACRO irw_nsdcg(campaign := NULL, run := NULL, qrels := NULL, cutoff := 10,
                                  bq := 4.0, b := 2.0, keep_duplicates := false,
                                  discount := 'log', rank_in := 'session', ideal := 'single',
                                  gains := MAP {}::MAP(INTEGER, DOUBLE),
                                  truncate := 'cutoff') AS TABLE
WITH s AS (
    SELECT * FROM irw_sdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                           bq := bq, b := b, keep_duplicates := keep_duplicates,
                           discount := discount, rank_in := rank_in, gains := gains,
                           truncate := truncate)
),
depths AS (  -- every query's depth (cutoff, or its lowest click) and the depths before it
    SELECT *, coalesce(sum(CAST(depth AS BIGINT)) OVER (PARTITION BY run, session ORDER BY qnum
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                       0) AS before
    FROM (SELECT DISTINCT l.run, l.session, l.topic, l.qnum, l.depth
          FROM irw_session_list(campaign := campaign, run := run, qrels := qrels,
                                cutoff := cutoff, keep_duplicates := true, gains := gains,
                                truncate := truncate) l)
),
slots AS (   -- the ideal session's (qnum, r, ideal rank) positions
    SELECT z.run, z.session, z.topic,
           CASE WHEN ideal = 'single' THEN 1 ELSE z.qnum END AS qnum,
           CASE WHEN ideal = 'single' OR rank_in = 'session' THEN z.before + g.i
                ELSE g.i END AS r,
           CASE WHEN ideal = 'single' THEN z.before + g.i ELSE g.i END AS irank
    FROM depths z, generate_series(1, z.depth) AS g(i)
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
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; gains MAP = {};
--         truncate VARCHAR = 'cutoff'
-- summary: mean
-- doc: the original session DCG of Jarvelin et al. (ECIR 2008) as a preset of irw_sdcg: each
--      query's top `cutoff` kept whole (duplicates too), rank discount 1 + log_b(r) with r the
--      rank within the query, query discount 1 + log_bq(qnum).
-- source: Jarvelin, Price, Delcambre, Nielsen, "Discounted cumulated gain based evaluation of
--         multiple-query IR sessions", ECIR 2008 (LNCS 4956).
CREATE OR REPLACE MACRO irw_sdcg_jarvelin2008(campaign := NULL, run := NULL, qrels := NULL,
                                              cutoff := 10, bq := 4.0, b := 2.0,
                                              gains := MAP {}::MAP(INTEGER, DOUBLE),
                                              truncate := 'cutoff') AS TABLE
SELECT * FROM irw_sdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                       bq := bq, b := b, keep_duplicates := true, discount := 'one_plus_log',
                       rank_in := 'query', gains := gains, truncate := truncate);

-- measure: nsDCG_jarvelin2008
-- macro: irw_nsdcg_jarvelin2008
-- params: cutoff INTEGER = 10; bq DOUBLE = 4; b DOUBLE = 2; gains MAP = {};
--         truncate VARCHAR = 'cutoff'
-- summary: mean
-- doc: irw_sdcg_jarvelin2008 normalised by m ideal lists of `cutoff` documents, concatenated
--      with duplicates (Jarvelin et al.'s normalisation).
-- source: Jarvelin et al. (ECIR 2008).
CREATE OR REPLACE MACRO irw_nsdcg_jarvelin2008(campaign := NULL, run := NULL, qrels := NULL,
                                               cutoff := 10, bq := 4.0, b := 2.0,
                                               gains := MAP {}::MAP(INTEGER, DOUBLE),
                                               truncate := 'cutoff') AS TABLE
SELECT * FROM irw_nsdcg(campaign := campaign, run := run, qrels := qrels, cutoff := cutoff,
                        bq := bq, b := b, keep_duplicates := true, discount := 'one_plus_log',
                        rank_in := 'query', ideal := 'per_query', gains := gains,
                        truncate := truncate);

-- measure: sDCG_lowest_click
-- macro: irw_sdcg_lowest_click
-- params: bq DOUBLE = 4; b DOUBLE = 2; keep_duplicates BOOLEAN = false; gains MAP = {}
-- summary: mean
-- doc: sDCG (Sakai, PROMISE 2014, eq 35) over each query's list truncated at its lowest
--      click rather than at a fixed cutoff: the preset truncate = 'lowest_click' of irw_sdcg;
--      a query without a click adds nothing. Needs a log with a clicked column.
-- source: Sakai (2014) sec 3.2 ("each ranked list could first be truncated at the lowest
--         click"; Sakai & Dou, SIGIR 2013); Jarvelin, Price, Delcambre & Nielsen (ECIR 2008).
CREATE OR REPLACE MACRO irw_sdcg_lowest_click(campaign := NULL, run := NULL, qrels := NULL,
                                              bq := 4.0, b := 2.0, keep_duplicates := false,
                                              gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
SELECT * FROM irw_sdcg(campaign := campaign, run := run, qrels := qrels, bq := bq, b := b,
                       keep_duplicates := keep_duplicates, gains := gains,
                       truncate := 'lowest_click');

-- measure: nsDCG_lowest_click
-- macro: irw_nsdcg_lowest_click
-- params: bq DOUBLE = 4; b DOUBLE = 2; keep_duplicates BOOLEAN = false; gains MAP = {}
-- summary: mean
-- doc: sDCG_lowest_click over the sDCG of the single ideal list as long as the session's
--      truncated lists together (irw_nsdcg with truncate = 'lowest_click'); 0 when the ideal
--      is 0.
-- source: Sakai (2014) sec 3.2; Jarvelin et al. (ECIR 2008).
CREATE OR REPLACE MACRO irw_nsdcg_lowest_click(campaign := NULL, run := NULL, qrels := NULL,
                                               bq := 4.0, b := 2.0, keep_duplicates := false,
                                               gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
SELECT * FROM irw_nsdcg(campaign := campaign, run := run, qrels := qrels, bq := bq, b := b,
                        keep_duplicates := keep_duplicates, gains := gains,
                        truncate := 'lowest_click');

-- measure: esnDCG
-- macro: irw_esndcg
-- params: cutoff INTEGER = 10; p_down DOUBLE = 0.8; p_reform DOUBLE = 0.8; gains MAP = {}
-- summary: mean
-- doc: expected session nDCG over browsing paths (Kanoulas, Carterette, Clough & Sanderson,
--      SIGIR 2011, model-based session measures). A user reads query 1's list (its top
--      `cutoff`) from rank 1; after each document they go on down with probability p_down,
--      and the list's last document ends the list; on leaving a list they reformulate (go to
--      the next query's list, from its top) with probability p_reform, else the session ends,
--      as it does after the last query. A path w = (k_1..k_j) has probability
--      prod_{i<j} s_i(k_i) p_reform * s_j(k_j) (1 - p_reform if j < m), s_i(k) =
--      p_down^(k-1) (1 - p_down) for k below the list's length l_i, p_down^(l_i - 1) at it.
--      esnDCG = sum_w P(w) DCG(w) / IDCG(|w|): the path's documents concatenated (repeats
--      kept: the user reads them again), DCG = sum g(r) / log2(r + 1) over the path's ranks,
--      IDCG(n) = DCG of the topic's ideal list's top n (0 when it is 0). Exact (a dynamic
--      programme over the path lengths, not sampling). probability = sum_w P(w) (1).
-- source: Kanoulas et al., "Evaluating multi-query sessions", SIGIR 2011, sec 4; the sampled
--         form in jiepujiang/ir_metrics (ESNDCG).
CREATE OR REPLACE MACRO irw_esndcg(campaign := NULL, run := NULL, qrels := NULL, cutoff := 10,
                                   p_down := 0.8, p_reform := 0.8,
                                   gains := MAP {}::MAP(INTEGER, DOUBLE)) AS TABLE
WITH RECURSIVE lists AS (
    SELECT * FROM irw_session_list(campaign := campaign, run := run, qrels := qrels,
                                   cutoff := cutoff, keep_duplicates := true, gains := gains)
    WHERE CASE WHEN p_down >= 0 AND p_down <= 1 AND p_reform >= 0 AND p_reform <= 1 THEN true
               ELSE error('p_down and p_reform must be probabilities in [0, 1]') END
),
judged_topics AS (
    SELECT DISTINCT j.topic
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
),
depth AS (   -- each query's list length l and the session's number of lists m
    SELECT ls.run_id, ls.run AS run_name, ls.session, ls.topic, ls.qnum,
           max(ls.r_query) AS l, max(ls.qnum) OVER (PARTITION BY ls.run_id, ls.session) AS m
    FROM lists ls
    WHERE ls.topic IN (SELECT topic FROM judged_topics)
    GROUP BY ls.run_id, ls.run, ls.session, ls.topic, ls.qnum
),
stop AS (    -- s(k): the user leaves the list after its k-th document
    SELECT run_id, session, qnum, m, k,
           CASE WHEN k < l THEN pow(p_down, k - 1) * (1 - p_down)
                ELSE pow(p_down, l - 1) END AS p
    FROM (SELECT *, unnest(range(1, l + 1)) AS k FROM depth)
),
offsets AS ( -- the path lengths s possible before a list: 0 .. the lengths of the lists above
    SELECT run_id, session, qnum,
           unnest(range(0, CAST(coalesce(sum(CAST(l AS BIGINT)) OVER (PARTITION BY run_id, session
                                                      ORDER BY qnum
                                                      ROWS BETWEEN UNBOUNDED PRECEDING
                                                      AND 1 PRECEDING), 0) AS BIGINT) + 1))
               AS s
    FROM depth
),
segment AS ( -- the DCG that a list's top k adds to a path of s documents, with s(k)
    SELECT o.run_id, o.session, o.qnum, o.s, st.m, st.k, any_value(st.p) AS p,
           sum(l.gain / log2(o.s + l.r_query + 1) ORDER BY l.r_query) AS dcg
    FROM offsets o
    JOIN stop st ON st.run_id = o.run_id AND st.session = o.session AND st.qnum = o.qnum
    JOIN lists l ON l.run_id = o.run_id AND l.session = o.session AND l.qnum = o.qnum
                AND l.r_query <= st.k
    GROUP BY o.run_id, o.session, o.qnum, o.s, st.m, st.k
),
reach (run_id, session, j, s, a, g) AS (
    -- a = P(the user starts list j + 1 after s documents), g = the DCG mass of those paths
    SELECT DISTINCT run_id, session, 0, CAST(0 AS BIGINT), 1.0::DOUBLE, 0.0::DOUBLE FROM depth
    UNION ALL
    SELECT r.run_id, r.session, r.j + 1, r.s + sg.k,
           sum(r.a * sg.p * p_reform ORDER BY r.s),
           sum((r.g + r.a * sg.dcg) * sg.p * p_reform ORDER BY r.s)
    FROM reach r
    JOIN segment sg ON sg.run_id = r.run_id AND sg.session = r.session AND sg.qnum = r.j + 1
                   AND sg.s = r.s
    WHERE r.j + 1 < sg.m
    GROUP BY r.run_id, r.session, r.j + 1, r.s + sg.k
),
ends AS (    -- paths ending in list j + 1 with n = s + k documents
    SELECT r.run_id, r.session, r.s + sg.k AS n,
           sum(r.a * sg.p * CASE WHEN r.j + 1 < sg.m THEN 1 - p_reform ELSE 1 END
               ORDER BY r.j, r.s) AS prob,
           sum((r.g + r.a * sg.dcg) * sg.p
               * CASE WHEN r.j + 1 < sg.m THEN 1 - p_reform ELSE 1 END
               ORDER BY r.j, r.s) AS dcg_mass
    FROM reach r
    JOIN segment sg ON sg.run_id = r.run_id AND sg.session = r.session AND sg.qnum = r.j + 1
                   AND sg.s = r.s
    GROUP BY r.run_id, r.session, r.s + sg.k
),
ideal AS (   -- IDCG(n) for n = 1, 2, ...: the ideal list's top n
    SELECT topic, irank, count(*) OVER (PARTITION BY topic) AS size,
           -- fixed point: the same bits whatever the threads (docs/architecture.md)
           ev_from_fixed(sum(ev_to_fixed(gain / log2(irank + 1)))
                         OVER (PARTITION BY topic ORDER BY irank)) AS idcg
    FROM irw_session_ideal(campaign := campaign, qrels := qrels, gains := gains)
),
normalised AS (
    SELECT e.run_id, e.session, e.n, e.prob,
           CASE WHEN coalesce(i.idcg, 0) > 0 THEN e.dcg_mass / i.idcg ELSE 0.0 END AS v
    FROM ends e
    JOIN (SELECT DISTINCT run_id, session, topic FROM depth) st
      ON st.run_id = e.run_id AND st.session = e.session
    LEFT JOIN ideal i ON i.topic = st.topic AND i.irank = least(e.n, i.size)
)
SELECT w.run_name AS run, n.session AS topic, w.topic AS session_topic,
       sum(n.v ORDER BY n.n) AS value, sum(n.prob ORDER BY n.n) AS probability
FROM normalised n
JOIN (SELECT DISTINCT run_id, run_name, session, topic FROM depth) w
  ON w.run_id = n.run_id AND w.session = n.session
GROUP BY w.run_name, n.session, w.topic;
