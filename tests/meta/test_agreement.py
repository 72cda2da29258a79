"""`irw meta qrels-agreement` (irwarehouse/meta/agreement.py): Cohen's kappa and weighted kappa
against scikit-learn's cohen_kappa_score, Krippendorff's alpha against the `krippendorff`
package, hand-worked tables, and TREC 2012 Web's ad hoc qrels against its diversity qrels
collapsed to documents (../shared/realdata), read independently of irwarehouse."""

import gzip
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.meta.agreement import cohen_kappa, confusion, krippendorff_alpha

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")


def irw(*args):
    return CliRunner().invoke(app, [*args])


def _label_pairs():
    rng = np.random.default_rng(34)
    cases = [(np.array([0, 1, 2, 2, 1, 0, 0, 3]), np.array([0, 1, 1, 2, 2, 0, 1, 3]))]
    for levels in ([0, 1], [0, 1, 2], [0, 1, 3, 4], [-2, 0, 1, 2]):
        for n in (5, 40, 300):
            a = rng.choice(levels, n)
            # the second judge agrees on about 60%, else picks any level
            b = np.where(rng.random(n) < 0.6, a, rng.choice(levels, n))
            cases.append((a, b))
    return cases


@pytest.mark.parametrize("a,b", _label_pairs())
def test_kappa_against_scikit_learn(a, b):
    for weights in (None, "linear", "quadratic"):
        expected = sklearn_metrics.cohen_kappa_score(a, b, weights=weights)
        assert cohen_kappa(a, b, weights=weights) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("a,b", _label_pairs())
def test_alpha_against_the_krippendorff_package(a, b):
    for metric in ("ordinal", "interval", "nominal"):
        expected = krippendorff.alpha(reliability_data=np.vstack([a, b]).astype(float),
                                      level_of_measurement=metric)
        assert krippendorff_alpha(a, b, metric=metric) == pytest.approx(expected, abs=1e-10)


def test_hand_worked_kappa_and_confusion():
    # 50 documents: both relevant 20, both not 15, A only 5, B only 10:
    # p_o = 35/50 = 0.7; p_e = (25/50)(30/50) + (25/50)(20/50) = 0.5; kappa = 0.2 / 0.5 = 0.4
    a = np.array([1] * 20 + [0] * 15 + [1] * 5 + [0] * 10)
    b = np.array([1] * 20 + [0] * 15 + [0] * 5 + [1] * 10)
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-15)
    levels, counts = confusion(a, b)
    assert levels == [0, 1] and counts.tolist() == [[15, 10], [5, 20]]
    # one level used by both judges: no chance disagreement, kappa undefined (NaN)
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert np.isnan(krippendorff_alpha([2, 2], [2, 2]))
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section B: two
    # observers, ten units, binary data: alpha (nominal) = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert round(krippendorff_alpha(a, b, metric="nominal"), 3) == 0.095


# -- a small campaign with two qrels ---------------------------------------------------------

