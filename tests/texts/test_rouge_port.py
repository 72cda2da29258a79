"""The ROUGE-1.5.5 port: the stemmer against Perl's, hand-worked scores, properties, the SQL
macros against the port on random texts, Perl's random generator, and one-line errors."""

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.cli.rouge import run
from irwarehouse.texts.porter import porter_stem, rouge_stem
from irwarehouse.texts.rouge import combine, gram_pair, lcs_pair, ngram_counts, skip_bigram_counts
from irwarehouse.texts.rouge_eval import PerlRand, RougeOptions
from irwarehouse.texts.rougetext import TokenOptions, sentence_tokens, truncate

HERE = Path(__file__).parent


def test_porter_stems_equal_rouge_155_perl_stems():
    pairs = [line.split("\t") for line in (HERE / "rouge_stems.tsv").read_text().splitlines()
             if not line.startswith("#")]
    assert len(pairs) > 500
    assert [porter_stem(w) for w, _ in pairs] == [s for _, s in pairs]


def test_rouge_stemmer_differs_from_classic_porter_where_rouge_does():
    assert porter_stem("agreement") == "agreem"      # ROUGE's -ement change (NLTK: agreement)
    assert rouge_stem("children") == "child"         # WordNet exception first
    assert rouge_stem("better") == "well"            # adv.exc read after adj.exc


def test_perl_rand_reproduces_perl_5_36():
    # perl -e 'srand(0); print rand(30), " ", rand(30)'  ->  5.12484108318869 22.4970594145489
    rng = PerlRand(0)
    assert f"{rng.rand(30):.15g}" == "5.12484108318869"
    assert f"{rng.rand(30):.15g}" == "22.4970594145489"


def _tokens(text, stem=False, stop=False):
    return sentence_tokens(text.lower().split("\n"), TokenOptions(stem, stop))


def test_hand_worked_rouge_1_2_and_su():
    peer = _tokens("the cat sat on the mat")
    model = _tokens("the cat lay on the mat")
    flat = lambda s: [t for x in s for t in x]
    r1 = combine([gram_pair(ngram_counts(flat(model), 1), ngram_counts(flat(peer), 1))],
                 "A", 0.5)
    assert (r1.recall, r1.precision, r1.f) == ("0.83333", "0.83333", "0.83333")   # 5 of 6
    r2 = combine([gram_pair(ngram_counts(flat(model), 2), ngram_counts(flat(peer), 2))],
                 "A", 0.5)
    assert r2.recall == "0.60000"                                   # the cat, on the, the mat
    grams, count = skip_bigram_counts(["a", "b", "c"], -1, True)
    assert count == 5 and grams["c"] == 0                           # the last unigram: ROUGE
    lcs = combine([lcs_pair(model, peer)], "A", 0.5)
    assert lcs.recall == "0.83333"


def test_punctuation_counts_as_words_for_the_word_limit():
    assert truncate(["a , b c", "d e"], word_limit=3) == ["a , b"]
    assert truncate(["  a b", "c"], word_limit=2) == [" a"]          # Perl's leading field
    assert truncate(["abc", "defg"], byte_limit=5) == ["abc", "de"]


words = st.sampled_from(["the", "of", "evaluation", "evaluated", "agreement", "cats", "cat", "runs", "a", "b", "c"])
texts = st.lists(st.lists(words, min_size=0, max_size=8), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(texts, st.integers(1, 3))
def test_rouge_n_of_a_text_against_itself_is_one(text, n):
    flat = [t for s in text for t in s]
    pair = gram_pair(ngram_counts(flat, n), ngram_counts(flat, n))
    score = combine([pair], "A", 0.5)
    expected = "1.00000" if len(flat) >= n else "0.00000"
    assert (score.recall, score.precision, score.f) == (expected,) * 3
    if flat:
        assert combine([lcs_pair(text, text)], "A", 0.5).recall == "1.00000"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1,
                max_size=3),
       st.sampled_from([("N", 1), ("N", 2), ("S", -1), ("S", 0), ("S", 2)]),
       st.booleans(), st.booleans(), st.sampled_from(["A", "B"]))
