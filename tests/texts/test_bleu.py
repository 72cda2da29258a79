"""BLEU (sql/texts/bleu.sql) against sacrebleu: sacrebleu's own test cases as golden data
(tests/texts/bleu_cases.py), the live sacrebleu on random texts, an independent slow oracle of
Papineni et al.'s definition, and the paper's worked example computed by hand."""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.store.connection import connect
from irwarehouse.texts.store import install_text_macros, store_outputs, store_references

from . import bleu_cases as cases

sacrebleu = pytest.importorskip("sacrebleu")


@pytest.fixture
def con():
    c = connect(None, macros=False)
    install_text_macros(c)
    yield c
    c.close()


def _store(con, hyps, ref_streams, *, campaign="c", run="sys"):
    """Segment i of the corpus is topic t<i>; reference stream j is ref_id r<j>."""
    outputs = {(f"t{i:03d}", run): [h] for i, h in enumerate(hyps)}
    refs = {(f"t{i:03d}", f"r{j}"): [stream[i]]
            for j, stream in enumerate(ref_streams) for i in range(len(hyps))}
    store_outputs(con, campaign, outputs, "test", "0" * 64, replace=True)
    store_references(con, campaign, "refs", refs, "test", "0" * 64, replace=True)


def _call(con, macro, **params):
    """(topic -> value) of one macro call, the parameters bound."""
    args = ", ".join(["campaign := 'c'", "refs := 'refs'"]
                     + [f"{k} := ${k}" for k in params])
    rows = con.execute(f"SELECT topic, value FROM {macro}({args}) ORDER BY topic",
                       params).fetchall()
    return dict(rows)


@pytest.mark.parametrize("hyps, refs, kwargs, expected, tol", cases.CORPUS_CASES)
def test_sacrebleu_corpus_cases(con, hyps, refs, kwargs, expected, tol):
    _store(con, hyps, refs)
    got = _call(con, "irw_bleu_corpus", **kwargs)
    assert got["all"] * 100 == pytest.approx(expected, abs=tol)


@pytest.mark.parametrize("hyp, refs, correct, total", cases.STATISTICS_CASES)
def test_sacrebleu_statistics(con, hyp, refs, correct, total):
    _store(con, [hyp], [[r] for r in refs])
    rows = con.execute("SELECT n, correct, total FROM irw_bleu_counts(campaign := 'c', "
                       "refs := 'refs', tokenize := 'none') ORDER BY n").fetchall()
    assert [r[1] for r in rows] == correct
    assert [r[2] for r in rows] == total


@pytest.mark.parametrize("smooth_method, smooth_value, tokenize, expected",
                         cases.SENTENCE_CASES)
def test_sacrebleu_sentence_cases(con, smooth_method, smooth_value, tokenize, expected):
    _store(con, [cases.SENT_SYS], [[cases.SENT_REF]])
    got = _call(con, "irw_bleu", smooth_method=smooth_method, smooth_value=smooth_value,
                tokenize=tokenize)
    assert got["t000"] * 100 == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize("smooth_method, smooth_value", cases.ZERO_CASES)
def test_sacrebleu_no_match_is_zero(con, smooth_method, smooth_value):
    _store(con, [cases.ZERO_SYS], [[cases.ZERO_REF]])
    got = _call(con, "irw_bleu", smooth_method=smooth_method, smooth_value=smooth_value)
    assert got["t000"] == 0.0


@pytest.mark.parametrize("hyp, refs, expected", cases.EFFECTIVE_ORDER_CASES)
def test_sacrebleu_effective_order(con, hyp, refs, expected):
    _store(con, [hyp], [[r] for r in refs])
    got = _call(con, "irw_bleu", tokenize="none", smooth_method="floor", smooth_value=0.01)
    assert got["t000"] * 100 == pytest.approx(expected, abs=1e-8)


def test_papineni_modified_unigram_precision(con):
    # Papineni et al. (ACL 2002) sec 2.1: candidate "the the the the the the the" against
    # "The cat is on the mat" / "There is a cat on the mat": 'the' counts at most twice (its
    # count in reference 1), so the modified unigram precision is 2/7; c = 7 equals the
    # closest reference length (7), so BP = 1 and BLEU with N = 1 is 2/7.
    _store(con, ["the the the the the the the"],
           [["The cat is on the mat"], ["There is a cat on the mat"]])
    got = _call(con, "irw_bleu", lowercase=True, max_order=1)
    assert got["t000"] == pytest.approx(2 / 7, abs=1e-12)
    # without lower-casing 'The' is another word: reference 2's one 'the' clips at 1/7
    assert _call(con, "irw_bleu", max_order=1)["t000"] == pytest.approx(1 / 7, abs=1e-12)


