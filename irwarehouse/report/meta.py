"""`irw meta report`: one reproducible report of a campaign's metrics (discriminative power with
both tests, bootstrap sensitivity, swap rates, rank correlations, significance agreement and,
optionally, leave-one-team-out), as Markdown + JSON + CSV + PNG/SVG plots in one folder.

Everything random is driven by one seed, recorded in the report with every B, so running the
same command on the same warehouse writes the same numbers (and the same SVGs)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..meta import discpower as dp
from ..meta import rankcorr as rc
from ..meta import swap as sw
from ..meta._common import MetricSet
from ..meta.concordance import concordance_table
from ..meta.render import render
from ..meta.sensitivity import from_discpower


@dataclass(frozen=True)
class ReportSettings:
    seed: int = 1
    alpha: float = 0.05
    B_bootstrap: int = 1000
    B_tukey: int = 5000
    B_swap: int = 1000
    tie_rule: str = "ge"              # Tukey HSD: ge counts range == |difference|, gt does not


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _fmt(x, digits: int = 2) -> str:
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def _short(x: float) -> str:
    return "1" if x == 1 else f"{x:.2f}".replace("0.", ".", 1)


def matrix_table(names: list[str], cell) -> list[str]:
    """Upper-triangular metric x metric table in Markdown (Sakai, IPSJ JIP 2013, Tables 4-5 shape)."""
    head = "| | " + " | ".join(names[1:]) + " |"
    lines = [head, "|---" * len(names) + "|"]
    for a in range(len(names) - 1):
        cells = ["-" if b <= a else cell(a, b) for b in range(1, len(names))]
        lines.append(f"| {names[a]} | " + " | ".join(cells) + " |")
    return lines


def paper_table(boot, tukey, swaps, *, campaign: str, settings: ReportSettings,
                n_runs: int, n_topics: int):
    """The report's metric x property table for a paper (writers.paper), in the shape of
    Sakai (IPSJ TOD 2007, Tables 3-4): discriminative power under both tests (percent of run
    pairs, the largest in bold) with the difference each needs, and the swap method's
    difference at a swap rate <= 5% (the smallest in bold)."""
    from ..writers.paper import Cell, PaperTable
    s = settings
    tukey_by = {r.measure: r for r in tukey}
    swap_by = {r.measure: r for r in swaps}

    def share(x):
        return Cell(100 * x, percent=False, digits=1)

    def delta(x):
        return Cell(None if x is None else float(x), percent=False)
    rows = [(r.measure, [share(r.share), delta(r.delta), share(tukey_by[r.measure].share),
                         delta(tukey_by[r.measure].delta), delta(swap_by[r.measure].delta)])
            for r in boot]
    caption = (f"Meta-evaluation of the measures on {campaign} ({n_runs} runs, {n_topics} "
               f"topics, {_pairs(n_runs)}). Discriminative power: the "
               f"percentage of run pairs significant at alpha = {s.alpha:g} under the paired "
               f"bootstrap test (Sakai, IPSJ TOD 2007; B = {s.B_bootstrap}, no correction) "
               f"and the randomised Tukey HSD test (Carterette, ACM TOIS 2012; B = "
               f"{s.B_tukey}, tie rule {s.tie_rule}), with the smallest difference each "
               f"finds significant; swap: the difference needed for a swap rate of at most 5% "
               f"(B = {s.B_swap} bootstrap topic sets); seed {s.seed}. Best in bold.")
    table = PaperTable(caption=caption, rows=rows, label_header="Measure",
                       label="tab:meta-evaluation",
                       columns=["Bootstrap (%)", "Delta", "Tukey HSD (%)", "Delta",
                                "Swap Delta"])
    return table


def _pairs(n_runs: int) -> str:
    k = n_runs * (n_runs - 1) // 2
    return f"{k} run pair" + ("" if k == 1 else "s")


def meta_report(metrics: MetricSet, out_dir, *, campaign: str, settings: ReportSettings,
                loo=None, gold: list[str] | None = None, command: str | None = None,
                table_format: str | None = None, style=None) -> dict:
    """Write the report; ``table_format`` (latex or markdown) adds table.tex or table.md, the
    paper's table of paper_table shaped by ``style`` (writers.paper.Style); ``gold`` adds the
    concordance test of every pair of the other metrics
    against these gold-standard metrics (Sakai, IPSJ JIP 2013, Table 6), ``loo`` a leave-one-team-out part
    ({"pool", "depth", "result"})."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    s = settings
    boot = dp.discpower_table(metrics, test="bootstrap", alpha=s.alpha, B=s.B_bootstrap,
                              rng=s.seed)
    tukey = dp.discpower_table(metrics, test="tukey", alpha=s.alpha, B=s.B_tukey, rng=s.seed,
                               tie_rule=s.tie_rule)
    swaps = sw.swap_table(metrics, B=s.B_swap, rng=s.seed)
    means = metrics.run_means()
    corr = rc.correlation_matrix(means, statistics=("kendall", "tau_ap", "spearman"))
    tukey_sig = {r.measure: r.significant for r in tukey}
    agreement = {(g.measure_a, g.measure_b): g
                 for g in rc.significance_agreement({m: tukey_sig[m] for m in metrics.measures})}
    boot_by = {r.measure: r for r in boot}
    subset = {r.measure: bool(np.all(boot_by[r.measure].significant[r.significant]))
              for r in tukey}

    for suffix in ("png", "svg"):
        dp.plot_asl_curves(boot, out / f"asl_bootstrap.{suffix}",
                           title=f"{campaign}: paired bootstrap, B = {s.B_bootstrap}")
        dp.plot_asl_curves(tukey, out / f"asl_tukey.{suffix}",
                           title=f"{campaign}: randomised Tukey HSD, B = {s.B_tukey}")
        sw.plot_swap_rates(swaps, out / f"swap.{suffix}",
                           title=f"{campaign}: swap rates, bootstrap topic sets, B = {s.B_swap}")
    pair_rows = []
    tukey_by = {r.measure: r for r in tukey}
    for measure in metrics.measures:
        b, t = boot_by[measure], tukey_by[measure]
        for k in range(b.n_pairs):
            pair_rows.append({"measure": measure, "run_a": metrics.runs[b.run_a[k]],
                              "run_b": metrics.runs[b.run_b[k]],
                              "mean_difference": float(b.mean_difference[k]),
                              "asl_bootstrap": float(b.asl[k]), "asl_tukey": float(t.asl[k])})
    (out / "pairs.csv").write_text(render(pair_rows, "csv"))

    n_runs, n_topics = len(metrics.runs), len(metrics.topics)
    lines = [f"# Meta-evaluation report: {campaign}", "",
             f"{n_runs} runs, {n_topics} topics, {metrics.n_pairs} run pairs; "
             f"alpha = {s.alpha}; seed = {s.seed}; B = {s.B_bootstrap} (bootstrap), "
             f"{s.B_tukey} (Tukey HSD, tie rule {s.tie_rule}: range "
             f"{'>=' if s.tie_rule == 'ge' else '>'} |difference|), {s.B_swap} (swap).", ""]
    if command:
        lines += ["Reproduce with:", "", "```", command, "```", ""]
    lines += ["## Discriminative power (Sakai, IPSJ JIP 2013, Tables 2-3, Sakai, IPSJ TOD 2007, Table 4)", "",
              "Share of run pairs with ASL < alpha and the delta needed for significance "
              "(bootstrap: max over pairs of the borderline |mean(w*b)|, Sakai, IPSJ TOD 2007, Fig 7; "
              "Tukey: smallest significant |difference|, Sakai, IPSJ JIP 2013, Fig 5). 'Tukey within "
              "bootstrap' checks that every pair Tukey HSD finds is also found by the bootstrap.",
              "", "| metric | bootstrap | delta | sensitivity (Sakai, IPSJ TOD 2007) | Tukey HSD | delta | "
              "Tukey within bootstrap |", "|---|---|---|---|---|---|---|"]
    for r in boot:
        t = tukey_by[r.measure]
        lines.append(f"| {r.measure} | {_pct(r.share)} | {_fmt(r.delta)} | "
                     f"{from_discpower(r).cell()}, {_fmt(from_discpower(r).estimated_difference)}"
                     f" | {_pct(t.share)} | {_fmt(t.delta)} | "
                     f"{'yes' if subset[r.measure] else 'NO'} |")
    lines += ["", "![ASL curves, bootstrap](asl_bootstrap.png)",
              "![ASL curves, Tukey HSD](asl_tukey.png)", "",
              "## Swap method (Sakai, IPSJ TOD 2007, Table 3, bootstrap topic sets)", "",
              "| metric | abs. diff. (swap rate <= 5%) | max. | relative "
              "| comparisons meeting it |",
              "|---|---|---|---|---|"]
    for r in swaps:
        lines.append(f"| {r.measure} | {_fmt(r.delta)} | {_fmt(r.max_difference, 4)} | "
                     f"{_fmt(r.relative_delta * 100, 0)}% | {_pct(r.share_meeting_delta)} |")
    lines += ["", "![swap rates](swap.png)", "",
              "## Rank correlation of the system rankings (Sakai, IPSJ JIP 2013, Table 5)", "",
              f"Kendall's tau / symmetric tau_ap of the run rankings by mean score. With "
              f"{n_runs} runs tau is significant at 0.01 above "
              f"{rc.kendall_critical_tau(n_runs, 0.01):.3f} (Sakai, IPSJ TOD 2007, eq 9).", ""]
    names = metrics.measures
    lines += matrix_table(names, lambda a, b: f"{_short(corr.values['kendall'][a, b])}/"
                                              f"{_short(corr.values['tau_ap'][a, b])}")
    lines += ["", "## Significantly different pairs in common (Tukey HSD; Sakai, IPSJ JIP 2013, Table 4)", "",
              "only the row metric / both / only the column metric.", ""]
    lines += matrix_table(names, lambda a, b: agreement[(names[a], names[b])].cell())
    result = {
        "campaign": campaign, "runs": metrics.runs, "topics": len(metrics.topics),
        "settings": s.__dict__,
        "discpower_bootstrap": dp.table_records(boot),
        "discpower_tukey": dp.table_records(tukey),
        "tukey_within_bootstrap": subset,
        "sensitivity": [from_discpower(r).record() for r in boot],
        "swap": [r.record() for r in swaps],
        "swap_bins": [b for r in swaps for b in r.bin_records()],
        "rank_correlation": corr.records(),
        "significance_agreement": [g.__dict__ for g in agreement.values()],
    }
    if gold:
        candidates = [m for m in metrics.measures if m not in gold]
        rows = {(r.measure_1, r.measure_2): r
                for r in concordance_table(metrics, candidates, list(gold))}
        lines += ["", f"## Concordance test against {' AND '.join(gold)} (Sakai, IPSJ JIP 2013, Table 6)", "",
                  "Where the row and the column metric disagree on a topic of a run pair: the "
                  "share of those disagreements where each agrees with the gold standard; "
                  "disagreements in parentheses; ‡ / † the two-sided sign test on the wins at "
                  "0.01 / 0.05.", ""]
        if len(candidates) > 1:
            lines += matrix_table(candidates,
                                  lambda a, b: rows[(candidates[a], candidates[b])].cell())
        result["concordance"] = [r.record() for r in rows.values()]
    if loo is not None:
        res = loo["result"]
        built = f"{res.describe()}." if res.pool is not None else \
            f"Pool {loo['pool']} of depth {loo['depth']}."
        lines += ["", "## Leave-one-team-out (Sakai, PROMISE 2014, section 5.4)", "",
                  f"{built[0].upper()}{built[1:]} Each team's runs re-evaluated "
                  "without the documents only that team contributed.", "",
                  "| measure | Kendall tau (full vs LOO) | largest rank change | run | "
                  "mean score change | largest drop |", "|---|---|---|---|---|---|"]
        for m in loo["result"].summary:
            lines.append(f"| {m.measure} | {m.kendall_tau:.4f} | {m.max_rank_change} | "
                         f"{m.max_rank_change_run} | {m.mean_difference:+.4f} | "
                         f"{m.max_drop:.4f} |")
        result["loo"] = {"pool": loo["pool"], "depth": loo["depth"],
                         "pool_build": res.pool.record() if res.pool is not None else None,
                         "qrels": res.qrels,
                         "summary": [m.record() for m in loo["result"].summary],
                         "runs": [r.record() for r in loo["result"].runs],
                         "unique_docs": loo["result"].unique_docs}
    (out / "report.md").write_text("\n".join(lines) + "\n")
    if table_format is not None:
        from ..writers.paper import Style
        from ..writers.paper import render as render_paper
        style = style or Style()
        table = paper_table(boot, tukey, swaps, campaign=campaign, settings=s,
                            n_runs=n_runs, n_topics=n_topics)
        table.mark_best(style, lower_is_better={1, 3, 4})
        suffix = "tex" if table_format == "latex" else "md"
        (out / f"table.{suffix}").write_text(render_paper(table, table_format, style))
    text = json.dumps(_clean(result), indent=2, default=_json_default)
    (out / "report.json").write_text(text + "\n")
    return result


def _clean(value):
    """NaN -> null (JSON has no NaN), floats to 12 significant digits, recursively."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, float):
        # 12 significant digits: the last bits of SQL float sums may differ between runs
        return None if np.isnan(value) else float(f"{value:.12g}")
    return value


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return None if np.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot serialise {type(value)}")
