-- ranx's measures that no trec_eval or ir_measures measure computes: raw (unnormalised) DCG with
-- linear gains (Järvelin & Kekäläinen) and exponential gains (Burges et al.), nDCG with
-- exponential gains, hits and F1 at k. ranx reads a level below its rel_lvl (irw's -l) as 0 and
-- uses the level itself as the gain; a cutoff of 0 means the whole list (ranx's k = 0).
-- ranx's other names are measures irw already has: hit_rate@k = success.k, mrr@k =
-- recip_rank_cut.k, precision@k = P.k, recall@k = recall.k, map@k = map_cut.k, ndcg@k =
-- ndcg_cut.k, r-precision = Rprec, bpref = bpref (docs/peers.md).
-- Sums add their terms in rank order, as ranx's loops do (`sum(x ORDER BY rank)`): the same bits
-- whatever DuckDB's threads or plan (README "Bit-reproducible scores").
-- source: ranx (Bassani, ECIR 2022) ranx.metrics dcg, dcg_burges, ndcg_burges, hits, f1

-- block: ev_ranx_gained
-- The gain of every relevant document of the top k (k = 0: the whole list): its level, or
-- 2^level - 1 when `exponential` <> 0; a level below the threshold gains nothing.
CREATE OR REPLACE MACRO ev_ranx_gained(cutoff, exponential) AS TABLE
SELECT run_id, topic, rank,
       CASE WHEN exponential <> 0 THEN pow(2.0, rel) - 1 ELSE CAST(rel AS DOUBLE) END AS gain
FROM ev_ranked
WHERE is_rel AND (cutoff = 0 OR rank <= cutoff) AND ev_cutoff_ok(cutoff);

-- block: ev_ranx_dcg
-- Raw DCG@k = sum_{r<=k} gain(r)/log2(r+1) of every evaluated list (0 when nothing relevant is
-- in the top k).
CREATE OR REPLACE MACRO ev_ranx_dcg(cutoff, exponential) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.dcg, 0.0) AS dcg
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, sum(gain / log2(rank + 1) ORDER BY rank) AS dcg
           FROM ev_ranx_gained(cutoff, exponential) GROUP BY run_id, topic) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: dcg
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: Raw DCG@k with linear gains, sum_{r<=k} level(r)/log2(r+1), not normalised (ranx dcg@k).
-- source: ranx dcg (Järvelin et al. formulation); Järvelin & Kekäläinen, ACM TOIS 2002
CREATE OR REPLACE MACRO m_dcg(cutoff) AS TABLE
SELECT run_id, topic, dcg AS value FROM ev_ranx_dcg(cutoff, 0);

-- measure: dcg_burges
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: Raw DCG@k with exponential gains, sum_{r<=k} (2^level(r) - 1)/log2(r+1) (ranx
--      dcg_burges@k).
-- source: ranx dcg_burges; Burges et al., ICML 2005
CREATE OR REPLACE MACRO m_dcg_burges(cutoff) AS TABLE
SELECT run_id, topic, dcg AS value FROM ev_ranx_dcg(cutoff, 1);

-- measure: ndcg_burges
-- aliases: ir_measures nDCG(dcg=exp-log2); ranx ndcg_burges@k
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: dcg_burges@k over the same sum for the ideal list (the relevant documents by level,
--      descending, top k); 0 for a topic without relevant documents (ranx ndcg_burges@k;
--      ir_measures nDCG(dcg='exp-log2')@k through ranx).
-- source: ranx ndcg_burges; Burges et al., ICML 2005
CREATE OR REPLACE MACRO m_ndcg_burges(cutoff) AS TABLE
WITH relevant AS (
    SELECT topic, rel,
           row_number() OVER (PARTITION BY topic ORDER BY rel DESC) AS pos
    FROM ev_judgment
    WHERE rel >= 0 AND topic IN (SELECT topic FROM ev_topic)
),
ideal AS (
    -- ev_topic's R documents are the relevant ones; the others are ranked after them
    SELECT r.topic, sum((pow(2.0, r.rel) - 1) / log2(r.pos + 1) ORDER BY r.pos) AS idcg
    FROM relevant r JOIN ev_topic t ON t.topic = r.topic
    WHERE r.pos <= t.num_rel AND (cutoff = 0 OR r.pos <= cutoff)
    GROUP BY r.topic
)
SELECT d.run_id, d.topic,
       CASE WHEN coalesce(i.idcg, 0) > 0 THEN d.dcg / i.idcg ELSE 0.0 END AS value
FROM ev_ranx_dcg(cutoff, 1) d
LEFT JOIN ideal i ON i.topic = d.topic;

-- measure: hits
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: The number of relevant documents in the top k (ranx hits@k).
-- source: ranx hits
CREATE OR REPLACE MACRO m_hits(cutoff) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.n, 0) AS value
FROM ev_base() b
LEFT JOIN (SELECT run_id, topic, count(*) AS n FROM ev_ranx_gained(cutoff, 0)
           GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic;

-- measure: f1
-- params: cutoff INTEGER = 0
-- summary: mean
-- doc: F1@k = 2 P R / (P + R) with P = hits@k / k (k = 0: / the list's length) and R =
--      hits@k / R; 0 when nothing relevant is in the top k (ranx f1@k; trec_eval's set_F with
--      -M k divides by min(k, retrieved) instead).
-- source: ranx f1; van Rijsbergen, Information Retrieval 1979
CREATE OR REPLACE MACRO m_f1(cutoff) AS TABLE
WITH counted AS (
    SELECT b.run_id, b.topic, b.num_rel,
           CASE WHEN cutoff = 0 THEN b.num_ret ELSE cutoff END AS looked_at,
           coalesce(x.n, 0) AS n
    FROM ev_base() b
    LEFT JOIN (SELECT run_id, topic, count(*) AS n FROM ev_ranx_gained(cutoff, 0)
               GROUP BY run_id, topic) x ON x.run_id = b.run_id AND x.topic = b.topic
)
SELECT run_id, topic,
       CASE WHEN n = 0 THEN 0.0
            ELSE 2.0 * (n / looked_at) * (n / num_rel) / (n / looked_at + n / num_rel)
       END AS value
FROM counted;
