-- U-measure over a trailtext (Sakai & Dou, "Summaries, ranked retrieval and sessions: a unified
-- framework for information access evaluation", SIGIR 2013; Sakai, PROMISE 2014, eq 19-20, Fig 5 and 9):
--   U = (1/N) sum_pos g(pos) D(pos),  D(pos) = max(0, 1 - pos/L)                   (eq 19-20)
-- over the trailtext, the concatenation of every string the user read; pos(s_k) = sum_{j<=k}
-- |s_j| is the offset, in characters, of the END of string s_k (Sakai (PROMISE 2014): "the length of each
-- string is measured in terms of the number of characters"), and a string's gain sits there.
-- Linear traversal (Fig 5 b): the user reads the snippet of every rank in order, and after the
-- snippet of a relevant document F of that document (Fig 9: `pos += snippetlen` per rank,
-- `pos += F * doclen` per relevant document, then `U += g * max(0, 1 - pos/L)`), so for a
-- relevant document at rank r
--   pos(r) = snippet * r + F * sum_{k<=r, k relevant} len(k)
-- with len = the document's length in characters (the `doc` table's length_chars,
-- `irw ingest doclengths --unit chars`; missing_length, default 0, when absent: then only
-- snippets are read). Non-relevant and unjudged documents add their snippet only. Relevant =
-- level >= 1; gain g = (2^level - 1) / 2^H (Sakai (PROMISE 2014), as ERR's), H = max_level or, when
-- max_level = 0, the highest level judged for the topic. Defaults from Sakai & Dou: snippet =
-- 200 characters (Fig 9), F = 0.2 (20%), L = 132000 characters; N = 1 (unnormalised; Sakai, PROMISE 2014
-- "set to zero if normalisation is not required" means no division). Reads ev_listed (every
-- retrieved document, -M and -J applied).
-- source: Sakai & Dou, SIGIR 2013; Sakai, PROMISE 2014, eq 19-20

-- block: ev_u_positions
-- The relevant documents of every evaluated list with their trailtext offset pos(r) and level.
CREATE OR REPLACE MACRO ev_u_positions(snippet, f, missing_length) AS TABLE
SELECT run_id, topic, rank, rel,
       rank * snippet
       + f * ev_from_fixed(sum(ev_to_fixed(coalesce(length_chars, missing_length)))
                           OVER (PARTITION BY run_id, topic ORDER BY rank
                                 ROWS UNBOUNDED PRECEDING)) AS pos
FROM ev_listed
WHERE rel >= 1;

-- measure: U
-- dialect: irw
-- needs: listed
-- positive: l, norm
-- params: snippet DOUBLE = 200; f DOUBLE = 0.2; l DOUBLE = 132000; norm DOUBLE = 1;
--         max_level INTEGER = 0; missing_length DOUBLE = 0
-- summary: mean
-- doc: U-measure, linear traversal (Sakai & Dou 2013; Sakai, PROMISE 2014, eq 19-20, Fig 5): (1/norm) sum
--      over relevant ranks of (2^level-1)/2^H max(0, 1 - pos(r)/l), pos(r) = snippet r + f sum
--      of the lengths in characters of the relevant documents at ranks <= r.
CREATE OR REPLACE MACRO m_u_measure(snippet, f, l, norm, max_level, missing_length) AS TABLE
WITH top_level AS (
    SELECT topic, max(rel) AS h FROM ev_judgment GROUP BY topic
),
s AS (
    SELECT p.run_id, p.topic,
           ev_from_fixed(sum(ev_to_fixed((pow(2.0, p.rel) - 1.0)
               / pow(2.0, CASE WHEN max_level > 0 THEN max_level ELSE t.h END)
               * greatest(0.0, 1.0 - p.pos / l)))) AS v
    FROM ev_u_positions(snippet, f, missing_length) p
    JOIN top_level t ON t.topic = p.topic
    GROUP BY p.run_id, p.topic
)
SELECT e.run_id, e.topic, coalesce(s.v, 0.0) / norm AS value
FROM ev_base() e
LEFT JOIN s ON s.run_id = e.run_id AND s.topic = e.topic;
