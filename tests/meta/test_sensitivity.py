import numpy as np
import pytest

from irwarehouse.meta import discpower as dp
from irwarehouse.meta import sensitivity as sens
from irwarehouse.meta._common import MetricSet
from irwarehouse.stats import bootstrap_delta
from tests.helpers.matrices import realistic_matrix


def test_table4_shape_and_values():
    m = realistic_matrix(40, 7, seed=12)
    metrics = MetricSet.from_arrays({"A": m, "B": np.sqrt(m)})
    rows = sens.bootstrap_sensitivity(metrics, B=400, rng=6)
    for r in rows:
        expected = bootstrap_delta(metrics[r.measure], B=400, rng=6)
        assert r.raw_difference == expected.delta
        assert r.n_significant == expected.n_significant and r.n_pairs == 21
        assert r.estimated_difference == float(f"{expected.delta:.2g}")
        assert r.cell() == f"{r.n_significant}/21={r.n_significant / 21:.0%}"
    assert rows[0].share >= rows[1].share


def test_refuses_tukey_rows():
    row = dp.discriminative_power(realistic_matrix(10, 3, 1), test="tukey", B=50, rng=1)
    with pytest.raises(ValueError):
        sens.from_discpower(row)
