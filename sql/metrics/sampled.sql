-- Measures for incomplete and sampled judgments (docs/measures_more.md): xinfAP and infNDCG as
-- NIST's sample_eval.pl estimates them from a stratified sample (Yilmaz, Kanoulas & Aslam,
-- SIGIR 2008), statAP as the Million Query track's statAP_MQ_eval_v3.pl estimates it from
-- inclusion probabilities (Aslam, Pavlu & Yilmaz, SIGIR 2006), PRES (Magdy & Jones, SIGIR 2010)
-- and ADM (Della Mea & Mizzaro, JASIST 2004). The strata and probabilities come from
-- ev_sample (sampled qrels: `irw ingest qrels --format sampleval|prels`); with other qrels
-- every judged document is one stratum '' (xinfAP is then infAP) and has probability 1
-- (statAP is then AP). Relevant means a level > 0, as both scripts read it (-l is not read).
-- Sums over a list add their terms in rank order (ordered aggregates) or exactly
-- (ev_from_fixed(sum(ev_to_fixed(x)))), sums over strata in the scripts' order (strata names
-- sorted): the same bits whatever DuckDB's threads or plan.
-- source: NIST sample_eval.pl (TREC, 2008-2016); Yilmaz, Kanoulas & Aslam, SIGIR 2008; statAP_MQ_eval_v3.pl (Pavlu, TREC Million Query 2007-2009); Aslam, Pavlu & Yilmaz, SIGIR 2006; Magdy & Jones, SIGIR 2010; Della Mea & Mizzaro, JASIST 2004

-- block: ev_xinf_strata
-- sample_eval.pl's counts of each stratum of a topic: the documents of the qrels in it (all
-- pooled, sampled or not), the sampled ones (level >= 0) and the sampled relevant ones.
CREATE OR REPLACE MACRO ev_xinf_strata() AS TABLE
SELECT j.topic, coalesce(s.stratum, '') AS stratum, count(*) AS docs,
       count(*) FILTER (WHERE j.rel >= 0) AS sampled,
       count(*) FILTER (WHERE j.rel > 0) AS sampled_rel
FROM ev_judgment j
LEFT JOIN ev_sample s ON s.topic = j.topic AND s.doc = j.doc
GROUP BY ALL;

