-- NTCIREVAL's per-topic facts and the Q-measure family (Sakai), computed as ntcir_eval.c
-- `eval_compute` does (NTCIREVAL, WASEDA-IREVAL build; docs/ntcireval_semantics.md), over the
-- building blocks of _ntcir.sql. BR(r) = (beta cg(r) + C(r)) / (beta cg*(r) + r) is the
-- blended ratio (Sakai; Sakai, PROMISE 2014, eq 11). Topics with R = 0 have no value (ntcir_eval prints
-- nothing for them). `gains` = MAP(level -> gain), ntcir_eval's `-g`.
-- source: NTCIREVAL ntcir_eval.c eval_compute; Sakai, PROMISE 2014, eq 9-16; Sakai, IPSJ TOD 2007

-- measure: syslen
-- ntcir: syslen = 0
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j, ntcir-facts
-- params: gains MAP = {}
-- integer: true
-- doc: `# syslen=`: length of the evaluated list (NTCIREVAL: at most 1000 in file order).
CREATE OR REPLACE MACRO m_ntcir_syslen(gains) AS TABLE
SELECT run_id, topic, syslen AS value FROM ntcir_base(gains);

-- measure: jrel
-- ntcir: jrel = 1
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j, ntcir-facts
-- params: gains MAP = {}
-- integer: true
-- doc: `jrel=`: R, the judged documents of level >= 1 (ntcir_eval.c count_judged).
CREATE OR REPLACE MACRO m_ntcir_jrel(gains) AS TABLE
SELECT run_id, topic, num_rel AS value FROM ntcir_base(gains);

-- measure: jnonrel
-- ntcir: jnonrel = 2
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j, ntcir-facts
-- params: gains MAP = {}
-- integer: true
-- doc: `jnonrel=`: N, the judged L0 documents (ntcir_eval.c count_judged).
CREATE OR REPLACE MACRO m_ntcir_jnonrel(gains) AS TABLE
SELECT run_id, topic, num_nonrel AS value FROM ntcir_base(gains);

-- measure: r1
-- ntcir: r1 = 3
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j, ntcir-facts
-- params: gains MAP = {}
-- integer: true
-- doc: `# r1=`: rank of the first relevant document, 0 if none.
CREATE OR REPLACE MACRO m_ntcir_r1(gains) AS TABLE
SELECT run_id, topic, r1 AS value FROM ntcir_marks(gains, 1.0);

-- measure: rp
-- ntcir: rp = 4
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j, ntcir-facts
-- params: gains MAP = {}
-- integer: true
-- doc: `rp=`: the first rank holding the highest level present in the list (Sakai, IPSJ TOD 2007, sec 3.3),
--      over the whole evaluated list as ntcir_eval; 0 if nothing relevant is retrieved.
CREATE OR REPLACE MACRO m_ntcir_rp(gains) AS TABLE
SELECT run_id, topic, rp AS value FROM ntcir_marks(gains, 1.0);

-- measure: RR
-- ntcir: RR = 100
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}
-- doc: RR = 1/r1, 0 if nothing relevant is retrieved (ntcir_eval.c eval_compute "RR").
CREATE OR REPLACE MACRO m_ntcir_rr(gains) AS TABLE
SELECT run_id, topic, CASE WHEN r1 > 0 THEN 1.0 / r1 ELSE 0.0 END AS value
FROM ntcir_marks(gains, 1.0);

-- measure: O-measure
-- ntcir: O-measure = 101
-- dialect: ntcireval
-- aliases: ntcireval O
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: O-measure = BR(r1), 0 if r1 = 0 (Sakai, IPSJ TOD 2007, sec 3.2;
--      ntcir_eval.c eval_compute "O-measure").
CREATE OR REPLACE MACRO m_ntcir_o(gains, beta) AS TABLE
SELECT run_id, topic, coalesce(br_r1, 0.0) AS value FROM ntcir_marks(gains, beta);

-- measure: P-measure
-- ntcir: P-measure = 102
-- dialect: ntcireval
-- aliases: ntcireval P
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: P-measure = BR(rp), 0 if rp = 0 (Sakai, IPSJ TOD 2007, sec 3.3; ntcir_eval.c "P-measure").
CREATE OR REPLACE MACRO m_ntcir_p(gains, beta) AS TABLE
SELECT run_id, topic, coalesce(br_rp, 0.0) AS value FROM ntcir_marks(gains, beta);

-- measure: P-plus
-- ntcir: P-plus = 103
-- dialect: ntcireval
-- aliases: ntcireval P+; ntcireval Pplus
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: P+ = (1/C(rp)) sum_{r <= rp, g(r) > 0} BR(r), 0 if rp = 0 (Sakai, IPSJ TOD 2007, sec 3.3;
--      ntcir_eval.c "P-plus").
CREATE OR REPLACE MACRO m_ntcir_pplus(gains, beta) AS TABLE
SELECT run_id, topic, CASE WHEN rp > 0 THEN pplus_sum / c_rp ELSE 0.0 END AS value
FROM ntcir_marks(gains, beta);

