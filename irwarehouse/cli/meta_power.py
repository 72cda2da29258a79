"""`irw meta power` (issue 34): power and topic set size design (Sakai, IRJ 2016), from the
design alone or with the variance of a campaign's stored per-topic scores (read as every
`irw meta` command reads them: cli/meta.py's _load). The computation: irwarehouse/meta/power.py."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import TableFormat, TableFormatOpt, WarehouseOpt, _guard, choices, meta_app, warn
from .meta import Missing, MissingOpt, Runs, _emit, _load
from .options import evaluation_options

Design = choices("Design", "paired-t", "anova", "ci")
Number = float | None


def _opt(flag: str, text: str):
    return typer.Option(flag, help=text, show_default=False)


@meta_app.command()
@evaluation_options()
def power(campaign: Annotated[str | None, typer.Option(
              "--campaign", "-C", help="Estimate the variance from this campaign's runs "
              "(with -m); without it the design alone.")] = None,
          measure: Annotated[list[str] | None, typer.Option(
              "--measure", "-m", help="Measure whose per-topic scores give the variance "
              "(repeatable).")] = None,
          run: Runs = None,
          design: Annotated[Design, typer.Option(
              "--design", help="paired-t: topics for a paired t-test; anova: one-way ANOVA "
              "over --systems; ci: a confidence interval no wider than --width.")]
          = Design.paired_t,
          alpha: Annotated[float, typer.Option("--alpha", help="Significance level "
                                               "(two-sided).")] = 0.05,
          power_: Annotated[Number, _opt("--power", "Power wanted, 1 - beta (default "
                                         "0.8).")] = None,
          beta: Annotated[Number, _opt("--beta", "Type II error wanted (power = 1 - "
                                       "beta).")] = None,
          effect_size: Annotated[Number, _opt(
              "--effect-size", "Standardised minimum difference (paired-t: difference / sd "
              "of the differences; anova: range / sigma).")] = None,
          min_diff: Annotated[Number, _opt("--min-diff", "paired-t: minimum detectable "
                                           "difference in the measure's units.")] = None,
          systems: Annotated[int | None, _opt("--systems", "anova: number of systems m "
                                              "(default: the campaign's runs).")] = None,
          min_range: Annotated[Number, _opt("--min-range", "anova: minimum detectable range "
                                            "D between the best and worst system.")] = None,
          width: Annotated[Number, _opt("--width", "ci: the widest expected confidence "
                                        "interval of a difference wanted.")] = None,
          variance: Annotated[Number, _opt(
              "--variance", "Without a campaign: the variance of one score (V_E of a past "
              "campaign; a difference's is twice it).")] = None,
          topics: Annotated[int | None, _opt(
              "--topics", "Also what this many topics detect (default: the campaign's "
              "number of topics).")] = None,
          pairs: Annotated[bool, typer.Option(
              "--pairs", help="Only the post-hoc power of each pair of runs.")] = False,
          fmt: TableFormatOpt = TableFormat.table, missing: MissingOpt = Missing.error,
          warehouse: WarehouseOpt = None, *, settings):
    """Power and topic set size design (Sakai, IRJ 2016): the topics needed by a paired
    t-test, one-way ANOVA or a confidence-interval width (noncentral t and F), the variance
    from a campaign's runs (two-way ANOVA residual), what the campaign's topics detect, and
    the post-hoc power of each observed pair of runs."""
    def body():
        from ..meta import power as pw
        inputs = {"effect_size": effect_size, "min_diff": min_diff, "systems": systems,
                  "min_range": min_range, "width": width}
        if campaign is None:
            if measure or run or pairs:
                raise pw.PowerError("-m, --run and --pairs need a campaign (-C)")
            result = pw.plan(design.value, alpha=alpha, power=power_, beta=beta,
                             variance=variance, topics=topics, **inputs)
            _print_plan(result, fmt)
            return
        if not measure:
            raise pw.PowerError("give the measure whose scores give the variance (-m)")
        if variance is not None:
            raise pw.PowerError("--variance is for a design without a campaign; with -C the "
                                "variance comes from its runs")
        if topics is not None:
            raise pw.PowerError("--topics is for a design without a campaign; with -C it is "
                                "the campaign's number of topics")
        # the inputs checked before anything is read (anova: m defaults to the runs)
        pw.plan(design.value, alpha=alpha, power=power_, beta=beta, variance=1.0,
                **{**inputs, "systems": systems or 2} if design == Design.anova else inputs)
        metrics = _load(warehouse, campaign, measure, run, settings, missing)
        results = pw.campaign_power(metrics, campaign, design.value, alpha=alpha,
                                    power=power_, beta=beta, **inputs)
        _print_campaign(results, fmt, pairs)
    _guard(body)


def _method(p) -> str:
    what = {"paired-t": "paired t-test (noncentral t)",
            "anova": f"one-way ANOVA over {p.inputs.get('systems')} systems, least "
                     "favourable configuration (noncentral F)",
            "ci": "confidence interval of a paired difference, expected width"}[p.design]
    level = f", power {p.power:g} (beta {1 - p.power:g})" if p.power is not None else ""
    return (f"topic set size design (Sakai, IRJ 2016): {what}, two-sided alpha "
            f"{p.alpha:g}{level}")


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _quantities(record: dict, skip=("design", "campaign", "measure")) -> list[dict]:
    return [{"quantity": k, "value": _value(v)} for k, v in record.items() if k not in skip]


def _print_plan(p, fmt: TableFormat) -> None:
    if fmt == TableFormat.table:
        sys.stdout.write(f"# {_method(p)}\n")
        _emit(_quantities(p.record()), fmt)
    elif fmt == TableFormat.json:
        _emit([p.record()], fmt, meta={"method": _method(p)})
    else:
        _emit([p.record()], fmt)


def _print_campaign(results, fmt: TableFormat, pairs_only: bool) -> None:
    from ..meta.power import CAVEAT
    pair_rows = [{"measure": r.measure, **pair.record()} for r in results for pair in r.pairs]
    if pairs_only:
        if fmt != TableFormat.json:
            warn(CAVEAT)
        _emit(pair_rows, fmt, meta={"caveat": CAVEAT} if fmt == TableFormat.json else None)
        return
    if fmt == TableFormat.json:
        rows = [{**r.record(), "runs": r.runs, "pairs": [p.record() for p in r.pairs]}
                for r in results]
        _emit(rows, fmt, meta={"method": _method(results[0].plan), "caveat": CAVEAT})
        return
    if fmt != TableFormat.table:
        _emit([{**r.record(), "runs": " ".join(r.runs)} for r in results], fmt)
        return
    sys.stdout.write(f"# {_method(results[0].plan)}\n")
    for r in results:
        sys.stdout.write(f"# {r.describe()}\n")
        _emit(_quantities(r.record()), fmt)
    sys.stdout.write("\n# post-hoc power of each observed pair (paired t-test at its own "
                     "effect size |mean| / sd of the differences)\n")
    _emit(pair_rows, fmt)
    sys.stdout.write(f"# note: {CAVEAT}\n")