-- block: ev_xinf_listed
-- The pooled documents (those of the qrels, sampled or not) of the top `depth` of every
-- evaluated list (sample_eval.pl's $maxResultSize, 1000), with their level and stratum.
CREATE OR REPLACE MACRO ev_xinf_listed(depth) AS TABLE
SELECT l.run_id, l.topic, l.rank, l.rel, coalesce(s.stratum, '') AS stratum
FROM ev_listed l
LEFT JOIN ev_sample s ON s.topic = l.topic AND s.doc = l.doc
WHERE l.rel IS NOT NULL AND l.rank <= depth
  AND ev_require(depth > 0, 'depth must be > 0');

-- block: ev_xinf
-- xinfAP and infNDCG of every evaluated list, as sample_eval.pl computes them. At a relevant
-- document at rank k, with D pooled documents above it of which d_c in stratum c, s_c sampled
-- and r_c relevant:
--   prec(k) = 1/k + (D/k) sum_c (d_c/D) (r_c + 1e-5)/(s_c + 3e-5)
-- SAP_c sums prec over the relevant documents of stratum c; with N_c pooled documents of c in
-- the qrels, S_c sampled, R_c sampled relevant and R^ = sum_c R_c N_c / S_c,
--   xinfAP = sum_c (R_c N_c / S_c) / R^ * SAP_c / R_c            (0 when R^ = 0)
-- infNDCG: G_c sums level/log2(k+1) over the relevant documents of c in the list; with the
-- list's pooled documents D (d_c of c, s_c sampled) at its end,
--   infNDCG = D sum_c (d_c/D) G_c / s_c / DCG*                    (0 when DCG* = 0)
-- DCG* puts round(sum_c R_{c,g} N_c / S_c) documents of each level g, highest first, at ranks
-- 1, 2, ... (gain g/log2(r+1)), each level stopping at rank `depth` but one rank past it when
-- it starts there, as sample_eval.pl's loop does.
CREATE OR REPLACE MACRO ev_xinf(depth) AS TABLE
WITH strata AS (SELECT * FROM ev_xinf_strata()),
listed AS (SELECT * FROM ev_xinf_listed(depth)),
relevant AS (SELECT * FROM listed WHERE rel > 0),
above AS (
    -- the pooled documents above each relevant one, per stratum
    SELECT r.run_id, r.topic, r.rank, u.stratum, count(*) AS d,
           count(*) FILTER (WHERE u.rel >= 0) AS s, count(*) FILTER (WHERE u.rel > 0) AS rr
    FROM relevant r
    JOIN listed u ON u.run_id = r.run_id AND u.topic = r.topic AND u.rank < r.rank
    GROUP BY ALL
),
above_total AS (
    SELECT run_id, topic, rank, sum(CAST(d AS BIGINT)) AS depth_above FROM above GROUP BY ALL
),
prec_above AS (
    -- sum_c (d_c/D) (r_c + 1e-5)/(s_c + 3e-5), added as sample_eval.pl does, strata sorted
    SELECT a.run_id, a.topic, a.rank, any_value(t.depth_above) AS depth_above,
           sum((a.d / t.depth_above) * (a.rr + 1e-5) / (a.s + 3e-5) ORDER BY a.stratum) AS pa
    FROM above a
    JOIN above_total t ON t.run_id = a.run_id AND t.topic = a.topic AND t.rank = a.rank
    GROUP BY ALL
),
precision AS (
    SELECT r.run_id, r.topic, r.rank, r.rel, r.stratum,
           CAST(1 AS DOUBLE) / r.rank
           + (coalesce(p.depth_above, 0) / r.rank) * coalesce(p.pa, 0.0) AS prec
    FROM relevant r
    LEFT JOIN prec_above p ON p.run_id = r.run_id AND p.topic = r.topic AND p.rank = r.rank
),
per_stratum AS (
    SELECT run_id, topic, stratum, sum(prec ORDER BY rank) AS sap,
           sum(rel / (ln(rank + 1) / ln(2)) ORDER BY rank) AS gain
    FROM precision GROUP BY ALL
),
list_strata AS (
    SELECT run_id, topic, stratum, count(*) AS d, count(*) FILTER (WHERE rel >= 0) AS s
    FROM listed GROUP BY ALL
),
list_total AS (SELECT run_id, topic, sum(CAST(d AS BIGINT)) AS d FROM list_strata GROUP BY ALL),
estimated_rel AS (
    SELECT topic, sum(CASE WHEN sampled <> 0 THEN sampled_rel * docs / sampled ELSE 0 END
                      ORDER BY stratum) AS r_hat
    FROM strata GROUP BY topic
),
ap AS (
    SELECT p.run_id, p.topic,
           sum((st.sampled_rel * st.docs / st.sampled) / e.r_hat * (p.sap / st.sampled_rel)
               ORDER BY p.stratum) AS value
    FROM per_stratum p
    JOIN strata st ON st.topic = p.topic AND st.stratum = p.stratum
    JOIN estimated_rel e ON e.topic = p.topic
    WHERE st.sampled <> 0 AND e.r_hat <> 0
    GROUP BY ALL
),
dcg AS (
    SELECT p.run_id, p.topic,
           sum((ls.d / lt.d) * p.gain / ls.s ORDER BY p.stratum) AS value
    FROM per_stratum p
    JOIN list_strata ls ON ls.run_id = p.run_id AND ls.topic = p.topic
                       AND ls.stratum = p.stratum
    JOIN list_total lt ON lt.run_id = p.run_id AND lt.topic = p.topic
    WHERE ls.s <> 0
    GROUP BY ALL
),
grade_counts AS (
    SELECT j.topic, coalesce(s.stratum, '') AS stratum, j.rel AS grade, count(*) AS n
    FROM ev_judgment j LEFT JOIN ev_sample s ON s.topic = j.topic AND s.doc = j.doc
    WHERE j.rel > 0
    GROUP BY ALL
),
grade_estimate AS (
    SELECT g.topic, g.grade, sum(g.n * st.docs / st.sampled ORDER BY g.stratum) AS n_hat
    FROM grade_counts g JOIN strata st ON st.topic = g.topic AND st.stratum = g.stratum
    GROUP BY ALL
),
grade_ranks AS (
    SELECT topic, grade, CAST(floor(n_hat + 0.5) AS BIGINT) AS n,
           CAST(coalesce(sum(CAST(floor(n_hat + 0.5) AS BIGINT))
                         OVER (PARTITION BY topic ORDER BY grade DESC
                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                AS BIGINT) AS start
    FROM grade_estimate
),
ideal AS (
    SELECT topic, sum(grade / (ln(r + 1) / ln(2)) ORDER BY r) AS dcg
    FROM (SELECT topic, grade,
                 unnest(range(start + 1,
                              least(start + n, greatest(CAST(depth AS BIGINT), start + 1)) + 1))
                     AS r
          FROM grade_ranks WHERE n > 0)
    GROUP BY topic
)
SELECT b.run_id, b.topic, coalesce(a.value, 0.0) AS xinfap,
       CASE WHEN coalesce(i.dcg, 0) <> 0 THEN coalesce(lt.d, 0) * coalesce(d.value, 0.0) / i.dcg
            ELSE 0.0 END AS infndcg
FROM ev_base() b
LEFT JOIN ap a ON a.run_id = b.run_id AND a.topic = b.topic
LEFT JOIN dcg d ON d.run_id = b.run_id AND d.topic = b.topic
LEFT JOIN list_total lt ON lt.run_id = b.run_id AND lt.topic = b.topic
LEFT JOIN ideal i ON i.topic = b.topic;

-- measure: xinfAP
-- params: depth INTEGER = 1000
-- summary: mean
-- doc: Extended inferred AP (Yilmaz, Kanoulas & Aslam 2008) from a stratified sample, as
--      NIST's sample_eval.pl estimates it (its infAP line): the precision above each relevant
--      document estimated stratum by stratum, smoothed (r_c + 1e-5)/(s_c + 3e-5), averaged over
--      the estimated number of relevant documents; the top `depth` (1000) documents. Sampled
--      qrels: `irw ingest qrels --format sampleval`. 0 when no sampled document is relevant.
-- source: NIST sample_eval.pl (infAP); Yilmaz, Kanoulas & Aslam, "A simple and efficient sampling method for estimating AP and NDCG", SIGIR 2008
CREATE OR REPLACE MACRO m_xinfap(depth) AS TABLE
SELECT run_id, topic, xinfap AS value FROM ev_xinf(depth);

-- measure: infNDCG
-- params: depth INTEGER = 1000
-- summary: mean
-- doc: Inferred nDCG (Yilmaz, Kanoulas & Aslam 2008) from a stratified sample, as NIST's
--      sample_eval.pl estimates it: the DCG (gain = level, discount log2(r+1)) of each stratum's
--      sampled relevant documents scaled by the stratum's share of the list, over the DCG of
--      an ideal list of the estimated number of documents of each level; the top `depth`
--      (1000) documents. 0 when no sampled document is relevant.
-- source: NIST sample_eval.pl (infNDCG); Yilmaz, Kanoulas & Aslam, "A simple and efficient sampling method for estimating AP and NDCG", SIGIR 2008
CREATE OR REPLACE MACRO m_infndcg(depth) AS TABLE
SELECT run_id, topic, infndcg AS value FROM ev_xinf(depth);

-- measure: statAP
-- summary: mean
-- doc: statAP (Aslam, Pavlu & Yilmaz 2006) as statAP_MQ_eval_v3.pl estimates it from the
--      sampled documents' inclusion probabilities pi: with R^ = sum over the sampled relevant
--      documents of 1/pi, statAP = (1/R^) sum over the sampled relevant documents of the list
--      at ranks r of (1/pi) (1 + sum over the sampled relevant above of 1/pi) / r. Sampled
--      qrels: `irw ingest qrels --format prels` (other qrels: pi = 1, statAP = AP). A topic
--      without a sampled relevant document has no value (the script's "NA--no relevant docs",
--      left out of its mean).
-- source: statAP_MQ_eval_v3.pl (TREC Million Query 2007-2009); Aslam, Pavlu & Yilmaz, "A statistical method for system evaluation using incomplete judgments", SIGIR 2006
CREATE OR REPLACE MACRO m_statap() AS TABLE
WITH inverse AS (
    SELECT j.topic, j.doc, CAST(1 AS DOUBLE) / coalesce(s.probability, 1.0) AS w
    FROM ev_judgment j LEFT JOIN ev_sample s ON s.topic = j.topic AND s.doc = j.doc
    WHERE j.rel > 0
),
estimated_rel AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(w))) AS r_hat FROM inverse GROUP BY topic
),
found AS (
    SELECT l.run_id, l.topic, l.rank, i.w,
           coalesce(ev_from_fixed(sum(ev_to_fixed(i.w)) OVER (
               PARTITION BY l.run_id, l.topic ORDER BY l.rank
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)), 0.0) AS w_above
    FROM ev_listed l JOIN inverse i ON i.topic = l.topic AND i.doc = l.doc
),
summed AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed((1 + w_above) / rank * w))) AS up
    FROM found GROUP BY ALL
)
SELECT b.run_id, b.topic, coalesce(x.up, 0.0) / e.r_hat AS value
FROM ev_base() b
JOIN estimated_rel e ON e.topic = b.topic
LEFT JOIN summed x ON x.run_id = b.run_id AND x.topic = b.topic
WHERE e.r_hat > 0;