def test_sql_macros_equal_the_port(topics, method, stem, stop, formula):
    """irw_rouge (group-bys over text_token) against the port's counts, on random texts."""
    from irwarehouse.store.connection import connect
    from irwarehouse.texts.rouge_store import sql_rouge
    from irwarehouse.texts.store import install_text_macros, store_outputs, store_references
    con = connect(None, macros=False)
    outputs = {(f"t{k}", "sys"): [" ".join(s) for s in peer] for k, (peer, _) in
               enumerate(topics)}
    refs = {(f"t{k}", f"m{j}"): [" ".join(s) for s in model]
            for k, (_, models) in enumerate(topics) for j, model in enumerate(models)}
    store_outputs(con, "c", outputs, "test", "")
    store_references(con, "c", "refs", refs, "test", "")
    install_text_macros(con)
    kind, size = method
    options = RougeOptions(stem=stem, stopwords=stop, formula=formula,
                           skip=str(size) if kind == "S" else None)
    got = sql_rouge(con, "c", "refs", options, kind, n=size if kind == "N" else 1,
                    unigrams=kind == "S")
    opts = TokenOptions(stem, stop)
    for k, (peer, models) in enumerate(topics):
        p = [t for s in sentence_tokens([" ".join(x) for x in peer], opts) for t in s]
        pairs = []
        for model in models:
            m = [t for s in sentence_tokens([" ".join(x) for x in model], opts) for t in s]
            if kind == "N":
                pairs.append(gram_pair(ngram_counts(m, size), ngram_counts(p, size)))
            else:
                pairs.append(gram_pair(skip_bigram_counts(m, size, True),
                                       skip_bigram_counts(p, size, True)))
        want = combine(pairs, formula, 0.5)
        mine = got[(f"t{k}", "sys")]
        assert (mine.recall, mine.precision, mine.f) == (want.recall, want.precision, want.f)
    con.close()


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    import contextlib
    with contextlib.redirect_stderr(err):
        code = run(args, out)
    return code, out.getvalue(), err.getvalue()


def test_malformed_xml_is_one_line_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<ROUGE_EVAL>\n<EVAL ID="1">\n<PEERS>\n</EVAL>\n')
    code, out, err = _run(["-n", "1", "-a", str(bad)])
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"{bad}:4: malformed XML: mismatched tag" in err


def test_missing_summary_file_names_the_config_line(tmp_path):
    config = tmp_path / "c.xml"
    config.write_text('<ROUGE_EVAL>\n<EVAL ID="1">\n<PEER-ROOT>.</PEER-ROOT>\n'
                      '<MODEL-ROOT>.</MODEL-ROOT>\n<INPUT-FORMAT TYPE="SPL"/>\n'
                      '<PEERS>\n<P ID="A">nope.txt</P>\n</PEERS>\n'
                      '<MODELS>\n<M ID="1">nope2.txt</M>\n</MODELS>\n</EVAL>\n</ROUGE_EVAL>\n')
    code, _, err = _run(["-n", "1", "-a", str(config)])
    assert code == 1 and f"{config}:10: summary file not found: ./nope2.txt" in err
    code, _, err = _run(["-n", "1", "-l", "5", "-b", "5", "-a", str(config)])
    assert code == 1 and "not both" in err
    code, _, err = _run(["-n", "1", "-a", str(tmp_path / "absent.xml")])
    assert code == 1 and "absent.xml: no such file" in err       # as every reader says


def test_a_small_config_end_to_end(tmp_path):
    (tmp_path / "p.txt").write_text("The cat sat on the mat .\n")
    (tmp_path / "m.txt").write_text("the cat lay on the mat\n")
    config = tmp_path / "c.xml"
    config.write_text(f'<ROUGE_EVAL>\n<EVAL ID="7">\n<PEER-ROOT>{tmp_path}</PEER-ROOT>\n'
                      f'<MODEL-ROOT>{tmp_path}</MODEL-ROOT>\n<INPUT-FORMAT TYPE="SPL"/>\n'
                      '<PEERS><P ID="S">p.txt</P></PEERS>\n'
                      '<MODELS><M ID="1">m.txt</M></MODELS>\n</EVAL>\n</ROUGE_EVAL>\n')
    code, out, _ = _run(["-n", "2", "-x", "-d", "-r", "10", str(config), "S"])
    assert code == 0
    assert "S ROUGE-1 Eval 7.S R:0.83333 P:0.83333 F:0.83333" in out
    assert "S ROUGE-2 Average_R: 0.60000 (95%-conf.int. 0.60000 - 0.60000)" in out
