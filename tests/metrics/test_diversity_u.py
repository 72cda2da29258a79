"""D-U and U-IA (sql/metrics/diversity_u.sql; Sakai, PROMISE 2014, eq 30-31): a hand-computed
example, the highest level H they share (the topic's, over every intent), their relations to the
U-measure, and the loop oracle (tests/oracles/user_model_oracle.py) on random per-intent
judgments with and without intent probabilities."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.api import evaluate_files
from irwarehouse.engine.evaluate import EvalOptions
from irwarehouse.measures import parse_measures
from tests.helpers.sql_cases import values
from tests.oracles.user_model_oracle import d_u, u_ia

L = 132000.0


def div_one(intent_qrels, ranking, names, *, probs=None, chars=None, options=None):
    return values({"T": intent_qrels}, {"run": {"T": ranking}}, names, chars=chars,
                  intents={"T": probs} if probs else {}, options=options).get(("run", "T"), {})


def test_by_hand_global_trailtext_vs_per_intent_trailtexts():
    """Intent 1: a (L1); intent 2: b (L2), c (L1); H = 2; uniform Pr = 1/2; ranking x a b c.
    D-U reads a, b and c: pos = 600, 1800, 2060. U-IA: intent 1 reads a (pos 600); intent 2
    reads b and c only (pos 1600, 1860)."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"b": 2, "c": 1}}
    chars = {"a": 1000, "b": 5000, "c": 300}
    got = div_one(qrels, ["x", "a", "b", "c"], ["D-U", "U-IA", "U-IA(norm=2)"], chars=chars)
    want_du = (0.5 * 0.25 * (1 - 600 / L) + 0.5 * 0.75 * (1 - 1800 / L)
               + 0.5 * 0.25 * (1 - 2060 / L))
    want_uia = 0.5 * 0.25 * (1 - 600 / L) + 0.5 * (0.75 * (1 - 1600 / L) + 0.25 * (1 - 1860 / L))
    assert got["D-U"] == pytest.approx(want_du, abs=1e-15)
    assert got["U-IA"] == pytest.approx(want_uia, abs=1e-15)
    assert got["U-IA(norm=2)"] == pytest.approx(want_uia / 2, abs=1e-15)
    assert got["U-IA"] > got["D-U"]       # a user of intent 2 does not read a


def test_h_is_the_topics_highest_level_over_every_intent():
    """U-IA's H (sql/metrics/diversity_u.sql): the topic's highest level over all its intents,
    retrieved or not, for every per-intent U_i, not intent i's own highest level. Intent 1
    judges a at L1 only; intent 2 judges b at L1 and c (never retrieved) at L3: H = 3, so a and
    b both have gain (2^1 - 1)/2^3 = 1/8 (with H per intent, a would have 1/2). No lengths:
    intent 1 reads a at pos 200, intent 2 reads b at pos 400. max_level overrides H."""
    qrels = {"1": {"a": 1}, "2": {"b": 1, "c": 3}}
    got = div_one(qrels, ["a", "b"], ["U-IA", "D-U", "U-IA(max_level=2)"])
    want = 0.5 * (1 / 8) * (1 - 200 / L) + 0.5 * (1 / 8) * (1 - 400 / L)
    per_intent_h = 0.5 * (1 / 2) * (1 - 200 / L) + 0.5 * (1 / 8) * (1 - 400 / L)
    assert got["U-IA"] == pytest.approx(want, abs=1e-15)
    assert got["U-IA"] != pytest.approx(per_intent_h, abs=1e-6)
    assert got["D-U"] == pytest.approx(want, abs=1e-15)       # one trailtext reads a, b alike
    assert got["U-IA(max_level=2)"] == pytest.approx(
        0.5 * (1 / 4) * (1 - 200 / L) + 0.5 * (1 / 4) * (1 - 400 / L), abs=1e-15)


