-- Diversity measures of ndeval, the TREC Web track evaluator 2009-2014 (ndeval.c 4.4/4.5;
-- Clarke et al. SIGIR 2008 and ICTIR 2009; Agrawal et al. WSDM 2009; docs/diversity_semantics.md
-- section 1). Context (sql/context.sql, the ev_make_div_* builders):
--   ev_div_judgment(topic, intent, doc, rel, is_rel)  per-subtopic judgments of the qrels,
--   ev_div_ranked(run_id, topic, rank, intent, rel, is_rel)  retrieved documents, judgments,
--   ev_div_ideal(alpha_key, topic, rank, doc)      ndeval's greedy ideal list for each alpha.
-- Relevance is binary: a level >= the relevance level (-l, ir_measures' rel=; default 1) is
-- relevant to a subtopic (is_rel; ndeval clips levels > 0 to 1, pyndeval binarises at rel=).
-- N is the number of subtopics of a topic with >= 1 relevant document; a topic with N = 0 scores 0
-- (nNRBP: NaN, ndeval's 0/0). ndeval prints cutoffs 5, 10, 20 (its DEPTH is 20); other cutoffs
-- extend the same definitions.
-- Every sum is exact (ev_from_fixed(sum(ev_to_fixed(x))), sql/context.sql): the same bits
-- whatever DuckDB's threads or plan, the exact sum rounded once.
-- source: ndeval.c 4.4 (TREC Web track); Clarke et al., SIGIR 2008; Clarke et al., ICTIR 2009; Agrawal et al., WSDM 2009

-- block: ev_div_nsub
-- N per topic: subtopics with at least one relevant document.
CREATE OR REPLACE MACRO ev_div_nsub() AS TABLE
SELECT topic, count(DISTINCT intent) AS n
FROM ev_div_judgment
WHERE is_rel
GROUP BY topic;

-- block: ev_div_disc
-- ndeval's discount: 1 at rank 1, log(2)/log(r+1) after.
CREATE OR REPLACE MACRO ev_div_disc(r) AS
CASE WHEN r <= 1 THEN 1.0 ELSE ln(2.0) / ln(r + 1.0) END;

-- block: ev_div_ng
-- The novelty gain of each rank of the run lists, ng(r) = sum_j I_j(r) (1-alpha)^C_j(r-1), where
-- C_j(r-1) counts the documents relevant to subtopic j above rank r; pairs = sum_j I_j(r).
CREATE OR REPLACE MACRO ev_div_ng(alpha) AS TABLE
SELECT run_id, topic, rank,
       ev_from_fixed(sum(ev_to_fixed(pow(1.0 - alpha, prior)))) AS ng,
       count(*) AS pairs
FROM (
    SELECT run_id, topic, rank,
           count(*) OVER (PARTITION BY run_id, topic, intent ORDER BY rank
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior
    FROM ev_div_ranked
    WHERE is_rel
)
GROUP BY run_id, topic, rank;

-- block: ev_div_ideal_ng
-- The same novelty gains along the greedy ideal list of each topic (full depth).
CREATE OR REPLACE MACRO ev_div_ideal_ng(alpha) AS TABLE
SELECT topic, rank,
       ev_from_fixed(sum(ev_to_fixed(pow(1.0 - alpha, prior)))) AS ng
FROM (
    SELECT i.topic, i.rank,
           count(*) OVER (PARTITION BY i.topic, j.intent ORDER BY i.rank
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prior
    FROM ev_div_ideal i
    JOIN ev_div_judgment j ON j.topic = i.topic AND j.doc = i.doc
    WHERE i.alpha_key = alpha AND j.is_rel
)
GROUP BY topic, rank;

-- block: ev_div_ndeval_at
-- alpha-DCG@k and ERR-IA@k as ndeval prints them: the cumulative sums of ng(r)/log2(r+1) and
-- ng(r)/r divided by the same sums over the "ideal ideal" list whose rank r has gain
-- N (1-alpha)^(r-1) (rank 1 alone is never divided). alpha-nDCG@k and nERR-IA@k divide these by
-- the greedy ideal list's values, only when the run's alpha-DCG@k is not 0.
CREATE OR REPLACE MACRO ev_div_ndeval_at(alpha, cutoff) AS TABLE
WITH run_at AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(ng * ev_div_disc(rank)))) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(ng / rank))) AS err
    FROM ev_div_ng(alpha)
    WHERE rank <= cutoff
    GROUP BY run_id, topic
),
ideal_at AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(ng * ev_div_disc(rank)))) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(ng / rank))) AS err
    FROM ev_div_ideal_ng(alpha)
    WHERE rank <= cutoff
    GROUP BY topic
),
ideal_ideal AS (
    SELECT ev_from_fixed(sum(ev_to_fixed(pow(1.0 - alpha, r - 1) * ev_div_disc(r)))) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(pow(1.0 - alpha, r - 1) / r))) AS err
    FROM range(1, cutoff + 1) t(r)
),
normed AS (
    SELECT b.run_id, b.topic,
           CASE WHEN coalesce(n.n, 0) = 0 THEN 0.0
                WHEN cutoff <= 1 THEN coalesce(ra.dcg, 0.0)
                ELSE coalesce(ra.dcg, 0.0) / (n.n * ii.dcg) END AS dcg,
           CASE WHEN coalesce(n.n, 0) = 0 THEN 0.0
                WHEN cutoff <= 1 THEN coalesce(ra.err, 0.0)
                ELSE coalesce(ra.err, 0.0) / (n.n * ii.err) END AS err,
           CASE WHEN cutoff <= 1 THEN ia.dcg ELSE ia.dcg / (n.n * ii.dcg) END AS ideal_dcg,
           CASE WHEN cutoff <= 1 THEN ia.err ELSE ia.err / (n.n * ii.err) END AS ideal_err
    FROM ev_base() b
    CROSS JOIN ideal_ideal ii
    LEFT JOIN ev_div_nsub() n ON n.topic = b.topic
    LEFT JOIN run_at ra ON ra.run_id = b.run_id AND ra.topic = b.topic
    LEFT JOIN ideal_at ia ON ia.topic = b.topic
)
SELECT run_id, topic, dcg AS alpha_dcg, err AS err_ia,
       CASE WHEN dcg <> 0 THEN dcg / ideal_dcg ELSE 0.0 END AS alpha_ndcg,
       CASE WHEN dcg <> 0 THEN err / ideal_err ELSE 0.0 END AS nerr_ia
