"""Issue 34 item 1: power and topic set size design (Sakai, IRJ 2016 "Topic set size design").

Expected values come from SciPy's noncentral t and F (scipy.stats.nct, ncf), its t quantile and
gamma function, computed here and never from irwarehouse's code; the textbook value 34 (paired
t-test, d = 0.5, alpha 0.05 two-sided, power 0.8: Cohen, Statistical Power Analysis, 1988;
G*Power); the variance of Sakai's designs by hand on small matrices."""

import itertools
import json
import math

import numpy as np
import pytest
from scipy import special, stats

from irwarehouse.api import Warehouse
from irwarehouse.meta import power as pw
from irwarehouse.stats import noncentral as nc
from tests.helpers.faults import irw, state
from tests.helpers.meta_campaign import RUNS, campaign_warehouse

N = np.arange(2, 5001)


# -- independent computations with SciPy --------------------------------------------------------
def scipy_paired_t_power(n, effect, alpha):
    n = np.asarray(n, dtype=float)
    critical = stats.t.ppf(1 - alpha / 2, n - 1)
    ncp = np.sqrt(n) * effect
    return stats.nct.sf(critical, n - 1, ncp) + stats.nct.cdf(-critical, n - 1, ncp)


def scipy_paired_t_topics(effect, alpha, power):
    return int(N[np.argmax(scipy_paired_t_power(N, effect, alpha) >= power)])


def scipy_anova_power(n, m, min_range, variance, alpha):
    n = np.asarray(n, dtype=float)
    df1, df2 = m - 1, m * (n - 1)
    lam = n * min_range ** 2 / (2 * variance)
    return stats.ncf.sf(stats.f.ppf(1 - alpha, df1, df2), df1, df2, lam)


def scipy_anova_topics(m, min_range, variance, alpha, power):
    return int(N[np.argmax(scipy_anova_power(N, m, min_range, variance, alpha) >= power)])


