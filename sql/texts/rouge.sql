-- ROUGE-N, ROUGE-S and ROUGE-SU over the stored tokens (text_token), as group-bys.
-- Lin (2004), "ROUGE: A package for automatic evaluation of summaries", ACL 2004 Workshop on
-- Text Summarization Branches Out; counts as ROUGE-1.5.5.pl counts them (see
-- irwarehouse/texts/rouge.py, the port these macros are tested against). Installed by
-- irwarehouse.texts.store.install_text_macros. ROUGE-L and ROUGE-W (a sequential back-trace
-- with clipping) are computed in Python from irw_rouge_tokens.

-- One row (ok = 1), or an error naming an unknown campaign or reference set (ROUGE, BLEU).
CREATE OR REPLACE MACRO irw_reference_guard(campaign := NULL, refs := NULL) AS TABLE
    SELECT CASE
        WHEN NOT EXISTS (SELECT 1 FROM campaign c WHERE c.name = campaign)
            THEN error(concat('no campaign ', campaign, ' in the warehouse'))
        WHEN NOT EXISTS (SELECT 1 FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
                         WHERE c.name = campaign AND q.name = refs AND q.format = 'text_references')
            THEN error(concat('no reference texts ', refs, ' in campaign ', campaign))
        ELSE 1 END AS ok;

-- The tokens ROUGE counts for one setting: -s drops stopwords, -m uses the stems, -l keeps the
-- first word_limit whitespace-separated words; pos is renumbered 1.. after filtering.
CREATE OR REPLACE MACRO irw_rouge_tokens(campaign := NULL, refs := NULL, stem_tokens := false,
                                         remove_stopwords := false, word_limit := 0) AS TABLE
WITH owner AS (
    SELECT 'run' AS source, r.run_id AS owner_id
    FROM run r JOIN campaign c ON c.campaign_id = r.campaign_id
    WHERE c.name = campaign
    UNION ALL
    SELECT 'ref', q.qrels_id
    FROM qrels q JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = refs
), guard AS (
    SELECT ok FROM irw_reference_guard(campaign := campaign, refs := refs)
)
SELECT t.source, t.owner_id, t.topic, t.ref_id, t.sentence,
       CASE WHEN stem_tokens THEN t.stem ELSE t.token END AS term,
       row_number() OVER (PARTITION BY t.source, t.owner_id, t.topic, t.ref_id
                          ORDER BY t.pos) AS pos
FROM text_token t
JOIN owner o ON o.source = t.source AND o.owner_id = t.owner_id
CROSS JOIN guard
WHERE guard.ok = 1
  AND NOT (remove_stopwords AND t.is_stop)
  AND (word_limit <= 0 OR t.word_no < word_limit);

-- The counted units of every text: n-grams (kind 'N', crossing sentence boundaries as ROUGE's
-- do), or skip bigrams (kind 'S': ordered pairs at most max_gap words apart, max_gap < 0 = any
-- gap) with, when unigrams, every token but the last on its own (ROUGE-SU).
CREATE OR REPLACE MACRO irw_rouge_grams(campaign := NULL, refs := NULL, kind := 'N', n := 1,
                                        max_gap := -1, unigrams := false, stem_tokens := false,
                                        remove_stopwords := false, word_limit := 0) AS TABLE
WITH tok AS (
    SELECT * FROM irw_rouge_tokens(campaign := campaign, refs := refs,
                                   stem_tokens := stem_tokens,
                                   remove_stopwords := remove_stopwords,
                                   word_limit := word_limit)
), ngram AS (
    SELECT source, owner_id, topic, ref_id,
           list(term) OVER (PARTITION BY source, owner_id, topic, ref_id ORDER BY pos
                            ROWS BETWEEN CURRENT ROW AND n - 1 FOLLOWING) AS gram
    FROM tok
    WHERE kind = 'N'
    QUALIFY len(gram) = n
), last_pos AS (
    SELECT source, owner_id, topic, ref_id, max(pos) AS last
    FROM tok GROUP BY source, owner_id, topic, ref_id
)
SELECT * FROM ngram
UNION ALL
SELECT a.source, a.owner_id, a.topic, a.ref_id, [a.term, b.term]
FROM tok a
JOIN tok b ON b.source = a.source AND b.owner_id = a.owner_id AND b.topic = a.topic
          AND b.ref_id = a.ref_id AND b.pos > a.pos
          AND (max_gap < 0 OR b.pos <= a.pos + max_gap + 1)
WHERE kind = 'S'
UNION ALL
SELECT a.source, a.owner_id, a.topic, a.ref_id, [a.term]
FROM tok a
JOIN last_pos l ON l.source = a.source AND l.owner_id = a.owner_id AND l.topic = a.topic
               AND l.ref_id = a.ref_id
WHERE kind = 'S' AND unigrams AND a.pos < l.last;

