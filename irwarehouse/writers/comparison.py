"""`irw compare`'s layouts: the run x run table, JSON lines, CSV."""

from __future__ import annotations

import csv
import io
import json

from ..engine.matrix import ScoreMatrix

MARKERS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))


def _marker(p: float) -> str:
    return next((m for level, m in MARKERS if p < level), "")


def table_text(comparison, matrix: ScoreMatrix) -> str:
    """Run x run: the mean difference (row - column) with markers for the p-value used
    (adjusted when a correction was asked)."""
    runs = matrix.runs
    cell = {}
    for pair in comparison.pairs:
        p = pair.p_adjusted
        cell[(pair.run_a, pair.run_b)] = f"{pair.delta:+.4f}{_marker(p)}"
        cell[(pair.run_b, pair.run_a)] = f"{-pair.delta:+.4f}{_marker(p)}"
    width = max(10, *(len(r) for r in runs)) + 1
    means = dict(zip(runs, matrix.run_values()))     # by the measure's summary kind
    lines = [f"{matrix.measure}: {comparison.test} test"
             + (f", {comparison.correction} correction" if comparison.correction else "")
             + (f", B={comparison.B}, seed={comparison.seed}" if comparison.B else "")
             + (", tie rule gt (range > |difference|)" if comparison.tie_rule == "gt" else "")
             + f"; {comparison.n_topics} topics, {comparison.n_runs} runs",
             "".join(f"{'':<{width}}{'mean':>8}  " + "".join(f"{r[:width - 1]:>{width}}"
                                                               for r in runs)).rstrip()]
    for r in runs:
        row = "".join(f"{cell.get((r, c), '—'):>{width}}" for c in runs)
        lines.append(f"{r:<{width}}{means[r]:>8.4f}  {row}")
    lines.append("row minus column; * p < 0.05, ** p < 0.01, *** p < 0.001"
                 + (" (adjusted)" if comparison.correction else ""))
    if comparison.test not in ("tukey",) and not comparison.correction:
        lines.append(f"family-wise error of {len(comparison.pairs)} uncorrected tests at "
                     f"alpha={comparison.alpha}: {comparison.familywise_error:.3f}")
    lines += identical_note(comparison)
    return "\n".join(lines) + "\n"


def identical_note(comparison) -> list[str]:
    """A line naming the pairs of runs equal on every topic, whose p is 1 by definition."""
    pairs = getattr(comparison, "identical_pairs", [])
    if not pairs:
        return []
    shown = ", ".join(f"{a} = {b}" for a, b in pairs[:5]) + (" ..." if len(pairs) > 5 else "")
    return [f"note: identical per-topic values, p = 1 by definition: {shown}"]


def pair_records(comparison) -> list[dict]:
    out = []
    for rec in comparison.records():
        item = {k: rec[k] for k in ("run_a", "run_b", "mean_a", "mean_b", "delta", "p")}
        if comparison.correction:
            item["p_adjusted"] = rec["p_adjusted"]
        item.update(test=rec["test"], B=rec["B"], seed=rec["seed"])
        if "tie_rule" in rec:
            item["tie_rule"] = rec["tie_rule"]
        out.append(item)
    return out


def render(comparison, matrix: ScoreMatrix, fmt: str) -> str:
    if fmt == "table":
        return table_text(comparison, matrix)
    records = pair_records(comparison)
    if fmt == "json":
        return "\n".join(json.dumps(r) for r in records) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]) if records else ["run_a"],
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()