def scipy_ci_topics(width, difference_variance, alpha):
    n = N.astype(float)
    c4 = np.exp(0.5 * np.log(2 / (n - 1)) + special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    expected = 2 * stats.t.ppf(1 - alpha / 2, n - 1) * c4 * np.sqrt(difference_variance / n)
    return int(N[np.argmax(expected <= width)])


# -- the distributions ---------------------------------------------------------------------------
@pytest.mark.parametrize("df", [1, 2, 5, 29, 99, 1000])
def test_noncentral_t_equals_scipy(df):
    for t, ncp in itertools.product([-5, -2, -0.3, 0, 0.5, 1.96, 3, 10],
                                    [-8, -1, 0, 0.7, 2.8, 6, 20, 45]):
        expected = stats.nct.cdf(t, df, ncp)
        if math.isnan(expected):        # SciPy 1.17 gives nan far in a tail; its sf does not
            expected = 1 - stats.nct.sf(t, df, ncp)
        assert nc.nct_cdf(t, df, ncp) == pytest.approx(expected, abs=1e-11), (t, ncp)


def test_noncentral_f_equals_scipy():
    for f, df1, df2, lam in itertools.product([0.1, 1, 2.5, 4, 20], [1, 2, 4, 9, 99],
                                              [2, 10, 50, 500], [0.5, 3, 10, 40, 200, 1500]):
        assert nc.ncf_sf(f, df1, df2, lam) == pytest.approx(stats.ncf.sf(f, df1, df2, lam),
                                                           abs=1e-11), (f, df1, df2, lam)
    # noncentrality 0 is the central F (scipy's ncf is not defined there: stats.f)
    assert nc.ncf_sf(2.5, 3, 40, 0) == pytest.approx(stats.f.sf(2.5, 3, 40), abs=1e-14)
    assert nc.f_critical(0.05, 4, 45) == pytest.approx(stats.f.ppf(0.95, 4, 45), abs=1e-10)


# -- the designs on a grid -----------------------------------------------------------------------
def test_textbook_34():
    assert pw.paired_t_topics(0.5, alpha=0.05, power=0.8) == 34
    assert scipy_paired_t_topics(0.5, 0.05, 0.8) == 34
    assert nc.paired_t_power(34, 0.5, 0.05) == pytest.approx(0.8078, abs=5e-5)  # G*Power


@pytest.mark.parametrize("alpha,beta",
                         list(itertools.product([0.01, 0.05, 0.10], [0.1, 0.2, 0.3])))
def test_paired_t_topics_equal_scipy(alpha, beta):
    for effect in (0.15, 0.3, 0.5, 0.8, 1.2, 2.0):
        got = pw.paired_t_topics(effect, alpha=alpha, power=1 - beta)
        assert got == scipy_paired_t_topics(effect, alpha, 1 - beta), effect
        assert nc.paired_t_power(got, effect, alpha) == pytest.approx(
            float(scipy_paired_t_power(got, effect, alpha)), abs=1e-10)


@pytest.mark.parametrize("m", [2, 3, 5, 10, 20])
def test_anova_topics_equal_scipy(m):
    variance = 0.02
    for alpha, beta, min_range in itertools.product([0.01, 0.05], [0.1, 0.2],
                                                    [0.05, 0.1, 0.2]):
        got = pw.anova_topics(min_range, variance, m, alpha=alpha, power=1 - beta)
        assert got == scipy_anova_topics(m, min_range, variance, alpha, 1 - beta), \
            (alpha, beta, min_range)


def test_ci_topics_equal_scipy():
    for alpha, width, variance in itertools.product([0.01, 0.05, 0.1], [0.05, 0.1, 0.2],
                                                    [0.005, 0.02, 0.05]):
        assert pw.ci_topics(width, 2 * variance, alpha=alpha) == \
            scipy_ci_topics(width, 2 * variance, alpha)


def test_minimum_detectable_effect_and_range_reach_the_power():
    for n, alpha, power in itertools.product([5, 50, 300], [0.01, 0.05], [0.7, 0.8, 0.9]):
        effect = pw.minimum_detectable_effect(n, alpha=alpha, power=power)
        assert float(scipy_paired_t_power(n, effect, alpha)) == pytest.approx(power, abs=1e-9)
        d = pw.minimum_detectable_range(n, 0.03, 4, alpha=alpha, power=power)
        assert float(scipy_anova_power(n, 4, d, 0.03, alpha)) == pytest.approx(power, abs=1e-9)


def test_anova_of_two_systems_is_the_two_sample_t_test():
    # one-way ANOVA with 2 groups = two-sample t-test; D = 1 sigma: 17 per group (G*Power)
    assert pw.plan("anova", systems=2, effect_size=1.0).topics_needed == 17


# -- the variance --------------------------------------------------------------------------------
def test_residual_variance_by_hand():
    # rows (topics) means 2, 3, 4; columns (runs) means 2, 3, 4; grand mean 3. Residuals
    # x - row - column + grand: 0 0 0 / 0 1 -1 / 0 -1 1: SS 4 over (3-1)(3-1) = 4 df: V_E = 1
    x = np.array([[1, 2, 3], [2, 4, 3], [3, 3, 6]], dtype=float)
    assert pw.residual_variance(x) == pytest.approx(1.0, abs=1e-15)
    # two runs: the residuals are +-(d - mean d)/2, so V_E is half the variance of the
    # differences, and sigma_t^2 = 2 V_E is that variance
    y = np.array([[0.2, 0.5], [0.4, 0.3], [0.1, 0.6], [0.3, 0.4]])
    d = y[:, 0] - y[:, 1]
    assert 2 * pw.residual_variance(y) == pytest.approx(np.var(d, ddof=1), abs=1e-15)


def test_min_diff_uses_twice_the_variance():
    p = pw.plan("paired-t", min_diff=0.05, variance=0.01, topics=50)
    assert p.inputs["effect_size"] == pytest.approx(0.05 / math.sqrt(0.02))
    assert p.topics_needed == scipy_paired_t_topics(0.05 / math.sqrt(0.02), 0.05, 0.8)
    assert p.at_topics["min_detectable_diff_at_topics"] == pytest.approx(
        p.at_topics["min_detectable_effect_at_topics"] * math.sqrt(0.02))


def test_pairs_post_hoc_power():
    y = np.array([[0.2, 0.5, 0.1], [0.4, 0.3, 0.2], [0.1, 0.6, 0.4], [0.3, 0.4, 0.3],
                  [0.5, 0.9, 0.3]])
    pairs = pw.pair_powers(y, ["a", "b", "c"], alpha=0.05)
    assert [(p.run_a, p.run_b) for p in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    d = y[:, 0] - y[:, 1]
    effect = abs(d.mean()) / d.std(ddof=1)
    # Sakai (SIGIR 2016): effect size t / sqrt(n) of the paired t statistic
    t = stats.ttest_rel(y[:, 0], y[:, 1]).statistic
    assert pairs[0].effect_size == pytest.approx(abs(t) / math.sqrt(5))
    assert pairs[0].power == pytest.approx(float(scipy_paired_t_power(5, effect, 0.05)),
                                           abs=1e-10)


def test_bad_designs():
    with pytest.raises(pw.PowerError, match="disagree"):
        pw.plan("paired-t", effect_size=0.5, power=0.8, beta=0.3)
    assert pw.plan("paired-t", effect_size=0.5, beta=0.2).topics_needed == 34
    with pytest.raises(pw.PowerError, match="needs one of"):
        pw.plan("paired-t")
    with pytest.raises(pw.PowerError, match="variance"):
        pw.plan("paired-t", min_diff=0.05)
    with pytest.raises(pw.PowerError, match="not an input"):
        pw.plan("ci", width=0.1, variance=0.01, systems=3)
    with pytest.raises(pw.PowerError, match="--systems"):
        pw.plan("anova", min_range=0.1, variance=0.01)
    with pytest.raises(pw.PowerError, match="topics would be needed"):
        pw.plan("paired-t", effect_size=1e-5)
    with pytest.raises(pw.PowerError, match="at least two runs"):
        pw.residual_variance(np.ones((4, 1)))


# -- the command and the API ---------------------------------------------------------------------
def test_design_alone_prints_the_topics_needed():
    out = irw("meta", "power", "--design", "paired-t", "--effect-size", "0.5", "--alpha",
              "0.05", "--power", "0.8")
    assert out.exit_code == 0, out.output
    rows = dict(line.split()[:2] for line in out.stdout.splitlines()[3:])
    assert rows["topics_needed"] == "34"
    data = json.loads(irw("meta", "power", "--design", "paired-t", "--effect-size", "0.5",
                          "--beta", "0.2", "--format", "json").stdout)
    assert data["rows"][0]["topics_needed"] == 34 and data["rows"][0]["power"] == 0.8
    anova = json.loads(irw("meta", "power", "--design", "anova", "--systems", "5",
                           "--min-range", "0.1", "--variance", "0.01", "-f", "json").stdout)
    assert anova["rows"][0]["topics_needed"] == scipy_anova_topics(5, 0.1, 0.01, 0.05, 0.8)
    ci = json.loads(irw("meta", "power", "--design", "ci", "--width", "0.1", "--variance",
                        "0.01", "-f", "json").stdout)
    assert ci["rows"][0]["topics_needed"] == scipy_ci_topics(0.1, 0.02, 0.05)


@pytest.fixture(scope="module")
def wh_path(tmp_path_factory):
    return campaign_warehouse(tmp_path_factory.mktemp("power"), stored=("map",))


def _matrix(wh_path, measure="map"):
    with Warehouse(wh_path) as wh:
        m = wh.score_matrix("c", measure)
    return np.asarray(m.values), m.runs


def _hand_variance(x):
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((residual ** 2).sum() / ((n - 1) * (m - 1)))


def test_campaign_designs(wh_path):
    x, runs = _matrix(wh_path)
    variance = _hand_variance(x)
    before = state(wh_path)
    common = ["meta", "power", "-w", str(wh_path), "-C", "c", "-m", "map"]
    out = irw(*common, "--design", "paired-t", "--min-diff", "0.05", "-f", "json")
    assert out.exit_code == 0, out.output
    row = json.loads(out.stdout)["rows"][0]
    assert row["runs"] == sorted(RUNS) and row["runs_used"] == 5
    assert row["variance"] == pytest.approx(variance, rel=1e-12)
    effect = 0.05 / math.sqrt(2 * variance)
    assert row["topics_needed"] == scipy_paired_t_topics(effect, 0.05, 0.8)
    assert row["topics"] == 3
    assert float(scipy_paired_t_power(3, row["min_detectable_effect_at_topics"], 0.05)) == \
        pytest.approx(0.8, abs=1e-9)
    assert len(row["pairs"]) == 10 and "not evidence" in json.loads(out.stdout)["caveat"]
    anova = json.loads(irw(*common, "--design", "anova", "--systems", "4", "--min-range",
                           "0.1", "-f", "json").stdout)["rows"][0]
    assert anova["topics_needed"] == scipy_anova_topics(4, 0.1, variance, 0.05, 0.8)
    by_runs = json.loads(irw(*common, "--design", "anova", "--min-range", "0.1", "--alpha",
                             "0.01", "-f", "json").stdout)["rows"][0]
    assert by_runs["systems"] == 5
    assert by_runs["topics_needed"] == scipy_anova_topics(5, 0.1, variance, 0.01, 0.8)
    ci = json.loads(irw(*common, "--design", "ci", "--width", "0.1", "-f",
                        "json").stdout)["rows"][0]
    assert ci["topics_needed"] == scipy_ci_topics(0.1, 2 * variance, 0.05)
    text = irw(*common, "--min-diff", "0.05")
    assert "runs: alphaA, alphaB, beta1, gamma1, gamma2" in text.stdout
    assert "post-hoc power" in text.stdout and "not evidence" in text.stdout
    assert state(wh_path) == before                      # nothing written


def test_api(wh_path):
    with Warehouse(wh_path) as wh:
        assert wh.power(effect_size=0.5).topics_needed == 34
        (result,) = wh.power("paired-t", campaign="c", measures="map", min_diff=0.05)
    x, runs = _matrix(wh_path)
    assert result.runs == runs and result.plan.variance == pytest.approx(_hand_variance(x))
    assert pw.plan("paired-t", min_diff=0.05, variance=result.plan.variance).topics_needed \
        == result.plan.topics_needed


def _fails(wh_path, *args, match):
    before = state(wh_path)
    out = irw("meta", "power", "-w", str(wh_path), *args)
    assert out.exit_code == 1, out.output
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and match in lines[0], lines
    assert out.stdout == ""
    assert state(wh_path) == before


def test_bad_input_is_one_line_and_writes_nothing(wh_path, tmp_path):
    common = ["-C", "c", "-m", "map", "--min-diff", "0.05"]
    _fails(wh_path, *common, "--run", "alphaA", match="2 runs")
    _fails(wh_path, *common, "--power", "0.8", "--beta", "0.3", match="disagree")
    _fails(wh_path, "-C", "c", "--min-diff", "0.05", match="(-m)")
    _fails(wh_path, "-C", "c", "-m", "map", "--design", "ci", "--width", "0", match="width")
    # a measure with no stored scores and no qrels to evaluate it with
    folder = tmp_path / "noqrels"
    folder.mkdir()
    bare = folder / "w.duckdb"
    from tests.helpers.meta_campaign import write_campaign
    files, _, _ = write_campaign(folder)
    with Warehouse(bare) as wh:
        for run in list(RUNS)[:3]:
            wh.ingest_run(files / run, "c")
    _fails(bare, *common, match="qrels")
    # zero variance: runs that differ by nothing on every topic
    same = tmp_path / "same"
    same.mkdir()
    twin = same / "w.duckdb"
    files, _, _ = write_campaign(same)
    with Warehouse(twin) as wh:
        wh.ingest_qrels(files / "qrels", "c")
        wh.ingest_run(files / "alphaA", "c", name="one")
        wh.ingest_run(files / "alphaA", "c", name="two")
    _fails(twin, *common, match="residual variance")


def test_pairs_without_spread():
    y = np.array([[0.2, 0.2, 0.3], [0.4, 0.4, 0.5], [0.1, 0.1, 0.2]])
    same, shifted, _ = pw.pair_powers(y, ["a", "b", "c"], alpha=0.05)
    assert (same.effect_size, same.power) == (None, 0.05)
    assert (shifted.effect_size, shifted.power) == (None, 1.0)
    assert json.dumps([p.record() for p in (same, shifted)], allow_nan=False)


def test_huge_noncentrality_is_certain_not_endless():
    assert nc.paired_t_power(3, 1e9, 0.05) == 1.0
    assert nc.nct_cdf(2.0, 5, 5e4) == 0.0 and nc.nct_cdf(-2.0, 5, -5e4) == 1.0
    assert nc.ncf_sf(3.0, 4, 40, 1e9) == 1.0
    assert nc.paired_t_power(3, 1e3, 0.05) == pytest.approx(
        float(scipy_paired_t_power(3, 1e3, 0.05)), abs=1e-12)
    assert pw.plan("paired-t", effect_size=1e6).topics_needed == 2
