-- Shared building blocks of the NTCIREVAL-compatible metrics (sql/metrics/ntcir_*.sql).
-- Semantics: docs/ntcireval_semantics.md, from ntcir_eval.c `eval_compute` (NTCIREVAL,
-- WASEDA-IREVAL build, github:risa-hira/Third-Search-Engine); definitions from Sakai's papers
-- (Sakai, PROMISE 2014, eq 9-16; Sakai, IPSJ TOD 2007). Every NTCIREVAL macro takes `gains`, a MAP(level -> gain) as
-- ntcir_eval's `-g g1:g2:...` (gain of L1, L2, ...); a level the map does not list has
-- gain = level (so the empty map means gain = level).
--
-- Conventions (as ntcir_eval):
--   * relevant = level >= 1 (I(r)); judged non-relevant L0 and unjudged documents both have
--     gain 0; R (jrel) = judged documents of level >= 1, N (jnonrel) = L0 documents;
--   * a topic with R = 0 has no value at all (ntcir_eval prints nothing for it);
--   * gmax = the gain of the highest declared level (the largest gain of the map, or of the
--     levels judged for the topic when the map lists none higher);
--   * the ideal list = all R relevant judged documents by level, descending; cg*(r) is its
--     cumulative gain, constant after rank R;
--   * the evaluated list is the context's (ev_ranked: order, -M depth, -J condensed list).

-- block: ntcir_gain
-- The gain of a level: 0 for L0 (and for negative "unjudged" levels), else gains[level],
-- defaulting to the level itself.
CREATE OR REPLACE MACRO ntcir_gain(gains, lvl) AS
CASE WHEN lvl >= 1 THEN coalesce(CAST(gains[lvl] AS DOUBLE), CAST(lvl AS DOUBLE)) ELSE 0.0 END;

-- block: ntcir_dcglog
-- Jarvelin-Kekalainen discount (ntcir_eval.c `orig_dcglog`): 1 at rank 1 and at ranks <= b
-- (no discount before rank b), else log_b(r); b = 0 means the natural logarithm.
CREATE OR REPLACE MACRO ntcir_dcglog(b, r) AS
CASE WHEN r = 1 OR r <= b THEN 1.0
     WHEN b = 0 THEN ln(r)
     ELSE ln(r) / ln(b) END;

-- block: ntcir_topic
-- Per judged topic: R (jrel), N (jnonrel) and gmax.
CREATE OR REPLACE MACRO ntcir_topic(gains) AS TABLE
SELECT topic,
       count(*) FILTER (WHERE rel >= 1) AS num_rel,
       count(*) FILTER (WHERE rel = 0) AS num_nonrel,
       greatest(coalesce(list_max(map_values(gains)), 0.0),
                max(ntcir_gain(gains, rel))) AS gmax
FROM ev_judgment
GROUP BY topic;

-- block: ntcir_base
-- One row per evaluated (run, topic) with R > 0: syslen (the evaluated list length), R, N, gmax.
CREATE OR REPLACE MACRO ntcir_base(gains) AS TABLE
SELECT b.run_id, b.topic, b.num_ret AS syslen, t.num_rel, t.num_nonrel, t.gmax
FROM ev_base() b JOIN ntcir_topic(gains) t ON t.topic = b.topic
WHERE t.num_rel > 0;

-- block: ntcir_ideal
-- The ideal list of every topic with R > 0, ranks 1..R: gain ig, cumulative gain icg = cg*(r),
-- and idsat = the probability that ERR's user is not yet satisfied before the rank,
-- prod_{i<r} (1 - g*(i)/(gmax+1)). Running sums and products are exact sums
-- (ev_to_fixed, sql/context.sql), so the same for every run and plan.
CREATE OR REPLACE MACRO ntcir_ideal(gains) AS TABLE
WITH ranked AS (
    SELECT j.topic, t.gmax, ntcir_gain(gains, j.rel) AS ig,
           row_number() OVER (PARTITION BY j.topic ORDER BY j.rel DESC, j.doc) AS irank
    FROM ev_judgment j JOIN ntcir_topic(gains) t ON t.topic = j.topic
    WHERE j.rel >= 1
)
SELECT topic, irank, ig, gmax,
       ev_from_fixed(sum(ev_to_fixed(ig)) OVER w) AS icg,
       coalesce(exp(ev_from_fixed(sum(ev_to_fixed(ln(1.0 - ig / (gmax + 1.0)))) OVER w1)), 1.0)
           AS idsat
