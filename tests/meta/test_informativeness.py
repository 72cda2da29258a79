"""Informativeness (Aslam, Yilmaz & Pavlu, SIGIR 2005): the maximum-entropy distribution given
AP, R-precision or P@k, the precision-recall curve it implies and its error against the actual
one. Checked by hand, by enumerating every relevance vector and every feasible distribution of
tiny lists, against scipy's SLSQP solving the same problem from several starts, and through
`irw meta informativeness` against the lists ranked independently from the run files."""

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.errors import MeasureError
from irwarehouse.meta.informativeness import (
    RECALL_LEVELS,
    constraint_of,
    infer_list,
    interpolated_curve,
)
from irwarehouse.meta.maxent import (
    binary_entropy,
    expected_ap,
    max_entropy_ap,
    max_entropy_prefix,
)
from tests.helpers.meta_campaign import RUNS, TOPICS, campaign_warehouse, write_campaign
from tests.helpers.paths import REALDATA


def _ap(relevance, num_rel):
    """AP of one 0/1 relevance vector (trec_eval's definition)."""
    found, total = 0, 0.0
    for rank, rel in enumerate(relevance, start=1):
        if rel:
            found += 1
            total += found / rank
    return total / num_rel


def _enumerate(p):
    """Every relevance vector of the list with its probability under independence."""
    for vector in itertools.product((0, 1), repeat=len(p)):
        yield vector, math.prod(pi if v else 1 - pi for v, pi in zip(vector, p))


# -- worked examples -----------------------------------------------------------------------------
def test_precision_at_1_by_hand():
    # n = 4, R = 2, the list r n n r: P@1 = 1 and 2 relevant retrieved. Maximum entropy: p_1 = 1,
    # the other relevant document spread evenly, p_2..4 = 1/3. Expected relevant so far
    # C = 1, 4/3, 5/3, 2: precision 1, 2/3, 5/9, 1/2 at recall 1/2, 2/3, 5/6, 1. Interpolated at
    # 0, 0.1, ..., 1: 1 up to 0.5, then 2/3 (0.6), 5/9 (0.7, 0.8), 1/2 (0.9, 1). The actual list:
    # 1 up to 0.5, then 1/2. Errors 1/6, 1/18, 1/18: RMS = sqrt((1/36 + 2/324) / 11) = 1/18.
    constraint, _ = constraint_of("P@1")
    result = infer_list(constraint, [1, 4], 4, 2)
    assert result.distribution.p == pytest.approx([1, 1 / 3, 1 / 3, 1 / 3])
    assert result.inferred == pytest.approx([1] * 6 + [2 / 3, 5 / 9, 5 / 9, 1 / 2, 1 / 2])
    assert result.actual == pytest.approx([1] * 6 + [1 / 2] * 5)
    assert result.rms == pytest.approx(1 / 18)


def _brute_force_n3(ap):
    """n = 3, R = 1, one relevant retrieved: the feasible distributions form a curve, p_2 the
    root of a quadratic for each p_1 (E[AP] = p1 + p2 (1 + p1) / 2 + p3 (1 + p1 + p2) / 3 with
    p3 = 1 - p1 - p2); the entropy's maximum over a fine grid of p_1."""
    p1 = np.linspace(0, 1, 400_001)[1:-1]
    a, m = 1 + p1, 1 - p1
    # -p2^2 / 3 + p2 (a / 2 + (m - a) / 3) + p1 + m a / 3 - ap = 0
    qa, qb, qc = -1 / 3, a / 2 + (m - a) / 3, p1 + m * a / 3 - ap
    disc = qb ** 2 - 4 * qa * qc
    best = (-1.0, None)
    for sign in (1, -1):
        with np.errstate(invalid="ignore"):
            p2 = (-qb + sign * np.sqrt(disc)) / (2 * qa)
        p3 = 1 - p1 - p2
        ok = (disc >= 0) & (p2 > 0) & (p2 < 1) & (p3 > 0) & (p3 < 1)
        p = np.stack([p1[ok], p2[ok], p3[ok]], axis=1)
        h = -np.sum(p * np.log(p) + (1 - p) * np.log1p(-p), axis=1)
        if h.size and h.max() > best[0]:
            best = (float(h.max()), p[h.argmax()])
    return best


