"""Issue 30's graded and interpolated measures (sql/metrics/graded.sql, the textbook rule of
interpolated.sql, G_Q and gm:NAME): worked examples computed by hand from the papers, and the
SQL against the slow oracles of tests/oracles/graded_oracle.py on random graded lists."""

from __future__ import annotations

from fractions import Fraction

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import parse_measures
from tests.helpers import sql_cases
from tests.helpers.sql_cases import one
from tests.oracles import graded_oracle as oracle

PROPERTY = settings(derandomize=True, max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Baeza-Yates & Ribeiro-Neto, Modern IR 2011, ch. 4, query q2: R = {d3, d56, d129}, found at
# ranks 3, 8 and 15 of the ranking below.
Q2_RANKING = "d123 d84 d56 d6 d8 d9 d511 d129 d187 d25 d38 d48 d250 d113 d3".split()
Q2_QRELS = {"d3": 1, "d56": 1, "d129": 1}


def test_textbook_interpolation_of_baeza_yates_q2():
    """Recall 1/3 at precision 1/3 (rank 3), 2/3 at 1/4 (rank 8), 1 at 1/5 (rank 15). The
    textbook rule takes the best precision at any recall >= x: 1/3 for x <= 0.3, 1/4 for
    0.4-0.6, 1/5 for 0.7-1.0, so 11-point average (4/3 + 3/4 + 4/5)/11 = 0.2621. trec_eval
    reaches x at the (long)(3x + 0.9)-th relevant document, which for x = 0.7 is the 2nd
    (2.0999999999999996 + 0.9 rounds down): 1/4, and (4/3 + 4/4 + 3/5)/11 = 0.2667."""
    got = one(Q2_QRELS, Q2_RANKING, ["textbook_iprec_at_recall@0.7", "iprec_at_recall.0.7",
                                     "textbook_iprec_at_recall@0.3",
                                     "textbook_iprec_at_recall@0.4", "textbook_11pt_avg",
                                     "11pt_avg"])
    assert got["textbook_iprec_at_recall@0.7"] == pytest.approx(0.20, abs=1e-15)
    assert got["iprec_at_recall_0.70"] == pytest.approx(0.25, abs=1e-15)
    assert got["textbook_iprec_at_recall@0.3"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["textbook_iprec_at_recall@0.4"] == pytest.approx(0.25, abs=1e-15)
    assert got["textbook_11pt_avg"] == pytest.approx((4 / 3 + 3 / 4 + 4 / 5) / 11, abs=1e-15)
    assert round(got["textbook_11pt_avg"], 4) == 0.2621
    assert round(got["11pt_avg"], 4) == 0.2667


def test_textbook_rule_reads_decimal_levels_exactly():
    # R = 10: recall 0.3 is the 3rd relevant document although 0.3 * 10 = 3.0000000000000004
    qrels = {f"r{i}": 1 for i in range(10)}
    ranking = ["r0", "x", "r1", "r2"] + [f"r{i}" for i in range(3, 10)]
    got = one(qrels, ranking, ["textbook_iprec_at_recall@0.3"])
    assert got["textbook_iprec_at_recall@0.3"] == pytest.approx(10 / 11, abs=1e-15)


# -- hand examples of the graded family: qrels a=3, b=1, c=2, d=0, e=1; run a x c b d ---------

QRELS = {"a": 3, "b": 1, "c": 2, "d": 0, "e": 1}
RUN = ["a", "x", "c", "b", "d"]


def test_gap_hand_example():
    """Robertson, Kanoulas & Yilmaz (2010): uniform g = 1/3 per grade, G(1..3) = 1/3, 2/3, 1.
    Denominator sum_i R_i G(i) = 2/3 + 2/3 + 1 = 7/3 (b, e of grade 1; c; a). Numerator: a
    at 1: G(3)/1 = 1; c at 3: (G(2) + G(2))/3 = 4/9; b at 4: 3 G(1)/4 = 1/4. GAP = (1 + 4/9 +
    1/4)/(7/3) = 61/84. With one grade (g = [1]) GAP is AP: (1 + 2/3 + 3/4)/4 = 29/48."""
    got = one(QRELS, RUN, ["GAP", "GAP(g=[1.0])", "AP", "GAP(g=[0.5,0.5])"])
    assert got["GAP"] == pytest.approx(61 / 84, abs=1e-15)
    assert got["GAP(g=[1.0])"] == pytest.approx(29 / 48, abs=1e-15) == got["AP"]
    # two grades (level 3 is grade 2): G = 1/2, 1; denominator 1/2 + 1/2 + 1 + 1 = 3;
    # numerator 1 + (1 + 1)/3 + (1/2 * 3)/4
    assert got["GAP(g=[0.5,0.5])"] == pytest.approx((1 + 2 / 3 + 3 / 8) / 3, abs=1e-15)


def test_kishida_generalised_ap_hand_example():
    """Kishida (2005): sum_r I(r) cg(r)/r = 3/1 + 5/3 + 6/4 over the ideal 3, 2, 1, 1's
    3/1 + 5/2 + 6/3 + 7/4 = 9.25."""
    got = one(QRELS, RUN, ["Kishida_gAP"])
    assert got["Kishida_gAP"] == pytest.approx((3 + 5 / 3 + 6 / 4) / 9.25, abs=1e-15)


def test_generalised_precision_and_recall_hand_example():
    """Kekäläinen & Järvelin (2002): degrees level/3 (a 1, c 2/3, b and e 1/3); gP@3 = (1 +
    2/3)/3, gR@3 = (5/3)/(7/3), gP over the 5 retrieved = 2/5, gR = 2/(7/3)."""
    got = one(QRELS, RUN, ["gP@3", "gR@3", "gP", "gR", "gP(gains={1:0.5,2:0.5,3:1})@3"])
    assert got["gP@3"] == pytest.approx(5 / 9, abs=1e-15)
    assert got["gR@3"] == pytest.approx(5 / 7, abs=1e-15)
    assert got["gP"] == pytest.approx(2 / 5, abs=1e-15)
    assert got["gR"] == pytest.approx(6 / 7, abs=1e-15)
    assert got["gP(gains={1:0.5,2:0.5,3:1})@3"] == pytest.approx(1.5 / 3, abs=1e-15)
    with pytest.raises(duckdb.Error, match=r"gains in \[0, 1\]"):
        one(QRELS, RUN, ["gP(gains={1:2,2:3})@3"])


def test_ncg_and_wp_hand_example():
    """cg(3) = 3 + 0 + 2 = 5 over the ideal 3 + 2 + 1 = 6: NCG@3 = WP@3 = 5/6 (Sakai's weighted
    precision is Järvelin & Kekäläinen's nCG at rank k)."""
    got = one(QRELS, RUN, ["NCG@3", "WP@3", "NCG@1"])
    assert got["NCG@3"] == pytest.approx(5 / 6, abs=1e-15) == got["WP@3"]
    assert got["NCG@1"] == pytest.approx(1.0, abs=1e-15)


def test_dcg_vector_means_hand_example():
    """Järvelin & Kekäläinen 2002 section 2.4, b = 2: gains 3, 0, 2, 1, 0 give DCG = 3, 3,
    3 + 2/log2(3), + 1/2, same; the ideal 3, 2, 1, 1, 0 gives 3, 5, 5 + 1/log2(3), + 1/2, same."""
    import math
    d3 = 3 + 2 / math.log2(3)
    dcg = [3, 3, d3, d3 + 0.5, d3 + 0.5]
    i3 = 5 + 1 / math.log2(3)
    ideal = [3, 5, i3, i3 + 0.5, i3 + 0.5]
    got = one(QRELS, RUN, ["DCG_vector_mean@5", "nDCG_vector_mean@5"])
    assert got["DCG_vector_mean@5"] == pytest.approx(sum(dcg) / 5, abs=1e-12)
    assert got["nDCG_vector_mean@5"] == pytest.approx(
        sum(a / b for a, b in zip(dcg, ideal)) / 5, abs=1e-12)


def test_geometric_means_g_q_and_gm_prefix():
    """gm:NAME is NAME's geometric mean over topics, values floored at 1e-5 (trec_eval's
    gm_map): gm:AP = gm_map; G_Q = gm:Q. Topic T has AP 1/2, topic U nothing retrieved (0 ->
    1e-5): sqrt(0.5 * 1e-5)."""
    qid, runs = sql_cases.load({"T": {"a": 1, "b": 0}, "U": {"c": 1}},
                               {"r": {"T": ["b", "a"], "U": ["x"]}})
    result = evaluate(sql_cases.con(), runs, qid,
                      parse_measures(["gm:AP", "gm_map", "G_Q", "gm:Q", "AP"]), EvalOptions())
    got = {r["measure"]: r["value"] for r in result.summary.to_pylist()}
    assert got["gm:AP"] == got["gm_map"] == pytest.approx((0.5 * 1e-5) ** 0.5, rel=1e-12)
    assert got["AP"] == pytest.approx(0.25)
    assert got["G_Q"] == got["gm:Q"]


# -- the oracles on random lists --------------------------------------------------------------


@st.composite
def graded_case(draw):
    pool = [f"d{i}" for i in range(14)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=0, max_size=12))
    qrels = {d: draw(st.integers(0, 3)) for d in judged}
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=14))
    return qrels, ranking


