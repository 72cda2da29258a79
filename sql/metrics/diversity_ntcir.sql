-- Diversity measures of NTCIREVAL 190111 (Sakai; Sakai, IPSJ JIP 2013; docs/diversity_semantics.md
-- section 2): D-, DIN- and intent-aware (IA) measures, I-rec, the # combinations, P+Q, and the
-- gold-standard helpers Ef-P and PMP. Context (sql/context.sql, the ev_make_div_* builders):
--   ev_div_judgment(topic, intent, doc, rel)        per-intent levels (Dqrels L0..L9),
--   ev_div_ranked(run_id, topic, rank, intent, rel)  retrieved documents with their levels,
--   ev_div_intent(topic, intent, probability, intent_type)  Pr(i|q) and inf/nav (Iprob, DINprob).
-- The gain of a level is ev_div_judgment.gain (NTCIREVAL's DIN-splitqrels: L1..L9 = 1..9 unless
-- `-g` says otherwise; sql/context.sql div_judgment); intents with no
-- relevant document are left out everywhere (NTCIREVAL writes no Irelv file for them). Every
-- measure at cutoff l is computed on the list truncated at l, as NTCIREVAL's scripts do
-- (glabel -truncate l). Arithmetic is exact: NTCIREVAL's text round trips (%.6g, %.4f) can move
-- its printed values by 1e-4.
-- Every sum, running sums (cg, the log of sat) included, is exact (ev_from_fixed(sum(
-- ev_to_fixed(x))), sql/context.sql): the same bits whatever DuckDB's threads or plan.
-- source: NTCIREVAL 190111 (D-NTCIR-eval, DIN-NTCIR-eval, D-NTCIR-IAeval); Sakai & Song, SIGIR 2011; Sakai, IPSJ JIP 2013

