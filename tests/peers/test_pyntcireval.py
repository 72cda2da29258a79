"""pyNTCIREVAL's own test cases (tests/peers/pyntcireval/cases.json and the NTCIREVAL outputs
beside it, from mpkato/pyNTCIREVAL's tests/) evaluated by irw through the table below (the name
NTCIREVAL prints -> irw's canonical measure). The list is evaluated in file order, as NTCIREVAL
does; `compute -g` gives the gains. Every case agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from irwarehouse.measures import registry
from tests.helpers.peer_cases import Irw, case_id, irw_values, load

CASES = load("pyntcireval")
HERE = Path(__file__).resolve().parent / "pyntcireval"

# NTCIREVAL's printed labels (without @k: `Q-measure`; with: `Q@k`) as the catalog gives them
NTCIR_LABELS = ("syslen", "jrel", "jnonrel", "r1", "rp", "RR", "O-measure", "P-measure",
                "P-plus", "AP", "Q-measure", "NCUgu,P", "NCUgu,BR", "NCUrb,P", "NCUrb,BR", "RBP",
                "ERR", "AP@k", "Q@k", "nDCG@k", "MSnDCG@k", "Prec@k", "nERR@k", "Hit@k")
# the older NTCIREVAL of pyNTCIREVAL's outputs prints Prec@k as P@k
OLD_LABELS = {"P@k": "Prec@k"}


def measure_of(label: str) -> str:
    """The irw measure NTCIREVAL prints as `label` (its `-- ntcir:` header)."""
    return next(name for name, m in registry().items() if label in dict(m.ntcir))


def to_irw(case: dict) -> Irw:
    name, at, k = case["measure"].partition("@")
    gains = {level: float(g) for level, g in enumerate(case["gains"].split(":"), start=1)}
    params = {"gains": gains}
    if at:
        name, params["cutoff"] = name + "@k", int(k)
        name = OLD_LABELS.get(name, name)
    return Irw.of(measure_of(name), params, order="file", judged_only=case["judged_only"])


def _data(name: str) -> tuple[str, str]:
    data = CASES["data"][name]
    if "ntcir_rel" not in data:
        return data["qrels"], data["run"]
    rel = [line.split() for line in (HERE / data["ntcir_rel"]).read_text().splitlines()]
    docs = (HERE / data["res"]).read_text().split()
    qrels = "".join(f"T 0 {doc} {level.removeprefix('L')}\n" for doc, level in rel)
    run = "".join(f"T Q0 {doc} {i + 1} {len(docs) - i} r\n" for i, doc in enumerate(docs))
    return qrels, run


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: f"{c['output']}:{case_id(c)}")
def test_pyntcireval_case(case):
    irw = to_irw(case)
    per_topic, _ = irw_values(*_data(case["data"]), irw)
    got = per_topic[case["topic"]]
    assert abs(got - case["expected"]) <= case["tol"] + 1e-12, (str(irw), got, case["expected"])


def test_every_label_is_in_the_catalog():
    families = {label: measure_of(label) for label in NTCIR_LABELS}   # none is missing
    assert families["AP"] == families["AP@k"] and families["Q-measure"] == families["Q@k"]


def test_every_line_of_the_four_outputs_is_a_case():
    outputs = {c["output"] for c in CASES["cases"]} - {None}
    lines = sum(len([x for x in (HERE / o).read_text().splitlines() if "=" in x])
                for o in outputs)
    facts = sum(1 for c in CASES["cases"] if c["tol"] == 0)
    assert len(outputs) == 4 and lines + facts - 2 * len(outputs) == len(CASES["cases"]) - 2