def test_ap_worked_example_against_enumeration():
    # n = 3, R = 1, the relevant document at rank 2: AP = 1/2
    result = max_entropy_ap(0.5, 1, 3, 1)
    p = result.p
    # the constraints, over every relevance vector of the product distribution
    vectors = list(_enumerate(p))
    assert sum(w for _, w in vectors) == pytest.approx(1)
    assert sum(w * _ap(v, 1) for v, w in vectors) == pytest.approx(0.5, abs=1e-12)
    assert sum(w * sum(v) for v, w in vectors) == pytest.approx(1, abs=1e-12)
    # the entropy of the joint distribution is the sum of the documents' (independence)
    joint = -sum(w * math.log(w) for _, w in vectors if w > 0)
    assert joint == pytest.approx(result.entropy, abs=1e-12)
    # the maximum over every feasible distribution
    entropy, best = _brute_force_n3(0.5)
    assert result.entropy == pytest.approx(entropy, abs=1e-9)
    assert result.entropy >= entropy - 1e-12
    assert p == pytest.approx(best, abs=2e-4)
    # the inferred curve: C = p1, p1 + p2, 1, so recall 1 first at rank 3 with precision 1/3;
    # every level's interpolated precision is 1/3 (the actual list's: 1/2)
    constraint, _ = constraint_of("AP")
    inference = infer_list(constraint, [2], 3, 1)
    assert inference.inferred == pytest.approx([1 / 3] * 11)
    assert inference.actual == pytest.approx([1 / 2] * 11)
    assert inference.rms == pytest.approx(1 / 6)


def test_uniform_when_ap_is_that_of_the_uniform_distribution():
    q = expected_ap(np.full(10, 0.3), 5)
    result = max_entropy_ap(q, 5, 10, 3)
    assert result.p == pytest.approx(np.full(10, 0.3), abs=1e-9)
    assert result.theta == pytest.approx(0, abs=1e-9)


def test_extremes_and_undefined_cases():
    # AP at its largest (every relevant document retrieved first) and smallest: one distribution
    assert max_entropy_ap(3 / 4, 4, 6, 3).p.tolist() == [1, 1, 1, 0, 0, 0]
    lowest = (1 / 4 + 2 / 5 + 3 / 6) / 4
    assert max_entropy_ap(lowest, 4, 6, 3).p.tolist() == [0, 0, 0, 1, 1, 1]
    assert max_entropy_ap(0.0, 4, 6, 0).p.tolist() == [0] * 6
    with pytest.raises(ValueError, match="AP lies in"):
        max_entropy_ap(0.9, 4, 6, 3)
    with pytest.raises(ValueError, match="R >= 1"):
        max_entropy_ap(0.0, 0, 6, 0)
    with pytest.raises(ValueError, match="R >= 1"):
        infer_list(constraint_of("AP")[0], [], 5, 0)
    with pytest.raises(ValueError, match="documents"):
        infer_list(constraint_of("AP")[0], [], 0, 3)
    with pytest.raises(MeasureError, match="nDCG@10"):
        constraint_of("nDCG@10")


# -- the uniform-block measures ------------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 12), st.data())
def test_block_measures_are_uniform_per_block_and_maximal(n, data):
    relevant = data.draw(st.sets(st.integers(1, n)))
    ranks = np.array(sorted(relevant), dtype=float)
    num_rel = max(len(relevant), data.draw(st.integers(1, 6)))
    for name in ("P@1", "P@5", "P@20", "Rprec"):
        constraint, _ = constraint_of(name)
        cutoff = constraint.cutoff or num_rel
        p = infer_list(constraint, ranks, n, num_rel).distribution.p
        top = min(cutoff, n)
        inside = sum(r <= cutoff for r in relevant)
        assert p[:top].sum() == pytest.approx(inside)
        assert p.sum() == pytest.approx(len(relevant))
        # any other distribution with the same block sums has less entropy (h is strictly
        # concave: moving mass between two ranks of a block away from equality lowers it)
        for block in (slice(0, top), slice(top, n)):
            values = p[block]
            if values.size >= 2 and 0 < values[0] < 1:
                shifted = p.copy()
                step = 0.5 * min(values[0], 1 - values[0])
                shifted[block.start] += step
                shifted[block.start + 1] -= step
                assert binary_entropy(shifted) < binary_entropy(p)