def _write(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


@pytest.fixture
def two_qrels(tmp_path):
    from irwarehouse.api import Warehouse
    qa = _write(tmp_path / "a.qrels", ["1 0 d1 2", "1 0 d2 1", "1 0 d3 0", "1 0 d4 0",
                                       "2 0 d1 1", "2 0 d2 0", "2 0 d5 1", "3 0 d9 1"])
    qb = _write(tmp_path / "b.qrels", ["1 0 d1 1", "1 0 d2 1", "1 0 d3 1", "1 0 d4 0",
                                       "2 0 d1 0", "2 0 d2 0", "2 0 d6 1", "4 0 d9 1"])
    qc = _write(tmp_path / "c.qrels", ["7 0 d1 1"])
    runs = []
    for name, order in (("r1", "d1 d2 d3 d4 d5 d6"), ("r2", "d4 d3 d2 d1 d6 d5"),
                        ("r3", "d2 d1 d5 d3 d6 d4")):
        docs = order.split()
        runs.append(_write(tmp_path / name, [f"{t} Q0 {d} {i + 1} {10 - i} {name}"
                                             for t in ("1", "2") for i, d in enumerate(docs)]))
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        for q, name in ((qa, "A"), (qb, "B"), (qc, "C")):
            wh.ingest_qrels(q, "c", name=name)
        for r in runs:
            wh.ingest_run(r, "c")
    return path


def test_small_campaign_by_hand(two_qrels):
    from irwarehouse.api import Warehouse
    with Warehouse(two_qrels) as wh:
        result = wh.qrels_agreement("c", "A", "B", measures=["P@2"])
    # shared topics 1 and 2; docs both judged: 1/d1 (2,1) 1/d2 (1,1) 1/d3 (0,1) 1/d4 (0,0)
    # 2/d1 (1,0) 2/d2 (0,0); binary at 1: A = 1 1 0 0 1 0, B = 1 1 1 0 0 0
    # p_o = 4/6, p_e = (3/6)(3/6) + (3/6)(3/6) = 1/2, kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert result.kappa == pytest.approx(1 / 3, abs=1e-15)
    assert result.levels == [0, 1, 2]
    assert result.confusion.tolist() == [[2, 1, 0], [1, 1, 0], [0, 1, 0]]
    j = result.judged
    assert (j.only_a, j.only_b, j.topics_only_a, j.topics_only_b) == (1, 1, ["3"], ["4"])
    # P@2 under A: r1 (1+1/2... ) topic 1: d1 d2 both relevant = 1, topic 2: d1 d2 -> 1/2;
    # r2: topic 1 d4 d3 -> 0, topic 2 d4 d3 unjudged -> 0; r3: d2 d1 -> 1 and 1/2
    (ranking,) = result.rankings
    assert ranking.runs == ["r1", "r2", "r3"] and ranking.n_topics == 2
    assert ranking.means_a.tolist() == [0.75, 0.0, 0.75]
    # under B: r1: d1 d2 -> 1, topic 2 d1 d2 -> 0; r2: d4 d3 -> 1/2, 0; r3: d2 d1 -> 1, 0
    assert ranking.means_b.tolist() == [0.5, 0.25, 0.5]
    # r1-r2 and r2-r3 concordant, r1-r3 tied under both: tau-a = (2 - 0) / 3
    assert ranking.kendall == pytest.approx(2 / 3, abs=1e-15)


def test_cli_tables_json_and_one_line_errors(two_qrels):
    w = str(two_qrels)
    ok = irw("meta", "qrels-agreement", "-w", w, "-C", "c", "--qrels", "A", "--qrels", "B",
             "-m", "P@2")
    assert ok.exit_code == 0, ok.output
    assert "Cohen's kappa (binary, level >= 1)  0.3333" in ok.stdout
    assert "1 topic(s) only A judges are left out (3)" in ok.stderr
    data = json.loads(irw("meta", "qrels-agreement", "-w", w, "-C", "c", "--qrels", "A",
                          "--qrels", "B", "-m", "P@2", "-l", "2", "-f", "json").stdout)
    assert data["level"] == 2 and data["confusion"] == [[2, 1, 0], [1, 1, 0], [0, 1, 0]]
    # at -l 2 B has no relevant document: every document is "not relevant" for B; kappa 0
    assert data["kappa"] == pytest.approx(0.0)
    for args, says in ((["--qrels", "A"], "exactly twice"),
                       (["--qrels", "A", "--qrels", "A"], "two different qrels"),
                       (["--qrels", "A", "--qrels", "Z"], "Z"),
                       (["--qrels", "A", "--qrels", "C"], "no topic in common"),
                       (["--qrels", "A", "--qrels", "B", "-m", "NoSuchMeasure"], "NoSuch"),
                       (["--qrels", "A", "--qrels", "B", "-m", "P@2", "--run", "r1"],
                        "at least two runs")):
        bad = irw("meta", "qrels-agreement", "-w", w, "-C", "c", *args)
        assert bad.exit_code == 1, (args, bad.output)
        lines = bad.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("irw: error:") and says in lines[0]


# -- TREC 2012 Web: the ad hoc qrels against the diversity qrels collapsed to documents ----

def _read(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    levels = {}
    with opener(path, "rt") as f:
        for line in f:
            topic, _, doc, rel = line.split()
            key = (topic, doc)
            levels[key] = max(levels.get(key, -99), int(rel))
    return levels


@pytest.fixture(scope="module")
def web2012(tmp_path_factory):
    from tests.helpers.paths import REALDATA
    folder = REALDATA / "trec2012_web_diversity"
    if not folder.is_dir():
        pytest.skip("../shared/realdata is not beside the repository")
    from irwarehouse.api import Warehouse
    path = tmp_path_factory.mktemp("web2012") / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(folder / "qrels" / "qrels.adhoc.txt", "web12", name="adhoc")
        wh.ingest_qrels(folder / "qrels" / "qrels.diversity.txt", "web12", name="diversity",
                        fmt="diversity")
        for run in ("ql.results-cata", "rm.results-cata", "ql.results-catb",
                    "rm.results-catb"):
            wh.ingest_run(folder / "runs" / f"{run}.txt.gz", "web12", name=run)
    return folder, path


def test_trec2012_adhoc_vs_diversity(web2012):
    from scipy.stats import kendalltau

    from irwarehouse.api import Warehouse
    folder, path = web2012
    adhoc = _read(folder / "qrels" / "qrels.adhoc.txt")
    diversity = _read(folder / "qrels" / "qrels.diversity.txt")     # max over subtopics
    both = sorted(k for k in adhoc if k in diversity and adhoc[k] >= 0 and diversity[k] >= 0)
    a = np.array([adhoc[k] for k in both])
    b = np.array([diversity[k] for k in both])
    with Warehouse(path) as wh:
        result = wh.qrels_agreement("web12", "adhoc", "diversity", measures=["map"])
    assert result.judged.levels_a.size == len(both) == 15197
    assert result.kappa == pytest.approx(sklearn_metrics.cohen_kappa_score(a >= 1, b >= 1),
                                         abs=1e-12)
    for weights, got in (("linear", result.kappa_linear),
                         ("quadratic", result.kappa_quadratic)):
        assert got == pytest.approx(sklearn_metrics.cohen_kappa_score(a, b, weights=weights),
                                    abs=1e-12)
    data = np.vstack([a, b]).astype(float)
    assert result.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"), abs=1e-10)
    assert result.alpha_interval == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="interval"), abs=1e-10)
    expected = np.zeros((5, 5), dtype=int)
    for x, y in zip(a, b):
        expected[x, y] += 1
    assert result.levels == [0, 1, 2, 3, 4]
    assert result.confusion.tolist() == expected.tolist()
    # the runs' MAP under the ad hoc qrels is trec_eval's (expected_trec_eval/<run>.default.txt)
    (ranking,) = result.rankings
    for run, mean in zip(ranking.runs, ranking.means_a):
        text = (folder / "expected_trec_eval" / f"{run}.default.txt").read_text()
        official = next(float(line.split()[2]) for line in text.splitlines()
                        if line.split()[0] == "map")
        assert round(mean, 4) == official
    assert ranking.kendall == pytest.approx(
        kendalltau(ranking.means_a, ranking.means_b, variant="b").statistic, abs=1e-12)


