-- NTCIREVAL's per-topic facts and the Q-measure family (Sakai), computed as ntcir_eval.c
-- `eval_compute` does (NTCIREVAL, WASEDA-IREVAL build; docs/ntcireval_semantics.md), over the
-- building blocks of _ntcir.sql. BR(r) = (beta cg(r) + C(r)) / (beta cg*(r) + r) is the
-- blended ratio (Sakai; Sakai 2014 eq 11). Topics with R = 0 have no value (ntcir_eval prints
-- nothing for them). `gains` = MAP(level -> gain), ntcir_eval's `-g`.
-- source: NTCIREVAL ntcir_eval.c eval_compute; Sakai 2014 eq 9-16; Sakai, IPSJ TOD 2007

-- measure: ntcir_syslen
-- ntcir: syslen
-- params: gains MAP = {}
-- integer: true
-- doc: `# syslen=`: length of the evaluated list (NTCIREVAL: at most 1000 in file order).
CREATE OR REPLACE MACRO m_ntcir_syslen(gains) AS TABLE
SELECT run_id, topic, syslen AS value FROM ntcir_base(gains);

-- measure: ntcir_jrel
-- ntcir: jrel
-- params: gains MAP = {}
-- integer: true
-- doc: `jrel=`: R, the judged documents of level >= 1 (ntcir_eval.c count_judged).
CREATE OR REPLACE MACRO m_ntcir_jrel(gains) AS TABLE
SELECT run_id, topic, num_rel AS value FROM ntcir_base(gains);

-- measure: ntcir_jnonrel
-- ntcir: jnonrel
-- params: gains MAP = {}
-- integer: true
-- doc: `jnonrel=`: N, the judged L0 documents (ntcir_eval.c count_judged).
CREATE OR REPLACE MACRO m_ntcir_jnonrel(gains) AS TABLE
SELECT run_id, topic, num_nonrel AS value FROM ntcir_base(gains);

-- measure: ntcir_r1
-- ntcir: r1
-- params: gains MAP = {}
-- integer: true
-- doc: `# r1=`: rank of the first relevant document, 0 if none.
CREATE OR REPLACE MACRO m_ntcir_r1(gains) AS TABLE
SELECT run_id, topic, r1 AS value FROM ntcir_marks(gains, 1.0);

-- measure: ntcir_rp
-- ntcir: rp
-- params: gains MAP = {}
-- integer: true
-- doc: `rp=`: the first rank holding the highest level present in the list (Sakai 2007 sec 3.3),
--      over the whole evaluated list as ntcir_eval; 0 if nothing relevant is retrieved.
CREATE OR REPLACE MACRO m_ntcir_rp(gains) AS TABLE
SELECT run_id, topic, rp AS value FROM ntcir_marks(gains, 1.0);

-- measure: ntcir_rr
-- ntcir: RR
-- params: gains MAP = {}
-- doc: RR = 1/r1, 0 if nothing relevant is retrieved (ntcir_eval.c eval_compute "RR").
CREATE OR REPLACE MACRO m_ntcir_rr(gains) AS TABLE
SELECT run_id, topic, CASE WHEN r1 > 0 THEN 1.0 / r1 ELSE 0.0 END AS value
FROM ntcir_marks(gains, 1.0);

-- measure: ntcir_o
-- ntcir: O-measure
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: O-measure = BR(r1), 0 if r1 = 0 (Sakai, IPSJ TOD 2007 = Sakai 2007 sec 3.2;
--      ntcir_eval.c eval_compute "O-measure").
CREATE OR REPLACE MACRO m_ntcir_o(gains, beta) AS TABLE
SELECT run_id, topic, coalesce(br_r1, 0.0) AS value FROM ntcir_marks(gains, beta);

-- measure: ntcir_p
-- ntcir: P-measure
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: P-measure = BR(rp), 0 if rp = 0 (Sakai 2007 sec 3.3; ntcir_eval.c "P-measure").
CREATE OR REPLACE MACRO m_ntcir_p(gains, beta) AS TABLE
SELECT run_id, topic, coalesce(br_rp, 0.0) AS value FROM ntcir_marks(gains, beta);

