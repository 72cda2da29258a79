"""pyNTCIREVAL's own test cases (tests/peers/pyntcireval/cases.json and the NTCIREVAL outputs
beside it, from mpkato/pyNTCIREVAL's tests/) evaluated by irw through the table below (the name
NTCIREVAL prints -> irw's canonical measure). The list is evaluated in file order, as NTCIREVAL
does; `compute -g` gives the gains. Every case agrees."""

from __future__ import annotations

from pathlib import Path

import pytest
from _peer_cases import Irw, case_id, irw_values, load

CASES = load("pyntcireval")
HERE = Path(__file__).resolve().parent / "pyntcireval"

# NTCIREVAL's printed name (without @k) -> irw measure; `@k` names take the cutoff
MAPPING = {
    "syslen": "ntcir_syslen", "jrel": "ntcir_jrel", "jnonrel": "ntcir_jnonrel",
    "r1": "ntcir_r1", "rp": "ntcir_rp", "RR": "ntcir_rr", "O-measure": "ntcir_o",
    "P-measure": "ntcir_p", "P-plus": "ntcir_pplus", "AP": "ntcir_ap", "Q-measure": "ntcir_q",
    "NCUgu,P": "ntcir_ncugu_p", "NCUgu,BR": "ntcir_ncugu_br", "NCUrb,P": "ntcir_ncurb_p",
    "NCUrb,BR": "ntcir_ncurb_br", "RBP": "ntcir_rbp", "ERR": "ntcir_err",
    "AP@k": "ntcir_ap_at", "Q@k": "ntcir_q_at", "nDCG@k": "ntcir_ndcg_at",
    "MSnDCG@k": "ntcir_msndcg_at", "P@k": "ntcir_prec_at", "nERR@k": "ntcir_nerr_at",
    "Hit@k": "ntcir_hit_at",
}


def to_irw(case: dict) -> Irw:
    name, at, k = case["measure"].partition("@")
    gains = {level: float(g) for level, g in enumerate(case["gains"].split(":"), start=1)}
    params = {"gains": gains}
    if at:
        name, params["cutoff"] = name + "@k", int(k)
    return Irw.of(MAPPING[name], params, order="file", judged_only=case["judged_only"])


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


def test_every_line_of_the_four_outputs_is_a_case():
    outputs = {c["output"] for c in CASES["cases"]} - {None}
    lines = sum(len([x for x in (HERE / o).read_text().splitlines() if "=" in x])
                for o in outputs)
    facts = sum(1 for c in CASES["cases"] if c["tol"] == 0)
    assert len(outputs) == 4 and lines + facts - 2 * len(outputs) == len(CASES["cases"]) - 2
