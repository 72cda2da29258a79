-- NTCIREVAL's `ntcir_eval gcompute` block on the diversity gain lists (docs/diversity_semantics.md
-- section 2): the ad hoc lines (RR, O-measure, ..., Hit@l) that NTCIREVAL 190111's D-NTCIR-eval,
-- DIN-NTCIR-eval and D-NTCIR-IAeval print in .Dnev / .DINnev / .nevIA beside the D-, DIN- and IA
-- lines. Source: ntcir_eval.c `eval_gcompute` (github:risa-hira/Third-Search-Engine) and the
-- 190111 scripts (github:kelulucaipeixi/Analyse-solr-Results-with-cacm-collection-by-NTCIREVAL);
-- formulas as ntcir_eval `compute` (docs/ntcireval_semantics.md section 3), with two gcompute
-- differences that keep sql/metrics/ntcir_*.sql from being reused as they are:
--   * gains are real numbers (global gains sum_i Pr(i|q) g_i(d)), and a DIN list gives a document
--     another gain than the ideal list does, so there is no level -> gain map;
--   * hgain, the ERR/RBP normaliser, is the largest gain of the topic's own ideal list
--     (ntcir_eval compute takes it from -g, the same for every topic).
-- The lists are ev_ntd_lists() / ev_ntd_ideals() of sql/metrics/diversity_ntcir.sql, keyed 'D',
-- 'DIN' and 'I:<intent>'. Arithmetic is exact; NTCIREVAL's text round trips (%.6g din/Grelv
-- values, %.4f gain labels) can move a printed value by 1e-4 (none does in the 190111 sample).
-- Every sum, running sums and products (cg, dsat) included, is exact (ev_from_fixed(sum(
-- ev_to_fixed(x))), sql/context.sql): the same bits whatever DuckDB's threads or plan.
-- source: NTCIREVAL ntcir_eval.c eval_gcompute

