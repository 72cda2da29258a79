"""Nugget and iUnit macros (sql/texts/nuggets.sql, iunits.sql) on worked examples: Sakai's
(2014) equations 40-46 as worked in METRICS.md, mpkato/mobileclick-eval's U and M specs, and
castorini/nuggetizer's integration test; properties; one-line errors for bad inputs."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.errors import InputError, WarehouseError
from irwarehouse.store.connection import connect
from irwarehouse.texts.nuggets import NuggetFiles, evaluate_nuggets, ingest_nuggets


def _write(path, lines):
    path.write_text("".join("\t".join(map(str, fields)) + "\n" for fields in lines))
    return path


@pytest.fixture
def con():
    c = connect(None, macros=False)
    yield c
    c.close()


def _score(con, measure, params=None, run="sys", topic="q1"):
    rows = evaluate_nuggets(con, "c", "gold", [measure], params or {})
    return {(r, t): v for _, r, t, v, _ in rows}[(run, topic)]


def test_nugget_f_worked_example(con, tmp_path):
    # METRICS.md: weights n1 = 1, n2 = 0.5, n3 = 0 (okay); matched {n1, n3}; l = 250;
    # W-Rec = 1/1.5, allow = 200, Prec = 0.8, F(beta=3) = 0.677966
    gold = _write(tmp_path / "g", [("q1", "n1", 1, "a"), ("q1", "n2", 0.5, "b"),
                                   ("q1", "n3", "okay", "c")])
    matches = _write(tmp_path / "m", [("q1", "sys", "n1"), ("q1", "sys", "n3")])
    lengths = _write(tmp_path / "l", [("q1", "sys", 250)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches, lengths))
    assert _score(con, "nuggetF") == pytest.approx(0.677966, abs=1e-6)
    assert _score(con, "nuggetF_trec2004") == pytest.approx(0.677966, abs=1e-6)
    w_rec, prec = 1 / 1.5, 0.8
    assert _score(con, "nuggetF_trec2003") == pytest.approx(
        26 * prec * w_rec / (25 * prec + w_rec))
    assert _score(con, "nuggetF", {"beta": 1.0}) == pytest.approx(
        2 * prec * w_rec / (prec + w_rec))


def _iunit_example(con, tmp_path, patience_lengths=70):
    # METRICS.md: v1 (3, 10), v2 (2, 5), v3 (2, 8), v4 (1, 4); the output (70 characters)
    # holds v2 ending at 20, v1 at 45, v3 at 60
    gold = _write(tmp_path / "g", [("q1", "v1", 3, "x" * 10), ("q1", "v2", 2, "x" * 5),
                                   ("q1", "v3", 2, "x" * 8), ("q1", "v4", 1, "x x x x")])
    matches = _write(tmp_path / "m", [("q1", "sys", "v2", 20), ("q1", "sys", "v1", 45),
                                      ("q1", "sys", "v3", 60)])
    lengths = _write(tmp_path / "l", [("q1", "sys", patience_lengths)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches, lengths))


def test_s_t_s_sharp_worked_example(con, tmp_path):
    _iunit_example(con, tmp_path)
    assert _score(con, "S", {"patience": 50.0}) == pytest.approx(75 / 267)     # 0.280899
    assert _score(con, "T") == pytest.approx(23 / 70)                           # 0.328571
    s, t = 75 / 267, 23 / 70
    assert _score(con, "S#", {"patience": 50.0}) == pytest.approx(2 * t * s / (t + s))
    assert round(_score(con, "S#", {"patience": 50.0}), 6) == 0.302871


def test_u_iunit_spec_of_mobileclick_eval(con, tmp_path):
    # Umeasure spec: L = 20, four 5-character elements of importance 2, 4, 4 (the same
    # iUnit again) and 1 -> U = 1.5 + 2 + 0 + 0 = 3.5
    gold = _write(tmp_path / "g", [("q1", "1", 2, "XXXXX"), ("q1", "2", 4, "XXXXX"),
                                   ("q1", "4", 1, "XXXXX")])
    matches = _write(tmp_path / "m", [("q1", "sys", "1", 5), ("q1", "sys", "2", 10),
                                      ("q1", "sys", "2", 15), ("q1", "sys", "4", 20)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches))
    assert _score(con, "U-iUnit", {"patience": 20.0}) == pytest.approx(3.5)


def test_m_measure_spec_of_mobileclick_eval(con, tmp_path):
    # Mmeasure spec: two trailtexts (P = 0.6 and 0.4) of four 5-character elements whose
    # third adds nothing (a duplicate iUnit, or an intent link) -> U = 3.5 each, M = 3.5
    gold = _write(tmp_path / "g", [("q1", "1", 2, "XXXXX"), ("q1", "2", 4, "XXXXX"),
                                   ("q1", "4", 1, "XXXXX")])
    intents = _write(tmp_path / "i", [("q1", "i1", 0.6), ("q1", "i2", 0.4)] + [
        ("q1", i, u, w) for i in ("i1", "i2") for u, w in (("1", 2), ("2", 4), ("4", 1))])
    elements = _write(tmp_path / "e", [("q1", "sys", "-", 1, "iunit", "1", 5),
                                       ("q1", "sys", "-", 2, "iunit", "2", 5),
                                       ("q1", "sys", "-", 3, "link", "i3", 5),
                                       ("q1", "sys", "-", 4, "iunit", "4", 5)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, intents=intents, mobileclick=elements))
    assert _score(con, "M", {"patience": 20.0}) == pytest.approx(3.5)


def test_m_measure_reads_the_second_layer_after_the_link(con, tmp_path):
    gold = _write(tmp_path / "g", [("q1", "a", 1, "XXXXX"), ("q1", "b", 1, "XXXXX")])
    intents = _write(tmp_path / "i", [("q1", "i1", 0.5), ("q1", "i2", 0.5),
                                      ("q1", "i1", "a", 1), ("q1", "i1", "b", 2),
                                      ("q1", "i2", "a", 1), ("q1", "i2", "b", 2)])
    elements = _write(tmp_path / "e", [("q1", "sys", "-", 1, "link", "i1", 10),
                                       ("q1", "sys", "-", 2, "iunit", "a", 10),
                                       ("q1", "sys", "i1", 1, "iunit", "b", 10)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, intents=intents, mobileclick=elements))
    # i1: link (10), b (20: 2 * 0.8), a (30: 1 * 0.7) -> 2.3; i2: link, a (20: 0.8) -> 0.8
    assert _score(con, "M", {"patience": 100.0}) == pytest.approx(0.5 * 2.3 + 0.5 * 0.8)


def test_nuggetizer_integration_test_values(con, tmp_path):
    # castorini/nuggetizer tests/test_integration_pipeline.py: a vital nugget supported, an
    # okay one partially supported -> 1.0 / 0.5 / 1.0 / 0.75
    gold = _write(tmp_path / "g", [("q1", "n1", "vital", "Python is used for web development."),
                                   ("q1", "n2", "okay", "Python is used for data analysis.")])
    matches = _write(tmp_path / "m", [("q1", "sys", "n1", "-", "support"),
                                      ("q1", "sys", "n2", "-", "partial_support")])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches))
    got = [_score(con, m) for m in ("strict_vital", "strict_all", "vital", "all")]
    assert got == [1.0, 0.5, 1.0, 0.75]


def test_pourpre_matches_by_unigram_overlap(con, tmp_path):
    from irwarehouse.texts.store import store_outputs
    gold = _write(tmp_path / "g", [("q1", "n1", "vital", "born in Liverpool"),
                                   ("q1", "n2", "vital", "member of the Beatles"),
                                   ("q1", "n3", "okay", "knighted in 1997")])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold))
    sentences = ["He was born in Liverpool.", "He played bass."]
    store_outputs(con, "c", {("q1", "sys"): sentences}, "test", "")
    # terms without stopwords: n1 {born, liverpool} 2/2; n2 {member, beatles} 0; n3 0
    l = sum(1 for s in sentences for ch in s if not ch.isspace())
    w_rec, prec = 0.5, (1.0 if l <= 100 else 1 - (l - 100) / l)
    assert _score(con, "POURPRE") == pytest.approx(10 * prec * w_rec / (9 * prec + w_rec))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(1, 30)), min_size=1, max_size=6),
       st.data())
def test_s_is_weighted_recall_with_infinite_patience_and_pmo_scores_one(tmp_path_factory,
                                                                       units, data):
    tmp = tmp_path_factory.mktemp("pmo")
    con = connect(None, macros=False)
    gold = _write(tmp / "g", [("q", f"u{k}", w, "x" * n) for k, (w, n) in enumerate(units)])
    # the pseudo-minimal output: vital strings by weight desc, length asc, id
    order = sorted(range(len(units)), key=lambda k: (-units[k][0], units[k][1], f"u{k}"))
    offsets, pos = [], 0
    for k in order:
        pos += units[k][1]
        offsets.append((k, pos))
    chosen = data.draw(st.sets(st.sampled_from(range(len(units))), min_size=1))
    _write(tmp / "m", [("q", "pmo", f"u{k}", p) for k, p in offsets] +
           [("q", "sys", f"u{k}", p + 3) for k, p in offsets if k in chosen])
    _write(tmp / "l", [("q", "pmo", pos), ("q", "sys", pos + 7)])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, tmp / "m", tmp / "l"))
    rows = evaluate_nuggets(con, "c", "gold", ["S", "T"], {"patience": 1e12})
    got = {(m, r): v for m, r, _, v, _ in rows}
    assert got[("T", "pmo")] == pytest.approx(1.0)
    assert got[("S", "pmo")] == pytest.approx(1.0)
    weights = sum(units[k][0] for k in chosen) / sum(w for w, _ in units)
    assert got[("S", "sys")] == pytest.approx(weights, rel=1e-9)
    con.close()


def test_unit_not_in_the_gold_set_names_file_and_line(con, tmp_path):
    gold = _write(tmp_path / "g", [("q1", "n1", 1, "a")])
    matches = _write(tmp_path / "m", [("q1", "sys", "n1"), ("q1", "sys", "n9")])
    with pytest.raises(InputError, match=r"/m:2: unit n9 of topic q1 is not in the gold set"):
        ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches))
    assert con.execute("SELECT count(*) FROM nugget").fetchone()[0] == 0   # rolled back


def test_bad_gold_lines_name_file_and_line(con, tmp_path):
    bad = tmp_path / "g"
    bad.write_text("q1\tn1\t1\ttext\nq1\tn2\tlots\ttext\n")
    with pytest.raises(InputError, match=r"/g:2: weight is not a number"):
        ingest_nuggets(con, "c", "gold", NuggetFiles(bad))
    bad.write_text("q1\tn1\t1\n")
    with pytest.raises(InputError, match=r"/g:1: expected 4 tab-separated fields"):
        ingest_nuggets(con, "c", "gold", NuggetFiles(bad))


def test_missing_length_and_unknown_set_are_errors(con, tmp_path):
    gold = _write(tmp_path / "g", [("q1", "n1", 1, "a")])
    matches = _write(tmp_path / "m", [("q1", "sys", "n1")])
    ingest_nuggets(con, "c", "gold", NuggetFiles(gold, matches))
    with pytest.raises(WarehouseError, match="no output length for run sys topic q1"):
        evaluate_nuggets(con, "c", "gold", ["nuggetF"], {})
    with pytest.raises(WarehouseError, match="no nugget set nope in campaign c"):
        evaluate_nuggets(con, "c", "nope", ["S"], {})
    with pytest.raises(WarehouseError, match="no campaign zz"):
        evaluate_nuggets(con, "zz", "gold", ["S"], {})
    assert math.isfinite(_score(con, "strict_all"))
