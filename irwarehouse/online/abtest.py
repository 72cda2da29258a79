"""A/B comparison of two systems' click logs (`irw online ab`): per arm CTR, abandonment, time
to first click, clicks per query and mean click rank over query impressions; the difference
B - A with a percentile bootstrap interval (each arm resampled on its own) and the two-sided
unpaired bootstrap test of irwarehouse.stats (Sakai, PROMISE 2014, Figs 13-14). The unit is the
query impression (one row of irw_click_queries), as arms of an A/B test share no impressions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WarehouseError

# measure -> SQL over irw_click_queries (NULL where the impression has no value)
_PER_QUERY = {
    "CTR": "clicks / shown",
    "abandonment": "CASE WHEN abandoned THEN 1.0 ELSE 0.0 END",
    "time_to_first_click": "first_click_time",
    "clicks_per_query": "CAST(clicks AS DOUBLE)",
    "mean_click_rank": "mean_click_rank",
}


@dataclass(frozen=True)
class ArmComparison:
    measure: str
    n_a: int
    n_b: int
    mean_a: float | None
    mean_b: float | None
    delta: float | None      # mean_b - mean_a
    ci_low: float | None
    ci_high: float | None
    p: float | None
    B: int
    seed: int


def _values(con, campaign: str, run: str, expr: str) -> np.ndarray:
    rows = con.execute(f"SELECT {expr} FROM irw_click_queries(campaign := $c, run := $r)",
                       {"c": campaign, "r": run}).fetchall()
    return np.array([v for (v,) in rows if v is not None], dtype=float)


def compare_arms(con, campaign: str, run_a: str, run_b: str, *, B: int = 1000, seed: int = 1,
                 level: float = 0.95) -> list[ArmComparison]:
    from ..stats import unpaired_bootstrap
    from .store import install_macros
    if run_a == run_b:
        raise WarehouseError("compare two different session logs")
    install_macros(con)
    rng = np.random.default_rng(seed)
    out = []
    for measure, expr in _PER_QUERY.items():   # expressions are constants of this module
        x, y = _values(con, campaign, run_a, expr), _values(con, campaign, run_b, expr)
        if x.size == 0 or y.size == 0:
            out.append(ArmComparison(measure, x.size, y.size, _mean(x), _mean(y), None, None,
                                     None, None, B, seed))
            continue
        boot = (y[rng.integers(0, y.size, (B, y.size))].mean(axis=1)
                - x[rng.integers(0, x.size, (B, x.size))].mean(axis=1))
        lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
        test = unpaired_bootstrap(y, x, B=B, rng=seed)
        out.append(ArmComparison(measure, x.size, y.size, float(x.mean()), float(y.mean()),
                                 float(y.mean() - x.mean()), float(lo), float(hi),
                                 float(test.pvalue), B, seed))
    return out


def _mean(v: np.ndarray) -> float | None:
    return float(v.mean()) if v.size else None