-- block: ev_ntd_intent
-- The intents of each topic that have a relevant document, with Pr(i|q) (uniform over them when
-- the topic has no probabilities; 0 for an intent missing from a topic's probabilities) and
-- the type ('inf' unless 'nav').
CREATE OR REPLACE MACRO ev_ntd_intent() AS TABLE
WITH rel_intents AS (
    SELECT topic, intent FROM ev_div_judgment WHERE rel >= 1 GROUP BY topic, intent
),
with_prob AS (
    SELECT DISTINCT topic FROM ev_div_intent WHERE probability IS NOT NULL
)
SELECT ri.topic, ri.intent,
       CASE WHEN ri.topic IN (SELECT topic FROM with_prob) THEN coalesce(i.probability, 0.0)
            ELSE 1.0 / count(*) OVER (PARTITION BY ri.topic) END AS prob,
       CASE WHEN i.intent_type = 'nav' THEN 'nav' ELSE 'inf' END AS intent_type
FROM rel_intents ri
LEFT JOIN ev_div_intent i ON i.topic = ri.topic AND i.intent = ri.intent;

-- block: ev_ntd_gg
-- The global gain of each relevant document, GG(d) = sum_i Pr(i|q) g_i(d) (Sakai, IPSJ JIP 2013 eq 6).
CREATE OR REPLACE MACRO ev_ntd_gg() AS TABLE
SELECT j.topic, j.doc,
       ev_from_fixed(sum(ev_to_fixed(i.prob * j.gain))) AS gg
FROM ev_div_judgment j
JOIN ev_ntd_intent() i ON i.topic = j.topic AND i.intent = j.intent
WHERE j.rel >= 1
GROUP BY j.topic, j.doc;

-- block: ev_ntd_lists
-- The system gain lists, relevant ranks only (gain > 0), one per key: 'D' (global gain), 'DIN'
-- (global gain where a navigational intent counts only at its first relevant document of the
-- list, Sakai, IPSJ JIP 2013 eq 8) and 'I:<intent>' (the intent's own level).
CREATE OR REPLACE MACRO ev_ntd_lists() AS TABLE
WITH firsts AS (
    SELECT run_id, topic, rank, intent, rel, gain,
           min(rank) OVER (PARTITION BY run_id, topic, intent) AS first_rank
    FROM ev_div_ranked
    WHERE rel >= 1
),
sys AS (
    SELECT f.run_id, f.topic, f.rank,
           ev_from_fixed(sum(ev_to_fixed(i.prob * f.gain))) AS d_gain,
           ev_from_fixed(sum(ev_to_fixed(
               CASE WHEN i.intent_type = 'nav' AND f.rank > f.first_rank THEN 0.0
                    ELSE i.prob * f.gain END))) AS din_gain
    FROM firsts f JOIN ev_ntd_intent() i ON i.topic = f.topic AND i.intent = f.intent
    GROUP BY f.run_id, f.topic, f.rank
)
SELECT run_id, topic, 'D' AS key, rank, d_gain AS gain FROM sys WHERE d_gain > 0
UNION ALL
SELECT run_id, topic, 'DIN' AS key, rank, din_gain AS gain FROM sys WHERE din_gain > 0
UNION ALL
SELECT run_id, topic, 'I:' || intent AS key, rank, gain
FROM ev_div_ranked WHERE rel >= 1 AND gain > 0;

-- block: ev_ntd_ideals
-- The ideal lists (gain > 0, descending) with their cumulative gain: the global gains for 'D'
-- and 'DIN' (NTCIREVAL's Grelv; the DIN ideal is not reduced), the intent's levels for 'I:<i>'.
CREATE OR REPLACE MACRO ev_ntd_ideals() AS TABLE
WITH lists AS (
    SELECT g.topic, k.key, g.gg AS gain
    FROM ev_ntd_gg() g CROSS JOIN (VALUES ('D'), ('DIN')) k(key)
    WHERE g.gg > 0
    UNION ALL
    SELECT topic, 'I:' || intent AS key, gain
    FROM ev_div_judgment WHERE rel >= 1 AND gain > 0
),
ranked AS (
    SELECT topic, key, gain,
           row_number() OVER (PARTITION BY topic, key ORDER BY gain DESC) AS rank,
           count(*) OVER (PARTITION BY topic, key) AS num_rel,
           max(gain) OVER (PARTITION BY topic, key) AS hgain
    FROM lists
)
SELECT topic, key, rank, gain, num_rel, hgain,
       ev_from_fixed(sum(ev_to_fixed(gain))
                     OVER (PARTITION BY topic, key ORDER BY rank ROWS UNBOUNDED PRECEDING)) AS cg,
       exp(coalesce(ev_from_fixed(sum(ev_to_fixed(ln(1.0 - gain / (hgain + 1.0))))
                                  OVER (PARTITION BY topic, key ORDER BY rank
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
                    0.0)) AS sat
FROM ranked;

-- block: ev_ntd_at
-- gcompute at cutoff l for every evaluated (run, topic) and key, on the list truncated at l:
--   msndcg = sum_{r<=l} g(r)/ln(r+1) over the ideal's (NTCIREVAL's MSnDCG@l),
--   q      = sum_{r<=l, J(r)} BR(r) / min(l, R), BR(r) = (beta CG(r) + C(r)) / (beta CG*(r) + r),
--   ap     = sum_{r<=l, J(r)} C(r)/r / min(l, R),
--   err    = sum_r (1/r) (g(r)/(h+1)) prod_{k<r} (1 - g(k)/(h+1)), h the largest ideal gain;
--   nerr   = err over the ideal's,
--   pplus  = P+ (Sakai, IPSJ JIP 2013 eq 11): sum_{r<=rp, J(r)} BR(r) / C(rp), rp the first rank of the
--            largest gain in the truncated list.
CREATE OR REPLACE MACRO ev_ntd_at(cutoff, beta) AS TABLE
WITH stats AS (
    SELECT topic, key, any_value(num_rel) AS num_rel, any_value(hgain) AS hgain,
           ev_from_fixed(sum(ev_to_fixed(gain / ln(rank + 1.0))) FILTER (WHERE rank <= cutoff))
               AS msdcg,
           ev_from_fixed(sum(ev_to_fixed(sat * (gain / (hgain + 1.0)) / rank))
               FILTER (WHERE rank <= cutoff)) AS err
    FROM ev_ntd_ideals()
    GROUP BY topic, key
),
sys AS (
    SELECT l.run_id, l.topic, l.key, l.rank, l.gain, s.num_rel, s.hgain,
           count(*) OVER w AS c,
           ev_from_fixed(sum(ev_to_fixed(l.gain)) OVER w) AS cg,
           max(l.gain) OVER (PARTITION BY l.run_id, l.topic, l.key) AS top_gain,
           exp(coalesce(ev_from_fixed(sum(ev_to_fixed(ln(1.0 - l.gain / (s.hgain + 1.0)))) OVER (
               PARTITION BY l.run_id, l.topic, l.key ORDER BY l.rank
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)), 0.0)) AS sat
    FROM ev_ntd_lists() l
    JOIN stats s ON s.topic = l.topic AND s.key = l.key
    WHERE l.rank <= cutoff
    WINDOW w AS (PARTITION BY l.run_id, l.topic, l.key ORDER BY l.rank ROWS UNBOUNDED PRECEDING)
),
blended AS (
    SELECT s.*, (beta * s.cg + s.c) / (beta * i.cg + s.rank) AS br,
           min(s.rank) FILTER (WHERE s.gain = s.top_gain)
               OVER (PARTITION BY s.run_id, s.topic, s.key) AS rp
    FROM sys s
    JOIN ev_ntd_ideals() i ON i.topic = s.topic AND i.key = s.key
                          AND i.rank = least(s.rank, s.num_rel)
),
agg AS (
    SELECT run_id, topic, key,
           ev_from_fixed(sum(ev_to_fixed(gain / ln(rank + 1.0)))) AS msdcg,
           ev_from_fixed(sum(ev_to_fixed(br))) AS br_sum,
           ev_from_fixed(sum(ev_to_fixed(c / rank))) AS ap_sum,
           ev_from_fixed(sum(ev_to_fixed(sat * (gain / (hgain + 1.0)) / rank))) AS err,
           ev_from_fixed(sum(ev_to_fixed(br)) FILTER (WHERE rank <= rp))
               / count(*) FILTER (WHERE rank <= rp) AS pplus
    FROM blended
    GROUP BY run_id, topic, key
)
SELECT b.run_id, b.topic, s.key, s.num_rel,
       coalesce(a.msdcg, 0.0) / s.msdcg AS msndcg,
       coalesce(a.br_sum, 0.0) / least(cutoff, s.num_rel) AS q,
       coalesce(a.ap_sum, 0.0) / least(cutoff, s.num_rel) AS ap,
       coalesce(a.err, 0.0) AS err,
       coalesce(a.err, 0.0) / s.err AS nerr,
       coalesce(a.pplus, 0.0) AS pplus
FROM ev_base() b
JOIN stats s ON s.topic = b.topic
LEFT JOIN agg a ON a.run_id = b.run_id AND a.topic = b.topic AND a.key = s.key;

-- block: ev_ntd_key
-- One key's values for every evaluated (run, topic); 0 for a topic without relevant documents.
CREATE OR REPLACE MACRO ev_ntd_key(cutoff, beta, which) AS TABLE
SELECT b.run_id, b.topic, coalesce(x.msndcg, 0.0) AS msndcg, coalesce(x.q, 0.0) AS q
FROM ev_base() b
LEFT JOIN (SELECT * FROM ev_ntd_at(cutoff, beta) WHERE key = which) x
       ON x.run_id = b.run_id AND x.topic = b.topic;

-- block: ev_ntd_irec
-- I-rec@l: intents with a relevant document covered by the top l over the intents with one.
CREATE OR REPLACE MACRO ev_ntd_irec(cutoff) AS TABLE
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(n.n, 0) > 0 THEN coalesce(c.covered, 0) / n.n ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN (SELECT topic, count(*) AS n FROM ev_ntd_intent() GROUP BY topic) n
       ON n.topic = b.topic
LEFT JOIN (SELECT run_id, topic, count(DISTINCT intent) AS covered FROM ev_div_ranked
           WHERE rel >= 1 AND rank <= cutoff GROUP BY run_id, topic) c
       ON c.run_id = b.run_id AND c.topic = b.topic;

-- block: ev_ntd_ia
-- Intent-aware sums over the intents with a relevant document: sum_i Pr(i|q) M_i@l. With
-- `printed` <> 0 each M_i is first rounded to 4 decimals, as NTCIREVAL's D-NTCIR-IAeval sums
-- the %.4f values gcompute printed.
CREATE OR REPLACE MACRO ev_ntd_ia(cutoff, beta, printed) AS TABLE
WITH per_intent AS (
    SELECT x.run_id, x.topic, i.prob, i.intent_type,
           CASE WHEN printed <> 0 THEN round(x.msndcg, 4) ELSE x.msndcg END AS msndcg,
           CASE WHEN printed <> 0 THEN round(x.q, 4) ELSE x.q END AS q,
           CASE WHEN printed <> 0 THEN round(x.ap, 4) ELSE x.ap END AS ap,
           CASE WHEN printed <> 0 THEN round(x.err, 4) ELSE x.err END AS err,
           CASE WHEN printed <> 0 THEN round(x.nerr, 4) ELSE x.nerr END AS nerr,
           CASE WHEN printed <> 0 THEN round(x.pplus, 4) ELSE x.pplus END AS pplus
    FROM ev_ntd_at(cutoff, beta) x
    JOIN ev_ntd_intent() i ON i.topic = x.topic AND 'I:' || i.intent = x.key
)
SELECT b.run_id, b.topic,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob * p.msndcg))), 0.0) AS msndcg,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob * p.q))), 0.0) AS q,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob * p.ap))), 0.0) AS ap,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob * p.err))), 0.0) AS err,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob * p.nerr))), 0.0) AS nerr,
       coalesce(ev_from_fixed(sum(ev_to_fixed(
           p.prob * CASE WHEN p.intent_type = 'nav' THEN p.pplus ELSE p.q END))), 0.0) AS pplusq,
       coalesce(ev_from_fixed(sum(ev_to_fixed(p.prob))), 0.0) AS sump
