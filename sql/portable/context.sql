-- Portable rewrites of context builders (sql/context.sql) whose warehouse definition uses a
-- DuckDB-only construct for speed. The Spark path (irwarehouse.spark.inline, portable=True)
-- reads a macro here in place of the one of the same name in sql/context.sql; each computes the
-- same relation, and tests/spark/test_inline.py checks that on DuckDB, both definitions
-- side by side. docs/sql_portability.md lists why each exists.

-- relation: ev_counted
-- The relevant documents of each evaluated list with the running counts of relevant, judged
-- non-relevant and in-pool-unjudged documents at ranks <= r (context.sql reads a judged
-- document's position off an ordered list, DuckDB's list functions, and counts the kept
-- documents alone): three running sums over every judged document, then the relevant ones.
CREATE OR REPLACE MACRO ev_make_counted() AS TABLE
SELECT * FROM (
    SELECT run_id, topic, rank, rel, is_rel,
           CAST(sum(CASE WHEN is_rel THEN 1 ELSE 0 END) OVER w AS BIGINT) AS rel_so_far,
           CAST(sum(CASE WHEN rel >= 0 AND NOT is_rel THEN 1 ELSE 0 END) OVER w AS BIGINT)
               AS nonrel_so_far,
           CAST(sum(CASE WHEN rel < 0 THEN 1 ELSE 0 END) OVER w AS BIGINT) AS unjudged_so_far
    FROM ev_ranked
    WINDOW w AS (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING)
)
WHERE is_rel;

