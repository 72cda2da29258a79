-- NTCIREVAL's rank-biased normalised cumulative utility (NCU) metrics: Sakai & Robertson,
-- "Modelling a user population for designing information retrieval metrics", EVIA 2008 (cited as
-- [8] in NTCIREVAL's README), as ntcir_eval.c `eval_compute` computes them ("NCUrb,P",
-- "NCUrb,BR", "NCUrb,IE"; IE added 2020-05-27). The user stops at the c-th relevant document
-- with probability proportional to gamma^(c-1); the utility there is precision C(r)/r (P),
-- the blended ratio BR(r) (BR) or the "inverse effort" rbu_p^r (IE).
-- Without a cutoff the stopping distribution is normalised by sum_{i=1..R} gamma^(i-1); at a
-- cutoff ntcir_eval divides by min(k, R) instead (a quirk of the 2020 code, reproduced).
-- source: NTCIREVAL ntcir_eval.c eval_compute; Sakai & Robertson, EVIA 2008

-- block: ntcir_gamma_norm
-- sum_{i=1..R} gamma^(i-1), in closed form.
CREATE OR REPLACE MACRO ntcir_gamma_norm(gamma, num_rel) AS
CASE WHEN gamma = 1 THEN CAST(num_rel AS DOUBLE)
     ELSE (1.0 - pow(gamma, num_rel)) / (1.0 - gamma) END;

-- measure: NCUrb,P
-- ntcir: NCUrb,P = 106; NCUrb,P@k = 302
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; gamma DOUBLE = 0.95; cutoff INTEGER = NULL
-- doc: NCUrb,P = sum_{g(r)>0} (C(r)/r) gamma^(C(r)-1) / sum_{i=1..R} gamma^(i-1).
--      At a cutoff k (NCUrb,P@k): NCUrb,P@k = sum_{r<=k, g(r)>0} (C(r)/r) gamma^(C(r)-1) / min(k, R) (ntcir_eval.c).
CREATE OR REPLACE MACRO m_ntcir_ncurb_p(gains, gamma, cutoff) AS TABLE
SELECT run_id, topic, ncup_sum / CASE WHEN cutoff IS NULL THEN ntcir_gamma_norm(gamma, num_rel) ELSE d END AS value
FROM ntcir_sums(gains, 1.0, gamma, 0.95, 0.99, 2.0, cutoff);

-- measure: NCUrb,BR
-- ntcir: NCUrb,BR = 107; NCUrb,BR@k = 303
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0; gamma DOUBLE = 0.95; cutoff INTEGER = NULL
-- doc: NCUrb,BR = sum_{g(r)>0} BR(r) gamma^(C(r)-1) / sum_{i=1..R} gamma^(i-1).
--      At a cutoff k (NCUrb,BR@k): NCUrb,BR@k = sum_{r<=k, g(r)>0} BR(r) gamma^(C(r)-1) / min(k, R) (ntcir_eval.c).
CREATE OR REPLACE MACRO m_ntcir_ncurb_br(gains, beta, gamma, cutoff) AS TABLE
SELECT run_id, topic, ncubr_sum / CASE WHEN cutoff IS NULL THEN ntcir_gamma_norm(gamma, num_rel) ELSE d END AS value
FROM ntcir_sums(gains, beta, gamma, 0.95, 0.99, 2.0, cutoff);

-- measure: NCUrb,IE
-- ntcir: NCUrb,IE = 108; NCUrb,IE@k = 304
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; gamma DOUBLE = 0.95; rbu_p DOUBLE = 0.99; cutoff INTEGER = NULL
-- doc: NCUrb,IE = sum_{g(r)>0} rbu_p^r gamma^(C(r)-1) / sum_{i=1..R} gamma^(i-1).
--      At a cutoff k (NCUrb,IE@k): NCUrb,IE@k = sum_{r<=k, g(r)>0} rbu_p^r gamma^(C(r)-1) / min(k, R) (ntcir_eval.c).
CREATE OR REPLACE MACRO m_ntcir_ncurb_ie(gains, gamma, rbu_p, cutoff) AS TABLE
SELECT run_id, topic, ncuie_sum / CASE WHEN cutoff IS NULL THEN ntcir_gamma_norm(gamma, num_rel) ELSE d END AS value
FROM ntcir_sums(gains, 1.0, gamma, 0.95, rbu_p, 2.0, cutoff);


-- block: ntcir_ncugu
-- Graded-uniform NCU (Sakai & Robertson, EVIA 2008): the user stops at a relevant document
-- with probability proportional to its stop value, here its gain (ntcir_eval's default
-- `-s` = `-g`); printed by ntcir_eval builds up to 2019 (e.g. 190111), commented out in the
-- 2020-05-27 build. Sums: sum_{g(r)>0} NU(r) g(r); the normaliser is sum over the judged
-- relevant documents of their gain, cg*(R).
CREATE OR REPLACE MACRO ntcir_ncugu(gains, beta) AS TABLE
WITH s AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed((CAST(c AS DOUBLE) / rank) * g)) FILTER (WHERE g > 0))
               AS p_sum,
           ev_from_fixed(sum(ev_to_fixed(br * g)) FILTER (WHERE g > 0)) AS br_sum
    FROM ntcir_list(gains, beta) GROUP BY run_id, topic
),
norm AS (SELECT topic, max(icg) AS su FROM ntcir_ideal(gains) GROUP BY topic)
SELECT b.run_id, b.topic, coalesce(s.p_sum, 0.0) / n.su AS p_value,
       coalesce(s.br_sum, 0.0) / n.su AS br_value
FROM ntcir_base(gains) b
JOIN norm n ON n.topic = b.topic
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;

-- measure: NCUgu,P
-- ntcir: NCUgu,P = 203
-- dialect: ntcireval
-- params: gains MAP = {}
-- doc: NCUgu,P = sum_{g(r)>0} (C(r)/r) g(r) / sum_{judged relevant} g (ntcir_eval <= 2019).
CREATE OR REPLACE MACRO m_ntcir_ncugu_p(gains) AS TABLE
SELECT run_id, topic, p_value AS value FROM ntcir_ncugu(gains, 1.0);

-- measure: NCUgu,BR
-- ntcir: NCUgu,BR = 204
-- dialect: ntcireval
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: NCUgu,BR = sum_{g(r)>0} BR(r) g(r) / sum_{judged relevant} g (ntcir_eval <= 2019).
CREATE OR REPLACE MACRO m_ntcir_ncugu_br(gains, beta) AS TABLE
SELECT run_id, topic, br_value AS value FROM ntcir_ncugu(gains, beta);