def test_brevity_penalty_by_hand(con):
    # c = 2 < r = 4: BP = exp(1 - 4/2) = e^-1; both unigrams and the bigram match, the
    # effective order is 2: BLEU = e^-1 (1 * 1)^(1/2)
    _store(con, ["a b"], [["a b c d"]])
    assert _call(con, "irw_bleu")["t000"] == pytest.approx(math.exp(-1), abs=1e-12)


# -- the live reference and an independent oracle on random texts -----------------------------
WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "The", "x,y",
                         "3.5", "end.", "(a)", "well-known", "1-2", "&amp;", "don't"])
SEGMENT = st.lists(WORDS, min_size=0, max_size=9).map(" ".join)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data(), n_segments=st.integers(1, 4), n_refs=st.integers(1, 3))
def test_matches_sacrebleu_on_random_texts(data, n_segments, n_refs):
    hyps = [data.draw(SEGMENT) for _ in range(n_segments)]
    refs = [[data.draw(SEGMENT) for _ in range(n_segments)] for _ in range(n_refs)]
    smooth = data.draw(st.sampled_from(["exp", "floor", "add-k", "none"]))
    lowercase = data.draw(st.booleans())
    c = connect(None, macros=False)
    try:
        install_text_macros(c)
        _store(c, hyps, refs)
        corpus = _call(c, "irw_bleu_corpus", smooth_method=smooth, lowercase=lowercase)
        expected = sacrebleu.corpus_bleu(hyps, refs, smooth_method=smooth,
                                         lowercase=lowercase).score
        assert corpus["all"] * 100 == pytest.approx(expected, abs=1e-9)
        sentence = _call(c, "irw_bleu", smooth_method=smooth, lowercase=lowercase)
        for i, h in enumerate(hyps):
            want = sacrebleu.sentence_bleu(h, [s[i] for s in refs], smooth_method=smooth,
                                           lowercase=lowercase).score
            assert sentence[f"t{i:03d}"] * 100 == pytest.approx(want, abs=1e-9)
    finally:
        c.close()


def _oracle_bleu(hyps, refs, n_max=4):
    """Papineni et al. (2002) sec 2.1-2.3, unsmoothed corpus BLEU over whitespace tokens:
    clipped counts against the largest count in one reference, best-match length r."""
    correct, total, c_len, r_len = [0] * n_max, [0] * n_max, 0, 0
    for i, hyp in enumerate(hyps):
        h = hyp.split()
        rs = [stream[i].split() for stream in refs]
        c_len += len(h)
        r_len += min((abs(len(r) - len(h)), len(r)) for r in rs)[1]
        for n in range(1, n_max + 1):
            grams = Counter(tuple(h[k:k + n]) for k in range(len(h) - n + 1))
            most = Counter()
            for r in rs:
                for g, k in Counter(tuple(r[j:j + n]) for j in range(len(r) - n + 1)).items():
                    most[g] = max(most[g], k)
            correct[n - 1] += sum(min(k, most[g]) for g, k in grams.items())
            total[n - 1] += sum(grams.values())
    if min(correct) == 0:
        return 0.0
    bp = 1.0 if c_len >= r_len else math.exp(1 - r_len / c_len)
    return bp * math.exp(sum(math.log(c / t) for c, t in zip(correct, total)) / n_max)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=st.data(), n_segments=st.integers(1, 4), n_refs=st.integers(1, 3))
def test_matches_slow_oracle(data, n_segments, n_refs):
    words = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=0, max_size=10)
    hyps = [" ".join(data.draw(words)) for _ in range(n_segments)]
    refs = [[" ".join(data.draw(words)) for _ in range(n_segments)] for _ in range(n_refs)]
    c = connect(None, macros=False)
    try:
        install_text_macros(c)
        _store(c, hyps, refs)
        got = _call(c, "irw_bleu_corpus", smooth_method="none", tokenize="none")
        assert got["all"] == pytest.approx(_oracle_bleu(hyps, refs), abs=1e-12)
    finally:
        c.close()