FROM normed;

-- block: ev_div_cover_at
-- Subtopic-document pairs and distinct subtopics covered in the top k, with N.
CREATE OR REPLACE MACRO ev_div_cover_at(cutoff) AS TABLE
SELECT b.run_id, b.topic, coalesce(n.n, 0) AS n, coalesce(c.pairs, 0) AS pairs,
       coalesce(c.covered, 0) AS covered
FROM ev_base() b
LEFT JOIN ev_div_nsub() n ON n.topic = b.topic
LEFT JOIN (SELECT run_id, topic, count(*) AS pairs, count(DISTINCT intent) AS covered
           FROM ev_div_ranked WHERE is_rel AND rank <= cutoff
           GROUP BY run_id, topic) c ON c.run_id = b.run_id AND c.topic = b.topic;

-- block: ev_div_nrbp
-- NRBP over the whole list (no depth limit): (1 - (1-alpha) beta)/N sum_r beta^(r-1) ng(r);
-- nNRBP divides by the same sum over the whole greedy ideal list (0/0 = NaN for N = 0). A
-- topic that only -c adds (absent from the run) is 0: ndeval never evaluates it, it only
-- counts in the amean's denominator (ndeval.c main: actualTopics = qTopics).
CREATE OR REPLACE MACRO ev_div_nrbp(alpha, beta) AS TABLE
WITH run_s AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(ng * pow(beta, rank - 1)))) AS s
    FROM ev_div_ng(alpha) GROUP BY run_id, topic
),
ideal_s AS (
    SELECT topic, ev_from_fixed(sum(ev_to_fixed(ng * pow(beta, rank - 1)))) AS s
    FROM ev_div_ideal_ng(alpha) GROUP BY topic
),
valued AS (
    SELECT b.run_id, b.topic, b.in_run,
           CASE WHEN coalesce(n.n, 0) > 0
                THEN coalesce(rs.s, 0.0) * ((1.0 - (1.0 - alpha) * beta) / n.n)
                ELSE 0.0 END AS nrbp,
           CASE WHEN coalesce(n.n, 0) > 0
                THEN coalesce(i.s, 0.0) * ((1.0 - (1.0 - alpha) * beta) / n.n)
                ELSE 0.0 END AS ideal_nrbp
    FROM ev_base() b
    LEFT JOIN ev_div_nsub() n ON n.topic = b.topic
    LEFT JOIN run_s rs ON rs.run_id = b.run_id AND rs.topic = b.topic
    LEFT JOIN ideal_s i ON i.topic = b.topic
)
SELECT run_id, topic, nrbp,
       CASE WHEN NOT in_run THEN 0.0
            WHEN ideal_nrbp <> 0 THEN nrbp / ideal_nrbp
            ELSE CAST('NaN' AS DOUBLE) END AS nnrbp
FROM valued;

-- measure: ERR-IA
-- dialect: ndeval
-- aliases: ir_measures ERR_IA
-- params: cutoff INTEGER = 5,10,20; alpha DOUBLE = 0.5
-- summary: mean
-- doc: ndeval's ERR-IA@k: sum_{r<=k} ng(r)/r over the ideal-ideal normaliser.
CREATE OR REPLACE MACRO m_div_err_ia(cutoff, alpha) AS TABLE
SELECT run_id, topic, err_ia AS value FROM ev_div_ndeval_at(alpha, cutoff);

