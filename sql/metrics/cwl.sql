-- The C/W/L framework (Moffat, Bailey, Scholer & Thomas, ACM TOIS 2017; Azzopardi, Thomas &
-- Moffat, "cwl_eval: An evaluation tool for information retrieval", SIGIR 2019): a user reads
-- rank 1, and after reading rank i goes on to rank i+1 with the conditional continuation
-- probability C(i) that defines the metric. With P(i) = prod_{j<i} C(j) the probability of
-- reaching rank i, every metric reports what cwl_eval prints (all costs 1):
--   stat 1  EU   expected utility per item, the rate of gain: sum_i W(i) g(i), W = P / sum P
--                (the metric's usual value; ir_measures reports it)
--   stat 2  ETU  expected total utility: sum_i L(i) CG(i), L(i) = P(i) (1 - C(i)) the
--                probability of stopping at i, CG the cumulative gain
--   stat 3  EC   expected cost per item: sum_i W(i) cost(i) = 1 with unit costs
--   stat 4  ETC  expected total cost: sum_i L(i) cost(1..i) = sum_i L(i) i with unit costs
--   stat 5  ED   expected depth, the expected number of items read: sum_i P(i)
-- As cwl_eval, the ranking is padded with zero gains (or truncated) to `depth` ranks (its
-- --max_depth, 1000), so that the tail of the user model counts; unjudged documents gain 0 (its
-- worst case; residuals are not computed). Gains are the levels scaled into [0, 1] as ir_measures
-- feeds cwl_eval: g = (clip(level, min_rel, max_rel) - min_rel) / (max_rel - min_rel), negative
-- levels 0; the default min_rel = 0, max_rel = 1 makes every level >= 1 a gain of 1 (binary), as
-- cwl_eval on a 0/1 qrels. (cwl_eval reads gains from the qrels file directly; gains k/n are
-- written as levels k with max_rel = n.) Every cost is 1: cwl_eval's cost file of element types
-- has no counterpart here. The relevance threshold -l is not read.
-- Sums are exact (ev_from_fixed(sum(ev_to_fixed(x))), sql/context.sql; cwl_eval adds with numpy,
-- in no rank order) and P(i) is exp of the exact running sum of ln C(j): the same bits whatever
-- DuckDB's threads or plan (README "Bit-reproducible scores").
-- source: cwl_eval (ireval/cwl, Azzopardi, Thomas & Moffat, SIGIR 2019) ruler.measures; Moffat, Bailey, Scholer & Thomas, ACM TOIS 2017

-- block: ev_cwl_gained
-- Ranks 1..depth of every evaluated list with the scaled gain of the document there (0 past the
-- list's end and for unjudged documents) and the cumulative gain.
CREATE OR REPLACE MACRO ev_cwl_gained(min_rel, max_rel, depth) AS TABLE
WITH padded AS (
    SELECT b.run_id, b.topic, unnest(range(1, depth + 1)) AS rank
    FROM ev_base() b
    WHERE ev_require(max_rel > min_rel, 'max_rel must be greater than min_rel')
      AND ev_require(depth > 0, 'depth must be > 0')
),
gained AS (
    SELECT d.run_id, d.topic, d.rank,
           CASE WHEN k.rel IS NULL THEN 0.0
                ELSE (least(greatest(greatest(k.rel, 0), min_rel), max_rel) - min_rel)
                     / (max_rel - min_rel) END AS gain
    FROM padded d
    LEFT JOIN ev_ranked k ON k.run_id = d.run_id AND k.topic = d.topic AND k.rank = d.rank
)
SELECT run_id, topic, rank, gain,
       ev_from_fixed(sum(ev_to_fixed(gain)) OVER (PARTITION BY run_id, topic ORDER BY rank
                                                  ROWS UNBOUNDED PRECEDING)) AS cum_gain
FROM gained;

-- block: ev_cwl_stat
-- The five C/W/L statistics (stat 1..5, above) of every evaluated list for the metric `kind`
-- (ev_cwl_continue). P(i) is the product of the C(j) above i: 0 once some C(j) is 0, else
-- exp(sum_{j<i} ln C(j)) with the sum exact (a product window would multiply in an order that
-- depends on DuckDB's plan).
CREATE OR REPLACE MACRO ev_cwl_stat(kind, T, cutoff, p, min_rel, max_rel, depth, stat) AS TABLE
WITH continued AS (
    SELECT run_id, topic, rank, gain, cum_gain,
           ev_cwl_continue(kind, T, cutoff, p, rank, gain, cum_gain) AS cont
    FROM ev_cwl_gained(min_rel, max_rel, depth)
),
reached AS (
    SELECT run_id, topic, rank, gain, cum_gain, cont,
           CASE WHEN coalesce(sum(CASE WHEN cont = 0 THEN 1 ELSE 0 END) OVER w, 0) > 0 THEN 0.0
                ELSE coalesce(exp(ev_from_fixed(sum(ev_to_fixed(
                         CASE WHEN cont > 0 THEN ln(cont) ELSE 0.0 END)) OVER w)), 1.0)
           END AS reach
    FROM continued
    WINDOW w AS (PARTITION BY run_id, topic ORDER BY rank
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
summed AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(reach))) AS expected_depth,
           ev_from_fixed(sum(ev_to_fixed(reach * gain))) AS reach_gain,
           ev_from_fixed(sum(ev_to_fixed(reach * (1.0 - cont) * cum_gain))) AS total_utility,
           ev_from_fixed(sum(ev_to_fixed(reach * (1.0 - cont) * rank))) AS total_cost
    FROM reached
    GROUP BY run_id, topic
)
SELECT run_id, topic,
       CASE stat WHEN 1 THEN reach_gain / expected_depth
                 WHEN 2 THEN total_utility
                 WHEN 3 THEN expected_depth / expected_depth
                 WHEN 4 THEN total_cost
                 WHEN 5 THEN expected_depth
                 ELSE CAST(error('stat must be 1 (EU), 2 (ETU), 3 (EC), 4 (ETC) or 5 (ED)')
                           AS DOUBLE) END AS value
FROM summed;

-- block: ev_cwl_continue
-- C(i), the probability of going on from rank i to i+1, of each metric (cwl_eval's c_vector),
-- with i = rank, g = the gain at i, CG = the cumulative gain to i, k = cutoff:
--   P       1 for i < k                        (PrecisionCWLMetric)
--   RR      1 until the first gain > 0          (RRCWLMetric)
--   RBP     p                                  (RBPCWLMetric, theta)
--   INST    ((i + 2T - CG - 1) / (i + 2T - CG))^2   (INSTCWLMetric: T_i = T - CG)
--   INSQ    ((i + 2T - 1) / (i + 2T))^2         (INSQCWLMetric)
--   BPM     1 while CG < T and i < k            (BPMCWLMetric, static: T gain, K = k cost)
--   SDCG    log2(i+1)/log2(i+2) for i < k       (NDCGCWLMetric: scaled DCG@k)
--   NERR8   1 - g for i < k                     (NERReq8CWLMetric)
--   NERR9   i/(i+1) (1 - g) for i < k           (NERReq9CWLMetric)
--   NERR10  p (1 - g)                           (NERReq10CWLMetric, phi)
--   NERR11  ((i + 2T - 1) / (i + 2T))^2 (1 - g) (NERReq11CWLMetric)
CREATE OR REPLACE MACRO ev_cwl_continue(kind, T, cutoff, p, i, g, cg) AS
CASE kind
    WHEN 'P' THEN CASE WHEN i < cutoff THEN 1.0 ELSE 0.0 END
    WHEN 'RR' THEN CASE WHEN cg > 0 THEN 0.0 ELSE 1.0 END
    WHEN 'RBP' THEN CAST(p AS DOUBLE)
    WHEN 'INST' THEN pow((i + 2.0 * T - cg - 1.0) / (i + 2.0 * T - cg), 2)
    WHEN 'INSQ' THEN pow((i + 2.0 * T - 1.0) / (i + 2.0 * T), 2)
    WHEN 'BPM' THEN CASE WHEN cg < T AND i < cutoff THEN 1.0 ELSE 0.0 END
    WHEN 'SDCG' THEN CASE WHEN i < cutoff THEN log2(i + 1.0) / log2(i + 2.0) ELSE 0.0 END
    WHEN 'NERR8' THEN CASE WHEN i < cutoff THEN 1.0 - g ELSE 0.0 END
    WHEN 'NERR9' THEN CASE WHEN i < cutoff THEN i / (i + 1.0) * (1.0 - g) ELSE 0.0 END
    WHEN 'NERR10' THEN p * (1.0 - g)
    WHEN 'NERR11' THEN pow((i + 2.0 * T - 1.0) / (i + 2.0 * T), 2) * (1.0 - g)
END;

-- measure: cwl_P
-- syntax: named
-- positive: depth
-- params: cutoff INTEGER = 10; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Precision@k as a C/W/L metric, C(i) = 1 for i < k (EU = graded P@k); stat 1..5 = EU,
--      ETU, EC, ETC, ED.
-- source: cwl_eval PrecisionCWLMetric; Azzopardi, Thomas & Moffat, SIGIR 2019
CREATE OR REPLACE MACRO m_cwl_p(cutoff, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value FROM ev_cwl_stat('P', 0, cutoff, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_RR
-- syntax: named
-- positive: depth
-- params: min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000; stat INTEGER = 1
-- summary: mean
-- doc: Reciprocal rank as a C/W/L metric: the user stops at the first item with gain > 0
--      (EU = 1/r1 with binary gains); stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval RRCWLMetric; Kantor & Voorhees, Information Retrieval 2000
CREATE OR REPLACE MACRO m_cwl_rr(min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value FROM ev_cwl_stat('RR', 0, 0, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_RBP
-- aliases: ir_measures RBP(rel=*,p=0.8)
-- syntax: named
-- positive: p, depth
-- params: p DOUBLE = 0.9; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1; rel INTEGER = NULL
-- summary: mean
-- doc: Rank-biased precision as a C/W/L metric, C(i) = p (EU = (1-p) sum g(i) p^(i-1) over
--      depth ranks, / (1 - p^depth)); stat 1..5 = EU, ETU, EC, ETC, ED. rel = r: binary gains,
--      1 for a level >= r (min_rel = r - 1, max_rel = r): ir_measures' RBP(rel=r), which it
--      computes with cwl_eval (its default p = 0.8).
-- source: cwl_eval RBPCWLMetric; ir_measures RBP(rel=r) (cwl_eval provider); Moffat & Zobel, ACM TOIS 2008
CREATE OR REPLACE MACRO m_cwl_rbp(p, min_rel, max_rel, depth, stat, rel) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('RBP', 0, 0, p, coalesce(rel - 1, min_rel), coalesce(rel, max_rel), depth, stat);

-- measure: cwl_INST
-- syntax: named
-- positive: T, depth
-- params: T DOUBLE = 1; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: INST, the adaptive metric whose user wants T units of gain: C(i) = ((i + T + T_i - 1) /
--      (i + T + T_i))^2, T_i = T - CG(i); stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval INSTCWLMetric; Moffat, Bailey, Scholer & Thomas, ADCS 2015
CREATE OR REPLACE MACRO m_cwl_inst(T, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value FROM ev_cwl_stat('INST', T, 0, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_INSQ
-- syntax: named
-- positive: T, depth
-- params: T DOUBLE = 1; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: INSQ, INST without the adaptation to the gain seen: C(i) = ((i + 2T - 1)/(i + 2T))^2;
--      stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval INSQCWLMetric; Moffat, Scholer & Thomas, ADCS 2012
CREATE OR REPLACE MACRO m_cwl_insq(T, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value FROM ev_cwl_stat('INSQ', T, 0, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_BPM
-- syntax: named
-- positive: T, depth
-- params: T DOUBLE = 1; cutoff INTEGER = 10; min_rel INTEGER = 0; max_rel INTEGER = 1;
--         depth INTEGER = 1000; stat INTEGER = 1
-- summary: mean
-- doc: The static Bejeweled Player Model: the user goes on while the gain so far is below T and
--      the cost so far (items read) below K = k, C(i) = [CG(i) < T and i < k]; stat 1..5 = EU,
--      ETU, EC, ETC, ED.
-- source: cwl_eval BPMCWLMetric; Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017
CREATE OR REPLACE MACRO m_cwl_bpm(T, cutoff, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('BPM', T, cutoff, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_SDCG
-- syntax: named
-- positive: depth
-- params: cutoff INTEGER = 10; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Scaled DCG@k: DCG@k's discount 1/log2(i+1) made a distribution over the top k, C(i) =
--      log2(i+1)/log2(i+2) for i < k (EU = DCG@k / sum_{i<=k} 1/log2(i+1)); stat 1..5 = EU,
--      ETU, EC, ETC, ED.
-- source: cwl_eval NDCGCWLMetric (printed NDCG-k@k); ir_measures SDCG@k; Järvelin & Kekäläinen, ACM TOIS 2002; Moffat, Bailey, Scholer & Thomas, ACM TOIS 2017
CREATE OR REPLACE MACRO m_cwl_sdcg(cutoff, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('SDCG', 0, cutoff, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_NERR8
-- syntax: named
-- positive: depth
-- params: cutoff INTEGER = 10; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Not (but nearly) ERR, eq 8: gain-based stopping truncated at k, C(i) = 1 - g(i) for
--      i < k; stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval NERReq8CWLMetric; ir_measures NERR8; Azzopardi, Mackenzie & Moffat, ICTIR 2021
CREATE OR REPLACE MACRO m_cwl_nerr8(cutoff, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('NERR8', 0, cutoff, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_NERR9
-- syntax: named
-- positive: depth
-- params: cutoff INTEGER = 10; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Not (but nearly) ERR, eq 9: gain-based stopping with RR's discount, truncated at k,
--      C(i) = i/(i+1) (1 - g(i)) for i < k; stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval NERReq9CWLMetric; ir_measures NERR9; Azzopardi, Mackenzie & Moffat, ICTIR 2021
CREATE OR REPLACE MACRO m_cwl_nerr9(cutoff, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('NERR9', 0, cutoff, 0, min_rel, max_rel, depth, stat);

-- measure: cwl_NERR10
-- syntax: named
-- positive: p, depth
-- params: p DOUBLE = 0.9; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Not (but nearly) ERR, eq 10: gain-based stopping with RBP's patience, C(i) = p (1 -
--      g(i)); stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval NERReq10CWLMetric (phi); ir_measures NERR10; Azzopardi, Mackenzie & Moffat, ICTIR 2021
CREATE OR REPLACE MACRO m_cwl_nerr10(p, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('NERR10', 0, 0, p, min_rel, max_rel, depth, stat);

-- measure: cwl_NERR11
-- syntax: named
-- positive: T, depth
-- params: T DOUBLE = 1; min_rel INTEGER = 0; max_rel INTEGER = 1; depth INTEGER = 1000;
--         stat INTEGER = 1
-- summary: mean
-- doc: Not (but nearly) ERR, eq 11: gain-based stopping with INSQ's goal T, C(i) = ((i + 2T -
--      1)/(i + 2T))^2 (1 - g(i)); stat 1..5 = EU, ETU, EC, ETC, ED.
-- source: cwl_eval NERReq11CWLMetric; ir_measures NERR11; Azzopardi, Mackenzie & Moffat, ICTIR 2021
CREATE OR REPLACE MACRO m_cwl_nerr11(T, min_rel, max_rel, depth, stat) AS TABLE
SELECT run_id, topic, value
FROM ev_cwl_stat('NERR11', T, 0, 0, min_rel, max_rel, depth, stat);
