"""`irw compare`'s layouts: the run x run table, JSON lines, CSV."""

from __future__ import annotations

import csv
import io
import json

from ..engine.matrix import ScoreMatrix

MARKERS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
# the header's word when no --test was given over more than two runs (stats.default_test)
DEFAULT_TUKEY = (" (the default for more than two runs: randomised Tukey HSD, as Sakai, "
                 "IPSJ JIP 2013 recommends for a set of runs)")


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
        cell[(pair.run_b, pair.run_a)] = f"{0.0 - pair.delta:+.4f}{_marker(p)}"  # 0.0 - 0.0 = +0.0
    width = max(10, *(len(r) for r in runs)) + 1
    means = dict(zip(runs, matrix.run_values()))     # by the measure's summary kind
    lines = [f"{matrix.measure}: {comparison.test} test"
             + (DEFAULT_TUKEY if getattr(comparison, "by_default", False)
                and comparison.test == "tukey" else "")
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
    if matrix.dropped:
        lines.append(f"compared on the {len(matrix.topics)} topics every run has: "
                     f"{len(matrix.dropped)} topic(s) some run lacks are left out "
                     "(--missing drop), so these means differ from irw eval's")
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


def pair_records(comparison, matrix: ScoreMatrix | None = None, measure: str | None = None
                 ) -> list[dict]:
    """One row per pair: measure, runs, means, delta, test, correction, B, seed, p, adjusted
    p, significant, and the effect size with its confidence interval (stats.paired_effect)."""
    from ..stats.compare import paired_effect
    out = []
    for rec in comparison.records():
        item = {"measure": measure or (matrix.measure if matrix is not None else None)}
        if matrix is not None and matrix.options is not None:     # the set the scores are of
            item.update(qrels=matrix.qrels or None, options=matrix.options)
        item.update({k: rec[k] for k in ("run_a", "run_b", "mean_a", "mean_b", "delta")})
        item.update(test=rec["test"], correction=rec["correction"], B=rec["B"],
                    seed=rec["seed"], p=rec["p"], p_adjusted=rec["p_adjusted"],
                    significant=rec["significant"])
        if matrix is not None:
            d, low, high = paired_effect(matrix.column(rec["run_a"]),
                                         matrix.column(rec["run_b"]), comparison.alpha)
            item.update(effect_size=_number(d), ci_low=_number(low), ci_high=_number(high),
                        ci_level=1 - comparison.alpha)
        if "tie_rule" in rec:
            item["tie_rule"] = rec["tie_rule"]
        out.append(item)
    return out


def _number(x: float) -> float | None:
    return None if x != x else x          # NaN (undefined) is null in JSON


def summary_text(results, baseline: str | None = None) -> str:
    """Runs x measures: each run's value of each measure (by the measure's summary kind), the
    best of each column marked ^; with a baseline, + (-) where the run is significantly better
    (worse) than it by that measure's test (its adjusted p), as a paper's results table."""
    runs = list(dict.fromkeys(r for _, matrix in results for r in matrix.runs))
    names = [matrix.measure for _, matrix in results]
    cells: dict[tuple[str, str], str] = {}
    for comparison, matrix in results:
        values = dict(zip(matrix.runs, matrix.run_values()))
        best = max(values.values())
        marks = _baseline_marks(comparison, baseline) if baseline else {}
        for run, value in values.items():
            mark = marks.get(run, "") + ("^" if value == best else "")
            cells[(run, matrix.measure)] = f"{value:.4f}{mark:<2}"
    width = max(10, *(len(r) for r in runs)) + 1
    col = max(10, *(len(n) + 1 for n in names))
    lines = [f"{'run':<{width}}" + "".join(f"{n:>{col}}" for n in names)]
    for run in runs:
        lines.append((f"{run:<{width}}" + "".join(f"{cells.get((run, n), '—'):>{col}}"
                                                  for n in names)).rstrip())
    legend = "^ best value of the measure"
    if baseline:
        first = results[0][0]
        legend += (f"; +/- significantly better/worse than {baseline} ({first.test} test"
                   + (f", {first.correction} correction" if first.correction else "")
                   + f", alpha={first.alpha})")
    return "\n".join(lines + [legend]) + "\n"


def _baseline_marks(comparison, baseline: str) -> dict[str, str]:
    marks = {}
    for pair in comparison.pairs:
        if baseline not in (pair.run_a, pair.run_b) or not pair.p_adjusted < comparison.alpha:
            continue
        run, delta = (pair.run_b, -pair.delta) if pair.run_a == baseline else \
            (pair.run_a, pair.delta)
        marks[run] = "+" if delta > 0 else "-"
    return marks


def render_all(results, fmt: str, *, baseline: str | None = None, style=None,
               campaign: str | None = None) -> str:
    """Every measure's comparison in one layout: the run x run tables then (several measures
    or a baseline) the runs x measures summary; a paper's runs x measures table (latex,
    markdown: writers.paper); or a row per pair and measure."""
    if fmt in ("latex", "markdown"):
        from . import paper
        style = style or paper.Style()
        table = paper.comparison_table(results, baseline=baseline, style=style,
                                       campaign=campaign)
        return paper.render(table, fmt, style)
    if fmt == "table":
        parts = [table_text(comparison, matrix) for comparison, matrix in results]
        if len(results) > 1 or baseline:
            parts.append(summary_text(results, baseline))
        return "\n".join(parts)
    records = [r for comparison, matrix in results
               for r in pair_records(comparison, matrix, matrix.measure)]
    return _records_text(records, fmt)


def render(comparison, matrix: ScoreMatrix, fmt: str, measure: str | None = None) -> str:
    if fmt == "table":
        return table_text(comparison, matrix)
    return _records_text(pair_records(comparison, matrix, measure), fmt)


def _records_text(records: list[dict], fmt: str) -> str:
    if fmt == "json":                     # one document, as `irw eval --format json`
        return json.dumps(records, indent=1, allow_nan=False) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(r, allow_nan=False) + "\n" for r in records)
    out = io.StringIO()
    fields = list(dict.fromkeys(k for r in records for k in r)) or ["run_a"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n",
                            delimiter="\t" if fmt == "tsv" else ",")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()