-- measure: AP
-- ntcir: AP = 104; AP@k = 300
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; cutoff INTEGER = NULL
-- doc: AP = (1/R) sum_{g(r) > 0} C(r)/r (Sakai, PROMISE 2014, eq 9; ntcir_eval.c "AP").
--      At a cutoff k (AP@k): AP@l = (1/min(l,R)) sum_{r <= l, g(r) > 0} C(r)/r (Sakai, PROMISE 2014, eq 10; ntcir_eval.c "AP@").
CREATE OR REPLACE MACRO m_ntcir_ap(gains, cutoff) AS TABLE
SELECT run_id, topic, ap_sum / d AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: Q
-- ntcir: Q-measure = 105; Q@k = 301
-- aliases: ntcireval Q-measure@k
-- dialect: ntcireval
-- sets: ntcireval, ntcireval-j
-- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = NULL
-- doc: Q-measure = (1/R) sum_{g(r) > 0} BR(r); beta = 0 gives AP (Sakai; Sakai, PROMISE 2014, eq 11-12;
--      ntcir_eval.c "Q-measure"). At a cutoff k (Q@k): Q@l = (1/min(l,R)) sum_{r <= l, g(r) > 0}
--      BR(r) (Sakai, PROMISE 2014, eq 12; ntcir_eval.c "Q@").
CREATE OR REPLACE MACRO m_ntcir_q(gains, beta, cutoff) AS TABLE
SELECT run_id, topic, q_sum / d AS value
FROM ntcir_sums(gains, beta, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: G_Q
-- dialect: irw
-- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = NULL
-- summary: gmean
-- doc: The geometric mean of the Q-measure over topics, Q floored at 1e-5 first as trec_eval's
--      gm_map floors AP (Robertson, CIKM 2006: GMAP); per topic the floored Q. Any measure's
--      geometric mean is `gm:NAME` (docs/measure_names.md); G_Q is gm:Q with the floored
--      values printed per topic.
-- source: Sakai, PROMISE 2014, eq 11-12 (Q); Robertson, "On GMAP", CIKM 2006; trec_eval m_gm_map.c
CREATE OR REPLACE MACRO m_g_q(gains, beta, cutoff) AS TABLE
SELECT run_id, topic, greatest(value, 0.00001) AS value FROM m_ntcir_q(gains, beta, cutoff);

-- measure: R-measure
-- ntcir: R-measure = 200
-- dialect: ntcireval
-- aliases: ntcireval R
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: R-measure = BR(R) = (beta cg(R) + C(R)) / (beta cg*(R) + R) (Sakai; METRICS.md "Graded
--      metrics of the NCU family"; not printed by ntcir_eval).
CREATE OR REPLACE MACRO m_ntcir_r(gains, beta) AS TABLE
WITH ideal AS (SELECT topic, max(icg) AS icg FROM ntcir_ideal(gains) GROUP BY topic),
top AS (
    SELECT run_id, topic, ev_from_fixed(sum(ev_to_fixed(g))) AS cg,
           count(*) FILTER (WHERE rel >= 1) AS c
    FROM ntcir_list(gains, beta) WHERE rank <= num_rel GROUP BY run_id, topic
)
SELECT b.run_id, b.topic,
       (beta * coalesce(t.cg, 0.0) + coalesce(t.c, 0)) / (beta * i.icg + b.num_rel) AS value
FROM ntcir_base(gains) b
JOIN ideal i ON i.topic = b.topic
LEFT JOIN top t ON t.run_id = b.run_id AND t.topic = b.topic;

-- measure: WRR
-- ntcir: WRR = 201
-- dialect: ntcireval
-- params: gains MAP = {}; penalties MAP = {1:4,2:3,3:2}
-- doc: Weighted reciprocal rank WRR = 1/(r1 - 1/pen(L(r1))), 0 if r1 = 0; penalties per level,
--      default B(L1):4, A(L2):3, S(L3):2 (Sakai, IPSJ TOD 2007, eq 4; not printed by
--      ntcir_eval).
CREATE OR REPLACE MACRO m_ntcir_wrr(gains, penalties) AS TABLE
SELECT run_id, topic,
       CASE WHEN r1 > 0 THEN 1.0 / (r1 - 1.0 / CAST(penalties[lvl_r1] AS DOUBLE)) ELSE 0.0 END
           AS value
FROM ntcir_marks(gains, 1.0);

-- measure: NWRR
-- ntcir: NWRR = 202
-- dialect: ntcireval
-- params: gains MAP = {}; penalties MAP = {1:4,2:3,3:2}
-- doc: Normalised WRR = (1 - 1/pen(M)) / (r1 - 1/pen(L(r1))), M = the topic's highest judged
--      level, 0 if r1 = 0 (Sakai, IPSJ TOD 2007, eq 5; not printed by ntcir_eval).
CREATE OR REPLACE MACRO m_ntcir_nwrr(gains, penalties) AS TABLE
WITH hi AS (SELECT topic, max(rel) AS m FROM ev_judgment GROUP BY topic)
SELECT k.run_id, k.topic,
       CASE WHEN k.r1 > 0
            THEN (1.0 - 1.0 / CAST(penalties[h.m] AS DOUBLE))
                 / (k.r1 - 1.0 / CAST(penalties[k.lvl_r1] AS DOUBLE))
            ELSE 0.0 END AS value
FROM ntcir_marks(gains, 1.0) k JOIN hi h ON h.topic = k.topic;