# -- AP against independent oracles -------------------------------------------------------------
def _feasible_grid_n4(q, total=2, steps=801):
    """Every feasible distribution of n = 4 documents with sum p = 2 and Q = q on a grid of
    (p1, p2): p3 is a root of a quadratic (p4 = 2 - p1 - p2 - p3)."""
    p1, p2 = np.meshgrid(np.linspace(0, 1, steps), np.linspace(0, 1, steps))
    p1, p2 = p1.ravel(), p2.ravel()
    m = total - p1 - p2
    base = p1 + p2 * (1 + p1) / 2
    # Q = base + p3 (1 + p1 + p2) / 3 + (m - p3)(1 + p1 + p2 + p3) / 4
    s = 1 + p1 + p2
    qa, qb, qc = -1 / 4, s / 3 + (m - s) / 4, base + m * s / 4 - q
    disc = qb ** 2 - 4 * qa * qc
    out = []
    for sign in (1, -1):
        with np.errstate(invalid="ignore"):
            p3 = (-qb + sign * np.sqrt(disc)) / (2 * qa)
        p4 = m - p3
        ok = (disc >= 0) & (p3 >= 0) & (p3 <= 1) & (p4 >= 0) & (p4 <= 1)
        out.append(np.stack([p1[ok], p2[ok], p3[ok], p4[ok]], axis=1))
    return np.concatenate(out)


@pytest.mark.parametrize("ranks", [(1, 3), (1, 4), (2, 3), (2, 4), (3, 4), (1, 2)])
def test_ap_entropy_is_maximal_among_feasible_distributions(ranks):
    relevance = [1 if r in ranks else 0 for r in range(1, 5)]
    num_rel = 3
    ap = _ap(relevance, num_rel)
    result = max_entropy_ap(ap, num_rel, 4, 2)
    assert expected_ap(result.p, num_rel) == pytest.approx(ap, rel=1e-10)
    assert result.p.sum() == pytest.approx(2, abs=1e-10)
    grid = _feasible_grid_n4(ap * num_rel)
    if ranks in ((1, 2), (3, 4)):                   # the extremes: one feasible distribution
        assert result.p.tolist() == relevance
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        entropies = np.nansum(-(grid * np.log(grid) + (1 - grid) * np.log1p(-grid)), axis=1)
    assert entropies.max() <= result.entropy + 1e-9
    assert entropies.max() == pytest.approx(result.entropy, abs=2e-3)


def _slsqp(q, total, n, starts, rng):
    """scipy's SLSQP maximising the entropy under the two constraints from random starts."""
    optimize = pytest.importorskip("scipy.optimize")
    rank = np.arange(1, n + 1)

    def q_of(p):
        return float(np.sum(p * (1 + np.cumsum(p) - p) / rank))

    best = None
    for _ in range(starts):
        start = np.clip(rng.dirichlet(np.ones(n)) * total, 1e-4, 1 - 1e-4)
        found = optimize.minimize(
            lambda p: -binary_entropy(np.clip(p, 1e-15, 1 - 1e-15)), start,
            bounds=[(1e-12, 1 - 1e-12)] * n, method="SLSQP",
            constraints=[{"type": "eq", "fun": lambda p: q_of(p) - q},
                         {"type": "eq", "fun": lambda p: p.sum() - total}],
            options={"maxiter": 500, "ftol": 1e-14})
        if abs(q_of(found.x) - q) < 1e-8 and abs(found.x.sum() - total) < 1e-8:
            h = binary_entropy(found.x)
            if best is None or h > best[0]:
                best = (h, found.x)
    return best


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(4, 12))
def test_ap_matches_scipy_from_several_starts(seed, n):
    rng = np.random.default_rng(seed)
    total = int(rng.integers(1, n))
    num_rel = total + int(rng.integers(0, 3))
    relevance = np.zeros(n)
    relevance[rng.choice(n, size=total, replace=False)] = 1
    ap = _ap(relevance, num_rel)
    result = max_entropy_ap(ap, num_rel, n, total)
    assert expected_ap(result.p, num_rel) == pytest.approx(ap, rel=1e-10)
    assert result.p.sum() == pytest.approx(total, abs=1e-10)
    oracle = _slsqp(ap * num_rel, total, n, 4, rng)
    if oracle is None:
        return
    # never below a distribution the oracle found, unless flagged as a local maximum
    assert result.entropy >= oracle[0] - 1e-7 or result.improvable
    if not result.improvable and oracle[0] >= result.entropy - 1e-7:
        assert result.p == pytest.approx(oracle[1], abs=1e-4)