FROM ev_base() b
LEFT JOIN per_intent p ON p.run_id = b.run_id AND p.topic = b.topic
GROUP BY b.run_id, b.topic;

-- block: ev_ntd_sharp
-- The # combination gamma I-rec@l + (1 - gamma) M@l (Sakai and Song; Sakai, IPSJ JIP 2013). With printed
-- <> 0 the components are first rounded to 4 decimals: NTCIREVAL's D-NTCIR-eval and
-- DIN-NTCIR-eval read I-rec@l and Q@l / MSnDCG@l back from ntcir_eval's %.4f output and
-- combine them in awk, so their D#/DIN# lines can differ from exact arithmetic by 1e-4
-- (TRECRUN.l10.Dnev topic 0003: D#-nDCG@0010 0.4022 vs 0.40215 exactly).
CREATE OR REPLACE MACRO ev_ntd_sharp(gamma, irec, m, printed) AS
CASE WHEN printed <> 0 THEN gamma * round(irec, 4) + (1.0 - gamma) * round(m, 4)
     ELSE gamma * irec + (1.0 - gamma) * m END;

-- measure: I-rec
-- dialect: ntcireval
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: Intent recall@l (NTCIREVAL irec): share of the intents with a relevant document that the
--      top l covers.
CREATE OR REPLACE MACRO m_ntd_irec(cutoff) AS TABLE
SELECT run_id, topic, value FROM ev_ntd_irec(cutoff);

-- measure: I-rec@n
-- dialect: ntcireval
-- summary: mean
-- doc: I-rec@n (NTCIREVAL irec): I-rec at l = n, the number of intents with a relevant document.
CREATE OR REPLACE MACRO m_ntd_irec_n() AS TABLE
WITH n AS (
    SELECT topic, count(*) AS n FROM ev_ntd_intent() GROUP BY topic
),
covered AS (
    SELECT r.run_id, r.topic, count(DISTINCT r.intent) AS covered
    FROM ev_div_ranked r JOIN n ON n.topic = r.topic
    WHERE r.rel >= 1 AND r.rank <= n.n
    GROUP BY r.run_id, r.topic
)
SELECT b.run_id, b.topic,
       CASE WHEN coalesce(n.n, 0) > 0 THEN coalesce(c.covered, 0) / n.n ELSE 0.0 END AS value
FROM ev_base() b
LEFT JOIN n ON n.topic = b.topic
LEFT JOIN covered c ON c.run_id = b.run_id AND c.topic = b.topic;

-- measure: D-nDCG
-- dialect: ntcireval
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: D-nDCG@l (Sakai and Song; Sakai, IPSJ JIP 2013 eq 6): MSnDCG@l on global gains sum_i Pr(i|q) g_i(d).
CREATE OR REPLACE MACRO m_ntd_d_ndcg(cutoff) AS TABLE
SELECT run_id, topic, msndcg AS value FROM ev_ntd_key(cutoff, 1.0, 'D');

-- measure: D-Q
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; beta DOUBLE = 1
-- summary: mean
-- doc: D-Q@l: Q@l (sum of blended ratios over min(l, R)) on global gains.
CREATE OR REPLACE MACRO m_ntd_d_q(cutoff, beta) AS TABLE
SELECT run_id, topic, q AS value FROM ev_ntd_key(cutoff, beta, 'D');

-- measure: DIN-nDCG
-- dialect: ntcireval
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: DIN-nDCG@l (Sakai, IPSJ JIP 2013 eq 8): D-nDCG@l where a navigational intent gains only at its first
--      relevant document; the ideal list is D's.
CREATE OR REPLACE MACRO m_ntd_din_ndcg(cutoff) AS TABLE
SELECT run_id, topic, msndcg AS value FROM ev_ntd_key(cutoff, 1.0, 'DIN');

-- measure: DIN-Q
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; beta DOUBLE = 1
-- summary: mean
-- doc: DIN-Q@l: D-Q@l with DIN gains (a document whose DIN gain is 0 is not relevant).
CREATE OR REPLACE MACRO m_ntd_din_q(cutoff, beta) AS TABLE
SELECT run_id, topic, q AS value FROM ev_ntd_key(cutoff, beta, 'DIN');

-- measure: D#-nDCG
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; gamma DOUBLE = 0.5; printed INTEGER = 0
-- summary: mean
-- doc: D#-nDCG@l = gamma I-rec@l + (1 - gamma) D-nDCG@l.
--      printed=1 combines the 4-decimal components, as NTCIREVAL's D-NTCIR-eval awk does.
CREATE OR REPLACE MACRO m_ntd_dsharp_ndcg(cutoff, gamma, printed) AS TABLE
SELECT d.run_id, d.topic, ev_ntd_sharp(gamma, i.value, d.msndcg, printed) AS value
FROM ev_ntd_key(cutoff, 1.0, 'D') d
JOIN ev_ntd_irec(cutoff) i ON i.run_id = d.run_id AND i.topic = d.topic;

-- measure: D#-Q
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; gamma DOUBLE = 0.5; beta DOUBLE = 1; printed INTEGER = 0
-- summary: mean
-- doc: D#-Q@l = gamma I-rec@l + (1 - gamma) D-Q@l.
--      printed=1 combines the 4-decimal components, as NTCIREVAL's D-NTCIR-eval awk does.
CREATE OR REPLACE MACRO m_ntd_dsharp_q(cutoff, gamma, beta, printed) AS TABLE
SELECT d.run_id, d.topic, ev_ntd_sharp(gamma, i.value, d.q, printed) AS value
FROM ev_ntd_key(cutoff, beta, 'D') d
JOIN ev_ntd_irec(cutoff) i ON i.run_id = d.run_id AND i.topic = d.topic;

-- measure: DIN#-nDCG
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; gamma DOUBLE = 0.5; printed INTEGER = 0
-- summary: mean
-- doc: DIN#-nDCG@l = gamma I-rec@l + (1 - gamma) DIN-nDCG@l.
--      printed=1 combines the 4-decimal components, as NTCIREVAL's D-NTCIR-eval awk does.
CREATE OR REPLACE MACRO m_ntd_dinsharp_ndcg(cutoff, gamma, printed) AS TABLE
SELECT d.run_id, d.topic, ev_ntd_sharp(gamma, i.value, d.msndcg, printed) AS value
FROM ev_ntd_key(cutoff, 1.0, 'DIN') d
JOIN ev_ntd_irec(cutoff) i ON i.run_id = d.run_id AND i.topic = d.topic;

-- measure: DIN#-Q
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; gamma DOUBLE = 0.5; beta DOUBLE = 1; printed INTEGER = 0
-- summary: mean
-- doc: DIN#-Q@l = gamma I-rec@l + (1 - gamma) DIN-Q@l.
--      printed=1 combines the 4-decimal components, as NTCIREVAL's D-NTCIR-eval awk does.
CREATE OR REPLACE MACRO m_ntd_dinsharp_q(cutoff, gamma, beta, printed) AS TABLE
SELECT d.run_id, d.topic, ev_ntd_sharp(gamma, i.value, d.q, printed) AS value
FROM ev_ntd_key(cutoff, beta, 'DIN') d
JOIN ev_ntd_irec(cutoff) i ON i.run_id = d.run_id AND i.topic = d.topic;

-- measure: IA-nDCG
-- dialect: ntcireval
-- aliases: sakai2014 nDCG-IA
-- params: cutoff INTEGER = 10; printed INTEGER = 0
-- summary: mean
-- doc: Intent-aware MSnDCG@l, sum_i Pr(i|q) MSnDCG_i@l (NTCIREVAL's IA-MSnDCG); printed=1
--      sums the 4-decimal values, as NTCIREVAL's D-NTCIR-IAeval does.
CREATE OR REPLACE MACRO m_ntd_ia_ndcg(cutoff, printed) AS TABLE
SELECT run_id, topic, msndcg AS value FROM ev_ntd_ia(cutoff, 1.0, printed);

-- measure: IA-Q
-- dialect: ntcireval
-- aliases: sakai2014 Q-IA
-- params: cutoff INTEGER = 10; beta DOUBLE = 1
-- summary: mean
-- doc: Intent-aware Q@l, sum_i Pr(i|q) Q_i@l.
CREATE OR REPLACE MACRO m_ntd_ia_q(cutoff, beta) AS TABLE
SELECT run_id, topic, q AS value FROM ev_ntd_ia(cutoff, beta, 0);

-- measure: IA-AP
-- dialect: ntcireval
-- aliases: sakai2014 AP-IA
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: Intent-aware AP@l, sum_i Pr(i|q) AP_i@l (AP@l divides by min(l, R_i)).
CREATE OR REPLACE MACRO m_ntd_ia_ap(cutoff) AS TABLE
SELECT run_id, topic, ap AS value FROM ev_ntd_ia(cutoff, 1.0, 0);

-- measure: IA-ERR
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; printed INTEGER = 0
-- summary: mean
-- doc: Intent-aware ERR@l with NTCIREVAL's stopping probability g/(hgain+1) per intent;
--      printed=1 sums the 4-decimal values, as NTCIREVAL's D-NTCIR-IAeval does.
CREATE OR REPLACE MACRO m_ntd_ia_err(cutoff, printed) AS TABLE
SELECT run_id, topic, err AS value FROM ev_ntd_ia(cutoff, 1.0, printed);

-- measure: IA-nERR
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; printed INTEGER = 0
-- summary: mean
-- doc: Intent-aware nERR@l, sum_i Pr(i|q) nERR_i@l; printed=1 sums the 4-decimal values, as
--      NTCIREVAL's D-NTCIR-IAeval does.
CREATE OR REPLACE MACRO m_ntd_ia_nerr(cutoff, printed) AS TABLE
SELECT run_id, topic, nerr AS value FROM ev_ntd_ia(cutoff, 1.0, printed);

-- measure: SUMp
-- dialect: ntcireval
-- summary: mean
-- doc: Sum of Pr(i|q) over the intents with a relevant document (NTCIREVAL's SUMp).
CREATE OR REPLACE MACRO m_ntd_sump() AS TABLE
SELECT run_id, topic, sump AS value FROM ev_ntd_ia(1, 1.0, 0);

-- measure: P+Q
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; beta DOUBLE = 1
-- summary: mean
-- doc: P+Q@l (Sakai, IPSJ JIP 2013 eq 12): sum over informational intents of Pr Q_i@l plus over
--      navigational ones of Pr P+_i (its preferred rank within the top l).
CREATE OR REPLACE MACRO m_ntd_pplusq(cutoff, beta) AS TABLE
SELECT run_id, topic, pplusq AS value FROM ev_ntd_ia(cutoff, beta, 0);

-- measure: P+Q#
-- dialect: ntcireval
-- params: cutoff INTEGER = 10; gamma DOUBLE = 0.5; beta DOUBLE = 1
-- summary: mean
-- doc: P+Q#@l = gamma I-rec@l + (1 - gamma) P+Q@l.
CREATE OR REPLACE MACRO m_ntd_pplusq_sharp(cutoff, gamma, beta) AS TABLE
SELECT p.run_id, p.topic, gamma * i.value + (1.0 - gamma) * p.pplusq AS value
FROM ev_ntd_ia(cutoff, beta, 0) p
JOIN ev_ntd_irec(cutoff) i ON i.run_id = p.run_id AND i.topic = p.topic;

-- measure: Ef-P
-- dialect: ntcireval
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: Effective precision@l (Sakai, IPSJ JIP 2013 section 4.2): share of the top l relevant to some
--      informational intent or holding the first relevant document of a navigational one.
CREATE OR REPLACE MACRO m_ntd_efp(cutoff) AS TABLE
WITH effective AS (
    SELECT run_id, topic, count(DISTINCT rank) AS n
    FROM (
        SELECT r.run_id, r.topic, r.rank, i.intent_type,
               min(r.rank) OVER (PARTITION BY r.run_id, r.topic, r.intent) AS first_rank
        FROM ev_div_ranked r
        JOIN ev_ntd_intent() i ON i.topic = r.topic AND i.intent = r.intent
        WHERE r.rel >= 1
    )
    WHERE rank <= cutoff AND (intent_type <> 'nav' OR rank = first_rank)
    GROUP BY run_id, topic
)
SELECT b.run_id, b.topic, coalesce(e.n, 0) / cutoff AS value
FROM ev_base() b
LEFT JOIN effective e ON e.run_id = b.run_id AND e.topic = b.topic;

-- measure: PMP
-- dialect: ntcireval
-- params: cutoff INTEGER = 10
-- summary: mean
-- doc: Precision@l for the most probable intent of the topic's probabilities (uniform: every
--      intent with a relevant document); ties go to the first intent (numbers, then names).
CREATE OR REPLACE MACRO m_ntd_pmp(cutoff) AS TABLE
WITH candidates AS (
    SELECT topic, intent, probability AS prob FROM ev_div_intent WHERE probability IS NOT NULL
    UNION ALL
    SELECT topic, intent, prob FROM ev_ntd_intent()
    WHERE topic NOT IN (SELECT topic FROM ev_div_intent WHERE probability IS NOT NULL)
),
top_intent AS (
    SELECT topic, intent FROM candidates
    QUALIFY row_number() OVER (PARTITION BY topic
                               ORDER BY prob DESC, try_cast(intent AS BIGINT) NULLS LAST,
                                        intent) = 1
),
hits AS (
    SELECT r.run_id, r.topic, count(*) AS n
    FROM ev_div_ranked r JOIN top_intent t ON t.topic = r.topic AND t.intent = r.intent
    WHERE r.rel >= 1 AND r.rank <= cutoff
    GROUP BY r.run_id, r.topic
)
SELECT b.run_id, b.topic, coalesce(h.n, 0) / cutoff AS value
FROM ev_base() b
LEFT JOIN hits h ON h.run_id = b.run_id AND h.topic = b.topic;