-- measure: PRES
-- params: cutoff INTEGER = 1000
-- summary: mean
-- doc: Patent retrieval evaluation score (Magdy & Jones 2010), for recall-oriented search:
--      PRES = 1 - (sum_i r_i / n - (n + 1)/2) / N_max, n the relevant documents (-l), r_i
--      their ranks within the top N_max (= cutoff), a relevant document not found there
--      counted at rank N_max + i (i its place among the n), so that sum_i r_i = the found
--      ranks + (n - n_R)(N_max + (n + n_R + 1)/2) for n_R found: 1 when all are ranked first,
--      0 when none is found. 0 when the topic has no relevant document (n = 0).
-- source: Magdy & Jones, "PRES: a score metric for evaluating recall-oriented information retrieval applications", SIGIR 2010
CREATE OR REPLACE MACRO m_pres(cutoff) AS TABLE
WITH found AS (
    SELECT run_id, topic, count(*) AS n_found, sum(rank) AS rank_sum
    FROM ev_ranked WHERE is_rel AND rank <= cutoff
    GROUP BY ALL
)
SELECT b.run_id, b.topic,
       CASE WHEN b.num_rel = 0 THEN 0.0
            ELSE 1.0 - ((coalesce(f.rank_sum, 0)
                         + (b.num_rel - coalesce(f.n_found, 0))
                           * (cutoff + (b.num_rel + coalesce(f.n_found, 0) + 1)
                                       / CAST(2 AS DOUBLE)))
                        / b.num_rel - (b.num_rel + 1) / CAST(2 AS DOUBLE)) / cutoff END AS value