def test_the_campaign_profile_gives_the_level(two_qrels):
    # `irw campaign set -l 2`: kappa at level 2 unless -l says otherwise; the qrels named by
    # --qrels win over the profile's --qrels
    w = str(two_qrels)
    assert irw("campaign", "set", "c", "-l", "2", "--qrels", "C", "-w", w).exit_code == 0
    args = ["meta", "qrels-agreement", "-w", w, "-C", "c", "--qrels", "A", "--qrels", "B",
            "-m", "P@2", "-f", "json"]
    assert json.loads(irw(*args).stdout)["level"] == 2
    assert json.loads(irw(*args, "-l", "1").stdout)["kappa"] == pytest.approx(1 / 3)


def test_a_campaign_without_runs_gets_the_judgments_agreement(tmp_path):
    w = str(tmp_path / "w.duckdb")
    for name, text in (("A", "1 0 d1 1\n1 0 d2 0\n"), ("B", "1 0 d1 1\n1 0 d2 1\n")):
        (tmp_path / name).write_text(text)
        assert irw("ingest", "qrels", str(tmp_path / name), "-C", "c", "--name", name,
                   "-w", w).exit_code == 0
    out = irw("meta", "qrels-agreement", "-w", w, "-C", "c", "--qrels", "A", "--qrels", "B",
              "-f", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    # A: 1 0, B: 1 1: p_o = 1/2, p_e = (1/2)(1) + (1/2)(0) = 1/2: kappa 0
    assert data["kappa"] == 0.0 and data["rankings"] == []
    assert "no runs" in out.stderr
    bad = irw("meta", "qrels-agreement", "-w", w, "-C", "c", "--qrels", "A", "--qrels", "B",
              "-m", "map")
    assert bad.exit_code == 1 and "at least two runs" in bad.stderr
