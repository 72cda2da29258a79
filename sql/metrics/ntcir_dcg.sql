-- NTCIREVAL's cumulated-gain and set metrics at a cutoff k, as ntcir_eval.c `eval_compute`:
--   nDCG@k: Jarvelin & Kekalainen, "Cumulated gain-based evaluation of IR techniques", TOIS 2002
--     DCG = sum_{r<=k} g(r)/dcglog_b(r) with no discount at ranks r <= b (and at
--     rank 1), log_b(r) after (b = 0: natural log; ntcir_eval.c `orig_dcglog`, `-logb`), over
--     the ideal list's DCG@k.
--   MSnDCG@k: the "Microsoft" form of Burges et al., ICML 2005: sum_{r<=k} g(r)/ln(r+1) over the
--     ideal's (the log base cancels; = trec_eval's log2(r+1) nDCG with NTCIREVAL gains).
--   Prec@k = C(k)/k (k even when the list is shorter); Hit@k = 1 if C(k) > 0.
-- source: NTCIREVAL ntcir_eval.c eval_compute; Järvelin & Kekäläinen, ACM TOIS 2002; Burges et al., ICML 2005

-- measure: nDCG
-- ntcir: nDCG@k = 305
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; logb DOUBLE = 2.0; cutoff INTEGER = 1000
-- doc: nDCG@k, Jarvelin-Kekalainen discount with log base b (ntcir_eval.c "nDCG@").
CREATE OR REPLACE MACRO m_ntcir_ndcg_at(gains, logb, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.dcg / nullif(i.dcg, 0) AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, logb, cutoff) s
JOIN ntcir_ideal_sums(gains, 0.95, 0.99, logb, cutoff) i ON i.topic = s.topic;

-- measure: MSnDCG
-- ntcir: MSnDCG@k = 306
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = 1000
-- doc: MSnDCG@k = sum_{r<=k} g(r)/ln(r+1) / the same for the ideal list (ntcir_eval.c "MSnDCG@").
CREATE OR REPLACE MACRO m_ntcir_msndcg_at(gains, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.msdcg / nullif(i.msdcg, 0) AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff) s
JOIN ntcir_ideal_sums(gains, 0.95, 0.99, 2.0, cutoff) i ON i.topic = s.topic;

-- measure: Prec
-- ntcir: Prec@k = 307
-- dialect: ntcireval
-- aliases: ntcireval P@k
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = 1000
-- doc: Prec@k = C(k)/k (ntcir_eval.c "Prec@", printed "P@" before 2020).
CREATE OR REPLACE MACRO m_ntcir_prec_at(gains, cutoff) AS TABLE
SELECT run_id, topic, CAST(c_k AS DOUBLE) / cutoff AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: Hit
-- ntcir: Hit@k = 316
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = 1000
-- doc: Hit@k = 1 if a relevant document is in the top k, else 0 (ntcir_eval.c "Hit@").
CREATE OR REPLACE MACRO m_ntcir_hit_at(gains, cutoff) AS TABLE
SELECT run_id, topic, CASE WHEN c_k > 0 THEN 1.0 ELSE 0.0 END AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff);
