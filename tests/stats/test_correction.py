import numpy as np
import pytest
from scipy import stats

from irwarehouse.stats import adjust, benjamini_hochberg, bonferroni, familywise_error, holm


def _holm_by_definition(p):
    """Holm: reject H_(i) while p_(j) <= alpha/(k-j+1) for all j <= i; adjusted p = the
    smallest alpha at which H_i is rejected, found by a slow scan of the step-down rule."""
    k = len(p)
    order = sorted(range(k), key=lambda i: p[i])
    adjusted = [0.0] * k
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_worked_example():
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(bonferroni(p), [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> max-accumulate 0.06
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    # BH: sorted 0.005*4/1=0.02, 0.01*4/2=0.02, 0.03*4/3=0.04, 0.04*4/4=0.04
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])


def test_against_references_on_random_pvalues():
    rng = np.random.default_rng(0)
    for _ in range(50):
        p = rng.random(int(rng.integers(1, 60))) ** 3
        np.testing.assert_allclose(
            benjamini_hochberg(p), stats.false_discovery_control(p), rtol=1e-12
        )
        np.testing.assert_allclose(holm(p), _holm_by_definition(list(p)), rtol=1e-12)
        np.testing.assert_allclose(adjust(p, None), p)
        assert np.all(holm(p) <= bonferroni(p) + 1e-15)


def test_familywise_error():
    assert familywise_error(0.05, 1) == pytest.approx(0.05)
    assert familywise_error(0.05, 190) > 0.9999  # Sakai, IPSJ JIP 2013, section 5.1
    assert familywise_error(0.05, 4950) == pytest.approx(1 - 0.95**4950)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="correction"):
        adjust([0.1], "sidak")
    with pytest.raises(ValueError, match="within"):
        holm([0.1, 1.5])