-- measure: nERR-IA
-- dialect: ndeval
-- aliases: ir_measures nERR_IA
-- params: cutoff INTEGER = 5,10,20; alpha DOUBLE = 0.5
-- summary: mean
-- doc: ndeval's nERR-IA@k: ERR-IA@k of the run over that of the greedy ideal list.
CREATE OR REPLACE MACRO m_div_nerr_ia(cutoff, alpha) AS TABLE
SELECT run_id, topic, nerr_ia AS value FROM ev_div_ndeval_at(alpha, cutoff);

-- measure: alpha-DCG
-- dialect: ndeval
-- aliases: ir_measures alpha_DCG
-- params: cutoff INTEGER = 5,10,20; alpha DOUBLE = 0.5
-- summary: mean
-- doc: ndeval's alpha-DCG@k: sum_{r<=k} ng(r)/log2(r+1) over the ideal-ideal normaliser.
CREATE OR REPLACE MACRO m_div_alpha_dcg(cutoff, alpha) AS TABLE
SELECT run_id, topic, alpha_dcg AS value FROM ev_div_ndeval_at(alpha, cutoff);

-- measure: alpha-nDCG
-- dialect: ndeval
-- aliases: ir_measures alpha_nDCG
-- params: cutoff INTEGER = 5,10,20; alpha DOUBLE = 0.5
-- summary: mean
-- doc: alpha-nDCG@k (Clarke et al. 2008): alpha-DCG@k over that of the greedy ideal list.
CREATE OR REPLACE MACRO m_div_alpha_ndcg(cutoff, alpha) AS TABLE
SELECT run_id, topic, alpha_ndcg AS value FROM ev_div_ndeval_at(alpha, cutoff);

-- measure: NRBP
-- dialect: ndeval
-- params: alpha DOUBLE = 0.5; beta DOUBLE = 0.5
-- summary: mean
-- doc: Novelty- and rank-biased precision (Clarke et al. ICTIR 2009) over the whole list.
CREATE OR REPLACE MACRO m_div_nrbp(alpha, beta) AS TABLE
SELECT run_id, topic, nrbp AS value FROM ev_div_nrbp(alpha, beta);

-- measure: nNRBP
-- dialect: ndeval
-- params: alpha DOUBLE = 0.5; beta DOUBLE = 0.5
-- summary: mean
-- doc: NRBP over that of the greedy ideal list (NaN when the topic has no relevant document).
CREATE OR REPLACE MACRO m_div_nnrbp(alpha, beta) AS TABLE
SELECT run_id, topic, nnrbp AS value FROM ev_div_nrbp(alpha, beta);

-- measure: MAP-IA
-- dialect: ndeval
-- aliases: ir_measures AP_IA; ir_measures MAP_IA
-- summary: mean
-- doc: Intent-aware AP over the whole list: (1/N) sum_j (1/R_j) sum_{r: I_j(r)} C_j(r)/r.
CREATE OR REPLACE MACRO m_div_map_ia() AS TABLE
WITH running AS (
    SELECT run_id, topic, intent, rank,
           count(*) OVER (PARTITION BY run_id, topic, intent ORDER BY rank
                          ROWS UNBOUNDED PRECEDING) AS c
    FROM ev_div_ranked
    WHERE is_rel
),
per_intent AS (
    SELECT run_id, topic, intent, ev_from_fixed(sum(ev_to_fixed(c / rank))) AS s
    FROM running GROUP BY run_id, topic, intent
),
num_rel AS (
    SELECT topic, intent, count(*) AS r FROM ev_div_judgment WHERE is_rel GROUP BY topic, intent
),
summed AS (
    SELECT p.run_id, p.topic,
           ev_from_fixed(sum(ev_to_fixed(p.s / nr.r))) AS s
    FROM per_intent p JOIN num_rel nr ON nr.topic = p.topic AND nr.intent = p.intent
    GROUP BY p.run_id, p.topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(n.n, 0) > 0 THEN coalesce(s.s, 0.0) / n.n ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN ev_div_nsub() n ON n.topic = b.topic
LEFT JOIN summed s ON s.run_id = b.run_id AND s.topic = b.topic;

-- measure: P-IA
-- dialect: ndeval
-- aliases: ir_measures P_IA
-- params: cutoff INTEGER = 5,10,20
-- summary: mean
-- doc: Intent-aware precision@k: relevant (subtopic, document) pairs in the top k over k N.
CREATE OR REPLACE MACRO m_div_p_ia(cutoff) AS TABLE
SELECT run_id, topic, CASE WHEN n > 0 THEN pairs / (cutoff * n) ELSE 0.0 END AS value
FROM ev_div_cover_at(cutoff);

-- measure: strec
-- dialect: ndeval
-- aliases: ir_measures StRecall
-- params: cutoff INTEGER = 5,10,20
-- summary: mean
-- doc: Subtopic recall@k (Zhai et al. 2003): subtopics covered in the top k over N.
CREATE OR REPLACE MACRO m_div_strec(cutoff) AS TABLE
SELECT run_id, topic, CASE WHEN n > 0 THEN covered / n ELSE 0.0 END AS value
FROM ev_div_cover_at(cutoff);
