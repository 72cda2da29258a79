"""ir_measures' own test cases (tests/peers/ir_measures/cases.json, from terrierteam/ir_measures'
tests/) evaluated by irw: every case agrees with the irw measure the table below maps its
ir_measures name to, or is listed in DIFFERENT with the reason and the irw measure that
reproduces ir_measures' value.

ir_measures reports a value for every topic of the qrels, 0 when the run lacks it: irw's -c
(`complete`). Its `rel=` is irw's relevance threshold (-l), `judged_only=True` irw's -J. The
measure names are ir_measures'; the irw names are canonical measures of the registry (the name
grammar that spells them as ir_measures does is tested elsewhere)."""

from __future__ import annotations

import ast

import pytest

from tests.helpers.peer_cases import Irw, case_id, irw_values, load

CASES = load("ir_measures")
BIG = 10**9   # "no cutoff" for measures whose irw form needs a depth


def _options(kw: dict, **extra) -> dict:
    """ir_measures' per-measure rel= and judged_only= as irw's evaluation options."""
    options = {"complete": True}
    if "rel" in kw:
        options["threshold"] = kw.pop("rel")
    if kw.pop("judged_only", False):
        options["judged_only"] = True
    options.update(extra)
    return options


def _cwl(name: str, kw: dict, k, stat: int, **params) -> Irw:
    """A C/W/L measure: ir_measures feeds cwl_eval gains scaled from [min_rel, max_rel] (or
    binary at rel=r, which is the scale r-1..r)."""
    if "rel" in kw or "max_rel" not in kw:             # P, RR, AP, RBP: rel=1 by default
        rel = kw.pop("rel", 1)
        params.update(min_rel=rel - 1, max_rel=rel)
    else:
        params.update(min_rel=kw.pop("min_rel", 0), max_rel=kw.pop("max_rel"))
    if k is not None:
        params["cutoff"] = k
    params.update(stat=stat, **kw)
    return Irw.of(name, params, complete=True)


def _ndcg(kw: dict, k, provider: str) -> Irw:
    gains = kw.pop("gains", None)
    if provider == "gdeval":
        return Irw.of("gdeval_nDCG", {"cutoff": k}, **_options(kw))
    if kw.pop("dcg", "log2") == "exp-log2":                 # ranx's ndcg_burges
        return Irw.of("ndcg_burges", {"cutoff": k or 0}, **_options(kw))
    if gains is not None:
        gains = {int(a): float(b) for a, b in gains.items()}
        if k is None:
            return Irw.of("ndcg", {"gains": gains}, **_options(kw))
        return Irw.of("ndcg_cut_gains", {"cutoff": k, "gains": gains}, **_options(kw))
    if k is None:
        return Irw.of("ndcg", {}, **_options(kw))
    return Irw.of("ndcg_cut", {"cutoff": k}, **_options(kw))


def _cut_or_plain(plain: str, cut: str):
    return lambda kw, k, prov: (Irw.of(plain, {}, **_options(kw)) if k is None
                                else Irw.of(cut, {"cutoff": k}, **_options(kw)))


# ir_measures name -> irw measure, given (parameters, @cutoff, provider)
MAPPING = {
    "P": lambda kw, k, prov: (_cwl("cwl_P", kw, k, 1) if prov == "cwl_eval"
                              else Irw.of("P", {"cutoff": k}, **_options(kw))),
    "AP": _cut_or_plain("map", "map_cut"),
    "RR": _cut_or_plain("recip_rank", "recip_rank_cut"),
    "R": lambda kw, k, prov: Irw.of("recall", {"cutoff": k}, **_options(kw)),
    "Rprec": lambda kw, k, prov: Irw.of("Rprec", {}, **_options(kw)),
    "nDCG": lambda kw, k, prov: _ndcg(kw, k, prov),
    "ERR": lambda kw, k, prov: Irw.of("gdeval_ERR", {"cutoff": k}, **_options(kw)),
    "Judged": lambda kw, k, prov: Irw.of("judged", {"cutoff": k or 0}, **_options(kw)),
    "Compat": lambda kw, k, prov: Irw.of("compat", {"p": kw.pop("p", 0.95)}, **_options(kw)),
    "Accuracy": lambda kw, k, prov: Irw.of("accuracy", {"cutoff": k or 0},
                                           **_options(kw, complete=False)),
    "SetP": lambda kw, k, prov: Irw.of("set_relative_P" if kw.pop("relative", False)
                                       else "set_P", {}, **_options(kw, depth=k)),
    "SetR": lambda kw, k, prov: Irw.of("set_recall", {}, **_options(kw, depth=k)),
    "SetF": lambda kw, k, prov: Irw.of("set_F", {"beta": float(kw.pop("beta", 1.0))},
                                       **_options(kw)),
    "SetAP": lambda kw, k, prov: Irw.of("set_map", {}, **_options(kw)),
    "Success": lambda kw, k, prov: Irw.of("success", {"cutoff": k}, **_options(kw)),
    "IPrec": lambda kw, k, prov: Irw.of("iprec_at_recall", {"recall_level": float(k)},
                                        **_options(kw)),
    "infAP": lambda kw, k, prov: Irw.of("infAP", {}, **_options(kw)),
    "NumQ": lambda kw, k, prov: Irw.of("num_q", {}, **_options(kw)),
    "NumRel": lambda kw, k, prov: Irw.of("num_rel", {}, **_options(kw)),
    "NumRet": lambda kw, k, prov: Irw.of("num_rel_ret" if "rel" in kw else "num_ret", {},
                                         **_options(kw)),
    "RBP": lambda kw, k, prov: (
        _cwl("cwl_RBP", kw, None, 1, p=kw.pop("p", 0.8)) if prov == "cwl_eval"
        else Irw.of("trectools_RBP", {"p": kw.pop("p", 0.8), "depth": k or BIG, "graded": 1},
                    **_options(kw))),
    "INST": lambda kw, k, prov: _cwl("cwl_INST", kw, None, 1, T=float(kw.pop("T", 1.0))),
    "INSQ": lambda kw, k, prov: _cwl("cwl_INSQ", kw, None, 1, T=float(kw.pop("T", 1.0))),
    "BPM": lambda kw, k, prov: _cwl("cwl_BPM", kw, k, 1, T=float(kw.pop("T", 1.0))),
    "SDCG": lambda kw, k, prov: _cwl("cwl_SDCG", kw, k, 1),
    "NERR8": lambda kw, k, prov: _cwl("cwl_NERR8", kw, k, 1),
    "NERR9": lambda kw, k, prov: _cwl("cwl_NERR9", kw, k, 1),
    "NERR10": lambda kw, k, prov: _cwl("cwl_NERR10", kw, None, 1, p=kw.pop("p", 0.9)),
    "NERR11": lambda kw, k, prov: _cwl("cwl_NERR11", kw, None, 1, T=float(kw.pop("T", 1.0))),
    "ERR_IA": lambda kw, k, prov: Irw.of("ERR-IA", {"cutoff": k}, **_options(kw)),
}
# A CwlMetric's other fields (tests/test_providers.py): the stat parameter of cwl_*.
CWL_STATS = {"EU": 1, "ETU": 2, "EC": 3, "ETC": 4, "ED": 5}
DIVERSITY = {"ERR_IA"}     # read with the qrels' second column as the subtopic (pyndeval)