def test_one_intent_gives_the_u_measure():
    qrels = {"a": 2, "b": 0, "c": 1}
    chars = {"a": 4000, "c": 9000}
    ranking = ["b", "a", "u", "c"]
    plain = values({"T": qrels}, {"run": {"T": ranking}}, ["U"], chars=chars)[("run", "T")]
    div = div_one({"1": qrels}, ranking, ["D-U", "U-IA"], chars=chars)
    assert div["D-U"] == pytest.approx(plain["U"], abs=1e-15)
    assert div["U-IA"] == pytest.approx(plain["U"], abs=1e-15)


@st.composite
def div_case(draw):
    pool = [f"d{i}" for i in range(10)]
    intents = [str(i) for i in range(1, draw(st.integers(1, 3)) + 1)]
    qrels = {}
    for i in intents:
        judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=8))
        qrels[i] = {d: draw(st.integers(0, 3)) for d in judged}
        if max(qrels[i].values()) == 0:
            qrels[i][judged[0]] = 1
    weights = draw(st.one_of(st.none(), st.lists(st.integers(1, 5), min_size=len(intents),
                                                 max_size=len(intents))))
    probs = ({i: w / sum(weights) for i, w in zip(intents, weights)} if weights else None)
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
    chars = {d: draw(st.integers(0, 100000)) for d in draw(
        st.lists(st.sampled_from(pool), unique=True, max_size=10))}
    params = draw(st.fixed_dictionaries({
        "l": st.sampled_from([132000.0, 20000.0]), "f": st.sampled_from([0.2, 0.5]),
        "max_level": st.sampled_from([0, 4]), "missing_length": st.sampled_from([0.0, 3000.0]),
    }))
    depth = draw(st.one_of(st.none(), st.integers(1, 10)))
    return qrels, probs, ranking, chars, params, depth


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(div_case())
def test_sql_matches_oracle(case):
    qrels, probs, ranking, chars, params, depth = case
    args = ",".join(f"{k}={v}" for k, v in params.items())
    names = [f"D-U({args})", f"U-IA({args})"]
    printed = [r.name for r in parse_measures(names)]
    got = div_one(qrels, ranking, names, probs=probs, chars=chars,
                  options=EvalOptions(depth=depth, complete=True))
    weights = probs or {i: 1 / len(qrels) for i in qrels}
    listed = ranking[:depth] if depth is not None else ranking
    assert got[printed[0]] == pytest.approx(d_u(listed, qrels, weights, chars, **params),
                                            abs=1e-12)
    assert got[printed[1]] == pytest.approx(u_ia(listed, qrels, weights, chars, **params),
                                            abs=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(div_case())
def test_d_u_equals_u_ia_when_every_relevant_document_serves_every_intent(case):
    """When the intents share their relevant documents, every intent's trailtext is the global
    one and U-IA = D-U by linearity (Sakai, PROMISE 2014: they behave similarly)."""
    qrels, probs, ranking, chars, _, _ = case
    first = next(iter(qrels.values()))
    shared = {i: dict(first) for i in qrels}
    got = div_one(shared, ranking, ["D-U", "U-IA"], probs=probs, chars=chars,
                  options=EvalOptions(complete=True))
    assert got["D-U"] == pytest.approx(got["U-IA"], abs=1e-12)


def test_by_file_with_intents_and_lengths(tmp_path):
    (tmp_path / "qrels").write_text("1 1 a 1\n1 2 b 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    (tmp_path / "iprob").write_text("1 1 0.75\n1 2 0.25\n")
    (tmp_path / "chars").write_text("a\t1000\nb\t2000\n")
    result = evaluate_files(tmp_path / "qrels", [tmp_path / "run"], ["D-U", "U-IA"],
                            qrels_format="diversity", intents=tmp_path / "iprob",
                            doclengths_chars=tmp_path / "chars")
    got = {r["measure"]: r["value"] for r in result.summary.to_pylist()}
    assert got["D-U"] == pytest.approx(0.75 * 0.5 * (1 - 400 / L) + 0.25 * 0.5 * (1 - 1000 / L))
    assert got["U-IA"] == pytest.approx(0.75 * 0.5 * (1 - 400 / L) + 0.25 * 0.5 * (1 - 800 / L))
