"""trec2003_robust (17 real runs, 100 topics): Tukey HSD within the bootstrap, LOO at depth 100.
B is kept small (1,000) so that the module runs in well under a minute."""

import numpy as np
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.meta import discpower as dp
from irwarehouse.meta import loo, pools
from irwarehouse.meta.load import load_metrics
from tests.helpers.paths import REALDATA

ROBUST = REALDATA / "trec2003_robust"
pytestmark = [pytest.mark.realdata, pytest.mark.slow]


@pytest.fixture(scope="module")
def robust(tmp_path_factory):
    if not ROBUST.is_dir():
        pytest.skip("../shared/realdata/trec2003_robust is not beside the repository")
    wh = Warehouse(tmp_path_factory.mktemp("robust") / "r03.duckdb")
    wh.ingest_qrels(ROBUST / "qrels" / "robust03_qrels.txt", "robust03")
    for run in sorted((ROBUST / "runs").glob("input.*.gz")):
        wh.ingest_run(run, "robust03")
    yield wh
    wh.close()


def test_tukey_significant_pairs_are_within_the_bootstraps(robust):
    metrics = load_metrics(robust, "robust03", ["AP", "P@10"])
    assert len(metrics.runs) == 17 and len(metrics.topics) == 100
    for measure in metrics.measures:
        boot = dp.discriminative_power(metrics[measure], test="bootstrap", B=1000, rng=1)
        tukey = dp.discriminative_power(metrics[measure], test="tukey", B=1000, rng=1)
        assert boot.n_pairs == 136
        assert 0 < tukey.n_significant < boot.n_significant
        assert np.all(boot.significant[tukey.significant]), measure
        # Sakai, IPSJ JIP 2013, section 5.3: the deltas of the two tests are of the same size
        assert 0.5 < tukey.delta / boot.delta < 2.5


def test_leave_one_team_out_at_depth_100(robust):
    pid = pools.build_pool(robust.con, "robust03", depth=100, team_pattern="^[A-Za-z]+")
    stats = pools.pool_stats(robust.con, pid, qrels_id=robust.qrels_id("robust03"))
    assert stats.n_runs == 17 and stats.n_teams == 17 and stats.n_topics == 100
    res = loo.leave_one_team_out(robust.con, pool_id=pid, qrels_id=robust.qrels_id("robust03"),
                                 measures=["AP", "P@10", "nDCG@10"])
    assert len(res.runs) == 3 * 17 and set(res.unique_docs) == {r.team for r in res.runs}
    assert sum(res.unique_docs.values()) == sum(stats.per_team.column("unique_docs").to_pylist())
    # every team lost unique documents; on average the runs lose AP without them (a single run
    # may gain: R shrinks with its unique relevant documents)
    assert all(n > 0 for n in res.unique_docs.values())
    assert res.summary[0].mean_difference < 0
    for summary in res.summary:
        largest = res.largest_rank_change(summary.measure)
        assert summary.max_rank_change == abs(largest.rank_change)
        assert summary.max_rank_change_run == largest.run
        assert summary.kendall_tau > 0.9
        print(f"\nLOO depth 100, {summary.measure}: Kendall tau {summary.kendall_tau:.4f}, "
              f"largest rank change {largest.rank_change:+d} ({largest.run}: "
              f"{largest.full:.4f} -> {largest.loo:.4f})")
    # nothing left behind
    assert robust.con.execute("SELECT count(*) FROM qrels").fetchone()[0] == 1


def test_tukey_tie_rules_on_p10_against_exact_counts(robust):
    """Issue 24: P@10 means are multiples of 0.001, so permuted ranges equal to a pair's
    difference are routine. Both rules against integer arithmetic (P@10 x 10 is an integer) on
    the same permutations, and the figures docs/meta.md and docs/stats.md quote (seed 1)."""
    from irwarehouse.stats import default_row_permuter
    from tests.helpers.matrices import RecordingSampler
    matrix = load_metrics(robust, "robust03", ["P@10"])["P@10"]
    tenths = np.rint(matrix * 10).astype(np.int64)
    assert np.allclose(tenths / 10, matrix, rtol=0, atol=1e-12)
    asl, permutations = {}, {}
    for rule in ("ge", "gt"):
        recorder = RecordingSampler(default_row_permuter)
        asl[rule] = dp.discriminative_power(matrix, test="tukey", B=5000, rng=1,
                                            permuter=recorder, tie_rule=rule)
        permutations[rule] = np.concatenate(recorder.calls)
    np.testing.assert_array_equal(permutations["ge"], permutations["gt"])
    perms = permutations["ge"]
    sums = np.take_along_axis(np.broadcast_to(tenths, perms.shape), perms, axis=2).sum(axis=1)
    ranges = (sums.max(axis=1) - sums.min(axis=1))[:, None]
    totals = tenths.sum(axis=0)
    observed = np.abs(totals[asl["ge"].run_a] - totals[asl["ge"].run_b])[None, :]
    np.testing.assert_array_equal(asl["ge"].asl, (ranges >= observed).sum(axis=0) / 5000)
    np.testing.assert_array_equal(asl["gt"].asl, (ranges > observed).sum(axis=0) / 5000)
    shift = asl["ge"].asl - asl["gt"].asl
    assert (asl["ge"].n_significant, asl["gt"].n_significant) == (47, 48)
    assert np.count_nonzero(asl["ge"].significant != asl["gt"].significant) == 1
    assert np.count_nonzero(shift) == 70 and shift.max() == pytest.approx(0.0352, abs=1e-12)