def test_ap_far_below_random_finds_the_better_maximum():
    # 40 documents, one relevant at rank 30: from the uniform distribution the path ends on a
    # local maximum with a spike inside the list (not monotone, hence not the maximum); the path
    # from the relevant document at the bottom finds a monotone one of larger entropy, as does
    # scipy from several starts
    relevance = np.zeros(40)
    relevance[29] = 1
    result = max_entropy_ap(_ap(relevance, 1), 1, 40, 1)
    assert not result.improvable
    assert np.all(np.diff(result.p) >= -1e-9)
    oracle = _slsqp(1 / 30, 1, 40, 6, np.random.default_rng(1))
    assert result.entropy >= oracle[0] - 1e-7


# -- curves --------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.integers(1, 40))
def test_interpolated_curve_matches_a_slow_loop(probabilities, num_rel):
    counts = np.cumsum(probabilities)
    curve = interpolated_curve(counts, num_rel)
    for level, value in zip(RECALL_LEVELS, curve):
        reached = [counts[k] / (k + 1) for k in range(len(counts))
                   if counts[k] / num_rel >= level - 1e-9]
        assert value == pytest.approx(max(reached, default=0.0))


# -- a campaign ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("informativeness")
    return campaign_warehouse(folder, stored=("AP",)), write_campaign(folder)


