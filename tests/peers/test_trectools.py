"""trectools' test cases and its RBP family (tests/peers/trectools/cases.json, from
joaopalotti/trectools: unittests/testtreceval.py, and values generated with trectools'
TrecEval.get_rbp / get_urbp / get_alpha_urbp, which its tests do not cover) evaluated by irw
through the table below. The TREC 2003 Robust cases read ../shared/realdata (skipped without
it). Every case agrees with the mapped measure, or is listed in DIFFERENT with the reason and the
irw evaluation that reproduces trectools' value."""

from __future__ import annotations

import gzip
import re

import pytest

from tests.helpers.paths import REALDATA
from tests.helpers.peer_cases import Irw, case_id, irw_values, load, qrels_id

CASES = load("trectools")


def _kw(text: str) -> dict:
    return {k: v for k, v in re.findall(r"(\w+)=([^,)]+)", text)}


def _bool(text: str) -> bool:
    return text == "True"


def _rbp(kw: dict, **options) -> Irw:
    return Irw.of("trectools_RBP", {"p": float(kw["p"]), "depth": int(kw["depth"]),
                                    "graded": int(not _bool(kw["binary_topical_relevance"])),
                                    "ties": int(_bool(kw["average_ties"]))}, **options)


# trectools function -> irw measure (parameters from the call)
MAPPING = {
    "get_reciprocal_rank": lambda kw: Irw.of("recip_rank_cut", {"cutoff": int(kw["depth"])}),
    "get_map": lambda kw: Irw.of("map_cut", {"cutoff": int(kw["depth"])}),
    "get_precision": lambda kw: Irw.of("P", {"cutoff": int(kw["depth"])}),
    "get_recall": lambda kw: Irw.of("recall", {"cutoff": int(kw["depth"])}),
    "get_rbp": _rbp,
    "get_rbp[1]": lambda kw: Irw.of("trectools_RBP_resid", {
        "p": float(kw["p"]), "depth": int(kw["depth"]),
        "ties": int(_bool(kw["average_ties"]))}),
    "get_urbp": lambda kw: Irw.of("uRBP", {
        "p": float(kw["p"]), "depth": int(kw["depth"]), "other_qrels": OTHER,
        "scale": float(kw["normalization_factor"]),
        "graded": int(not _bool(kw["binary_topical_relevance"]))}),
    "get_alpha_urbp": lambda kw: Irw.of("alpha_uRBP", {
        "p": float(kw["p"]), "depth": int(kw["depth"]), "other_qrels": OTHER, "goal": 50.0,
        "sd": 20.0, "scale": float(kw["normalization_factor"])}),
}
OTHER = -1      # stands for the qrels_id of the data set's other qrels (filled in at run time)

# trectools ranks tied scores by docid ascending (TrecRun.read_run), trec_eval and irw by docid
# descending. The order of tied documents decides a value when their weights are not averaged
# (average_ties=False) and when the depth cuts a run of tied scores (which documents are in the
# top depth). The synthetic run is written in trectools' order, so irw's --order file
# reproduces trectools there.
FILE_ORDER = ("trectools breaks score ties by docid ascending, irw (as trec_eval) by docid "
              "descending: --order file on the run in trectools' order")


def different(case: dict) -> tuple[str, Irw] | None:
    kw = _kw(case["measure"])
    if case["data"] == "synthetic" and (kw.get("average_ties") == "False"
                                        or int(kw.get("depth", 1000)) < 25):
        irw = to_irw(case)
        return FILE_ORDER, Irw(irw.measure, irw.params, (("order", "file"),))
    return None


def to_irw(case: dict) -> Irw:
    name = case["measure"].split("(")[0] + ("[1]" if case["measure"].endswith("[1]") else "")
    return MAPPING[name](_kw(case["measure"]))


def _data(name: str) -> tuple[str, str, tuple]:
    data = CASES["data"][name]
    if "realdata_run" not in data:
        extra = (("other", data["other_qrels"]),) if "other_qrels" in data else ()
        return data["qrels"], data["run"], extra
    run_path, qrels_path = REALDATA / data["realdata_run"], REALDATA / data["realdata_qrels"]
    if not run_path.exists() or not qrels_path.exists():
        pytest.skip("../shared/realdata is not beside the repository")
    qrels = qrels_path.read_text()
    relevant = set(data.get("relevant_in_cs_qrels", ()))
    if relevant:       # unittests/files/robust03_cs_qrels.txt: these judged relevant
        qrels = "".join(" ".join(f[:3] + ["1"]) + "\n" if f"{f[0]} {f[2]}" in relevant
                        else " ".join(f) + "\n" for f in map(str.split, qrels.splitlines()))
    return qrels, gzip.decompress(run_path.read_bytes()).decode(), ()


@pytest.mark.parametrize("case", CASES["cases"], ids=case_id)
def test_trectools_case(case):
    qrels, run, extra = _data(case["data"])
    listed = different(case)
    irw = listed[1] if listed else to_irw(case)
    params = dict(irw.params)
    if params.get("other_qrels") == OTHER:
        params["other_qrels"] = qrels_id(qrels, run, "other", extra_qrels=extra)
        irw = Irw(irw.measure, tuple(sorted(params.items())), irw.options)
    per_topic, mean = irw_values(qrels, run, irw, extra_qrels=extra)
    got = mean if case["topic"] == "*" else per_topic[case["topic"]]
    assert abs(got - case["expected"]) <= case["tol"] + 1e-12, (str(irw), got, case["expected"])


def test_the_generated_rbp_cases_cover_ties_grades_and_residuals():
    measures = {c["measure"] for c in CASES["cases"] if c["file"] == "generated"}
    assert any("average_ties=True" in m for m in measures)
    assert any("binary_topical_relevance=False" in m for m in measures)
    assert any(m.endswith("[1]") for m in measures)
    assert any(m.startswith("get_alpha_urbp") for m in measures)