FROM ranked
WINDOW w AS (PARTITION BY topic ORDER BY irank ROWS UNBOUNDED PRECEDING),
       w1 AS (PARTITION BY topic ORDER BY irank ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

-- block: ntcir_list
-- The judged documents of every evaluated list (topics with R > 0), by rank r: level, gain g(r),
-- C(r) (relevant documents in the top r), cg(r), the blended ratio
-- BR(r) = (beta cg(r) + C(r)) / (beta cg*(r) + r) (Sakai; Sakai, PROMISE 2014, eq 11) and
-- dsat = prod_{i<r} (1 - g(i)/(gmax+1)) (ERR's cascade), running sums and products as in
-- ntcir_ideal. Unjudged documents have gain 0 and change none of these, so they need no row.
CREATE OR REPLACE MACRO ntcir_list(gains, beta) AS TABLE
WITH listed AS (
    SELECT r.run_id, r.topic, r.rank, r.rel, t.num_rel, t.gmax,
           ntcir_gain(gains, r.rel) AS g,
           sum(CASE WHEN r.rel >= 1 THEN 1 ELSE 0 END) OVER w AS c,
           ev_from_fixed(sum(ev_to_fixed(ntcir_gain(gains, r.rel))) OVER w) AS cg,
           coalesce(exp(ev_from_fixed(sum(ev_to_fixed(
               ln(1.0 - ntcir_gain(gains, r.rel) / (t.gmax + 1.0)))) OVER w1)), 1.0) AS dsat
    FROM ev_ranked r JOIN ntcir_topic(gains) t ON t.topic = r.topic
    WHERE t.num_rel > 0
    WINDOW w AS (PARTITION BY r.run_id, r.topic ORDER BY r.rank ROWS UNBOUNDED PRECEDING),
           w1 AS (PARTITION BY r.run_id, r.topic ORDER BY r.rank
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT l.*, i.icg, (beta * l.cg + l.c) / (beta * i.icg + l.rank) AS br
FROM listed l
JOIN ntcir_ideal(gains) i ON i.topic = l.topic AND i.irank = least(l.rank, l.num_rel);

-- block: ntcir_sums
-- The per-list sums of the NTCIREVAL metrics over ranks r <= cutoff (NULL = the whole list),
-- for every evaluated (run, topic) with R > 0, as ntcir_eval.c `eval_compute` defines them; each
-- sum is exact (ev_from_fixed(sum(ev_to_fixed(x))), sql/context.sql): the same bits whatever
-- DuckDB's threads or plan, the exact sum rounded once.
-- `rel` sums run over ranks with g(r) > 0 (ntcir_eval tests the gain; = level >= 1 unless a
-- gain of 0 is declared):
--   c_k       = C(cutoff), relevant documents in the top k
--   ap_sum    = sum_rel C(r)/r                     q_sum     = sum_rel BR(r)
--   ncup_sum  = sum_rel C(r)/r gamma^(C(r)-1)      ncubr_sum = sum_rel BR(r) gamma^(C(r)-1)
--   ncuie_sum = sum_rel rbu_p^r gamma^(C(r)-1)
--   rbp_sum   = sum_r g(r) p^(r-1)
--   err       = sum_r dsat(r-1)/r pi(r),  ebr = sum_r BR(r) dsat(r-1) pi(r),
--   irbu      = sum_r rbu_p^r dsat(r-1) pi(r),  pi(r) = g(r)/(gmax+1)
--   dcg       = sum_r g(r)/dcglog_b(r),           msdcg = sum_r g(r)/ln(r+1)
CREATE OR REPLACE MACRO ntcir_sums(gains, beta, gamma, p, rbu_p, logb, cutoff) AS TABLE
WITH s AS (
    SELECT run_id, topic,
           count(*) FILTER (WHERE rel >= 1) AS c_k,
           ev_from_fixed(sum(ev_to_fixed(CAST(c AS DOUBLE) / rank)) FILTER (WHERE g > 0))
               AS ap_sum,
           ev_from_fixed(sum(ev_to_fixed(br)) FILTER (WHERE g > 0)) AS q_sum,
           ev_from_fixed(sum(ev_to_fixed((CAST(c AS DOUBLE) / rank) * pow(gamma, c - 1)))
               FILTER (WHERE g > 0)) AS ncup_sum,
           ev_from_fixed(sum(ev_to_fixed(br * pow(gamma, c - 1))) FILTER (WHERE g > 0))
               AS ncubr_sum,
           ev_from_fixed(sum(ev_to_fixed(pow(rbu_p, rank) * pow(gamma, c - 1)))
               FILTER (WHERE g > 0)) AS ncuie_sum,
           ev_from_fixed(sum(ev_to_fixed(g * pow(p, rank - 1)))) AS rbp_sum,
           ev_from_fixed(sum(ev_to_fixed((dsat / rank) * (g / (gmax + 1.0))))) AS err,
           ev_from_fixed(sum(ev_to_fixed(br * dsat * g / (gmax + 1.0)))) AS ebr,
           ev_from_fixed(sum(ev_to_fixed(pow(rbu_p, rank) * dsat * g / (gmax + 1.0))))
               AS irbu,
           ev_from_fixed(sum(ev_to_fixed(g / ntcir_dcglog(logb, rank)))) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(g / ln(rank + 1)))) AS msdcg
    FROM ntcir_list(gains, beta)
    WHERE cutoff IS NULL OR rank <= cutoff
    GROUP BY run_id, topic
)
SELECT b.run_id, b.topic, b.syslen, b.num_rel, b.num_nonrel, b.gmax,
       least(coalesce(cutoff, b.num_rel), b.num_rel) AS d,
       coalesce(s.c_k, 0) AS c_k,
       coalesce(s.ap_sum, 0.0) AS ap_sum, coalesce(s.q_sum, 0.0) AS q_sum,
       coalesce(s.ncup_sum, 0.0) AS ncup_sum, coalesce(s.ncubr_sum, 0.0) AS ncubr_sum,
       coalesce(s.ncuie_sum, 0.0) AS ncuie_sum, coalesce(s.rbp_sum, 0.0) AS rbp_sum,
       coalesce(s.err, 0.0) AS err, coalesce(s.ebr, 0.0) AS ebr, coalesce(s.irbu, 0.0) AS irbu,
       coalesce(s.dcg, 0.0) AS dcg, coalesce(s.msdcg, 0.0) AS msdcg
FROM ntcir_base(gains) b
LEFT JOIN s ON s.run_id = b.run_id AND s.topic = b.topic;

-- block: ntcir_ideal_sums
-- The same sums over the ideal list's top `cutoff` (NULL = all R), where BR = 1 at every rank
-- <= R (ideal EBR), per topic with R > 0. Products associated as in ntcir_eval:
-- (dsat/r)*(g/(gmax+1)), dsat*(g/(gmax+1)), p^r*dsat*(g/(gmax+1)).
CREATE OR REPLACE MACRO ntcir_ideal_sums(gains, p, rbu_p, logb, cutoff) AS TABLE
SELECT topic,
       ev_from_fixed(sum(ev_to_fixed(ig * pow(p, irank - 1)))) AS rbp_sum,
       ev_from_fixed(sum(ev_to_fixed((idsat / irank) * (ig / (gmax + 1.0))))) AS err,
       ev_from_fixed(sum(ev_to_fixed(idsat * (ig / (gmax + 1.0))))) AS ebr,
       ev_from_fixed(sum(ev_to_fixed(pow(rbu_p, irank) * idsat * (ig / (gmax + 1.0)))))
           AS irbu,
       ev_from_fixed(sum(ev_to_fixed(ig / ntcir_dcglog(logb, irank)))) AS dcg,
       ev_from_fixed(sum(ev_to_fixed(ig / ln(irank + 1)))) AS msdcg
FROM ntcir_ideal(gains)
WHERE cutoff IS NULL OR irank <= cutoff
GROUP BY topic;

-- block: ntcir_marks
-- r1 (first relevant rank), rp (the first rank holding the highest level present anywhere in
-- the evaluated list; ntcir_eval takes it over the whole list), BR(r1), BR(rp), C(rp), and
-- sum_{r <= rp, g(r) > 0} BR(r); r1 = rp = 0 when nothing relevant is retrieved.
CREATE OR REPLACE MACRO ntcir_marks(gains, beta) AS TABLE
WITH l AS (SELECT * FROM ntcir_list(gains, beta)),
m AS (
    SELECT run_id, topic,
           min(rank) FILTER (WHERE rel >= 1) AS r1,
           arg_min(rank, [-rel, rank]) FILTER (WHERE rel >= 1) AS rp
    FROM l GROUP BY run_id, topic
),
agg AS (
    SELECT l.run_id, l.topic, any_value(m.r1) AS r1, any_value(m.rp) AS rp,
           max(l.br) FILTER (WHERE l.rank = m.r1) AS br_r1,
           max(l.br) FILTER (WHERE l.rank = m.rp) AS br_rp,
           max(l.c) FILTER (WHERE l.rank = m.rp) AS c_rp,
           max(l.rel) FILTER (WHERE l.rank = m.r1) AS lvl_r1,
           ev_from_fixed(sum(ev_to_fixed(l.br)) FILTER (WHERE l.g > 0 AND l.rank <= m.rp))
               AS pplus_sum
    FROM l JOIN m ON m.run_id = l.run_id AND m.topic = l.topic
    WHERE m.r1 IS NOT NULL
    GROUP BY l.run_id, l.topic
)
SELECT b.run_id, b.topic, b.syslen, b.num_rel, b.num_nonrel,
       coalesce(a.r1, 0) AS r1, coalesce(a.rp, 0) AS rp, a.br_r1, a.br_rp, a.c_rp, a.lvl_r1,
       a.pplus_sum
FROM ntcir_base(gains) b
LEFT JOIN agg a ON a.run_id = b.run_id AND a.topic = b.topic;