@PROPERTY
@given(graded_case(), st.sampled_from([1, 3, 5, 20]))
def test_sql_matches_the_oracles(case, k):
    qrels, ranking = case
    names = ["textbook_11pt_avg", "textbook_iprec_at_recall@0.7", "GAP", "GAP(g=[0.2,0.8])",
             "Kishida_gAP", f"gP@{k}", f"gR@{k}", "gP", "gR", f"NCG@{k}",
             f"DCG_vector_mean@{k}", f"nDCG_vector_mean@{k}", "Kishida_gAP(gains={1:1,2:3,3:7})",
             f"NCG(gains={{1:1,2:3,3:7}})@{k}"]
    got = sql_cases.values({"T": qrels or {"zz": 0}}, {"run": {"T": ranking}}, names,
                           options=EvalOptions(complete=True))[("run", "T")]
    qrels = qrels or {"zz": 0}
    exp = {1: 1, 2: 3, 3: 7}
    gp, gr = oracle.generalised(ranking, qrels, k)
    gp_all, gr_all = oracle.generalised(ranking, qrels)
    dcg, ndcg = oracle.dcg_vectors(ranking, qrels, k)
    want = {
        "textbook_11pt_avg": oracle.textbook_11pt(ranking, qrels),
        "textbook_iprec_at_recall@0.7": oracle.textbook_iprec(ranking, qrels, Fraction(7, 10)),
        "GAP": oracle.gap(ranking, qrels),
        "GAP(g=[0.2,0.8])": oracle.gap(ranking, qrels, [Fraction(1, 5), Fraction(4, 5)]),
        "Kishida_gAP": oracle.kishida_gap(ranking, qrels),
        f"gP@{k}": gp, f"gR@{k}": gr, "gP": gp_all, "gR": gr_all,
        f"NCG@{k}": oracle.ncg(ranking, qrels, k),
        f"DCG_vector_mean@{k}": dcg, f"nDCG_vector_mean@{k}": ndcg,
        "Kishida_gAP(gains={1:1,2:3,3:7})": oracle.kishida_gap(ranking, qrels, exp),
        f"NCG(gains={{1:1,2:3,3:7}})@{k}": oracle.ncg(ranking, qrels, k, exp),
    }
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_gap_refuses_probabilities_that_do_not_sum_to_one():
    with pytest.raises(duckdb.Error, match="must sum to 1"):
        one(QRELS, RUN, ["GAP(g=[0.5,0.2])"])


