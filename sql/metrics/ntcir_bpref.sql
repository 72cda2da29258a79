-- NTCIREVAL's `compute -j` family: bpref and its alternatives, Sakai, "Alternatives to bpref",
-- SIGIR 2007; bpref_R and bpref_N are Sakai, "Metrics, Statistics, Tests", PROMISE Winter School
-- 2013, LNCS 8173 (2014), eq 22-23; ntcir_eval.c `eval_compute` computes all seven with -j.
--
-- The condensed list, whatever -J says. Every measure of this file is defined on the condensed
-- list (Sakai (PROMISE 2014): "r' denotes the rank of a document in a condensed list"; ntcir_eval's -j
-- means "assume that system list is a condensed list, so output bpref"), so the list is
-- condensed here: its judged documents (level >= 0) renumbered r' = 1..n in the list's order,
-- which is what -J (ntcir_eval `label -j`) builds, so -J changes none of these values and the
-- `label -j | compute -j` outputs are reproduced as before. Without -J the rest of an
-- evaluation keeps the raw list; these seven never see it (on the raw list an unjudged document
-- would count as a judged non-relevant one above: five unjudged documents above the only
-- relevant one, N = 2, would give bpref_N = 1 - 5/2 = -1.5, outside [0, 1]). Condensing rather
-- than refusing without -J: the values are then those of the paper under every option set, and
-- `-m ntcireval-j` and the metric macros irw_ntcir_bpref_*(...) work with their defaults.
--   n(r') = r' - C(r'): the judged non-relevant (L0) documents above r' in the condensed list.
--   penalty(r') = sum_{j<r', g(j) < g(r')} (g(r') - g(j))/g(r') over the documents above r' in
--   the condensed list. Sums run over ranks with g(r') > 0.
--
-- Undefined values (a topic with an undefined value has no row: it is left out of the run's
-- value, which is then the mean over the topics that have one; every output format, run_score
-- and the metric macros irw_ntcir_* see the same rows, and nothing prints None or nan):
--   R = 0 (no judged relevant document): every measure of the file (1/R, or 1/cg*(R)), as every
--        NTCIREVAL measure (ntcir_eval prints nothing for such a topic). A run's bpref_R can then
--        cover fewer topics than its map, which counts such a topic as 0 (trec_eval).
--   N = 0 (no judged non-relevant document): bpref (min(R, N) = 0) and bpref_N (1/N), where
--        ntcir_eval would print 0/0 = nan (its -j needs N > 0), and rpref_N, the graded bpref_N,
--        with them (its denominator R + N - cg*(R)/gmax is then 0 when every relevant document
--        has the top gain, and it would be a bpref_N without N otherwise). bpref_R,
--        bpref_relative, rpref_relative and rpref_relative2 are defined and kept.
-- source: NTCIREVAL ntcir_eval.c eval_compute (-j); Sakai, SIGIR 2007; Sakai, PROMISE 2014, eq 22-23

-- block: ntcir_bpref_rows
-- The relevant ranks of each condensed list with r' (rank), n(r') and penalty(r'): the judged
-- rows of ntcir_list (level >= 0) renumbered 1..n; C(r') is ntcir_list's C, which unjudged
-- documents never change.
CREATE OR REPLACE MACRO ntcir_bpref_rows(gains) AS TABLE
WITH l AS (
    SELECT run_id, topic, g, c,
           row_number() OVER (PARTITION BY run_id, topic ORDER BY rank) AS rank
    FROM ntcir_list(gains, 1.0)
    WHERE rel >= 0
),
pen AS (
    SELECT a.run_id, a.topic, a.rank,
           ev_from_fixed(sum(ev_to_fixed((a.g - b.g) / a.g))) AS s
    FROM l a JOIN l b ON b.run_id = a.run_id AND b.topic = a.topic AND b.rank < a.rank
                     AND b.g < a.g
    WHERE a.g > 0
    GROUP BY a.run_id, a.topic, a.rank
)
SELECT l.run_id, l.topic, l.rank, l.g, l.rank - l.c AS n, coalesce(p.s, 0.0) AS penalty
FROM l LEFT JOIN pen p ON p.run_id = l.run_id AND p.topic = l.topic AND p.rank = l.rank
WHERE l.g > 0;

-- block: ntcir_bpref_sums
-- The per-list sums of the family for every evaluated (run, topic) with R > 0 (ntcir_base);
-- b, b_n and r_n are NULL when N = 0 (the measures then give no row).
CREATE OR REPLACE MACRO ntcir_bpref_sums(gains) AS TABLE
WITH ideal AS (SELECT topic, max(icg) AS cg_r FROM ntcir_ideal(gains) GROUP BY topic),
s AS (
    SELECT x.run_id, x.topic,
           ev_from_fixed(sum(ev_to_fixed(
               1.0 - least(b.num_rel, x.n) / nullif(least(b.num_rel, b.num_nonrel), 0)))) AS b,
           ev_from_fixed(sum(ev_to_fixed(1.0 - least(b.num_rel, x.n) / b.num_rel))) AS b_r,
           ev_from_fixed(sum(ev_to_fixed(1.0 - x.n / nullif(b.num_nonrel, 0)))) AS b_n,
           ev_from_fixed(sum(ev_to_fixed(
               CASE WHEN x.rank > 1 THEN 1.0 - x.n / (x.rank - 1) ELSE 0.0 END))) AS b_rel,
           ev_from_fixed(sum(ev_to_fixed(x.g * (1.0 - x.penalty
                               / nullif(b.num_rel + b.num_nonrel - i.cg_r / b.gmax, 0))))) AS r_n,
           ev_from_fixed(sum(ev_to_fixed(
               x.g * CASE WHEN x.rank > 1 THEN 1.0 - x.penalty / (x.rank - 1) ELSE 0.0 END)))
               AS r_rel,
           ev_from_fixed(sum(ev_to_fixed(x.g * (1.0 - x.penalty / x.rank)))) AS r_rel2
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
       CASE WHEN b.num_nonrel > 0 THEN coalesce(s.r_n, 0.0) END AS r_n,
       coalesce(s.r_rel, 0.0) AS r_rel, coalesce(s.r_rel2, 0.0) AS r_rel2
FROM ntcir_base(gains) b
JOIN ideal i ON i.topic = b.topic
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;

-- measure: ntcir:bpref
-- ntcir: bpref = 900
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: bpref = (1/R) sum_rel [1 - min(R, n(r'))/min(R, N)] on the condensed list, whatever -J
--      (Sakai SIGIR 2007; ntcir_eval -j). Undefined, so no row, when R = 0 or N = 0: such a
--      topic is left out of the run's mean.
CREATE OR REPLACE MACRO m_ntcir_bpref(gains) AS TABLE
SELECT run_id, topic, b / num_rel AS value FROM ntcir_bpref_sums(gains)
WHERE num_nonrel > 0;

-- measure: bpref_R
-- ntcir: bpref_R = 901
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: bpref_R = (1/R) sum_rel [1 - min(R, n(r'))/R], n(r') = r' - C(r'), on the condensed list
--      whatever -J (Sakai, PROMISE 2014, eq 22; Sakai SIGIR 2007; ntcir_eval -j). Undefined, so no row,
--      when R = 0: such a topic is left out of the run's mean (map counts it as 0).
CREATE OR REPLACE MACRO m_ntcir_bpref_r(gains) AS TABLE
SELECT run_id, topic, b_r / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: bpref_N
-- ntcir: bpref_N = 902
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: bpref_N = (1/R) sum_rel [1 - n(r')/N], n(r') = r' - C(r'), on the condensed list whatever
--      -J (Sakai, PROMISE 2014, eq 23; Sakai SIGIR 2007; ntcir_eval -j). Undefined, so no row, when R = 0
--      or N = 0: such a topic is left out of the run's mean.
CREATE OR REPLACE MACRO m_ntcir_bpref_n(gains) AS TABLE
SELECT run_id, topic, b_n / num_rel AS value FROM ntcir_bpref_sums(gains)
WHERE num_nonrel > 0;

-- measure: bpref_relative
-- ntcir: bpref_relative = 903
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: bpref_relative = (1/R) sum_rel [1 - n(r')/(r'-1)], 0 at r' = 1, on the condensed list
--      whatever -J (ntcir_eval -j). No row when R = 0 (left out of the run's mean).
CREATE OR REPLACE MACRO m_ntcir_bpref_relative(gains) AS TABLE
SELECT run_id, topic, b_rel / num_rel AS value FROM ntcir_bpref_sums(gains);

-- measure: rpref_N
-- ntcir: rpref_N = 904
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: rpref_N = sum_rel g(r') [1 - penalty(r')/(R + N - cg*(R)/gmax)] / cg*(R), the graded
--      bpref_N, on the condensed list whatever -J (Sakai SIGIR 2007; ntcir_eval -j). No row when
--      R = 0 or N = 0 (left out of the run's mean).
CREATE OR REPLACE MACRO m_ntcir_rpref_n(gains) AS TABLE
SELECT run_id, topic, r_n / cg_r AS value FROM ntcir_bpref_sums(gains)
WHERE num_nonrel > 0;

-- measure: rpref_relative
-- ntcir: rpref_relative = 905
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: rpref_relative = sum_rel g(r') [1 - penalty(r')/(r'-1)] / cg*(R), 0 at r' = 1, on the
--      condensed list whatever -J (ntcir_eval -j). No row when R = 0 (left out of the mean).
CREATE OR REPLACE MACRO m_ntcir_rpref_relative(gains) AS TABLE
SELECT run_id, topic, r_rel / cg_r AS value FROM ntcir_bpref_sums(gains);

-- measure: rpref_relative2
-- ntcir: rpref_relative2 = 906
-- dialect: ntcireval
-- sets: ntcireval-j
-- params: gains MAP = {}
-- summary: mean
-- doc: rpref_relative2 = sum_rel g(r') [1 - penalty(r')/r'] / cg*(R) on the condensed list
--      whatever -J (ntcir_eval -j). No row when R = 0 (left out of the run's mean).
CREATE OR REPLACE MACRO m_ntcir_rpref_relative2(gains) AS TABLE
SELECT run_id, topic, r_rel2 / cg_r AS value FROM ntcir_bpref_sums(gains);
