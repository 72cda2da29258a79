-- BLEU (Papineni, Roukos, Ward & Zhu, ACL 2002) over the stored texts (text_output against a
-- reference set of text_reference, `irw ingest texts`), computed as sacrebleu 2.x computes it
-- (Post, WMT 2018): mteval-v13a tokenisation, n-grams of orders 1..4 clipped by their largest
-- count in any one reference, the closest reference length (the shorter on a tie), brevity
-- penalty exp(1 - r/c) when c < r, and sacrebleu's smoothing methods (Chen & Cherry, WMT 2014).
-- A topic's output (its sentences joined by a space) is one segment, and so is each reference.
-- Values are on irw's 0-1 scale: sacrebleu's score / 100. Persistent macros: e.g.
--   SELECT * FROM irw_bleu(campaign := 'c', refs := 'refs');
-- Installed by irwarehouse.texts.store.install_text_macros. See docs/texts_sessions_meta.md.

-- block: irw_bleu_13a
-- The mteval-v13a tokens of a line as sacrebleu's Tokenizer13a makes them: trailing whitespace
-- dropped, '<skipped>' and '-' + newline removed, newlines to spaces, four HTML entities
-- unescaped, punctuation split off (periods and commas not between digits, a dash after a
-- digit), then split on (Python's) whitespace.
CREATE OR REPLACE MACRO irw_bleu_13a(line) AS
list_filter(regexp_split_to_array(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(
        ' ' || replace(replace(replace(replace(replace(replace(replace(
            regexp_replace(line, '[\s\x{0B}\x{1C}-\x{1F}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+$', ''),
            '<skipped>', ''), '-' || chr(10), ''), chr(10), ' '),
            '&quot;', '"'), '&amp;', '&'), '&lt;', '<'), '&gt;', '>') || ' ',
        '([\{-\~\[-\` -\&\(-\+\:-\@\/])', ' \1 ', 'g'),
        '([^0-9])([\.,])', '\1 \2 ', 'g'),
        '([\.,])([^0-9])', ' \1 \2', 'g'),
        '([0-9])(-)', '\1 \2 ', 'g'),
    '[\s\x{0B}\x{1C}-\x{1F}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+'),
    lambda t: t <> '');

