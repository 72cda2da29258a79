"""pytrec_eval's own test cases (tests/peers/pytrec_eval/cases.json, from cvangysel/pytrec_eval's
tests/pytrec_eval_tests.py) evaluated by irw. pytrec_eval is trec_eval 9 in Python, so its names
are trec_eval's, which are irw's canonical names: the table below only splits a printed name
(P_5, iprec_at_recall_0.10, ndcg_cut.3) into the measure and its parameter. Every value case
agrees. The `names` cases (which measures a -m list such as `set` or `P` stands for) belong to
the name grammar (`set`, `-m P` at its default cutoffs, `ndcg_cut_20,4` all resolve)."""

from __future__ import annotations

import re

import pytest

from irwarehouse.measures import parse_measures, registry
from tests.helpers.paths import REPO
from tests.helpers.peer_cases import Irw, case_id, irw_values, load

CASES = load("pytrec_eval")

# trec_eval measure with a parameter -> (irw measure, parameter, its type)
PARAMETERISED = {
    "P": ("P", "cutoff", int), "recall": ("recall", "cutoff", int),
    "relative_P": ("relative_P", "cutoff", int), "success": ("success", "cutoff", int),
    "ndcg_cut": ("ndcg_cut", "cutoff", int), "map_cut": ("map_cut", "cutoff", int),
    "iprec_at_recall": ("iprec_at_recall", "recall_level", float),
    "Rprec_mult": ("Rprec_mult", "mult", float),
}
# trec_eval measures without a parameter (or with their default): the same name in irw
PLAIN = {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
         "recip_rank", "infAP", "gm_bpref", "utility", "11pt_avg", "binG", "G", "ndcg",
         "ndcg_rel", "Rndcg", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
         "num_nonrel_judged_ret"}
# -m lists that irw's name grammar does not resolve yet (issue 20's name part)
def to_irw(measure: str, options: dict) -> Irw:
    if measure in PLAIN:
        return Irw.of(measure, {}, **options)
    m = re.fullmatch(r"(\w+?)[._]([0-9.]+)", measure)
    irw_name, param, kind = PARAMETERISED[m.group(1)]
    return Irw.of(irw_name, {param: kind(m.group(2))}, **options)


def _data(name: str) -> tuple[str, str]:
    data = CASES["data"][name]
    if "qrels_file" in data:
        return ((REPO / data["qrels_file"]).read_text(), (REPO / data["run_file"]).read_text())
    return data["qrels"], data["run"]


@pytest.mark.parametrize("case", CASES["cases"], ids=case_id)
def test_pytrec_eval_case(case):
    irw = to_irw(case["measure"], case["options"])
    assert irw.measure in registry()
    per_topic, mean = irw_values(*_data(case["data"]), irw)
    got = mean if case["topic"] == "*" else per_topic[case["topic"]]
    assert abs(got - case["expected"]) <= case["tol"] + 1e-12, (str(irw), got, case["expected"])


@pytest.mark.parametrize("case", CASES["names"], ids=lambda c: " ".join(c["names"]))
def test_pytrec_eval_measure_lists(case):
    """The measures a -m list names, as pytrec_eval prints them (runid is printed by irw eval
    for official/all_trec, not a measure)."""
    printed = {r.name for r in parse_measures(case["names"])}
    assert printed == set(case["expected"]) - {"runid"}


def test_the_integration_cases_cover_both_outputs():
    tests = {c["test"] for c in CASES["cases"]}
    assert sum("Integration" in t for t in tests) == 2
    assert len(CASES["cases"]) >= 130
