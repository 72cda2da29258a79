"""`irw meta power` on TREC 2003 Robust (17 real runs, 100 topics): the variance (two-way ANOVA
residual) equals the one computed by hand from trec_eval 10.0's own per-topic AP (`-q`, printed
to 4 decimals), and the topics needed follow from it as SciPy's noncentral t says."""

import gzip
import json

import numpy as np
import pytest
from scipy import stats

from irwarehouse.api import Warehouse
from tests.helpers.faults import irw
from tests.helpers.paths import REALDATA

ROBUST = REALDATA / "trec2003_robust"
pytestmark = [pytest.mark.realdata, pytest.mark.slow]


@pytest.fixture(scope="module")
def robust(tmp_path_factory):
    if not ROBUST.is_dir():
        pytest.skip("../shared/realdata/trec2003_robust is not beside the repository")
    path = tmp_path_factory.mktemp("robust_power") / "r03.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(ROBUST / "qrels" / "robust03_qrels.txt", "robust03")
        for run in sorted((ROBUST / "runs").glob("input.*.gz")):
            wh.ingest_run(run, "robust03")
    return path


def _trec_eval_ap() -> np.ndarray:
    """topics x runs of trec_eval's per-topic map (runs in byte order of their names)."""
    columns = []
    for path in sorted((ROBUST / "expected_trec_eval").glob("*.all_trec.q.txt.gz")):
        with gzip.open(path, "rt") as lines:
            rows = [line.split() for line in lines if line.startswith("map ")]
        columns.append({topic: float(value) for _, topic, value in rows if topic != "all"})
    topics = sorted(columns[0])
    return np.array([[c[t] for c in columns] for t in topics])


def test_variance_and_topics_from_trec_eval(robust):
    x = _trec_eval_ap()
    assert x.shape == (100, 17)
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    hand = (residual ** 2).sum() / ((n - 1) * (m - 1))
    out = irw("meta", "power", "-w", robust, "-C", "robust03", "-m", "map", "--min-diff",
              "0.05", "-f", "json")
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)["rows"][0]
    assert row["runs_used"] == 17 and row["topics"] == 100
    assert row["variance"] == pytest.approx(hand, rel=1e-3)     # trec_eval's 4 decimals
    effect = 0.05 / np.sqrt(2 * row["variance"])
    sizes = np.arange(2, 2000)
    critical = stats.t.ppf(0.975, sizes - 1)
    power = stats.nct.sf(critical, sizes - 1, np.sqrt(sizes) * effect) + \
        stats.nct.cdf(-critical, sizes - 1, np.sqrt(sizes) * effect)
    assert row["topics_needed"] == sizes[np.argmax(power >= 0.8)]
    assert len(row["pairs"]) == 17 * 16 // 2
