"""Test cases of sacrebleu's own test suite (mjpost/sacrebleu, commit f615c72,
test/test_bleu.py and test/test_sentence_bleu.py), ported as golden data: the inputs and the
expected scores are theirs (sacrebleu's 0-100 scale)."""

# test/test_bleu.py: the README example (two reference streams, three segments)
REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]

# (hypotheses, reference streams, keyword arguments, expected corpus BLEU, tolerance)
CORPUS_CASES = [
    (HYPS, REFS, {}, 48.530827, 1e-6),
    (("", "", ""), REFS, {}, 0.0, 1e-6),
    (HYPS, REFS, {"tokenize": "none"}, 49.1919566, 1e-6),
    (HYPS, REFS, {"tokenize": "13a"}, 48.530827, 1e-6),
    (HYPS, REFS, {"smooth_method": "none"}, 48.530827, 1e-6),
    (HYPS, REFS, {"max_order": 1}, 77.65, 0.005),
    (HYPS, REFS, {"max_order": 2}, 60.50, 0.005),
    (HYPS, REFS, {"max_order": 3}, 53.93, 0.005),
    (HYPS, REFS, {"max_order": 4}, 48.53, 0.005),
    (HYPS, REFS, {"max_order": 5}, 46.14, 0.005),
    (HYPS, REFS, {"max_order": 6}, 43.28, 0.005),
    # raw_corpus_bleu: tokenize none, floor smoothing, effective order
    (["this is a test", "another test"], [["ref1", "ref2"]],
     {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.01,
      "effective_order": True}, 0.0, 1e-6),
    (["this is a test"], [["this is a test"]],
     {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.01,
      "effective_order": True}, 100.0, 1e-6),
    (["this is a fest"], [["this is a test"]],
     {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.01,
      "effective_order": True},
     22.3606797749979, 1e-6),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]],
     {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.1,
      "effective_order": True}, 15.55722182, 1e-6),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]],
     {"tokenize": "none", "smooth_method": "floor", "smooth_value": 0.0,
      "effective_order": True}, 0.0, 1e-6),
]

# (hypothesis, references, expected counts and totals of orders 1-4): test_statistics
STATISTICS_CASES = [
    ("am I am a character sequence", ["I am a symbol string sequence a a"],
     [4, 2, 1, 0], [6, 5, 4, 3]),
]

# test/test_sentence_bleu.py, the example of sacrebleu issue #98 (tokenize 13a cases only;
# sacrebleu's tolerance there is 1e-3 on its 0-100 scale)
SENT_REF = "producţia de zahăr brut se exprimă în zahăr alb;"
SENT_SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
# (smooth_method, smooth_value, tokenize, expected sentence BLEU)
SENTENCE_CASES = [
    ("exp", None, "13a", 8.493),
    ("none", None, "13a", 0.0),
    ("floor", None, "13a", 4.51688),
    ("floor", 0.1, "13a", 4.51688),
    ("floor", 0.5, "13a", 10.10),
    ("add-k", None, "13a", 14.882),
    ("add-k", 1, "13a", 14.882),
    ("add-k", 2, "13a", 21.389),
    ("exp", None, "none", 7.347),
]
# issue #141: no match at all is 0 whatever the smoothing
ZERO_REF, ZERO_SYS = "okay thanks", "this is a cat"
ZERO_CASES = [("exp", None), ("none", None), ("floor", None), ("floor", 0.1), ("add-k", None),
              ("add-k", 1)]
# test_case_effective_order (raw_corpus_bleu, floor 0.01, tokenize none, one segment)
EFFECTIVE_ORDER_CASES = [("test", ["a test"], 36.78794411714425),
                         ("a test", ["a test"], 100.0),
                         ("a little test", ["a test"], 3.218297948685433)]