-- measure: ROUGE
-- params: refs VARCHAR; kind VARCHAR = 'N'; n INTEGER = 1; max_gap DOUBLE = -1; unigrams BOOLEAN = false; stem_tokens BOOLEAN = false; remove_stopwords BOOLEAN = false; word_limit INTEGER = 0; formula VARCHAR = 'A'; alpha DOUBLE = 0.5
-- summary: mean
-- doc: ROUGE-N (kind 'N') or ROUGE-S/SU (kind 'S') of every run output of a campaign against
--   the reference set `refs`: hit = sum over units of min(count in output, count in reference);
--   R = hit / reference units, P = hit / output units, F = PR / ((1 - alpha) P + alpha R).
--   Formula A sums hits and counts over the references (the output's count once per
--   reference); formula B keeps the reference with the best recall (rounded to 5 decimals,
--   the first on ties). value = F. Exact values: `irw rouge` prints ROUGE's 5-decimal ones.
-- source: Lin (2004) ACL Workshop on Text Summarization Branches Out; ROUGE-1.5.5.pl
--   computeNGramScore / computeSkipBigramScore; Sakai (2014) PROMISE Winter School, eq 36-39.
CREATE OR REPLACE MACRO irw_rouge(campaign := NULL, refs := NULL, kind := 'N', n := 1,
                                  max_gap := -1, unigrams := false, stem_tokens := false,
                                  remove_stopwords := false, word_limit := 0, formula := 'A',
                                  alpha := 0.5) AS TABLE
WITH unit_count AS (
    SELECT source, owner_id, topic, ref_id, gram, count(*) AS c
    FROM irw_rouge_grams(campaign := campaign, refs := refs, kind := kind, n := n,
                         max_gap := max_gap, unigrams := unigrams, stem_tokens := stem_tokens,
                         remove_stopwords := remove_stopwords, word_limit := word_limit)
    GROUP BY ALL
), output AS (
    SELECT DISTINCT o.run_id, r.name AS run, o.topic
    FROM text_output o JOIN run r ON r.run_id = o.run_id
    JOIN campaign c ON c.campaign_id = r.campaign_id
    WHERE c.name = campaign
), reference AS (
    SELECT DISTINCT t.topic, t.ref_id, t.ref_no
    FROM text_reference t JOIN qrels q ON q.qrels_id = t.qrels_id
    JOIN campaign c ON c.campaign_id = q.campaign_id
    WHERE c.name = campaign AND q.name = refs
), hit AS (
    SELECT p.owner_id AS run_id, m.topic, m.ref_id, sum(least(p.c, m.c)) AS hit
    FROM unit_count m
    JOIN unit_count p ON p.source = 'run' AND p.topic = m.topic AND p.gram = m.gram
    WHERE m.source = 'ref'
    GROUP BY ALL
), model_total AS (
    SELECT topic, ref_id, sum(c) AS model_count
    FROM unit_count WHERE source = 'ref' GROUP BY ALL
), peer_total AS (
    SELECT owner_id AS run_id, topic, sum(c) AS peer_count
    FROM unit_count WHERE source = 'run' GROUP BY ALL
), pair AS (
    SELECT o.run_id, o.run, o.topic, r.ref_id, r.ref_no,
           coalesce(h.hit, 0) AS hit, coalesce(mt.model_count, 0) AS model_count,
           coalesce(pt.peer_count, 0) AS peer_count
    FROM output o
    JOIN reference r ON r.topic = o.topic
    LEFT JOIN hit h ON h.run_id = o.run_id AND h.topic = o.topic AND h.ref_id = r.ref_id
    LEFT JOIN model_total mt ON mt.topic = o.topic AND mt.ref_id = r.ref_id
    LEFT JOIN peer_total pt ON pt.run_id = o.run_id AND pt.topic = o.topic
), ranked AS (
    SELECT *, row_number() OVER (
        PARTITION BY run_id, topic
        ORDER BY CASE WHEN model_count > 0 THEN round(hit / model_count, 5) ELSE 0 END DESC,
                 ref_no) AS best
    FROM pair
), total AS (
    SELECT run, topic, sum(hit) AS hit, sum(model_count) AS model_count,
           sum(peer_count) AS peer_count
    FROM ranked
    WHERE formula = 'A' OR best = 1
    GROUP BY run, topic
), rp AS (
    SELECT run, topic, hit, model_count, peer_count,
           CASE WHEN model_count > 0 THEN hit / model_count ELSE 0 END AS recall,
           CASE WHEN peer_count > 0 THEN hit / peer_count ELSE 0 END AS precision
    FROM total
)
SELECT run, topic, hit, model_count, peer_count, recall, precision,
       CASE WHEN (1 - alpha) * precision + alpha * recall > 0
            THEN precision * recall / ((1 - alpha) * precision + alpha * recall)
            ELSE 0 END AS f,
       CASE WHEN (1 - alpha) * precision + alpha * recall > 0
            THEN precision * recall / ((1 - alpha) * precision + alpha * recall)
            ELSE 0 END AS value
FROM rp;