# Cases whose ir_measures definition differs from the irw measure above: (test, provider,
# measure, topic) -> (reason, the irw measure that gives ir_measures' value).
DIFFERENT: dict[tuple, tuple[str, Irw]] = {}


def parse(measure: str) -> tuple[str, dict, object, int]:
    """ir_measures' `Name(param=value,...)@cutoff`, plus this file's `[STAT]` suffix."""
    stat = 1
    if measure.endswith("]"):
        measure, _, name = measure[:-1].partition("[")
        stat = CWL_STATS[name]
    node = ast.parse(measure, mode="eval").body
    cutoff = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        cutoff = ast.literal_eval(node.right)
        node = node.left
    if isinstance(node, ast.Call):
        return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}, cutoff, stat
    return node.id, {}, cutoff, stat


def to_irw(case: dict) -> Irw:
    name, kw, cutoff, stat = parse(case["measure"])
    irw = MAPPING[name](kw, cutoff, case["provider"])
    assert not kw, f"{case['measure']}: parameters {sorted(kw)} not mapped"
    if stat != 1:
        params = dict(irw.params)
        params["stat"] = stat
        irw = Irw(irw.measure, tuple(sorted(params.items())), irw.options)
    return irw


@pytest.mark.parametrize("case", CASES["cases"], ids=case_id)
def test_ir_measures_case(case):
    key = (case["test"], case["provider"], case["measure"], case["topic"])
    irw = DIFFERENT[key][1] if key in DIFFERENT else to_irw(case)
    name = parse(case["measure"])[0]
    per_topic, mean = irw_values(CASES["data"][case["qrels"]], CASES["data"][case["run"]], irw,
                                 qrels_format="diversity" if name in DIVERSITY else "qrels")
    got = mean if case["topic"] == "*" else per_topic.get(case["topic"])
    assert got is not None, f"{irw}: no value for topic {case['topic']}"
    assert abs(got - case["expected"]) <= case["tol"] + 1e-12, (str(irw), got, case["expected"])


def test_every_ir_measures_name_is_mapped():
    names = {parse(c["measure"])[0] for c in CASES["cases"]}
    assert names <= set(MAPPING), names - set(MAPPING)
    assert len(CASES["cases"]) >= 300


def _named(case: dict) -> bool:
    """Cases whose measure an ir_measures user names without choosing a provider: the name
    alone must mean the same (not a C/W/L statistic, not nDCG through gdeval, not SetP@k)."""
    name = parse(case["measure"])[0]
    return (case["provider"] != "cwl_eval" and not case["measure"].endswith("]")
            and not (name == "nDCG" and case["provider"] == "gdeval")
            and "depth" not in dict(to_irw(case).options))


NAMED = sorted({c["measure"]: c for c in CASES["cases"] if _named(c)}.values(),
               key=lambda c: c["measure"])


@pytest.mark.parametrize("case", NAMED, ids=lambda c: c["measure"])
def test_the_name_an_ir_measures_user_types_means_the_same(case):
    """`-m ERR@20`, `-m RBP`, `-m AP(rel=2)`, `-m nDCG(dcg='exp-log2')@10`, ... resolve through
    irw's grammar to the measure, parameters and per-measure options of the table above."""
    from irwarehouse.measures import parse_measures
    expected = to_irw(case)
    (req,) = parse_measures([case["measure"]])
    want = expected.request()
    assert (req.mdef.name, req.args) == (want.mdef.name, want.args), case["measure"]
    options = {k: v for k, v in expected.options if k in ("threshold", "judged_only")}
    assert dict(req.overrides) == options, case["measure"]


def test_most_cases_are_checked_by_name():
    assert len(NAMED) >= 60
