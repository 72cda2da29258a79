-- NTCIREVAL's `compute -j` family: bpref and its alternatives, Sakai, "Alternatives to bpref",
-- SIGIR 2007 (Sakai 2014 eq 22-23), as ntcir_eval.c `eval_compute` computes them when given -j.
-- They are meant for the condensed list (ntcir_eval `label -j`; here `-J`), where
-- n(r) = r - C(r) is the number of judged non-relevant documents above rank r. Sums run over
-- ranks with g(r) > 0. N = 0 makes bpref, bpref_N and rpref_N undefined (ntcir_eval refuses
-- -j then): NULL here.
-- penalty(r) = sum_{j<r, g(j) < g(r)} (g(r) - g(j))/g(r), over every document above r
-- (an unjudged one, possible only without -J, counts as gain 0).
-- source: NTCIREVAL ntcir_eval.c eval_compute (-j); Sakai, SIGIR 2007

-- block: ntcir_bpref_rows
-- The relevant ranks of each list with n(r) and penalty(r).
CREATE OR REPLACE MACRO ntcir_bpref_rows(gains) AS TABLE
WITH l AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, topic ORDER BY rank) - 1 AS judged_above
    FROM ntcir_list(gains, 1.0)
),
pen AS (
    SELECT a.run_id, a.topic, a.rank, sum((a.g - b.g) / a.g) AS s
    FROM l a JOIN l b ON b.run_id = a.run_id AND b.topic = a.topic AND b.rank < a.rank
                     AND b.g < a.g
    WHERE a.g > 0
    GROUP BY a.run_id, a.topic, a.rank
)
SELECT l.run_id, l.topic, l.rank, l.g, l.rank - l.c AS n,
       coalesce(p.s, 0.0) + (l.rank - 1 - l.judged_above) AS penalty
FROM l LEFT JOIN pen p ON p.run_id = l.run_id AND p.topic = l.topic AND p.rank = l.rank
WHERE l.g > 0;

-- block: ntcir_bpref_sums
CREATE OR REPLACE MACRO ntcir_bpref_sums(gains) AS TABLE
WITH ideal AS (SELECT topic, max(icg) AS cg_r FROM ntcir_ideal(gains) GROUP BY topic),
s AS (
    SELECT x.run_id, x.topic,
           sum(1.0 - least(b.num_rel, x.n) / nullif(least(b.num_rel, b.num_nonrel), 0)) AS b,
           sum(1.0 - least(b.num_rel, x.n) / b.num_rel) AS b_r,
           sum(1.0 - x.n / nullif(b.num_nonrel, 0)) AS b_n,
           sum(CASE WHEN x.rank > 1 THEN 1.0 - x.n / (x.rank - 1) ELSE 0.0 END) AS b_rel,
           sum(x.g * (1.0 - x.penalty
                               / nullif(b.num_rel + b.num_nonrel - i.cg_r / b.gmax, 0))) AS r_n,
           sum(x.g * CASE WHEN x.rank > 1 THEN 1.0 - x.penalty / (x.rank - 1) ELSE 0.0 END)
               AS r_rel,
           sum(x.g * (1.0 - x.penalty / x.rank)) AS r_rel2
    FROM ntcir_bpref_rows(gains) x
    JOIN ntcir_base(gains) b ON b.run_id = x.run_id AND b.topic = x.topic
    JOIN ideal i ON i.topic = x.topic
    GROUP BY x.run_id, x.topic
)
SELECT b.run_id, b.topic, b.num_rel, b.num_nonrel, i.cg_r,
       CASE WHEN b.num_nonrel > 0 THEN coalesce(s.b, 0.0) END AS b,
       coalesce(s.b_r, 0.0) AS b_r,
       CASE WHEN b.num_nonrel > 0 THEN coalesce(s.b_n, 0.0) END AS b_n,
       coalesce(s.b_rel, 0.0) AS b_rel,
       CASE WHEN b.num_nonrel > 0 THEN coalesce(s.r_n, 0.0) END AS r_n, coalesce(s.r_rel, 0.0) AS r_rel,
       coalesce(s.r_rel2, 0.0) AS r_rel2
FROM ntcir_base(gains) b
JOIN ideal i ON i.topic = b.topic
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;

-- measure: ntcir:bpref
-- ntcir: bpref = 900
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: bpref = (1/R) sum_rel [1 - min(R, n(r))/min(R, N)] (condensed list; ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_bpref(gains) AS TABLE
SELECT run_id, topic, b / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: bpref_R
-- ntcir: bpref_R = 901
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: bpref_R = (1/R) sum_rel [1 - min(R, n(r))/R] (Sakai SIGIR 2007; ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_bpref_r(gains) AS TABLE
SELECT run_id, topic, b_r / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: bpref_N
-- ntcir: bpref_N = 902
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: bpref_N = (1/R) sum_rel [1 - n(r)/N] (Sakai SIGIR 2007; ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_bpref_n(gains) AS TABLE
SELECT run_id, topic, b_n / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: bpref_relative
-- ntcir: bpref_relative = 903
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: bpref_relative = (1/R) sum_rel [1 - n(r)/(r-1)], 0 at r = 1 (ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_bpref_relative(gains) AS TABLE
SELECT run_id, topic, b_rel / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: rpref_N
-- ntcir: rpref_N = 904
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: rpref_N = sum_rel g(r) [1 - penalty(r)/(R + N - cg*(R)/gmax)] / cg*(R), the graded
--      bpref_N (Sakai SIGIR 2007; ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_rpref_n(gains) AS TABLE
SELECT run_id, topic, r_n / cg_r AS value FROM ntcir_bpref_sums(gains);

-- measure: rpref_relative
-- ntcir: rpref_relative = 905
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: rpref_relative = sum_rel g(r) [1 - penalty(r)/(r-1)] / cg*(R), 0 at r = 1
--      (ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_rpref_relative(gains) AS TABLE
SELECT run_id, topic, r_rel / cg_r AS value FROM ntcir_bpref_sums(gains);

-- measure: rpref_relative2
-- ntcir: rpref_relative2 = 906
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- doc: rpref_relative2 = sum_rel g(r) [1 - penalty(r)/r] / cg*(R) (ntcir_eval -j).
CREATE OR REPLACE MACRO m_ntcir_rpref_relative2(gains) AS TABLE
SELECT run_id, topic, r_rel2 / cg_r AS value FROM ntcir_bpref_sums(gains);
