"""TREC 2003 Robust (real participant run, 100 topics, graded qrels): irwarehouse.evaluate gives
the same bits from a pandas and a polars DataFrame, a pyarrow Table, pytrec_eval's dicts,
ir_measures' namedtuples, ranx objects and the files, for every measure of all_trec; those bits
are `irw eval -q -f tsv`'s, and agree with trec_eval 9.0.8's printed values (issue 35)."""

from __future__ import annotations

import gzip
import math

import pytest
from typer.testing import CliRunner

import irwarehouse
from irwarehouse.cli import app
from tests.frames.shapes import shapes
from tests.helpers.paths import REALDATA

ROBUST = REALDATA / "trec2003_robust"
QRELS = ROBUST / "qrels" / "robust03_qrels.txt"
RUN = ROBUST / "runs" / "input.InexpC2.gz"      # full-precision scores (49.04856999148854)
REFERENCE = ROBUST / "expected_trec_eval_v9.0.8"

pytestmark = [pytest.mark.slow, pytest.mark.realdata,
              pytest.mark.skipif(not ROBUST.is_dir(), reason="../shared/realdata is not "
                                 "beside the repository")]


def _bits(values) -> list[str]:
    return ["nan" if math.isnan(v) else v.hex() for v in values]


@pytest.fixture(scope="module")
def from_files():
    return irwarehouse.evaluate(QRELS, RUN, "all_trec")


def test_every_shape_gives_the_files_bits_for_all_trec(from_files):
    assert from_files.query_id.nunique() == 100
    assert from_files.measure.nunique() >= 90
    for name, (qrels, run) in shapes(QRELS, RUN, ranx=True).items():
        got = irwarehouse.evaluate(qrels, run, "all_trec")
        assert got[["query_id", "measure", "text"]].equals(
            from_files[["query_id", "measure", "text"]]), name
        assert _bits(got.value) == _bits(from_files.value), name


def test_the_bits_are_irw_evals(from_files):
    res = CliRunner().invoke(app, ["eval", "-q", "-f", "tsv", "-m", "all_trec", str(QRELS),
                                   str(RUN)])
    assert res.exit_code == 0, res.output
    printed = {}
    for line in res.output.splitlines()[1:]:
        _, topic, measure, value = line.split("\t")
        printed[(topic, measure)] = value
    numeric = from_files[from_files.text.isna()]
    assert len(numeric) >= 9000
    for row in numeric.itertuples():
        assert float(printed[(row.query_id, row.measure)]).hex() == row.value.hex(), row
    summary = irwarehouse.evaluate(QRELS, RUN, "all_trec", aggregate=True)
    for row in summary.itertuples():
        assert float(printed[("all", row.measure)]).hex() == row.value.hex(), row


def test_agrees_with_trec_eval_908():
    """The aggregate frame against trec_eval 9.0.8's own output (-m all_trec), as it prints."""
    qrels, run = shapes(QRELS, RUN)["pandas, ir_measures' names"]
    summary = irwarehouse.evaluate(qrels, run, "all_trec", aggregate=True)
    got = dict(zip(summary.measure, summary.value))
    with open(REFERENCE / "InexpC2.all_trec.txt") as f:
        reference = [line.split() for line in f if not line.startswith("runid")]
    assert len(reference) > 80
    for measure, _, text in reference:
        value = got[measure]
        shown = str(round(value)) if "." not in text else f"{value:.4f}"
        assert shown == text, measure
    with gzip.open(REFERENCE / "InexpC2.all_trec.q.txt.gz", "rt") as f:
        per_topic = [line.split() for line in f]
    topics = irwarehouse.evaluate(qrels, run, "all_trec")
    cells = {(r.query_id, r.measure): r.value for r in topics.itertuples()}
    checked = 0
    for measure, topic, text in per_topic:
        if topic == "all" or measure in ("runid", "relstring"):
            continue
        value = cells[(topic, measure)]
        assert (str(round(value)) if "." not in text else f"{value:.4f}") == text, \
            (measure, topic)
        checked += 1
    assert checked >= 9000
