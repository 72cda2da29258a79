"""Checks against silent empty or meaningless results: the one place that decides when an
evaluation or a comparison the user did not ask to be empty gets a warning or an error.

Each check returns warning lines (the CLI prints them as `irw: warning: ...`) or raises an
IrwError for a result that means nothing at all."""

from __future__ import annotations

from ..errors import IrwError


def evaluation_warnings(result, *, empty_is_error: bool = True) -> list[str]:
    """An evaluation (engine.evaluate.EvalResult): an error when no run has a topic in common
    with the qrels (every value would be empty, or 0 with -c); a warning per run that has
    none while others do; a warning when diversity measures are asked of qrels without
    subtopics (every topic is then read as one intent, which is not what the measure means).
    `empty_is_error=False`: a layout whose reference tool prints rows even then (ndeval.c
    prints a zero row per run topic and a 0.00 amean) gets the warning, not the error, so that
    the output stays the reference's."""
    lines = []
    empty = [name for _, name, common in result.coverage if common == 0]
    if result.coverage and len(empty) == len(result.coverage) and empty_is_error:
        which = f"run {empty[0]!r} has no topic" if len(empty) == 1 else \
            f"none of the {len(empty)} runs has a topic"
        raise IrwError(f"{which} in common with the qrels: nothing to evaluate (check that "
                       "the runs and the qrels are of the same campaign)")
    lines += [f"run {name!r} has no topic in common with the qrels; its values are "
              f"{'0 on every judged topic' if result.options.complete else 'empty'}"
              for name in empty]
    diversity = [r.name for r in result.requests if r.mdef.is_diversity]
    if diversity and not result.qrels_has_intents:
        lines.append(f"{', '.join(diversity)}: diversity measure(s) on qrels without "
                     "subtopics (ad hoc qrels): every topic is read as a single intent; give "
                     "diversity qrels (topic subtopic doc rel) for a diversity evaluation")
    return lines


def check_evaluation(result, *, empty_is_error: bool = True) -> None:
    """evaluation_warnings and those of the session, click and text measures evaluated beside
    (result.warnings), printed on stderr."""
    _print(evaluation_warnings(result, empty_is_error=empty_is_error) + list(result.warnings))


def matrix_campaigns(campaigns: list[str], matrix) -> None:
    """A comparison across campaigns: every campaign asked for keeps runs and the campaigns
    share topics; otherwise an error saying which campaign dropped out."""
    if len(campaigns) < 2:
        if not matrix.topics:
            raise IrwError(f"no topic has a {matrix.measure} score for every run")
        return
    present = {run.split("/", 1)[0] for run in matrix.runs}
    dropped = [c for c in campaigns if c not in present]
    if dropped:
        raise IrwError(f"campaign {dropped[0]} has no {matrix.measure} scores to compare; "
                       "the comparison would silently leave it out")
    if not matrix.topics:
        raise IrwError(f"campaigns {', '.join(campaigns)} share no topic with a "
                       f"{matrix.measure} score for every run: nothing to compare")


def missing_warnings(matrix) -> list[str]:
    """A comparison whose matrix scored absent topics 0 (--missing zero): its means are not the
    runs' evaluated means, and across campaigns whose topics do not overlap, zeros make every
    pair 'significant'. (Topics left out by --missing drop are named in the table itself.)"""
    lines = []                       # (topics left out: the comparison's table says so)
    cells = len(matrix.topics) * len(matrix.runs)
    if matrix.zero_filled:
        lines.append(f"{matrix.measure}: {matrix.zero_filled} of {cells} per-topic values are "
                     "0 because a run lacks the topic (--missing zero)")
        campaigns = {}
        for j, run in enumerate(matrix.runs):
            if "/" in run:
                campaigns.setdefault(run.split("/", 1)[0], []).append(j)
        if len(campaigns) > 1 and matrix.zero_filled * 2 >= cells:
            lines.append("the campaigns share few or no topics: with --missing zero the "
                         "comparison measures their topic sets, not their systems; compare "
                         "each campaign alone, or on shared topics (--missing drop)")
    return lines


def resampling_warnings(comparison, *, plus_one: bool) -> list[str]:
    """A resampling test under a correction whose B is too small to mean anything: its
    smallest attainable p (1/B, or 1/(B + 1) with --plus-one) is not below alpha / pairs, the
    strictest threshold of Bonferroni and Holm, so no pair can pass the correction on its
    resampled p; and without --plus-one a p of 0 (count/B) passes every correction whatever
    the number of pairs. The choice (documented in docs/stats.md and docs/analyst.md): warn, keep count/B as the
    default (the ASL of Sakai, PROMISE 2014), and name both remedies."""
    import math
    if not comparison.correction or not comparison.B or not comparison.pairs:
        return []
    pairs, B, alpha = len(comparison.pairs), comparison.B, comparison.alpha
    smallest = 1.0 / (B + 1) if plus_one else 1.0 / B
    lines = []
    if smallest >= alpha / pairs:
        needed = math.ceil(pairs / alpha)
        lines.append(f"B={B} is too small for {pairs} pairs under the {comparison.correction} "
                     f"correction: the smallest p it can give ({smallest:.2g}) is not below "
                     f"alpha/pairs = {alpha / pairs:.2g}, so pairs pass only with p = 0; use "
                     f"-B {needed} or more" + ("" if plus_one else " and --plus-one"))
    zero = sum(p.p == 0 for p in comparison.pairs)
    if zero and not plus_one:
        lines.append(f"{zero} pair(s) have p = 0 (no resample as extreme out of B={B}), which "
                     f"the {comparison.correction} correction cannot raise; --plus-one gives "
                     "p = (count + 1)/(B + 1) instead")
    return lines


def _print(lines: list[str]) -> None:
    import sys
    for line in lines:
        print(f"irw: warning: {line}", file=sys.stderr)