FROM ev_base() b
LEFT JOIN found f ON f.run_id = b.run_id AND f.topic = b.topic
WHERE ev_require(cutoff > 0, 'cutoff must be > 0');

-- measure: ADM
-- params: gains MAP = {}
-- summary: mean
-- doc: Average distance measure (Della Mea & Mizzaro 2004): ADM = 1 - sum_{d in D} |SRE(d) -
--      URE(d)| / |D| between the system's relevance estimate SRE (its score, min-max
--      normalised over the list into [0, 1]; every retrieved document 1 when all scores tie;
--      0 for a document not retrieved) and the user's URE (the level's degree in [0, 1]:
--      gains, or level / H as gP; 0 for an unjudged or non-relevant document), over D = the
--      retrieved documents and the judged ones (level >= 0).
-- source: Della Mea & Mizzaro, "Measuring retrieval effectiveness: a new proposal and a first experimental validation", JASIST 55(6), 2004
CREATE OR REPLACE MACRO m_adm(gains) AS TABLE
WITH degree AS (SELECT * FROM ev_generalised_relevance(gains)),
scored AS (
    SELECT l.run_id, l.topic, l.doc, s.score,
           min(s.score) OVER w AS lo, max(s.score) OVER w AS hi
    FROM ev_listed l
    JOIN run_row s ON s.run_id = l.run_id AND s.topic = l.topic AND s.doc = l.doc
    WINDOW w AS (PARTITION BY l.run_id, l.topic)
),
system AS (
    SELECT run_id, topic, doc,
           CASE WHEN hi = lo THEN 1.0 ELSE (score - lo) / (hi - lo) END AS sre
    FROM scored
),
users AS (
    SELECT j.topic, j.doc, d.degree AS ure
    FROM ev_judgment j JOIN degree d ON d.rel = j.rel
    WHERE j.rel >= 0
),
distance AS (
    -- retrieved documents (judged or not), then judged documents not retrieved
    SELECT y.run_id, y.topic, abs(y.sre - coalesce(u.ure, 0.0)) AS dist
    FROM system y LEFT JOIN users u ON u.topic = y.topic AND u.doc = y.doc
    UNION ALL
    SELECT b.run_id, b.topic, u.ure AS dist
    FROM ev_base() b JOIN users u ON u.topic = b.topic
    WHERE NOT EXISTS (SELECT 1 FROM system y WHERE y.run_id = b.run_id AND y.topic = b.topic
                                                AND y.doc = u.doc)
),
summed AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(dist))) AS s, count(*) AS n
    FROM distance GROUP BY ALL
)
SELECT b.run_id, b.topic, CASE WHEN x.n > 0 THEN 1.0 - x.s / x.n ELSE 1.0 END AS value
FROM ev_base() b
LEFT JOIN summed x ON x.run_id = b.run_id AND x.topic = b.topic;