def _irw(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _lists_from_files(runs, qrels, threshold=1):
    """(run, topic) -> (n, R, relevant ranks), ranking each run as trec_eval does (score
    descending, then docno descending), from the files the warehouse ingested."""
    judged = {(t, d): r for t, d, r in qrels}
    out = {}
    for run, lines in runs.items():
        for topic in TOPICS:
            docs = sorted(((s, d) for t, d, s, _ in lines if t == topic), reverse=True)
            num_rel = sum(1 for (t, _), r in judged.items() if t == topic and r >= threshold)
            ranks = [k for k, (_, d) in enumerate(docs, start=1)
                     if judged.get((topic, d), 0) >= threshold]
            out[run, topic] = (len(docs), num_rel, ranks)
    return out


def test_command_against_lists_ranked_from_the_files(campaign):
    path, (_, runs, qrels) = campaign
    common = ["meta", "informativeness", "-w", str(path), "-C", "c", "-m", "AP", "-m",
              "P@10", "-m", "Rprec", "-m", "AP(rel=2)"]
    summary = json.loads(_irw(*common, "-f", "json").stdout)
    per_run = json.loads(_irw(*common, "--per-run", "-f", "json").stdout)
    curves = json.loads(_irw(*common, "--curves", "-f", "json").stdout)
    expected_rows = {}
    for label, threshold in (("AP", 1), ("P@10", 1), ("Rprec", 1), ("AP(rel=2)", 2)):
        constraint, _ = constraint_of(label)
        lists = _lists_from_files(runs, qrels, threshold)
        inferred = {key: infer_list(constraint, ranks, n, num_rel)
                    for key, (n, num_rel, ranks) in lists.items() if num_rel}
        row = next(r for r in summary if r["measure"] == label)
        assert row["lists"] == len(inferred) and row["runs"] == len(RUNS)
        assert row["rms_lists"] == pytest.approx(np.mean([x.rms for x in inferred.values()]))
        for run in RUNS:
            mine = [x for (r, _), x in inferred.items() if r == run]
            mean_inferred = np.mean([x.inferred for x in mine], axis=0)
            mean_actual = np.mean([x.actual for x in mine], axis=0)
            got = next(r for r in per_run if r["measure"] == label and r["run"] == run)
            assert got["rms"] == pytest.approx(
                math.sqrt(np.mean((mean_inferred - mean_actual) ** 2)))
            points = [r for r in curves if r["measure"] == label and r["run"] == run]
            assert [r["recall"] for r in points] == pytest.approx(RECALL_LEVELS)
            assert [r["inferred"] for r in points] == pytest.approx(mean_inferred)
            assert [r["actual"] for r in points] == pytest.approx(mean_actual)
        expected_rows[label] = np.mean([
            math.sqrt(np.mean((np.mean([x.inferred for (r, _), x in inferred.items() if r == run],
                                       axis=0)
                               - np.mean([x.actual for (r, _), x in inferred.items() if r == run],
                                         axis=0)) ** 2)) for run in RUNS])
        assert row["rms"] == pytest.approx(expected_rows[label])


def test_python_api_equals_the_command(campaign):
    from irwarehouse.api import Warehouse
    path, _ = campaign
    with Warehouse(path) as wh:
        result = wh.informativeness("c", ["AP", "P@10"])
    cli = json.loads(_irw("meta", "informativeness", "-w", str(path), "-C", "c", "-m", "AP",
                          "-m", "P@10", "-f", "json").stdout)
    for mine, theirs in zip(result.summary_records(), cli):
        assert mine == {k: pytest.approx(v) if isinstance(v, float) else v
                        for k, v in theirs.items()}


def test_unsupported_measure_is_one_line(campaign):
    path, _ = campaign
    result = CliRunner().invoke(app, ["meta", "informativeness", "-w", str(path), "-C", "c",
                                      "-m", "AP", "-m", "nDCG@10"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "irw: error: informativeness needs AP, R-precision (Rprec) or P@k, the measures whose "
        "constraint Aslam, Yilmaz & Pavlu (SIGIR 2005) give; 'nDCG@10' is none of them"]


def test_topics_without_relevant_documents_and_empty_lists_are_skipped(tmp_path):
    # topic 1 has relevant documents, topic 2 none; run b lacks topic 1 (-c keeps it as an
    # empty list)
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d1 0\n2 0 d4 0\n")
    (tmp_path / "a").write_text("".join(f"{t} Q0 {d} {r} {10 - r} a\n" for t in ("1", "2")
                                        for r, d in enumerate(("d2", "d1", "d3", "d4"))))
    (tmp_path / "b").write_text("2 Q0 d1 0 3 b\n2 Q0 d4 1 2 b\n")
    warehouse = tmp_path / "w.duckdb"
    _irw("ingest", "qrels", str(tmp_path / "qrels"), "-C", "c", "-w", str(warehouse))
    for run in ("a", "b"):
        _irw("ingest", "run", str(tmp_path / run), "-C", "c", "-w", str(warehouse))
    result = _irw("meta", "informativeness", "-w", str(warehouse), "-C", "c", "-m", "AP", "-c",
                  "-f", "json")
    row = json.loads(result.stdout)[0]
    assert row["lists"] == 1 and row["skipped"] == 3
    assert "AP: 1 lists skipped (empty list)" in result.stderr
    assert "AP: 2 lists skipped (no relevant documents)" in result.stderr


# -- real data -----------------------------------------------------------------------------------
ROBUST = REALDATA / "trec2003_robust"


@pytest.mark.realdata
@pytest.mark.skipif(not ROBUST.is_dir(), reason="../shared/realdata/trec2003_robust not present")
def test_ap_is_more_informative_than_precision_on_trec_2003_robust(tmp_path):
    # Aslam, Yilmaz & Pavlu (SIGIR 2005): AP's maximum-entropy distributions infer the
    # precision-recall curves far better than R-precision's and P@10's (two runs, 100 topics)
    from irwarehouse.api import Warehouse
    with Warehouse(tmp_path / "r.duckdb") as wh:
        wh.ingest_qrels(ROBUST / "qrels" / "robust03_qrels.txt", "r")
        for run in ("input.pircRBa1.gz", "input.uwmtCR0.gz"):
            wh.ingest_run(ROBUST / "runs" / run, "r")
        result = wh.informativeness("r", ["AP", "Rprec", "P@10"])
    rows = {r["measure"]: r for r in result.summary_records()}
    assert rows["AP"]["lists"] == 200
    assert rows["AP"]["rms"] < 0.6 * min(rows["Rprec"]["rms"], rows["P@10"]["rms"])
    assert rows["AP"]["rms_lists"] < rows["Rprec"]["rms_lists"]