def test_contract_names_answer_and_evaluate(tmp_path):
    """Issue 30's spellings: `irw measures NAME` answers, `irw eval QRELS RUN -m NAME` and
    `irw eval -C C -m NAME` evaluate them; a bad parameter is one line with exit code 1."""
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    runner = CliRunner()
    qrels, dqrels, run = tmp_path / "q", tmp_path / "dq", tmp_path / "r"
    qrels.write_text("".join(f"1 0 {d} {v}\n" for d, v in QRELS.items()))
    dqrels.write_text("1 1 a 1\n1 2 c 1\n")
    run.write_text("".join(f"1 Q0 {d} {k} {9 - k} r\n" for k, d in enumerate(RUN, start=1)))
    db = str(tmp_path / "w.duckdb")
    for args in (["ingest", "qrels", str(qrels), "-C", "c"], ["ingest", "run", str(run), "-C", "c"],
                 ["ingest", "qrels", str(dqrels), "-C", "d", "--format", "diversity"],
                 ["ingest", "run", str(run), "-C", "d"]):
        assert runner.invoke(app, args + ["-w", db]).exit_code == 0
    for name, files, campaign in (("GAP", qrels, "c"), ("NCG@10", qrels, "c"),
                                  ("WP@10", qrels, "c"), ("PRES", qrels, "c"),
                                  ("statAP", qrels, "c"), ("RR-IA@10", dqrels, "d")):
        out = runner.invoke(app, ["measures", name])
        assert out.exit_code == 0 and f"{name} -> {name}: measure" in out.output, out.output
        by_file = runner.invoke(app, ["eval", str(files), str(run), "-m", name])
        stored = runner.invoke(app, ["eval", "-C", campaign, "-m", name, "-w", db])
        assert by_file.exit_code == 0 and stored.exit_code == 0, (by_file.output, stored.output)
        value = by_file.output.split()[-1]
        assert stored.output.split()[-1] == value and float(value) > 0, name
    out = runner.invoke(app, ["eval", str(qrels), str(run), "-m", "GAP(g=[0.5,0.2])"])
    assert out.exit_code == 1
    assert out.output.strip() == "irw: error: GAP: g (the probabilities of the grades) must " \
                                 "sum to 1"
