"""Systems with several runs (random seeds, folds, configurations): a topics x runs matrix
becomes a topics x systems matrix whose cell is the mean, over the system's runs, of their
scores on that topic, and every test of irwarehouse.stats then compares systems rather than
runs (the per-topic average over replicates is the unit a paired test needs: one score per
topic and system). Beside it, the spread between the replicates: how many runs each system has,
the standard deviation (n - 1) of their run values, and the lowest and highest of them.

numpy only; which run belongs to which system is decided by the caller (irw compare --group:
irwarehouse.analyst.replicates)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Spread:
    """One system's replicates."""
    system: str
    runs: tuple[str, ...]
    value: float                    # the system's value: its per-topic means, summarised
    sd: float                       # sd (n - 1) of its runs' values; NaN with one run
    low: float                      # lowest and highest run value
    high: float

    def record(self) -> dict:
        return {"system": self.system, "runs": len(self.runs), "value": self.value,
                "sd_of_runs": self.sd, "min_run": self.low, "max_run": self.high,
                "run_names": ", ".join(self.runs)}


def group_columns(values, runs: list[str], system_of: dict[str, str]
                  ) -> tuple[np.ndarray, list[str], list[tuple[str, ...]]]:
    """(topics x systems matrix of per-topic means over each system's runs, the systems in
    order of their first run, each system's runs). Every run must have a system."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(runs):
        raise ValueError("values must be a topics x runs matrix with one column per run")
    missing = [r for r in runs if r not in system_of]
    if missing:
        raise ValueError(f"run {missing[0]!r} has no system")
    systems = list(dict.fromkeys(system_of[r] for r in runs))
    members = [tuple(r for r in runs if system_of[r] == s) for s in systems]
    columns = [values[:, [runs.index(r) for r in m]].mean(axis=1) for m in members]
    return np.column_stack(columns), systems, members


def spreads(values, runs: list[str], systems: list[str], members, grouped,
            run_value) -> list[Spread]:
    """Each system's spread; `run_value(matrix)` gives each column's value (a run's mean, or
    the measure's own summary)."""
    per_run = dict(zip(runs, run_value(np.asarray(values, dtype=float))))
    per_system = run_value(grouped)
    out = []
    for system, names, value in zip(systems, members, per_system):
        v = np.array([per_run[r] for r in names], dtype=float)
        sd = float(np.std(v, ddof=1)) if v.size > 1 else float("nan")
        out.append(Spread(system, names, float(value), sd, float(v.min()), float(v.max())))
    return out