-- relation: ev_ranked
-- ev_ranked in one pass, renumbered under -J by the window (context.sql splits it into two
-- branches, -J off and on, so that DuckDB skips the window when -J is off: a UNION ALL that
-- reads ev_full_ranked twice and doubles the plan Spark analyses: the explained SELECT of a
-- D#-nDCG macro then exceeded a 1 GB driver's heap).
CREATE OR REPLACE MACRO ev_make_ranked(relevance_level, judged_only) AS TABLE
SELECT run_id, topic, rank, rel, rel >= relevance_level AS is_rel
FROM (
    SELECT run_id, topic, rel,
           CASE WHEN judged_only
                THEN row_number() OVER (PARTITION BY run_id, topic ORDER BY full_rank)
                ELSE full_rank END AS rank
    FROM ev_full_ranked
    WHERE NOT judged_only OR rel >= 0
);

-- relation: ev_relevant
-- ev_relevant counted by its window for every run (context.sql reads the running counts that
-- ingestion stores in relevant_row, a table the Spark export does not carry).
CREATE OR REPLACE MACRO ev_make_relevant(relevance_level, judged_only, sort_order,
                                         trec_eval_version, max_docs) AS TABLE
SELECT run_id, topic, rank, rel,
       row_number() OVER (PARTITION BY run_id, topic ORDER BY rank) AS rel_so_far,
       CAST(NULL AS DOUBLE) AS precision_sum
FROM ev_ranked
WHERE is_rel;

-- relation: ev_div_ideal
-- ndeval's greedy ideal list (context.sql: ndeval.c idealResult; docs/diversity_semantics.md
-- section 1) without a recursive CTE: context.sql's recursion ranks the candidates of each
-- step with a window function over the recursive relation, which Spark's WITH RECURSIVE
-- refuses. Here each topic's walk is one fold (list_reduce; Spark's aggregate) over its steps,
-- with the state (documents taken per signature, the subtopics' current gains, the picks so
-- far) in a struct. A step takes, among the signatures with documents left, the one whose next
-- document (by descending docno) has the largest sum, over the signature's subtopics in
-- ascending order, of their current gains; ties to the larger docno (list_max of
-- (sum, doc, signature)); then multiplies the gains of its subtopics by 1 - alpha. Same
-- arithmetic, in the same order, as context.sql's (the sums start from 0.0, which adds
-- nothing), so the same ties.
CREATE OR REPLACE MACRO ev_make_div_ideal(alpha) AS TABLE
WITH
relevant AS (
    SELECT DISTINCT topic, intent, doc FROM ev_div_judgment WHERE is_rel
),
intents AS (
    SELECT DISTINCT topic, intent FROM relevant
),
intent_number AS (
    -- ndeval's subtopic order: numbers ascending (they are its array indices), then names
    SELECT topic, intent,
           row_number() OVER (PARTITION BY topic
                              ORDER BY CASE WHEN regexp_full_match(intent, '[0-9]+')
                                            THEN CAST(intent AS DECIMAL(38, 0)) END NULLS LAST,
                                       intent) AS k,
           count(*) OVER (PARTITION BY topic) AS m
    FROM intents
),
doc_signature AS (
    SELECT r.topic, r.doc, list(i.k ORDER BY i.k) AS ks, any_value(i.m) AS m
    FROM relevant r JOIN intent_number i ON i.topic = r.topic AND i.intent = r.intent
    GROUP BY r.topic, r.doc
),
signature AS (
    -- the documents of a signature in ascending docno order: the next one is taken from the end
    SELECT topic, ks, list(doc ORDER BY doc) AS docs, any_value(m) AS m
    FROM doc_signature
    GROUP BY topic, ks
),
topic_signatures AS (
    SELECT topic, list(ks ORDER BY ks) AS sig_ks, list(docs ORDER BY ks) AS sig_docs,
           CAST(sum(array_length(docs)) AS INTEGER) AS n, CAST(count(*) AS INTEGER) AS num_signatures,
           CAST(any_value(m) AS INTEGER) AS m
    FROM signature
    GROUP BY topic
),
walked AS (
    SELECT topic, n,
           list_reduce(
               range(n),
               lambda state, step: list_transform(
                   [list_max(list_transform(
                       list_filter(range(1, num_signatures + 1),
                                   lambda s: state.taken[s] < array_length(sig_docs[s])),
                       lambda s: {'score': list_reduce(list_transform(sig_ks[s],
                                                                      lambda k: state.gains[k]),
                                                       lambda a, b: a + b,
                                                       CAST(0.0 AS DOUBLE)),
                                  'doc': sig_docs[s][array_length(sig_docs[s]) - state.taken[s]],
                                  's': s}))],
                   lambda best: {
                       'taken': list_transform(state.taken, lambda c, i: CASE WHEN i = best.s
                                                                             THEN c + 1
                                                                             ELSE c END),
                       'gains': list_transform(state.gains,
                                               lambda x, k: CASE WHEN list_contains(
                                                                     sig_ks[best.s], k)
                                                                 THEN x * (1 - alpha)
                                                                 ELSE x END),
                       'picks': list_append(state.picks, best.doc)})[1],
               {'taken': list_transform(range(num_signatures), lambda x: 0),
                'gains': list_transform(range(m), lambda x: CAST(1.0 AS DOUBLE)),
                'picks': CAST([] AS VARCHAR[])}).picks AS picks
    FROM topic_signatures
)
SELECT CAST(alpha AS DOUBLE) AS alpha_key, w.topic, CAST(g.rank AS BIGINT) AS rank,
       w.picks[g.rank] AS doc
FROM walked w, generate_series(1, w.n) g(rank);

-- block: ev_to_fixed / ev_from_fixed
-- Exact sums (context.sql: x * 2^80 as a HUGEINT, added exactly, rounded to a double once):
-- Spark has no 128-bit integer, but its DECIMAL(38, 24) adds exactly too (10^-24 < 2^-79;
-- |x| < 10^14, far above any gain, DCG or count the metric SQL adds). Each term is rounded to
-- 24 decimals instead of to 2^-80: the sum can differ from context.sql's in its last bit, and
-- is the same whatever the order of addition, as there.
CREATE OR REPLACE MACRO ev_to_fixed(x) AS
CAST(x AS DECIMAL(38, 24));

CREATE OR REPLACE MACRO ev_from_fixed(s) AS
CAST(s AS DOUBLE);
