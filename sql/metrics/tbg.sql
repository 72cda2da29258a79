-- Time-biased gain (Smucker & Clarke, "Time-based calibration of effectiveness measures",
-- SIGIR 2012; Sakai, PROMISE 2014, eq 17-18): the gain of a relevant document is discounted by the
-- expected time the user needs to reach it, not by its rank:
--   TBG  = sum_r g(r) exp(-T(r) ln 2 / h)                                          (eq 17)
--   T(r) = sum_{k<r} (T_S + Pclick(k) T_D(k)),  T_D(k) = 0.018 L(k) + 7.8           (eq 18)
-- T_S = time to read a summary (snippet), Pclick = probability of clicking a summary (0.64 when
-- the document is relevant, 0.39 otherwise), T_D = time to read the document, L = its length in
-- words, h = the half-life of the decay; g = 0.64 * 0.77 (click on a relevant summary times
-- judging the document relevant, P(save|rel)) for a relevant document and 0 otherwise: Smucker
-- and Clarke's calibration, every constant a parameter here.
-- Binary relevance, as their instantiation: relevant = level >= the threshold (trec_eval -l);
-- non-relevant and unjudged documents are both "non-relevant" for Pclick. Every retrieved
-- document costs time, so the macro reads ev_listed (all documents of the list, with -M and -J
-- applied) and L from the `doc` table (`irw ingest doclengths`, `irw eval --doclengths`).
-- A document without a length there has L = missing_length (default 0 words, so T_D = 7.8 s,
-- the model's fixed cost of opening a document: without any lengths TBG discounts by rank
-- alone, every click costing the same). Sakai's (PROMISE 2014) check: a 1000-word non-relevant document at
-- rank 1 gives T(2) = T_S + 0.39 (0.018 * 1000 + 7.8) = T_S + 10.062; a 10-word relevant one
-- T(2) = T_S + 0.64 (0.018 * 10 + 7.8) = T_S + 5.107 (TBG does not guarantee diminishing
-- return).
-- source: Smucker & Clarke, SIGIR 2012; Sakai, PROMISE 2014, eq 17-18

-- block: ev_tbg_times
-- T(r) for every rank of every evaluated list, and whether the document is relevant.
CREATE OR REPLACE MACRO ev_tbg_times(t_s, p_click_rel, p_click_nonrel, td_slope,
                                          td_intercept, missing_length) AS TABLE
SELECT run_id, topic, rank, is_rel,
       -- an exact running sum (ev_to_fixed, sql/context.sql): the same bits for every run; the
       -- sums below are exact too
       coalesce(ev_from_fixed(sum(ev_to_fixed(
                    t_s + CASE WHEN is_rel THEN p_click_rel ELSE p_click_nonrel END
                          * (td_slope * coalesce(length_words, missing_length) + td_intercept)))
                    OVER (PARTITION BY run_id, topic ORDER BY rank
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)), 0.0) AS t_reach
FROM ev_listed;

-- measure: TBG
-- dialect: irw
-- needs: listed
-- positive: half_life
-- params: t_s DOUBLE = 4.4; half_life DOUBLE = 224; p_click_rel DOUBLE = 0.64;
--         p_click_nonrel DOUBLE = 0.39; gain DOUBLE = 0.4928; td_slope DOUBLE = 0.018;
--         td_intercept DOUBLE = 7.8; missing_length DOUBLE = 0
-- summary: mean
-- doc: Time-biased gain (Smucker & Clarke 2012; Sakai, PROMISE 2014, eq 17-18): sum over relevant ranks of
--      gain exp(-T(r) ln2 / half_life), T(r) = sum_{k<r} (t_s + Pclick(k) (td_slope L(k) +
--      td_intercept)), L = length in words (doc table; missing_length when absent).
CREATE OR REPLACE MACRO m_tbg(t_s, half_life, p_click_rel, p_click_nonrel, gain, td_slope, td_intercept, missing_length) AS TABLE
WITH s AS (
    SELECT run_id, topic,
           ev_from_fixed(sum(ev_to_fixed(gain * exp(-t_reach * ln(2.0) / half_life)))) AS v
    FROM ev_tbg_times(t_s, p_click_rel, p_click_nonrel, td_slope, td_intercept, missing_length)
    WHERE is_rel
    GROUP BY run_id, topic
)
SELECT e.run_id, e.topic, coalesce(s.v, 0.0) AS value
FROM ev_base() e
LEFT JOIN s ON s.run_id = e.run_id AND s.topic = e.topic;