def test_unknown_reference_set_is_one_error(con):
    _store(con, ["a"], [["a"]])
    import duckdb
    with pytest.raises(duckdb.Error, match="no reference texts nope in campaign c"):
        con.execute("SELECT * FROM irw_bleu(campaign := 'c', refs := 'nope')").fetchall()


def test_catalog_answers_bleu():
    from irwarehouse.store.macros import domain_catalog_rows
    rows = {r[0]: r for r in domain_catalog_rows()}
    assert rows["BLEU"][1] == "irw_bleu"
    assert "Papineni" in rows["BLEU"][7]


def test_irw_nuggets_evaluates_and_stores_bleu(tmp_path):
    # the text-evaluation front door: irw ingest texts, then irw nuggets -m BLEU against the
    # reference set; the values are sacrebleu's sentence_bleu / corpus_bleu
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    runner = CliRunner()
    wh = str(tmp_path / "w.duckdb")
    outputs = tmp_path / "out.tsv"
    outputs.write_text("".join(f"t{i}\tsys\t{h}\n" for i, h in enumerate(cases.HYPS)))
    refs = tmp_path / "refs.tsv"
    refs.write_text("".join(f"t{i}\tr{j}\t{stream[i]}\n"
                            for j, stream in enumerate(cases.REFS) for i in range(3)))
    assert runner.invoke(app, ["ingest", "texts", str(outputs), "-C", "c", "-w", wh]
                         ).exit_code == 0
    assert runner.invoke(app, ["ingest", "texts", str(refs), "-C", "c", "--kind",
                               "references", "--name", "refs", "-w", wh]).exit_code == 0
    result = runner.invoke(app, ["nuggets", "-C", "c", "--nuggets", "refs", "-m", "BLEU",
                                 "-m", "BLEU_corpus", "-q", "--store", "-w", wh])
    assert result.exit_code == 1
    assert "BLEU_corpus is one value per run" in result.output
    result = runner.invoke(app, ["nuggets", "-C", "c", "--nuggets", "refs", "-m", "BLEU",
                                 "-m", "BLEU_corpus", "-q", "-w", wh])
    assert result.exit_code == 0, result.output
    lines = dict((tuple(line.split("\t")[:3]), float(line.split("\t")[3]))
                 for line in result.output.splitlines())
    for i, h in enumerate(cases.HYPS):
        want = sacrebleu.sentence_bleu(h, [s[i] for s in cases.REFS]).score / 100
        assert lines[("BLEU", "sys", f"t{i}")] == pytest.approx(want, abs=5e-5)
    assert lines[("BLEU_corpus", "sys", "all")] == pytest.approx(0.48530827, abs=5e-5)
    result = runner.invoke(app, ["nuggets", "-C", "c", "--nuggets", "refs", "-m", "BLEU",
                                 "-p", "smooth_method=floor", "--store", "-w", wh])
    assert result.exit_code == 0, result.output
    import duckdb
    with duckdb.connect(wh, read_only=True) as db:
        stored = db.execute("SELECT count(*), min(params) FROM score WHERE measure = 'BLEU'"
                            ).fetchone()
    assert stored == (3, "smooth_method=floor")
    # a plain DuckDB client calls the persistent macro
    with duckdb.connect(wh, read_only=True) as db:
        rows = db.execute("SELECT topic, value FROM irw_bleu(campaign := 'c', refs := 'refs')"
                          " ORDER BY topic").fetchall()
    assert len(rows) == 3


@pytest.mark.parametrize("name, macro", [("BLEU", "irw_bleu"), ("pyramid", "irw_pyramid"),
                                         ("esnDCG@10", "irw_esndcg"),
                                         ("sDCG_lowest_click", "irw_sdcg_lowest_click")])
def test_irw_measures_answers_the_new_names(name, macro):
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    result = CliRunner().invoke(app, ["measures", name])
    assert result.exit_code == 0, result.output
    assert f"macro {macro})" in result.output.splitlines()[0]
    assert "source: " in result.output
    listing = CliRunner().invoke(app, ["measures"]).output
    assert any(line.split()[0] == name.split("@")[0] for line in listing.splitlines())
