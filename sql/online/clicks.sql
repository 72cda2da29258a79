-- Click measures over stored search logs (session_row with a `clicked` column), per query and
-- per session; per-session values are stored in `score` with the session id as `topic`, and a
-- system's value is their mean. See docs/online.md.

-- block: irw_click_rows
-- The shown results of the campaign's logs (or of `run`) at ranks <= cutoff (NULL: all), with
-- sat = a click whose dwell >= threshold seconds. An error names a log without clicks.
CREATE OR REPLACE MACRO irw_click_rows(campaign := NULL, run := NULL, cutoff := NULL,
                                       threshold := 30.0) AS TABLE
SELECT l.run, s.run_id, s.session, s.topic, s.query_no, s.rank, s.doc, s.clicked,
       s.click_time, s.dwell, s.file_order,
       s.clicked AND coalesce(s.dwell >= threshold, false) AS sat
FROM session_row s
JOIN irw_session_logs(campaign := campaign, run := run) l USING (run_id)
WHERE (cutoff IS NULL OR s.rank <= cutoff)
  AND CASE WHEN NOT l.has_clicked
           THEN error('session log ''' || l.run || ''' has no clicked column')
           ELSE true END;

-- block: irw_click_queries
-- One row per query impression (session, query_no): results shown, clicks, the mean rank of
-- the clicked results (NULL without a click; Baeza-Yates & Ribeiro-Neto's mean clickthrough
-- rank: clicks at 2, 3, 4 give (2+3+4)/3 = 3), the first click's time (seconds from the
-- session start), satisfied clicks, and abandoned (no click).
CREATE OR REPLACE MACRO irw_click_queries(campaign := NULL, run := NULL, cutoff := NULL,
                                          threshold := 30.0) AS TABLE
SELECT c.run, c.session, any_value(c.topic) AS topic, c.query_no,
       count(*) AS shown,
       count(*) FILTER (WHERE c.clicked) AS clicks,
       avg(c.rank) FILTER (WHERE c.clicked) AS mean_click_rank,
       min(c.click_time) FILTER (WHERE c.clicked) AS first_click_time,
       count(*) FILTER (WHERE c.sat) AS sat_clicks,
       count(*) FILTER (WHERE c.clicked) = 0 AS abandoned
FROM irw_click_rows(campaign := campaign, run := run, cutoff := cutoff,
                    threshold := threshold) c
GROUP BY c.run, c.session, c.query_no;

-- block: irw_click_sessions
-- Per session: queries, results shown, clicks, abandoned and satisfied queries, the sum of the
-- clicked ranks, and the first click of the session.
CREATE OR REPLACE MACRO irw_click_sessions(campaign := NULL, run := NULL, cutoff := NULL,
                                           threshold := 30.0) AS TABLE
SELECT q.run, q.session, any_value(q.topic) AS session_topic, count(*) AS queries,
       sum(q.shown) AS shown, sum(q.clicks) AS clicks,
       count(*) FILTER (WHERE q.abandoned) AS abandoned_queries,
       count(*) FILTER (WHERE q.sat_clicks > 0) AS satisfied_queries,
       sum(q.mean_click_rank * q.clicks ORDER BY q.query_no) AS clicked_rank_sum,
       min(q.first_click_time) AS first_click_time
FROM irw_click_queries(campaign := campaign, run := run, cutoff := cutoff,
                       threshold := threshold) q
GROUP BY q.run, q.session;

-- measure: CTR
-- macro: irw_ctr
-- aliases: clickthrough_rate
-- params: cutoff INTEGER = NULL
-- summary: mean
-- doc: clickthrough rate of a session: clicked results / shown results (ranks <= cutoff).
-- source: Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval (2nd ed., 2011), ch. 4
--         "Evaluation using clickthrough data".
CREATE OR REPLACE MACRO irw_ctr(campaign := NULL, run := NULL, cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.clicks / s.shown AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff) s;

-- measure: abandonment
-- macro: irw_abandonment
-- params: cutoff INTEGER = NULL
-- summary: mean
-- doc: share of a session's queries without a click (1 or 0 for a one-query session).
-- source: the abandonment rate of online evaluation (e.g. Li, Huffman, Tokuda, SIGIR 2009).
CREATE OR REPLACE MACRO irw_abandonment(campaign := NULL, run := NULL, cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.abandoned_queries / s.queries AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff) s;

-- measure: clicks_per_query
-- macro: irw_clicks_per_query
-- params: cutoff INTEGER = NULL
-- summary: mean
-- doc: clicks of a session divided by its queries.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4.
CREATE OR REPLACE MACRO irw_clicks_per_query(campaign := NULL, run := NULL,
                                             cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.clicks / s.queries AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff) s;

-- measure: mean_click_rank
-- macro: irw_mean_click_rank
-- aliases: MCR
-- params: cutoff INTEGER = NULL
-- summary: mean
-- doc: mean rank of the clicked results of a session (clicks at 2, 3, 4: (2+3+4)/3 = 3; at 1
--      and 5: (1+5)/2 = 3); sessions without a click have no value.
-- source: Baeza-Yates & Ribeiro-Neto (2011) ch. 4, "average clickthrough rank position".
CREATE OR REPLACE MACRO irw_mean_click_rank(campaign := NULL, run := NULL,
                                            cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.clicked_rank_sum / s.clicks AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff) s
WHERE s.clicks > 0;

-- measure: time_to_first_click
-- macro: irw_time_to_first_click
-- aliases: TTFC
-- params: cutoff INTEGER = NULL
-- summary: mean
-- doc: seconds from the session start to its first click (click_time is measured from the
--      session start, so this is the time to first click of the session's first query when
--      that query has a click); sessions without a click have no value.
-- source: time to first click (e.g. Chapelle et al., "Large-scale validation and analysis of
--         interleaved search evaluation", TOIS 2012).
CREATE OR REPLACE MACRO irw_time_to_first_click(campaign := NULL, run := NULL,
                                                cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.first_click_time AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff) s
WHERE s.first_click_time IS NOT NULL;

-- measure: satisfied
-- macro: irw_satisfied
-- params: threshold DOUBLE = 30; cutoff INTEGER = NULL
-- summary: mean
-- doc: share of a session's queries with a satisfied click, a click whose dwell time is at
--      least `threshold` seconds (30 s by default).
-- source: dwell-time satisfied clicks (Fox et al., TOIS 2005; 30 s as in Kim et al., WSDM 2014).
CREATE OR REPLACE MACRO irw_satisfied(campaign := NULL, run := NULL, threshold := 30.0,
                                      cutoff := NULL) AS TABLE
SELECT s.run, s.session AS topic, s.session_topic, s.satisfied_queries / s.queries AS value
FROM irw_click_sessions(campaign := campaign, run := run, cutoff := cutoff,
                        threshold := threshold) s;

-- block: irw_click_positions
-- Click-based trailtext (Sakai, PROMISE 2014, Fig 9): every click of a session in traversal order
-- ('time': by click_time; 'linear': by query and rank), the snippets it makes the user read
-- (ranks above it in its query not read before: each query's snippets are read once) and pos,
-- the trailtext offset after reading F of the clicked document (length_chars of the `doc`
-- table, missing_length when absent).
CREATE OR REPLACE MACRO irw_click_positions(campaign := NULL, run := NULL,
                                            traversal := 'time', snippet := 200.0, f := 0.2,
                                            missing_length := 0.0) AS TABLE
WITH clicks AS (
    SELECT c.*, d.length_chars,
           row_number() OVER (
               PARTITION BY c.run_id, c.session
               ORDER BY CASE WHEN traversal = 'time' THEN c.click_time END NULLS LAST,
                        c.query_no, c.rank, c.file_order) AS k
    FROM irw_click_rows(campaign := campaign, run := run) c
    JOIN run r ON r.run_id = c.run_id
    LEFT JOIN doc d ON d.campaign_id = r.campaign_id AND d.doc = c.doc
    WHERE c.clicked
      AND CASE WHEN traversal NOT IN ('time', 'linear')
               THEN error('traversal must be ''time'' or ''linear''')
               WHEN traversal = 'time' AND c.click_time IS NULL
               THEN error('session ''' || c.session || ''' of ''' || c.run
                          || ''' has a click without click_time (time-ordered traversal)')
               ELSE true END
),
snippets AS (
    SELECT *, greatest(0, rank - coalesce(max(rank) OVER (
                  PARTITION BY run_id, session, query_no ORDER BY k
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS new_snippets
    FROM clicks
)
SELECT n.run, n.run_id, n.session, n.topic, n.query_no, n.rank, n.doc, n.k, n.new_snippets,
       n.length_chars,
       -- an exact running sum (ev_to_fixed, sql/context.sql): the same bits for every run
       ev_from_fixed(sum(ev_to_fixed(snippet * n.new_snippets
                                     + f * coalesce(n.length_chars, missing_length))) OVER (
           PARTITION BY n.run_id, n.session ORDER BY n.k ROWS UNBOUNDED PRECEDING)) AS pos
FROM snippets n;

-- measure: U_click
-- macro: irw_click_u
-- params: traversal VARCHAR = 'time'; gain DOUBLE = 0.5; snippet DOUBLE = 200; f DOUBLE = 0.2;
--         l DOUBLE = 132000; missing_length DOUBLE = 0
-- summary: mean
-- doc: click-based U-measure of a session (Sakai, PROMISE 2014, Fig 9): U = sum over clicks, in traversal
--      order, of gain * max(0, 1 - pos/l), pos = characters read so far (snippet per rank above
--      a click, once per query, plus f of each clicked document); a click is taken as relevant
--      with gain (2^1-1)/2^1 = 0.5. 0 for a session without clicks.
-- source: Sakai & Dou, SIGIR 2013; Sakai (2014) Fig 8 (e)-(h) and Fig 9.
CREATE OR REPLACE MACRO irw_click_u(campaign := NULL, run := NULL, traversal := 'time',
                                    gain := 0.5, snippet := 200.0, f := 0.2, l := 132000.0,
                                    missing_length := 0.0) AS TABLE
WITH u AS (
    SELECT p.run, p.session, sum(gain * greatest(0.0, 1.0 - p.pos / l) ORDER BY p.k) AS v
    FROM irw_click_positions(campaign := campaign, run := run, traversal := traversal,
                             snippet := snippet, f := f, missing_length := missing_length) p
    GROUP BY p.run, p.session
)
SELECT s.run, s.session AS topic, s.session_topic, coalesce(u.v, 0.0) AS value
FROM irw_click_sessions(campaign := campaign, run := run) s
LEFT JOIN u ON u.run = s.run AND u.session = s.session;

-- measure: U_click_judged
-- macro: irw_click_u_judged
-- params: traversal VARCHAR = 'time'; snippet DOUBLE = 200; f DOUBLE = 0.2; l DOUBLE = 132000;
--         max_level INTEGER = 0; missing_length DOUBLE = 0
-- summary: mean
-- doc: click-based U with the gain of a click taken from the qrels: (2^level - 1)/2^H (H =
--      max_level, or the topic's highest judged level when 0), 0 for a non-relevant or
--      unjudged click (which still costs its reading).
-- source: Sakai & Dou, SIGIR 2013; Sakai (2014) eq 19-20 and Fig 9.
CREATE OR REPLACE MACRO irw_click_u_judged(campaign := NULL, run := NULL, qrels := NULL,
                                           traversal := 'time', snippet := 200.0, f := 0.2,
                                           l := 132000.0, max_level := 0,
                                           missing_length := 0.0) AS TABLE
WITH judged AS (
    SELECT j.topic, j.doc, j.rel
    FROM judgment j JOIN irw_qrels_of(campaign := campaign, qrels := qrels) q USING (qrels_id)
    WHERE j.intent = ''
),
top_level AS (
    SELECT topic, max(rel) AS h FROM judged GROUP BY topic
),
u AS (
    SELECT p.run, p.session,
           sum(CASE WHEN coalesce(j.rel, 0) > 0
                    THEN (pow(2.0, j.rel) - 1.0)
                         / pow(2.0, CASE WHEN max_level > 0 THEN max_level ELSE t.h END)
                    ELSE 0.0 END
               * greatest(0.0, 1.0 - p.pos / l) ORDER BY p.k) AS v
    FROM irw_click_positions(campaign := campaign, run := run, traversal := traversal,
                             snippet := snippet, f := f, missing_length := missing_length) p
    LEFT JOIN judged j ON j.topic = p.topic AND j.doc = p.doc
    LEFT JOIN top_level t ON t.topic = p.topic
    GROUP BY p.run, p.session
)
SELECT s.run, s.session AS topic, s.session_topic, coalesce(u.v, 0.0) AS value
FROM irw_click_sessions(campaign := campaign, run := run) s
LEFT JOIN u ON u.run = s.run AND u.session = s.session
WHERE s.session_topic IN (SELECT topic FROM top_level);
