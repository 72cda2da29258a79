"""cwl_eval's test data and outputs (tests/peers/cwl_eval: the repository's qrel_file, gain_file
and result_file, and cwl_eval's output on them, five statistics per metric and topic), plus the
unit tests of cwl/tests/common_metric_test.py, evaluated by irw's C/W/L measures
(sql/metrics/cwl.sql) through the table below. Every value agrees to cwl_eval's 4 printed
decimals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.peer_cases import Irw, irw_values

HERE = Path(__file__).resolve().parent / "cwl_eval"
STATS = ("EU", "ETU", "EC", "ETC", "ED")          # irw's stat = 1..5

# cwl_eval's printed metric name -> irw measure and parameters
MAPPING = [
    (r"P@(\d+)", lambda m: ("cwl_P", {"cutoff": int(m[1])})),
    (r"RR", lambda m: ("cwl_RR", {})),
    (r"RBP@([0-9.]+)", lambda m: ("cwl_RBP", {"p": float(m[1])})),
    (r"INST-T=([0-9.]+)", lambda m: ("cwl_INST", {"T": float(m[1])})),
    (r"INSQ-T=([0-9.]+)", lambda m: ("cwl_INSQ", {"T": float(m[1])})),
    (r"BPM-Static-T=([0-9.]+)-K=(\d+)",
     lambda m: ("cwl_BPM", {"T": float(m[1]), "cutoff": int(m[2])})),
    (r"NDCG-k@(\d+)", lambda m: ("cwl_SDCG", {"cutoff": int(m[1])})),
    (r"NERR-EQ8@k=(\d+)", lambda m: ("cwl_NERR8", {"cutoff": int(m[1])})),
    (r"NERR-EQ9@k=(\d+)", lambda m: ("cwl_NERR9", {"cutoff": int(m[1])})),
    (r"NERR-EQ10@phi=([0-9.]+)", lambda m: ("cwl_NERR10", {"p": float(m[1])})),
    (r"NERR-EQ11@T=([0-9.]+)", lambda m: ("cwl_NERR11", {"T": float(m[1])})),
]
# gain_file's gains g (0, 0.2, 0.4, 0.8, 1) as irw levels 5g with max_rel = 5
GAIN_SCALE = {"qrel_file": 1, "gain_file": 5}


def to_irw(metric: str, stat: str, gain_file: str) -> Irw:
    for pattern, make in MAPPING:
        m = re.fullmatch(pattern, metric)
        if m:
            measure, params = make(m)
            params.update(max_rel=GAIN_SCALE[gain_file], stat=STATS.index(stat) + 1)
            return Irw.of(measure, params)
    raise KeyError(metric)


def _qrels(gain_file: str) -> str:
    scale = GAIN_SCALE[gain_file]
    lines = [line.split() for line in (HERE / gain_file).read_text().splitlines() if line]
    return "".join(f"{t} 0 {d} {round(float(g) * scale)}\n" for t, _, d, g in lines)


def _expected():
    for gain_file in GAIN_SCALE:
        rows = (HERE / f"expected_{gain_file}.tsv").read_text().splitlines()
        header = rows[0].split("\t")
        for row in rows[1:]:
            fields = dict(zip(header, row.split("\t")))
            for stat in STATS:
                yield pytest.param(gain_file, fields["Topic"], fields["Metric"], stat,
                                   float(fields[stat]),
                                   id=f"{gain_file}:{fields['Topic']}:{fields['Metric']}:{stat}")


CASES = list(_expected())


@pytest.mark.parametrize("gain_file, topic, metric, stat, expected", CASES)
def test_cwl_eval_output(gain_file, topic, metric, stat, expected):
    irw = to_irw(metric, stat, gain_file)
    per_topic, _ = irw_values(_qrels(gain_file), (HERE / "result_file").read_text(), irw)
    assert abs(per_topic[topic] - expected) <= 5e-5 + 1e-9, (str(irw), per_topic[topic])


# cwl/tests/common_metric_test.py: Ranking(topic, gains, costs) measured with P@1 and P@5
UNIT = [
    ("test_patone_ranking1", [1], 1, 1.0, 1.0),
    ("test_patone_ranking2", [1, 0], 1, 1.0, 1.0),
    ("test_patone_ranking3", [0, 1], 1, 0.0, 0.0),
    ("test_padding", [0, 1], 5, 0.2, 1.0),
]


@pytest.mark.parametrize("test, gains, k, eu, etu", UNIT, ids=[u[0] for u in UNIT])
def test_cwl_unit_tests(test, gains, k, eu, etu):
    qrels = "".join(f"T 0 d{i} {g}\n" for i, g in enumerate(gains))
    run = "".join(f"T Q0 d{i} {i + 1} {len(gains) - i} r\n" for i in range(len(gains)))
    for stat, expected in ((1, eu), (2, etu)):
        per_topic, _ = irw_values(qrels, run, Irw.of("cwl_P", {"cutoff": k, "stat": stat}))
        assert per_topic["T"] == pytest.approx(expected, abs=1e-12)


def test_both_outputs_are_read_whole():
    assert len(CASES) == 2 * 63 * len(STATS)