-- block: irw_bleu_tokens
-- A segment's tokens: lower-cased first when asked (sacrebleu -lc), then tokenize '13a'
-- (irw_bleu_13a, sacrebleu's default) or 'none' (split on whitespace only).
CREATE OR REPLACE MACRO irw_bleu_tokens(line, lowercase, tokenize) AS
CASE WHEN tokenize = '13a' THEN irw_bleu_13a(CASE WHEN lowercase THEN lower(line) ELSE line END)
     WHEN tokenize = 'none'
     THEN list_filter(regexp_split_to_array(CASE WHEN lowercase THEN lower(line) ELSE line END,
              '[\s\x{0B}\x{1C}-\x{1F}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+'),
              lambda t: t <> '')
     ELSE error('tokenize must be ''13a'' or ''none'', not ''' || tokenize || '''') END;

-- block: irw_bleu_counts
-- BLEU's sufficient statistics of every (run, topic) with an output and references: for each
-- order n = 1..max_order the matched (clipped) n-grams `correct` and the output's n-grams
-- `total`, the output length sys_len and the closest reference length ref_len; an error names
-- an unknown campaign or reference set.
CREATE OR REPLACE MACRO irw_bleu_counts(campaign := NULL, refs := NULL, lowercase := false,
                                        max_order := 4, tokenize := '13a') AS TABLE
WITH guard AS (
    SELECT ok FROM irw_reference_guard(campaign := campaign, refs := refs)
), ref_text AS (
    SELECT t.topic, t.ref_id, string_agg(t.body, ' ' ORDER BY t.sentence) AS body
    FROM text_reference t JOIN qrels q ON q.qrels_id = t.qrels_id
    JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = refs
    GROUP BY t.topic, t.ref_id
), ref_tok AS (
    SELECT topic, ref_id, irw_bleu_tokens(body, lowercase, tokenize) AS toks
    FROM ref_text
), hyp_tok AS (
    SELECT o.run_id, r.name AS run, o.topic, irw_bleu_tokens(o.body, lowercase, tokenize) AS toks
    FROM (SELECT run_id, topic, string_agg(body, ' ' ORDER BY sentence) AS body
          FROM text_output GROUP BY run_id, topic) o
    JOIN run r ON r.run_id = o.run_id JOIN campaign c ON c.campaign_id = r.campaign_id
    CROSS JOIN guard
    WHERE guard.ok = 1 AND c.name = campaign AND o.topic IN (SELECT topic FROM ref_tok)
), orders AS (
    SELECT unnest(range(1, max_order + 1)) AS n
), hyp_gram AS (
    SELECT run_id, topic, n, gram, count(*) AS c
    FROM (SELECT run_id, topic, n, toks[i:i + n - 1] AS gram
          FROM (SELECT h.run_id, h.topic, h.toks, o.n,
                       unnest(range(1, len(h.toks) - o.n + 2)) AS i
                FROM hyp_tok h CROSS JOIN orders o))
    GROUP BY ALL
), ref_gram AS (   -- an n-gram's largest count in any one reference of the topic
    SELECT topic, n, gram, max(c) AS c
    FROM (SELECT topic, ref_id, n, gram, count(*) AS c
          FROM (SELECT topic, ref_id, n, toks[i:i + n - 1] AS gram
                FROM (SELECT r.topic, r.ref_id, r.toks, o.n,
                             unnest(range(1, len(r.toks) - o.n + 2)) AS i
                      FROM ref_tok r CROSS JOIN orders o))
          GROUP BY ALL)
    GROUP BY ALL
), per_order AS (
    SELECT h.run_id, h.topic, h.n, sum(CAST(h.c AS BIGINT)) AS total,
           sum(CAST(least(h.c, coalesce(r.c, 0)) AS BIGINT)) AS correct
    FROM hyp_gram h LEFT JOIN ref_gram r ON r.topic = h.topic AND r.n = h.n AND r.gram = h.gram
    GROUP BY ALL
), closest AS (    -- the reference length closest to the output's, the shorter on a tie
    SELECT h.run_id, h.topic, len(h.toks) AS sys_len,
           arg_min(len(r.toks), (abs(len(h.toks) - len(r.toks)), len(r.toks))) AS ref_len
    FROM hyp_tok h JOIN ref_tok r ON r.topic = h.topic
    GROUP BY ALL
)
SELECT h.run, h.topic, o.n, cl.sys_len, cl.ref_len,
       coalesce(p.correct, 0) AS correct, coalesce(p.total, 0) AS total
FROM hyp_tok h CROSS JOIN orders o
JOIN closest cl ON cl.run_id = h.run_id AND cl.topic = h.topic
LEFT JOIN per_order p ON p.run_id = h.run_id AND p.topic = h.topic AND p.n = o.n;

-- block: irw_bleu_score
-- BLEU of summed statistics, one row per (run, topic) (level 'segment') or per run (level
-- 'corpus', topic 'all'), as sacrebleu's BLEU.compute_bleu: 0 when no n-gram matches; add-k
-- adds k to correct and total of orders n > 1; orders from the first with no n-gram on are
-- left out (with effective_order the mean runs over the orders left, else over max_order,
-- where a left-out order makes BLEU 0); an order without a match gets precision
-- 1 / (2^j total) for the j-th such order ('exp'), smooth_value / total ('floor') or 0
-- ('none', which makes BLEU 0); BLEU = BP exp(mean of ln p_n).
CREATE OR REPLACE MACRO irw_bleu_score(campaign := NULL, refs := NULL, lowercase := false,
                                       max_order := 4, smooth_method := 'exp',
                                       smooth_value := NULL, effective_order := true,
                                       tokenize := '13a', level := 'segment') AS TABLE
WITH counts AS (
    SELECT * FROM irw_bleu_counts(campaign := campaign, refs := refs, lowercase := lowercase,
                                  max_order := max_order, tokenize := tokenize)
), summed AS (
    SELECT run, CASE WHEN level = 'corpus' THEN 'all' ELSE topic END AS topic, n,
           CAST(sum(CAST(sys_len AS BIGINT)) AS DOUBLE) AS sys_len,
           CAST(sum(CAST(ref_len AS BIGINT)) AS DOUBLE) AS ref_len,
           sum(CAST(correct AS BIGINT)) AS raw_correct,
           sum(CAST(correct AS BIGINT)) + CASE WHEN smooth_method = 'add-k' AND n > 1
                               THEN coalesce(smooth_value, 1) ELSE 0 END AS correct,
           sum(CAST(total AS BIGINT)) + CASE WHEN smooth_method = 'add-k' AND n > 1
                             THEN coalesce(smooth_value, 1) ELSE 0 END AS total
    FROM counts
    WHERE CASE WHEN smooth_method IN ('exp', 'floor', 'add-k', 'none')
                AND level IN ('segment', 'corpus') THEN true
               ELSE error('smooth_method must be exp, floor, add-k or none and level segment '
                          || 'or corpus') END
    GROUP BY 1, 2, 3
), ordered AS (
    SELECT *,
           -- orders up to (not including) the first with no n-gram are counted
           coalesce(min(n) FILTER (WHERE total = 0) OVER w, max_order + 1) - 1 AS n_valid,
           count(*) FILTER (WHERE correct = 0) OVER (w ORDER BY n) AS zeros_so_far,
           sum(CAST(raw_correct AS BIGINT)) OVER w AS any_correct
    FROM summed
    WINDOW w AS (PARTITION BY run, topic)
), precision AS (
    SELECT *,
           CASE WHEN n > n_valid THEN 0.0
                WHEN correct > 0 THEN 100.0 * correct / total
                WHEN smooth_method = 'exp' THEN 100.0 / (pow(2, zeros_so_far) * total)
                WHEN smooth_method = 'floor' THEN 100.0 * coalesce(smooth_value, 0.1) / total
                ELSE 0.0 END AS p,
           CASE WHEN effective_order AND n_valid > 0 THEN n_valid ELSE max_order END AS eff
    FROM ordered
)
SELECT run, topic,
       CASE WHEN any_value(any_correct) = 0 THEN 0.0
            ELSE any_value(bp) * exp(sum(CASE WHEN p > 0 THEN ln(p) ELSE -9999999999 END
                                         ORDER BY n) FILTER (WHERE n <= eff)
                                     / any_value(eff)) / 100.0 END AS value,
       any_value(bp) AS bp, any_value(sys_len) AS sys_len, any_value(ref_len) AS ref_len,
       list(p / 100.0 ORDER BY n) AS precisions
FROM (SELECT *, CASE WHEN sys_len >= ref_len THEN 1.0
                     WHEN sys_len > 0 THEN exp(1 - ref_len / sys_len) ELSE 0.0 END AS bp
      FROM precision)
GROUP BY run, topic;

-- measure: BLEU
-- params: refs VARCHAR; lowercase BOOLEAN = false; max_order INTEGER = 4; smooth_method VARCHAR = 'exp'; smooth_value DOUBLE = NULL; effective_order BOOLEAN = true; tokenize VARCHAR = '13a'
-- summary: mean
-- doc: sentence-level BLEU of every run output of a campaign against the reference set `refs`
--   (each topic's output one segment): BLEU = BP exp(sum_{n<=N} ln(p_n) / N), p_n the clipped
--   n-gram precision (an n-gram counts at most as often as in one reference), BP = 1 if c >= r
--   else exp(1 - r/c) with c the output's and r the closest reference's length in
--   mteval-v13a tokens. Defaults as sacrebleu.sentence_bleu: 'exp' smoothing, effective order.
--   0 when no n-gram matches or the output is empty; 0-1 scale (sacrebleu's score / 100).
--   Corpus BLEU (statistics summed over topics, sacrebleu.corpus_bleu): irw_bleu_corpus.
-- source: Papineni, Roukos, Ward & Zhu, ACL 2002; Post, "A call for clarity in reporting BLEU
--   scores", WMT 2018 (sacrebleu); Chen & Cherry, WMT 2014 (smoothing).
CREATE OR REPLACE MACRO irw_bleu(campaign := NULL, refs := NULL, lowercase := false,
                                 max_order := 4, smooth_method := 'exp', smooth_value := NULL,
                                 effective_order := true, tokenize := '13a') AS TABLE
SELECT run, topic, value, bp, sys_len, ref_len, precisions
FROM irw_bleu_score(campaign := campaign, refs := refs, lowercase := lowercase,
                    max_order := max_order, smooth_method := smooth_method,
                    smooth_value := smooth_value, effective_order := effective_order,
                    tokenize := tokenize, level := 'segment');

-- block: irw_bleu_corpus
-- Corpus BLEU of every run (topic 'all'): the statistics of all its topics summed first, as
-- sacrebleu.corpus_bleu (defaults: 'exp' smoothing, no effective order); 0-1 scale.
CREATE OR REPLACE MACRO irw_bleu_corpus(campaign := NULL, refs := NULL, lowercase := false,
                                        max_order := 4, smooth_method := 'exp',
                                        smooth_value := NULL, effective_order := false,
                                        tokenize := '13a') AS TABLE
SELECT run, topic, value, bp, sys_len, ref_len, precisions
FROM irw_bleu_score(campaign := campaign, refs := refs, lowercase := lowercase,
                    max_order := max_order, smooth_method := smooth_method,
                    smooth_value := smooth_value, effective_order := effective_order,
                    tokenize := tokenize, level := 'corpus');