-- block: ev_ntd_gcompute
-- gcompute at cutoff l on each list truncated at l (D-NTCIR-eval runs `glabel -truncate l` and
-- `gcompute -cutoffs l`), one row per evaluated (run, topic) and key whose ideal list has R > 0.
-- syslen = min(l, list length), so every array of gcompute is flat from syslen to
-- k = min(l, max(R, syslen)), and the ideal values at k are those at min(l, R). With g(r) the
-- system gain, J(r) = [g(r) > 0], C(r) = sum_{i<=r} J(i), cg and cg* the system and ideal
-- cumulative gains, h the largest ideal gain and BR(r) = (beta cg(r) + C(r)) / (beta cg*(r) + r):
--   r1 = first relevant rank, rp = first rank holding the largest gain of the truncated list,
--   RR = 1/r1, O-measure = BR(r1), P-measure = BR(rp), P-plus = sum_{r<=rp, J} BR(r) / C(rp),
--   AP = sum_J C(r)/r / R, Q-measure = sum_J BR(r) / R,
--   NCUrb,P = sum_J C(r)/r gamma^(C(r)-1) / sum_{i=1..R} gamma^(i-1), NCUrb,BR likewise with BR,
--   RBP = (1-p) sum_r g(r) p^(r-1) / h, ERR = sum_r dsat(r-1)/r g(r)/(h+1) with
--   dsat(r) = prod_{i<=r} (1 - g(i)/(h+1)), EBR = sum_r BR(r) dsat(r-1) g(r)/(h+1),
--   AP@l, Q@l = the AP and Q sums / min(l, R), nDCG@l = J-K DCG (ntcir_dcglog, base logb) over
--   the ideal's, MSnDCG@l = sum g(r)/ln(r+1) over the ideal's, P@l = C(syslen)/l,
--   RBP@l = RBP, ERR@l = ERR, nERR@l = ERR / ideal ERR, EBR@l = EBR, Hit@l = [C(syslen) > 0].
-- Also: jrel = R, jnonrel = judged documents of gain 0 (a Grelv line of GG 0), num_ret (the
-- untruncated list length that `irec` sees), intent_num (intents with a relevant document) and,
-- for 'I:<intent>' keys, the intent and Pr(i|q).
CREATE OR REPLACE MACRO ev_ntd_gcompute(cutoff, beta, gamma, p, logb) AS TABLE
WITH ideal AS (
    SELECT topic, key, any_value(num_rel) AS num_rel, any_value(hgain) AS hgain,
           ev_from_fixed(sum(ev_to_fixed(pow(gamma, rank - 1)))) AS ncu_denom,
           ev_from_fixed(sum(ev_to_fixed(gain / ntcir_dcglog(logb, rank)))
               FILTER (WHERE rank <= cutoff)) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(gain / ln(rank + 1.0))) FILTER (WHERE rank <= cutoff))
               AS msdcg,
           ev_from_fixed(sum(ev_to_fixed((sat / rank) * (gain / (hgain + 1.0))))
               FILTER (WHERE rank <= cutoff)) AS err
    FROM ev_ntd_ideals()
    GROUP BY topic, key
),
nonrel AS (
    SELECT g.topic, k.key, count(*) AS jnonrel
    FROM ev_ntd_gg() g CROSS JOIN (VALUES ('D'), ('DIN')) k(key)
    WHERE g.gg <= 0
    GROUP BY g.topic, k.key
    UNION ALL
    SELECT topic, 'I:' || intent AS key, count(*) AS jnonrel
    FROM ev_div_judgment WHERE rel >= 1 AND gain <= 0
    GROUP BY topic, intent
),
intents AS (
    SELECT topic, intent, prob, count(*) OVER (PARTITION BY topic) AS intent_num
    FROM ev_ntd_intent()
),
sys AS (
    SELECT l.run_id, l.topic, l.key, l.rank, l.gain, i.num_rel, i.hgain,
           count(*) OVER w AS c,
           ev_from_fixed(sum(ev_to_fixed(l.gain)) OVER w) AS cg,
           max(l.gain) OVER wl AS top_gain,
           min(l.rank) OVER wl AS r1,
           coalesce(exp(ev_from_fixed(sum(ev_to_fixed(ln(1.0 - l.gain / (i.hgain + 1.0))))
                        OVER w1)), 1.0) AS dsat
    FROM ev_ntd_lists() l
    JOIN ideal i ON i.topic = l.topic AND i.key = l.key
    WHERE l.rank <= cutoff
    WINDOW w AS (PARTITION BY l.run_id, l.topic, l.key ORDER BY l.rank
                 ROWS UNBOUNDED PRECEDING),
           w1 AS (PARTITION BY l.run_id, l.topic, l.key ORDER BY l.rank
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
           wl AS (PARTITION BY l.run_id, l.topic, l.key)
),
blended AS (
    -- rp: gains are sums of products, so a relative 1e-12 stands for NTCIREVAL's equality of
    -- the %.4f-printed labels
    SELECT s.*, (beta * s.cg + s.c) / (beta * ic.cg + s.rank) AS br,
           min(s.rank) FILTER (WHERE s.gain >= s.top_gain * (1.0 - 1e-12))
               OVER (PARTITION BY s.run_id, s.topic, s.key) AS rp
    FROM sys s
    JOIN ev_ntd_ideals() ic ON ic.topic = s.topic AND ic.key = s.key
                           AND ic.rank = least(s.rank, s.num_rel)
),
agg AS (
    SELECT run_id, topic, key, any_value(r1) AS r1, any_value(rp) AS rp, count(*) AS c_l,
           max(br) FILTER (WHERE rank = r1) AS br_r1,
           max(br) FILTER (WHERE rank = rp) AS br_rp,
           max(c) FILTER (WHERE rank = rp) AS c_rp,
           ev_from_fixed(sum(ev_to_fixed(br)) FILTER (WHERE rank <= rp)) AS pplus_sum,
           ev_from_fixed(sum(ev_to_fixed(c / rank))) AS ap_sum,
           ev_from_fixed(sum(ev_to_fixed(br))) AS q_sum,
           ev_from_fixed(sum(ev_to_fixed((c / rank) * pow(gamma, c - 1)))) AS ncup_sum,
           ev_from_fixed(sum(ev_to_fixed(br * pow(gamma, c - 1)))) AS ncubr_sum,
           ev_from_fixed(sum(ev_to_fixed(gain * pow(p, rank - 1)))) AS rbp_sum,
           ev_from_fixed(sum(ev_to_fixed((dsat / rank) * (gain / (hgain + 1.0))))) AS err,
           ev_from_fixed(sum(ev_to_fixed(br * dsat * gain / (hgain + 1.0)))) AS ebr,
           ev_from_fixed(sum(ev_to_fixed(gain / ntcir_dcglog(logb, rank)))) AS dcg,
           ev_from_fixed(sum(ev_to_fixed(gain / ln(rank + 1.0)))) AS msdcg
    FROM blended
    GROUP BY run_id, topic, key
)
SELECT b.run_id, b.topic, i.key, it.intent, it.prob, n.intent_num, b.num_ret,
       least(b.num_ret, cutoff) AS syslen, i.num_rel AS jrel,
       coalesce(nr.jnonrel, 0) AS jnonrel,
       coalesce(a.r1, 0) AS r1, coalesce(a.rp, 0) AS rp,
       CASE WHEN a.r1 IS NULL THEN 0.0 ELSE 1.0 / a.r1 END AS rr,
       coalesce(a.br_r1, 0.0) AS o_measure,
       coalesce(a.br_rp, 0.0) AS p_measure,
       coalesce(a.pplus_sum / a.c_rp, 0.0) AS p_plus,
       coalesce(a.ap_sum, 0.0) / i.num_rel AS ap,
       coalesce(a.q_sum, 0.0) / i.num_rel AS q_measure,
       coalesce(a.ncup_sum, 0.0) / i.ncu_denom AS ncurb_p,
       coalesce(a.ncubr_sum, 0.0) / i.ncu_denom AS ncurb_br,
       (1.0 - p) * coalesce(a.rbp_sum, 0.0) / i.hgain AS rbp,
       coalesce(a.err, 0.0) AS err,
       coalesce(a.ebr, 0.0) AS ebr,
       coalesce(a.ap_sum, 0.0) / least(cutoff, i.num_rel) AS ap_at,
       coalesce(a.q_sum, 0.0) / least(cutoff, i.num_rel) AS q_at,
       coalesce(a.dcg, 0.0) / i.dcg AS ndcg_at,
       coalesce(a.msdcg, 0.0) / i.msdcg AS msndcg_at,
       coalesce(a.c_l, 0) / cutoff AS p_at,
       (1.0 - p) * coalesce(a.rbp_sum, 0.0) / i.hgain AS rbp_at,
       coalesce(a.err, 0.0) AS err_at,
       coalesce(a.err, 0.0) / i.err AS nerr_at,
       coalesce(a.ebr, 0.0) AS ebr_at,
       CASE WHEN coalesce(a.c_l, 0) > 0 THEN 1.0 ELSE 0.0 END AS hit_at
FROM ev_base() b
JOIN ideal i ON i.topic = b.topic
LEFT JOIN (SELECT DISTINCT topic, intent_num FROM intents) n ON n.topic = b.topic
LEFT JOIN intents it ON it.topic = b.topic AND i.key = 'I:' || it.intent
LEFT JOIN nonrel nr ON nr.topic = b.topic AND nr.key = i.key
LEFT JOIN agg a ON a.run_id = b.run_id AND a.topic = b.topic AND a.key = i.key;
