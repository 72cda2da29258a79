-- NTCIREVAL's user-model metrics, as ntcir_eval.c `eval_compute` computes them:
--   RBP: Moffat & Zobel, "Rank-biased precision for measurement of retrieval effectiveness",
--        TOIS 2008; ntcir_eval scales the gains by gmax: (1-p) sum_r g(r) p^(r-1) / gmax.
--   ERR: Chapelle et al., "Expected reciprocal rank for graded relevance", CIKM 2009, with the
--        stop probability pi(r) = g(r)/(gmax+1) (gains 2^l - 1 give Chapelle's (2^l-1)/2^H):
--        ERR = sum_r dsat(r-1) pi(r) / r, dsat(r) = prod_{i<=r} (1 - pi(i)).
--   EBR: "expected blended ratio" (ntcir_eval.c, 2018, no paper cited): ERR's cascade with the
--        utility BR(r) in place of 1/r: sum_r BR(r) dsat(r-1) pi(r).
--   iRBU: "intentwise rank-biased utility", RBU of Amigo et al., SIGIR 2018 without its effort
--        cost (ntcir_eval.c cites "SIGIR18"; used in Sakai & Zeng, SIGIR 2019):
--        sum_r rbu_p^r dsat(r-1) pi(r).
-- The n* forms divide by the same quantity for the ideal list's top k (for nEBR, BR = 1 there).
-- source: NTCIREVAL ntcir_eval.c eval_compute; Moffat & Zobel, ACM TOIS 2008; Chapelle et al., CIKM 2009; Amigó et al., SIGIR 2018

-- measure: RBP
-- ntcir: RBP = 109; RBP@k = 308
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; p DOUBLE = 0.95; cutoff INTEGER = NULL
-- doc: RBP = (1-p) sum_r g(r) p^(r-1) / gmax over the whole list (ntcir_eval.c "RBP").
--      At a cutoff k (RBP@k): RBP@k = (1-p) sum_{r<=k} g(r) p^(r-1) / gmax (ntcir_eval.c "RBP@").
CREATE OR REPLACE MACRO m_ntcir_rbp(gains, p, cutoff) AS TABLE
SELECT run_id, topic, (1.0 - p) * rbp_sum / gmax AS value
FROM ntcir_sums(gains, 1.0, 0.95, p, 0.99, 2.0, cutoff);

-- measure: ERR
-- ntcir: ERR = 110; ERR@k = 310
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = NULL
-- doc: ERR = sum_r dsat(r-1) pi(r)/r, pi = g/(gmax+1), over the whole list (ntcir_eval.c "ERR").
--      At a cutoff k (ERR@k): ERR@k: ERR over the top k (ntcir_eval.c "ERR@").
CREATE OR REPLACE MACRO m_ntcir_err(gains, cutoff) AS TABLE
SELECT run_id, topic, err AS value FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: EBR
-- ntcir: EBR = 111; EBR@k = 312
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = NULL
-- doc: EBR = sum_r BR(r) dsat(r-1) pi(r) over the whole list (ntcir_eval.c "EBR").
--      At a cutoff k (EBR@k): EBR@k: EBR over the top k (ntcir_eval.c "EBR@").
CREATE OR REPLACE MACRO m_ntcir_ebr(gains, beta, cutoff) AS TABLE
SELECT run_id, topic, ebr AS value FROM ntcir_sums(gains, beta, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: iRBU
-- ntcir: iRBU = 112; iRBU@k = 314
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; rbu_p DOUBLE = 0.99; cutoff INTEGER = NULL
-- doc: iRBU = sum_r rbu_p^r dsat(r-1) pi(r) over the whole list (ntcir_eval.c "iRBU").
--      At a cutoff k (iRBU@k): iRBU@k: iRBU over the top k (ntcir_eval.c "iRBU@").
CREATE OR REPLACE MACRO m_ntcir_irbu(gains, rbu_p, cutoff) AS TABLE
SELECT run_id, topic, irbu AS value FROM ntcir_sums(gains, 1.0, 0.95, 0.95, rbu_p, 2.0, cutoff);

-- measure: nRBP
-- ntcir: nRBP@k = 309
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; p DOUBLE = 0.95; cutoff INTEGER = 1000
-- doc: nRBP@k = sum_{r<=k} g(r) p^(r-1) / sum_{r<=k} g*(r) p^(r-1) (ntcir_eval.c "nRBP@").
CREATE OR REPLACE MACRO m_ntcir_nrbp_at(gains, p, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.rbp_sum / nullif(i.rbp_sum, 0) AS value
FROM ntcir_sums(gains, 1.0, 0.95, p, 0.99, 2.0, cutoff) s
JOIN ntcir_ideal_sums(gains, p, 0.99, 2.0, cutoff) i ON i.topic = s.topic;

-- measure: nERR
-- ntcir: nERR@k = 311
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = 1000
-- doc: nERR@k = ERR@k / the ideal list's ERR@k (ntcir_eval.c "nERR@").
CREATE OR REPLACE MACRO m_ntcir_nerr_at(gains, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.err / nullif(i.err, 0) AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff) s
JOIN ntcir_ideal_sums(gains, 0.95, 0.99, 2.0, cutoff) i ON i.topic = s.topic;

-- measure: nEBR
-- ntcir: nEBR@k = 313
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = 1000
-- doc: nEBR@k = EBR@k / the ideal list's EBR@k, where BR = 1 (ntcir_eval.c "nEBR@").
CREATE OR REPLACE MACRO m_ntcir_nebr_at(gains, beta, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.ebr / nullif(i.ebr, 0) AS value
FROM ntcir_sums(gains, beta, 0.95, 0.95, 0.99, 2.0, cutoff) s
JOIN ntcir_ideal_sums(gains, 0.95, 0.99, 2.0, cutoff) i ON i.topic = s.topic;

-- measure: niRBU
-- ntcir: niRBU@k = 315
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; rbu_p DOUBLE = 0.99; cutoff INTEGER = 1000
-- doc: niRBU@k = iRBU@k / the ideal list's iRBU@k (ntcir_eval.c "niRBU@").
CREATE OR REPLACE MACRO m_ntcir_nirbu_at(gains, rbu_p, cutoff) AS TABLE
SELECT s.run_id, s.topic, s.irbu / nullif(i.irbu, 0) AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, rbu_p, 2.0, cutoff) s
JOIN ntcir_ideal_sums(gains, 0.95, rbu_p, 2.0, cutoff) i ON i.topic = s.topic;
