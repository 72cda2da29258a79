"""ranx's own test cases (tests/peers/ranx/cases.json, from AmenRa/ranx's tests/unit/ranx)
evaluated by irw through the mapping table below (ranx's metric name -> the irw measure that
computes the same value). ranx evaluates every topic of the qrels, 0 when the run lacks it: irw's
-c (`complete`). Every case agrees; DIFFERENT lists the ones that would need another measure
(none)."""

from __future__ import annotations

import re

import pytest

from tests.helpers.peer_cases import Irw, case_id, irw_values, load

CASES = load("ranx")
BIG = 10**9                     # ranx's rbp reads the whole list


# ranx metric -> irw measure (k: the @k of the name, 0 without one: ranx's "whole list")
MAPPING = {
    "hits": lambda k: Irw.of("hits", {"cutoff": k}, complete=True),
    "hit_rate": lambda k: Irw.of("success", {"cutoff": k}, complete=True),
    "precision": lambda k: (Irw.of("P", {"cutoff": k}, complete=True) if k
                            else Irw.of("set_P", {}, complete=True)),
    "recall": lambda k: (Irw.of("recall", {"cutoff": k}, complete=True) if k
                         else Irw.of("set_recall", {}, complete=True)),
    "f1": lambda k: Irw.of("f1", {"cutoff": k}, complete=True),
    "map": lambda k: (Irw.of("map_cut", {"cutoff": k}, complete=True) if k
                      else Irw.of("map", {}, complete=True)),
    "mrr": lambda k: Irw.of("recip_rank_cut", {"cutoff": k}, complete=True),
    "r-precision": lambda k: Irw.of("Rprec", {}, complete=True),
    "dcg": lambda k: Irw.of("dcg", {"cutoff": k}, complete=True),
    "dcg_burges": lambda k: Irw.of("dcg_burges", {"cutoff": k}, complete=True),
    "ndcg": lambda k: Irw.of("ndcg_cut", {"cutoff": k}, complete=True),
    "ndcg_burges": lambda k: Irw.of("ndcg_burges", {"cutoff": k}, complete=True),
    "bpref": lambda k: Irw.of("bpref", {}, complete=True),
}
# ranx's rank_biased_precision(p): raw levels as gains, no tie averaging, the whole list
RBP = "rbp"
DIFFERENT: dict[str, tuple[str, Irw]] = {}


def to_irw(measure: str) -> Irw:
    m = re.fullmatch(r"rbp\.([0-9.]+)", measure)
    if m:
        return Irw.of("trectools_RBP", {"p": float(m.group(1)), "depth": BIG, "graded": 1,
                                        "ties": 0}, complete=True)
    name, _, k = measure.partition("@")
    return MAPPING[name](int(k) if k else 0)


def _value(case: dict, irw: Irw) -> float:
    data = CASES["data"][case["data"]]
    per_topic, mean = irw_values(data["qrels"], data["run"], irw)
    return mean if case["topic"] == "*" else per_topic[case["topic"]]


@pytest.mark.parametrize("case", CASES["cases"], ids=case_id)
def test_ranx_case(case):
    irw = DIFFERENT[case_id(case)][1] if case_id(case) in DIFFERENT else to_irw(case["measure"])
    got = _value(case, irw)
    if case["tol"] is None:
        # f1_test.py checks f1 against ranx's own precision and recall (k = 0): irw's set_P and
        # set_recall are those
        p = _value(case, MAPPING["precision"](0))
        r = _value(case, MAPPING["recall"](0))
        assert got == pytest.approx(2 * p * r / (p + r), abs=1e-12) and got > 0
        return
    assert abs(got - case["expected"]) <= case["tol"] + 1e-12, (str(irw), got, case["expected"])


def test_every_ranx_name_is_mapped():
    names = {re.split(r"[@.]", c["measure"])[0] for c in CASES["cases"]}
    assert names <= set(MAPPING) | {RBP}
    assert len(CASES["cases"]) >= 50


# ranx's `recall` without @k (set recall) is trec_eval's word for recall at trec_eval's default
# cutoffs: trec_eval's meaning wins (the first tool whose grammar has the word); ranx users get
# set recall as SetR (ir_measures' name)
TREC_EVAL_WORDS = {"recall"}


@pytest.mark.parametrize("measure", sorted({c["measure"] for c in CASES["cases"]
                                            if not c["measure"].startswith("rbp")
                                            and c["measure"] not in TREC_EVAL_WORDS}))
def test_the_name_a_ranx_user_types_means_the_same(measure):
    """ranx's names (`ndcg_burges@10`, `hit_rate@5`, `mrr@10`, `precision@3`, ...) resolve
    through irw's grammar to the measures of the table above."""
    from irwarehouse.measures import parse_measures
    want = to_irw(measure).request()
    (req,) = parse_measures([measure])
    assert (req.mdef.name, req.args) == (want.mdef.name, want.args)
