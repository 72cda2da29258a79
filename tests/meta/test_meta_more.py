"""Issue 30's meta-evaluation methods: RBO (Webber, Moffat & Zobel, TOIS 2010) against
repro_eval's own RBO and by hand, Carterette's d_rank (SIGIR 2009), the swap method filtered by
a t-test (Sanderson & Zobel, SIGIR 2005), the Unpaired-Test bootstrap sensitivity for GMAP-type
summaries, a generalisability-theory study (Bodoff & Li, SIGIR 2007), and their `irw meta`
commands (with standardisation, Friedman and ANOVA reachable from the CLI)."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.meta._common import MetricSet
from irwarehouse.meta.drank import d_rank
from irwarehouse.meta.gtheory import g_study
from irwarehouse.meta.rbo import rbo_lists, rbo_scores
from irwarehouse.meta.sensitivity import unpaired_sensitivity
from irwarehouse.meta.swap import swap_rates
from tests.helpers.meta_campaign import campaign_warehouse

GOLDEN = Path(__file__).parents[1] / "data" / "rbo" / "repro_eval_rbo.json"


# -- RBO ---------------------------------------------------------------------------------------
def test_rbo_normalised_equals_repro_eval():
    # tests/data/rbo/regenerate.py: repro_eval 0.5.0's _rbo on fixed and random rankings
    cases = json.loads(GOLDEN.read_text())
    assert len(cases) == 45
    for case in cases:
        got = rbo_lists(case["run"], case["ideal"], p=case["p"], depth=case["depth"])
        assert got.normalised == pytest.approx(case["rbo"], abs=1e-12), case


def test_rbo_by_hand():
    # S = a b c, T = a c b, p = 0.9: X = 1, 1, 3 so A = 1, 1/2, 1.
    # truncated = 0.1 (1 + 0.9 / 2 + 0.81) = 0.226; ext = 0.226 + 1 * 0.9^3 = 0.955;
    # min = truncated + 0.1 * 3 * sum_{d>3} 0.9^(d-1) / d
    r = rbo_lists("abc", "acb", p=0.9)
    assert r.truncated == pytest.approx(0.1 * (1 + 0.45 + 0.81))
    assert r.ext == pytest.approx(0.226 + 0.729)
    tail = sum(0.9 ** (d - 1) / d for d in range(4, 5000))
    assert r.min == pytest.approx(0.226 + 0.3 * tail, abs=1e-12)
    # eq 11 of Webber et al.: ((1-p)/p) (sum_d (X_d - X_k) p^d / d - X_k ln(1 - p))
    eq11 = (0.1 / 0.9) * ((1 - 3) * 0.9 + (1 - 3) * 0.81 / 2 - 3 * math.log(0.1))
    assert r.min == pytest.approx(eq11, abs=1e-12)
    # full agreement from depth 4 on: X_3 = 3 already means A_d = 1 for every d > 3 at best
    assert r.max == pytest.approx(0.226 + 0.729, abs=1e-12)
    # identical rankings of m systems: ext = 1; reversed: below 1
    assert rbo_scores([0.3, 0.2, 0.1], [3, 2, 1]).ext == pytest.approx(1.0)
    assert rbo_scores([0.3, 0.2, 0.1], [1, 2, 3]).ext < 1


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.permutations(list(range(8))), st.permutations(list(range(8))),
       st.integers(1, 8), st.sampled_from([0.5, 0.8, 0.9, 0.95]), st.data())
def test_rbo_bounds_hold_for_every_continuation(s, t, k, p, data):
    # seen to depth k, the full RBO of any continuation lies in [min, min + residual]
    r = rbo_lists(s[:k], t[:k], p=p)
    rest = data.draw(st.permutations(list(range(8, 40))))
    other = data.draw(st.permutations(list(range(8, 40))))
    full_s, full_t = s[:k] + [x for x in s[k:]] + rest, t[:k] + [x for x in t[k:]] + other
    depth = len(full_s)
    x = [len(set(full_s[:d]) & set(full_t[:d])) for d in range(1, depth + 1)]
    # beyond the lists agreement stays at its final value (both hold the same items)
    full = (1 - p) * sum(p ** (d - 1) * x[d - 1] / d for d in range(1, depth + 1)) \
        + p ** depth
    assert r.min - 1e-12 <= full <= r.max + 1e-12


# -- d_rank ------------------------------------------------------------------------------------
def test_drank_two_systems_is_the_squared_t():
    # one adjacent difference: d_rank = n dbar^2 / s^2 (the paired t statistic squared) when
    # the data rank the systems against the ranking, 0 when they agree
    x = np.array([[0.2, 0.5], [0.4, 0.3], [0.1, 0.6], [0.3, 0.4]])
    d = x[:, 0] - x[:, 1]
    t2 = len(d) * d.mean() ** 2 / d.var(ddof=1)
    assert d_rank([1.0, 0.0], x).distance == pytest.approx(t2, rel=1e-7)
    assert d_rank([0.0, 1.0], x).distance == pytest.approx(0.0, abs=1e-12)


def _drank_oracle(ranking, matrix):
    """min over theta >= 0 by trying every set of free coordinates (the KKT solution is the
    unconstrained minimum over one of them with the rest at 0)."""
    order = np.argsort(-np.asarray(ranking, dtype=float), kind="stable")
    diffs = matrix[:, order][:, :-1] - matrix[:, order][:, 1:]
    n, k = diffs.shape
    dbar = diffs.mean(axis=0)
    cov = np.atleast_2d(np.cov(diffs, rowvar=False, ddof=1))
    cov = cov + 1e-9 * np.trace(cov) / k * np.eye(k)
    prec = np.linalg.inv(cov)
    best = math.inf
    for size in range(k + 1):
        for free in itertools.combinations(range(k), size):
            theta = np.zeros(k)
            if free:
                f = list(free)
                fixed = [i for i in range(k) if i not in free]
                # minimise over theta_f with theta_fixed = 0
                theta[f] = dbar[f] + np.linalg.solve(prec[np.ix_(f, f)],
                                                     prec[np.ix_(f, fixed)] @ dbar[fixed])
                if np.any(theta[f] < -1e-12):
                    continue
            gap = dbar - theta
            best = min(best, float(n * gap @ prec @ gap))
    return best


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(3, 5), st.integers(6, 12))
def test_drank_matches_enumerated_projection(seed, systems, topics):
    rng = np.random.default_rng(seed)
    matrix = rng.random((topics, systems)) + np.linspace(0, 0.3, systems)
    ranking = rng.random(systems)
    got = d_rank(ranking, matrix).distance
    assert got == pytest.approx(_drank_oracle(ranking, matrix), rel=1e-6, abs=1e-9)


def test_drank_pvalue_is_the_chi_bar_squared_tail():
    # two systems: under the null d_rank is 0 half the time and chi2(1) otherwise, so
    # P(d >= x) = 0.5 P(chi2_1 >= x) = 0.5 erfc(sqrt(x / 2))
    x = np.array([[0.2, 0.5], [0.4, 0.3], [0.1, 0.6], [0.3, 0.4], [0.35, 0.3]])
    result = d_rank([1.0, 0.0], x, B=20_000, rng=5)
    expected = 0.5 * math.erfc(math.sqrt(result.distance / 2))
    assert result.pvalue == pytest.approx(expected, abs=0.01)
    assert result.seed == 5


# -- swap method with the t-test filter ------------------------------------------------------
def test_swap_ttest_filter_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    matrix = rng.random((10, 4)) * np.array([1.0, 0.9, 0.8, 1.1])
    first = rng.integers(0, 10, size=(30, 10))
    second = rng.integers(0, 10, size=(30, 10))
    got = swap_rates(matrix, B=30, topic_sets=lambda n, B, g: (first, second),
                     significance_alpha=0.05)
    counts, swaps = np.zeros(21, dtype=int), np.zeros(21, dtype=int)
    for b in range(30):
        for a, c in itertools.combinations(range(4), 2):
            x, y = matrix[first[b], a], matrix[first[b], c]
            if scipy_stats.ttest_rel(x, y).pvalue >= 0.05:
                continue
            d1 = x.mean() - y.mean()
            d2 = matrix[second[b], a].mean() - matrix[second[b], c].mean()
            k = min(int(np.floor(round(abs(d1) / 0.01, 9))), 20)
            counts[k] += 1
            swaps[k] += d1 * d2 <= 0
    assert counts.sum() > 0
    assert got.counts.tolist() == counts.tolist()
    assert got.swaps.tolist() == swaps.tolist()
    unfiltered = swap_rates(matrix, B=30, topic_sets=lambda n, B, g: (first, second))
    assert unfiltered.counts.sum() == 30 * 6 > got.counts.sum()


# -- unpaired sensitivity ----------------------------------------------------------------------
def test_unpaired_sensitivity_matches_the_unpaired_bootstrap():
    from irwarehouse.stats import unpaired_bootstrap
    rng = np.random.default_rng(8)
    matrix = rng.random((12, 4)) ** 2 + np.array([0.0, 0.05, 0.3, 0.31])
    metrics = MetricSet.from_arrays({"gm_map": matrix, "AP": matrix})
    metrics = type(metrics)(metrics.measures, metrics.topics, metrics.runs, metrics.values,
                            {"gm_map": "gmean", "AP": "mean"})
    rows = {r.measure: r for r in unpaired_sensitivity(metrics, B=400, rng=11)}
    indices = np.random.default_rng(11).integers(0, 24, size=(400, 24))
    for measure, statistic in (("gm_map", "gmean"), ("AP", "mean")):
        significant = 0
        for a, b in itertools.combinations(range(4), 2):
            test = unpaired_bootstrap(matrix[:, a], matrix[:, b], statistic=statistic, B=400,
                                      sampler=lambda n, B, g: indices)
            significant += test.pvalue < 0.05
        assert rows[measure].n_significant == significant
        assert rows[measure].statistic == statistic
    assert rows["gm_map"].raw_difference > 0


# -- generalisability theory -------------------------------------------------------------------
def test_gstudy_by_hand():
    # 3 topics x 2 systems. Grand mean 0.5; system means 0.4, 0.6; topic means 0.3, 0.5, 0.7.
    # MS_s = 3 (0.01 + 0.01) / 1 = 0.06; MS_t = 2 (0.04 + 0 + 0.04) / 2 = 0.08;
    # residuals: x - topic - system + grand
    x = np.array([[0.2, 0.4], [0.5, 0.5], [0.5, 0.9]])
    res = x - x.mean(axis=1)[:, None] - x.mean(axis=0)[None, :] + x.mean()
    ms_r = float((res ** 2).sum()) / 2
    study = g_study(x)
    assert study.mean_squares["systems"] == pytest.approx(0.06)
    assert study.mean_squares["topics"] == pytest.approx(0.08)
    assert study.components["interaction"] == pytest.approx(ms_r)
    s2s, s2t = (0.06 - ms_r) / 3, (0.08 - ms_r) / 2
    assert study.components["systems"] == pytest.approx(max(s2s, 0))
    assert study.components["topics"] == pytest.approx(max(s2t, 0))
    phi = s2s / (s2s + (s2t + ms_r) / 3)
    assert study.dependability() == pytest.approx(phi)
    # residuals 0, 0, +-0.1 (four): MS_res = 0.04 / 2; Phi(3) = (0.04/3) / (0.04/3 + 0.05/3)
    assert ms_r == pytest.approx(0.02)
    assert study.dependability() == pytest.approx(4 / 9)
    assert study.generalisability(30) == pytest.approx(s2s / (s2s + ms_r / 30))
    need = study.topics_for_dependability(0.9)
    assert study.dependability(need) >= 0.9 > study.dependability(need - 1)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(2, 8))
def test_gstudy_components_match_slow_sums(seed, systems, topics):
    x = np.random.default_rng(seed).random((topics, systems))
    grand = sum(map(sum, x.tolist())) / x.size
    sm = [sum(x[i][j] for i in range(topics)) / topics for j in range(systems)]
    tm = [sum(x[i][j] for j in range(systems)) / systems for i in range(topics)]
    ms_s = topics * sum((m - grand) ** 2 for m in sm) / (systems - 1)
    ms_t = systems * sum((m - grand) ** 2 for m in tm) / (topics - 1)
    ms_r = sum((x[i][j] - tm[i] - sm[j] + grand) ** 2 for i in range(topics)
               for j in range(systems)) / ((topics - 1) * (systems - 1))
    study = g_study(x)
    assert study.raw_components["systems"] == pytest.approx((ms_s - ms_r) / topics)
    assert study.raw_components["topics"] == pytest.approx((ms_t - ms_r) / systems)
    assert study.raw_components["interaction"] == pytest.approx(ms_r)
    assert min(study.components.values()) >= 0


# -- the CLI -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wh_path(tmp_path_factory):
    return campaign_warehouse(tmp_path_factory.mktemp("meta_more"), stored=("AP",))


def _irw(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_meta_commands(wh_path):
    common = ["-w", str(wh_path), "-C", "c", "-m", "AP", "-m", "nDCG@10"]
    corr = json.loads(_irw("meta", "rankcorr", *common, "--stat", "rbo", "-f", "json"))
    assert 0 < corr["rows"][0]["rbo"] <= 1
    drank = json.loads(_irw("meta", "drank", *common, "-B", "200", "--seed", "2", "-f",
                            "json"))
    assert {(r["ranking_of"], r["scores_of"]) for r in drank} == {("AP", "nDCG@10"),
                                                                 ("nDCG@10", "AP")}
    assert all(r["drank"] >= 0 and 0 < r["pvalue"] <= 1 for r in drank)
    g = json.loads(_irw("meta", "gstudy", *common, "--topics", "50", "-f", "json"))
    assert {r["source"] for r in g} >= {"systems", "topics", "interaction", "D-study n'=50"}
    std = json.loads(_irw("meta", "standardise", *common, "--cdf", "-f", "json"))
    assert all(0 <= r["value"] <= 1 for r in std) and len(std) == 2 * 5
    fr = json.loads(_irw("meta", "friedman", *common, "-f", "json"))
    assert fr[0]["df"] == 4 and 0 <= fr[0]["pvalue"] <= 1
    an = json.loads(_irw("meta", "anova", *common, "-f", "json"))
    assert [r["source"] for r in an[:3]] == ["runs", "topics", "residual"]
    swap = json.loads(_irw("meta", "swap", *common, "-B", "50", "--seed", "1", "--ttest",
                           "0.05", "-f", "json"))
    assert swap[0]["significance_alpha"] == 0.05
    sens = json.loads(_irw("meta", "sensitivity", "-w", str(wh_path), "-C", "c", "-m",
                           "gm_map", "-B", "100", "--seed", "1", "--unpaired", "-f", "json"))
    assert sens[0]["statistic"] == "gmean" and sens[0]["n_pairs"] == 10


def test_standardise_unknown_reference_is_one_line(wh_path):
    result = CliRunner().invoke(app, ["meta", "standardise", "-w", str(wh_path), "-C", "c",
                                      "-m", "AP", "--reference", "nope"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "irw: error: no run nope among the scored runs"]
