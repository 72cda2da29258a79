"""Issue 34 item 7: `irw eval --ci` puts a 95% confidence interval beside each run's mean in the
tsv, csv and json layouts (t-based; `--ci bootstrap`: percentile bootstrap, B = 10000, seed 1);
the byte-exact layouts of trec_eval, ndeval and NTCIREVAL print none and say so. Expected t
intervals from scipy.stats.t, computed here."""

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats

from irwarehouse.stats.intervals import bootstrap_interval, t_interval
from tests.helpers.faults import irw
from tests.helpers.meta_campaign import RUNS, write_campaign


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder, _, _ = write_campaign(tmp_path_factory.mktemp("ci"))
    return [folder / "qrels", *(folder / run for run in RUNS)]


def _per_topic(files, measure):
    out = irw("eval", "-q", "-m", measure, "-f", "json", *files)
    assert out.exit_code == 0, out.output
    values = {}
    for row in json.loads(out.stdout):
        if row["topic"] != "all":
            values.setdefault(row["run"], []).append(row["value"])
    return values


def _scipy_t(values):
    x = np.asarray(values)
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return x.mean() - half, x.mean() + half


def test_t_interval_equals_scipy(files):
    out = irw("eval", "--ci", "-m", "map", "-m", "P.10", "-f", "json", *files)
    assert out.exit_code == 0, out.output
    assert "95% t confidence interval" in out.stderr
    rows = json.loads(out.stdout)
    per_topic = {m: _per_topic(files, m) for m in ("map", "P.10")}
    assert len(rows) == 2 * len(RUNS)
    for row in rows:
        values = per_topic["map" if row["measure"] == "map" else "P.10"][row["run"]]
        low, high = _scipy_t(values)
        assert row["value"] == pytest.approx(np.mean(values), abs=1e-12)
        assert row["ci_low"] == pytest.approx(low, abs=1e-12)
        assert row["ci_high"] == pytest.approx(high, abs=1e-12)
    same = irw("eval", "--ci", "t", "-m", "map", "-m", "P.10", "-f", "json", *files)
    assert json.loads(same.stdout) == rows


def test_t_interval_function_equals_scipy():
    rng = np.random.default_rng(3)
    for n in (2, 3, 10, 50, 400):
        x = rng.random(n)
        expected = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=stats.sem(x))
        assert t_interval(x) == pytest.approx(expected, abs=1e-12)
    assert t_interval([0.3]) is None


def test_bootstrap_is_deterministic_and_near_scipy():
    rng = np.random.default_rng(5)
    x = rng.beta(2, 5, size=60)
    first = bootstrap_interval(x)
    assert bootstrap_interval(x) == first                     # seed 1: the same interval
    assert first[0] < x.mean() < first[1]
    ref = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=10_000,
                          rng=np.random.default_rng(0)).confidence_interval
    # two percentile bootstraps of B = 10000 differ by Monte Carlo error only
    assert first[0] == pytest.approx(ref.low, abs=0.01)
    assert first[1] == pytest.approx(ref.high, abs=0.01)


def test_bootstrap_in_csv(files):
    args = ["eval", "-m", "map", "-m", "gm_map", "-m", "num_ret", "-f", "csv", *files]
    first = irw(*args[:1], "--ci", "bootstrap", *args[1:])
    assert first.exit_code == 0, first.output
    assert "percentile bootstrap" in first.stderr and "B = 10000, seed 1" in first.stderr
    again = irw(*args[:1], "--ci=bootstrap", *args[1:])
    assert again.stdout == first.stdout
    rows = list(csv.DictReader(io.StringIO(first.stdout)))
    assert list(rows[0]) == ["run", "topic", "measure", "value", "ci_low", "ci_high"]
    per_topic = _per_topic(files, "map")
    for row in rows:
        if row["measure"] == "map":
            low, high = bootstrap_interval(per_topic[row["run"]])
            assert (float(row["ci_low"]), float(row["ci_high"])) == (low, high)
        else:       # a geometric mean and a sum are no mean of the per-topic values
            assert row["ci_low"] == row["ci_high"] == ""


def test_exact_layouts_stay_exact(files):
    plain = irw("eval", "-m", "map", *files)
    with_ci = irw("eval", "--ci", "-m", "map", *files)
    assert with_ci.exit_code == 0
    assert with_ci.stdout == plain.stdout
    assert "no intervals in --format trec_eval" in with_ci.stderr
    per_topic = irw("eval", "-q", "--ci", "-m", "map", "-f", "tsv", *files)
    lines = per_topic.stdout.splitlines()
    assert lines[0].split("\t") == ["run", "topic", "measure", "value", "ci_low", "ci_high"]
    assert all(line.endswith("\t\t") for line in lines[1:] if "\tall\t" not in line)


def test_ci_without_value_keeps_the_files(files):
    # `--ci QRELS RUN`: the word after a bare --ci is its value only when it is a method
    out = irw("eval", "--ci", *files[:2], "-m", "map", "-f", "tsv")
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[1].split("\t")[:3] == [files[1].name, "all", "map"]
    bad = irw("eval", "--ci=normal", "-m", "map", *files[:2])
    assert bad.exit_code == 2


@pytest.mark.parametrize("fmt", ["latex", "markdown"])
def test_paper_tables_carry_the_interval_in_brackets(files, fmt):
    """The paper layouts are text layouts too: each mean is followed by its interval (scipy's,
    at the table's 4 decimals), and the caption says which interval it is."""
    out = irw("eval", "--ci", "-m", "map", "-f", fmt, *files)
    assert out.exit_code == 0, out.output
    per_topic = _per_topic(files, "map")
    for run, values in per_topic.items():
        low, high = _scipy_t(values)
        line = next(x for x in out.stdout.splitlines() if x.lstrip("| ").startswith(run))
        assert f"{low:.4f}, {high:.4f}" in line
    assert ("95\\% t confidence interval" if fmt == "latex" else "95% t confidence interval") \
        in out.stdout
    plain = irw("eval", "-m", "map", "-f", fmt, *files)
    assert "confidence interval" not in plain.stdout and "[" not in plain.stdout.split(
        "\\midrule")[-1].split("\\bottomrule")[0]