-- measure: ntcir_pplus
-- ntcir: P-plus
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: P+ = (1/C(rp)) sum_{r <= rp, g(r) > 0} BR(r), 0 if rp = 0 (Sakai 2007 sec 3.3;
--      ntcir_eval.c "P-plus").
CREATE OR REPLACE MACRO m_ntcir_pplus(gains, beta) AS TABLE
SELECT run_id, topic, CASE WHEN rp > 0 THEN pplus_sum / c_rp ELSE 0.0 END AS value
FROM ntcir_marks(gains, beta);

-- measure: ntcir_ap
-- ntcir: AP
-- params: gains MAP = {}
-- doc: AP = (1/R) sum_{g(r) > 0} C(r)/r (Sakai 2014 eq 9; ntcir_eval.c "AP").
CREATE OR REPLACE MACRO m_ntcir_ap(gains) AS TABLE
SELECT run_id, topic, ap_sum / num_rel AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, NULL);

-- measure: ntcir_q
-- ntcir: Q-measure
-- params: gains MAP = {}; beta DOUBLE = 1.0
-- doc: Q-measure = (1/R) sum_{g(r) > 0} BR(r); beta = 0 gives AP (Sakai; Sakai 2014 eq 11-12;
--      ntcir_eval.c "Q-measure").
CREATE OR REPLACE MACRO m_ntcir_q(gains, beta) AS TABLE
SELECT run_id, topic, q_sum / num_rel AS value
FROM ntcir_sums(gains, beta, 0.95, 0.95, 0.99, 2.0, NULL);

-- measure: ntcir_r
-- ntcir: R-measure
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

-- measure: ntcir_ap_at
-- ntcir: AP@k
-- params: gains MAP = {}; cutoff INTEGER = 1000
-- doc: AP@l = (1/min(l,R)) sum_{r <= l, g(r) > 0} C(r)/r (Sakai 2014 eq 10; ntcir_eval.c "AP@").
CREATE OR REPLACE MACRO m_ntcir_ap_at(gains, cutoff) AS TABLE
SELECT run_id, topic, ap_sum / d AS value
FROM ntcir_sums(gains, 1.0, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: ntcir_q_at
-- ntcir: Q@k
-- params: gains MAP = {}; beta DOUBLE = 1.0; cutoff INTEGER = 1000
-- doc: Q@l = (1/min(l,R)) sum_{r <= l, g(r) > 0} BR(r) (Sakai 2014 eq 12; ntcir_eval.c "Q@").
CREATE OR REPLACE MACRO m_ntcir_q_at(gains, beta, cutoff) AS TABLE
SELECT run_id, topic, q_sum / d AS value
FROM ntcir_sums(gains, beta, 0.95, 0.95, 0.99, 2.0, cutoff);

-- measure: ntcir_wrr
-- ntcir: WRR
-- params: gains MAP = {}; penalties MAP = {1:4,2:3,3:2}
-- doc: Weighted reciprocal rank WRR = 1/(r1 - 1/pen(L(r1))), 0 if r1 = 0; penalties per level,
--      default B(L1):4, A(L2):3, S(L3):2 (Sakai, IPSJ TOD 2007 = Sakai 2007 eq 4; not printed by
--      ntcir_eval).
CREATE OR REPLACE MACRO m_ntcir_wrr(gains, penalties) AS TABLE
SELECT run_id, topic,
       CASE WHEN r1 > 0 THEN 1.0 / (r1 - 1.0 / CAST(penalties[lvl_r1] AS DOUBLE)) ELSE 0.0 END
           AS value
FROM ntcir_marks(gains, 1.0);

-- measure: ntcir_nwrr
-- ntcir: NWRR
-- params: gains MAP = {}; penalties MAP = {1:4,2:3,3:2}
-- doc: Normalised WRR = (1 - 1/pen(M)) / (r1 - 1/pen(L(r1))), M = the topic's highest judged
--      level, 0 if r1 = 0 (Sakai 2007 eq 5; not printed by ntcir_eval).
CREATE OR REPLACE MACRO m_ntcir_nwrr(gains, penalties) AS TABLE
WITH hi AS (SELECT topic, max(rel) AS m FROM ev_judgment GROUP BY topic)
SELECT k.run_id, k.topic,
       CASE WHEN k.r1 > 0
            THEN (1.0 - 1.0 / CAST(penalties[h.m] AS DOUBLE))
                 / (k.r1 - 1.0 / CAST(penalties[k.lvl_r1] AS DOUBLE))
            ELSE 0.0 END AS value
FROM ntcir_marks(gains, 1.0) k JOIN hi h ON h.topic = k.topic;
