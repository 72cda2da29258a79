"""`irw report`: the report of a campaign, with its figures as PNG and SVG: what the workspace's
report page (/report of `irw serve`) shows, computed here as data (report/sections.py) and
rendered by the workspace (serve.pages.report_page); `irw report` writes that page as
report.html beside the campaign's other workspace pages (serve.snapshot.write_report).

Every table and figure is drawn from one SQL query over the analyst views; the query is shown
beside it (with its parameters written in as literals, ready for `irw sql -f`) and saved under
queries/, so every number can be reproduced.

Contents: per-run means with t-based 95% confidence intervals; a per-topic heat map (runs x
topics); 11-point interpolated precision-recall curves (from the stored iprec_at_recall
scores, evaluated first when missing); P@k and nDCG@k by rank cutoff; cumulated gain curves;
ASL curves; per-topic difference bars of every run against a baseline; a paired t table
against the baseline; a randomised Tukey HSD table of all pairs; the hardest topics; and the
online sections (report/online.py: the precision histogram, click logs). ROUGE and nugget
scores are read by their stored names, each under the set and options it is filed under
(report/textscores.py); without ranked runs, the curves and online sections give way to a note.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ..errors import WarehouseError
from . import sections as parts
from .query import Query, shell_word, warehouse_word
from .plots import (
    complete_matrix,
    plot_asl,
    plot_by_rank,
    plot_cg_curves,
    plot_deltas,
    plot_heatmap,
    plot_means,
    plot_pr,
    plot_scatter,
)
from .scores import ensure_scores
from .textscores import (
    baseline_note,
    online_note,
    ranked_note,
    report_scope,
    text_facts,
    text_scores_query,
    text_section,
)

DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
PR_SPEC = "iprec_at_recall"
# trec_eval's default cutoffs (5, 10, 15, 20, 30, 100, 200, 500, 1000) of P and ndcg_cut,
# for the by-rank curves.
RANK_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
RANK_SPECS = (f"P.{RANK_CUTOFFS}", f"ndcg_cut.{RANK_CUTOFFS}")


# -- queries -----------------------------------------------------------------------------------
def _queries(campaign: str, qrels: str | None, options: str | None,
             filed: dict[str, tuple[str, str]], first: str, baseline: str) -> dict[str, Query]:
    """`filed`: each measure -> the (qrels, options) its scores are stored with (a text score's
    reference or nugget set and ROUGE options, report/textscores.py); `qrels`, `options`: those
    of the ranked runs (None: no ranked run, no curves)."""
    base = {"campaign": campaign, "qrels": qrels, "options": options}
    scores = [[m, q, o] for m, (q, o) in filed.items()]
    of_first = {"campaign": campaign, "qrels": filed[first][0], "options": filed[first][1]}
    queries = {
        "run_means": Query("run_means", """
        SELECT run, team, measure, num_topics, mean, ci_low, ci_high
        FROM run_mean_ci
        WHERE campaign = $campaign AND list_contains($scores, [measure, qrels, options])
        ORDER BY run, measure""", {"campaign": campaign, "scores": scores}),
        "heatmap": Query("heatmap", """
        SELECT run, topic, value
        FROM topic_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure = $measure
        ORDER BY run, topic""", {**of_first, "measure": first}),
        "pr_curves": Query("pr_curves", """
        SELECT run, CAST(regexp_extract(measure, '_([0-9.]+)$', 1) AS DOUBLE) AS recall,
               mean AS precision, num_topics
        FROM run_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND family = 'iprec_at_recall' AND starts_with(measure, 'iprec_at_recall_')
        ORDER BY run, recall""", base),
        "by_rank": Query("by_rank", """
        SELECT run, CASE WHEN family = 'P' THEN 'P@k' ELSE 'nDCG@k' END AS curve,
               CAST(regexp_extract(measure, '_([0-9]+)$', 1) AS INTEGER) AS k, mean,
               num_topics
        FROM run_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND (regexp_full_match(measure, 'P_[0-9]+')
               OR regexp_full_match(measure, 'ndcg_cut_[0-9]+'))
        ORDER BY run, curve, k""", base),
        "deltas": Query("deltas", """
        SELECT run, topic, value, baseline_value, delta
        FROM run_delta($baseline, $measure)
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
        ORDER BY run, delta DESC, topic""", {**of_first, "measure": first,
                                            "baseline": baseline}),
        "significance": Query("significance", """
        -- paired t test on per-topic differences (two-sided, alpha = 0.05): significant when
        -- the 95% t interval of the mean difference excludes 0
        SELECT measure, run, num_topics, mean_delta, ci_low, ci_high,
               mean_delta / (sd_delta / sqrt(num_topics)) AS t,
               ci_low > 0 OR ci_high < 0 AS significant, wins, losses, ties
        FROM (
            SELECT measure, run, count(*) AS num_topics, avg(delta) AS mean_delta,
                   stddev_samp(delta) AS sd_delta,
                   avg(delta) - t_quantile_975(count(*) - 1) * stddev_samp(delta)
                       / sqrt(count(*)) AS ci_low,
                   avg(delta) + t_quantile_975(count(*) - 1) * stddev_samp(delta)
                       / sqrt(count(*)) AS ci_high,
                   count(*) FILTER (WHERE delta > 0) AS wins,
                   count(*) FILTER (WHERE delta < 0) AS losses,
                   count(*) FILTER (WHERE delta = 0) AS ties
            FROM (SELECT s.measure, s.run, s.value - b.value AS delta
                  FROM topic_score s
                  JOIN topic_score b
                    ON b.campaign = s.campaign AND b.qrels = s.qrels
                   AND b.options = s.options AND b.measure = s.measure AND b.topic = s.topic
                  WHERE s.campaign = $campaign AND b.run = $baseline AND s.run <> $baseline
                    AND list_contains($scores, [s.measure, s.qrels, s.options]))
            GROUP BY measure, run)
        ORDER BY measure, mean_delta DESC""", {"campaign": campaign, "baseline": baseline,
                                                  "scores": scores}),
        "hard_topics": Query("hard_topics", """
        -- titles from the topic table (irw ingest topics), when given
        SELECT d.topic, t.title, num_runs, mean, sd, min, median, max
        FROM topic_difficulty d
        LEFT JOIN (SELECT t.topic, t.title FROM topic t JOIN campaign c USING (campaign_id)
                   WHERE c.name = $campaign) t USING (topic)
        WHERE d.campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure = $measure AND difficulty_rank <= 10
        ORDER BY difficulty_rank""", {**of_first, "measure": first}),
    }
    if qrels is None:       # no ranked run: no precision-recall or by-rank curves
        del queries["pr_curves"], queries["by_rank"]
    return queries


def scatter_query(campaign: str, filed: dict[str, tuple[str, str]], x: str, y: str) -> Query:
    """Per-run values of two measures side by side (e.g. D-nDCG@10 against I-rec@10), each
    read under the (qrels, options) its scores are filed under."""
    return Query("scatter", """
        SELECT run, any_value(mean) FILTER (WHERE measure = $x) AS x,
               any_value(mean) FILTER (WHERE measure = $y) AS y
        FROM run_score
        WHERE campaign = $campaign AND list_contains($scores, [measure, qrels, options])
        GROUP BY run
        ORDER BY run""", {"campaign": campaign, "x": x, "y": y,
                          "scores": [[m, *filed[m]] for m in (x, y)]})


def pick_baseline(con, query: Query) -> str:
    """The median run by the first measure (lower median), as TREC plots compare runs with the
    middle of the field."""
    means = {}
    for row in query.rows(con):
        means.setdefault(row["run"], row["mean"])
    ranked = sorted(means, key=lambda r: (means[r] is None, means[r] or 0, r))
    if not ranked:      # e.g. a campaign of text outputs only (no ranked run to plot)
        raise WarehouseError(f"no run of campaign {query.params['campaign']!r} has "
                             f"{query.params['scores'][0][0]} scores to report")
    return ranked[(len(ranked) - 1) // 2]


def tukey_table(rows: list[dict], measure: str, *, seed: int, B: int = 5000,
                tie_rule: str = "ge") -> dict | None:
    """All pairs of runs under the randomised Tukey HSD test of irwarehouse.stats, on the
    topics every run has (the heat map query's values), as a table that fits the page: runs
    numbered and sorted by mean (best first), only the upper triangle (row minus column, so
    every difference is >= 0), three decimals, significant pairs marked. None when there are
    fewer than two runs or two topics."""
    from ..stats import compare_all
    from ..writers.comparison import MARKERS, identical_note
    matrix = complete_matrix(rows, measure)
    if len(matrix.runs) < 2 or len(matrix.topics) < 2:
        return None
    comparison = compare_all(matrix.values, matrix.runs, test="tukey", B=B, rng=seed,
                             tie_rule=tie_rule)
    means = dict(zip(matrix.runs, matrix.run_values()))
    runs = sorted(matrix.runs, key=lambda r: (-means[r], r))
    cell = {}
    for pair in comparison.pairs:
        cell[(pair.run_a, pair.run_b)] = (pair.delta, pair.p_adjusted)
        cell[(pair.run_b, pair.run_a)] = (0.0 - pair.delta, pair.p_adjusted)
    body = []
    for i, run in enumerate(runs):
        cells = []
        for j in range(1, len(runs)):
            if j <= i:
                cells.append(None)
                continue
            delta, p = cell[(run, runs[j])]
            cells.append({"text": f"{delta:+.3f}", "p": f"{p:.4f}", "against": runs[j],
                          "stars": next((m for level, m in MARKERS if p < level), ""),
                          "sig": p < comparison.alpha})
        body.append({"number": i + 1, "run": run, "mean": f"{means[run]:.4f}",
                     "cells": cells})
    rule = ", tie rule gt (range > |difference|)" if comparison.tie_rule == "gt" else ""
    notes = [f"{measure}: randomised Tukey HSD, B = {comparison.B}, seed = "
             f"{comparison.seed}{rule}; {comparison.n_topics} topics, {comparison.n_runs} runs. "
             "Runs sorted by mean; column numbers are the rows' numbers; row minus column; "
             "* p < 0.05, ** p < 0.01, *** p < 0.001; bold: significant at α = "
             f"{comparison.alpha:g}.", *identical_note(comparison)]
    return {"columns": list(range(2, len(runs) + 1)), "rows": body, "notes": notes}


def _run_rows(rows: list[dict], measures: list[str]) -> list[dict]:
    """Runs x measures: mean and [ci_low, ci_high], best first by the first measure."""
    by_run: dict[str, dict] = {}
    for r in rows:
        entry = by_run.setdefault(r["run"], {"run": r["run"], "team": r["team"],
                                             "topics": r["num_topics"]})
        entry[f"{r['measure']} mean [95% CI]"] = (
            f"{r['mean']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
            if r["mean"] is not None and r["ci_low"] is not None else
            (f"{r['mean']:.4f}" if r["mean"] is not None else None))
    first = measures[0]
    return sorted(by_run.values(), key=lambda e: (-(next(
        (r["mean"] for r in rows if r["run"] == e["run"] and r["measure"] == first), 0) or 0)))


# -- the report ----------------------------------------------------------------------------------
def report_context(wh, campaign: str, out_dir: str | Path, *,
                   measures: list[str] | None = None, baseline: str | None = None,
                   qrels: str | None = None, warehouse_label: str = "irw.duckdb", seed: int = 1,
                   scatter: tuple[str, str] | None = None, tie_rule: str = "ge",
                   settings=None, report=None, store: bool = True) -> dict:
    """The report page's data (shown by serve.pages.report_page): its facts and sections;
    figures and queries are written under out_dir. `scatter` = two measures whose
    per-run means are plotted against each other (e.g. D-nDCG@10 and I-rec@10 for a diversity
    campaign). `settings`: evaluation settings (engine.settings.EvalSettings) over the
    campaign's profile; `report(text)` is told which option set the scores come from.
    `store=False`: read stored scores only (the live page): a missing one is an error."""
    runs = wh.con.execute("""SELECT r.name FROM run r JOIN campaign c USING (campaign_id)
                             WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
    if not runs:
        raise WarehouseError(f"no runs in campaign {campaign!r}")
    if qrels is None:                    # the request's qrels, else the campaign's profile's
        from ..engine.settings import effective
        qrels = effective(wh.con, campaign, settings)[0].qrels
    # ranked measures and ROUGE/nugget scores read by their stored names (issue 17)
    scope = report_scope(wh.con, campaign, measures, qrels, DEFAULT_MEASURES,
                         tuple(scatter or ()))
    names = list(dict.fromkeys(n for spec in scope.specs for n in scope.names(spec)))
    scatter_names = None
    if scatter:
        scatter_names = [scope.names(spec) for spec in scatter]
        if len(scatter) != 2 or any(len(n) != 1 for n in scatter_names):
            raise WarehouseError("--scatter takes two single measures, e.g. 'P.10,map'")
    qrels_name = options = flags = None
    if scope.ranked:
        specs = scope.ranked_specs + [spec for spec in scatter or () if spec not in scope.text]
        qrels_name, options = ensure_scores(wh, campaign, scope.qrels,
                                            specs + [PR_SPEC, *RANK_SPECS], settings, report,
                                            store=store)
        from ..options import parse_described
        flags = parse_described(options).flags() or "trec_eval's defaults"
    filed = {n: scope.text.get(n, (qrels_name, options))
             for n in names + [n[0] for n in scatter_names or ()]}
    first = names[0]
    probe = _queries(campaign, qrels_name, options, {first: filed[first]}, first,
                     "")["run_means"]
    if baseline is None:
        baseline = pick_baseline(wh.con, probe)
    elif baseline not in {r for (r,) in runs}:
        raise WarehouseError(f"no run {baseline!r} in campaign {campaign!r}")
    queries = _queries(campaign, qrels_name, options, {n: filed[n] for n in names}, first,
                       baseline)
    if scope.text:
        queries["text_scores"] = text_scores_query(campaign, scope.text)
    if scatter_names:
        queries["scatter"] = scatter_query(campaign, filed, scatter_names[0][0],
                                           scatter_names[1][0])
    out = Path(out_dir)
    for q in queries.values():
        q.save(out / "queries")
    data = {name: q.rows(wh.con) for name, q in queries.items()}
    figures = out / "figures"
    images = {
        "means": plot_means(data["run_means"], first, figures),
        "heatmap": plot_heatmap(data["heatmap"], first, figures),
        "pr": plot_pr(data["pr_curves"], figures) if scope.ranked else None,
        "scatter": plot_scatter(data["scatter"], *(n[0] for n in scatter_names), figures)
        if scatter_names else None,
        "by_rank": plot_by_rank(data["by_rank"], figures) if scope.ranked else None,
        "deltas": plot_deltas(data["deltas"], first, baseline, figures) if data["deltas"]
        else None,
    }
    if scope.ranked:
        curves = wh.cg_curves(campaign, runs=scope.ranked_runs, qrels=qrels_name, depth=20,
                              average=True).to_pylist()
        images["cg"] = plot_cg_curves(curves, figures)
    per_measure = {m: wh.con.execute(
        "SELECT run, topic, value FROM topic_score WHERE campaign = ? AND qrels = ? "
        "AND options = ? AND measure = ?", [campaign, *filed[m], m]).fetchall()
        for m in names}
    images["asl"] = plot_asl({m: [{"run": r, "topic": t, "value": v} for r, t, v in rows]
                                  for m, rows in per_measure.items()}, figures, seed=seed)
    num_topics = len({r["topic"] for r in data["heatmap"]})
    tukey = tukey_table(data["heatmap"], first, seed=seed, tie_rule=tie_rule)
    # the commands shown work from any folder (absolute paths); the header names the warehouse
    # as it was given
    on = f"-w {warehouse_word(warehouse_label)}"
    rule_py, rule_cli = ((", tie_rule='gt'", " --tie-rule gt") if tie_rule == "gt" else ("", ""))
    meta = {
        "qrels": qrels_name or "– (no ranked run)",
        "evaluation options": flags or "–",
        **text_facts(scope.text),
        "runs / topics": f"{len(runs)} / {num_topics}", "measures": ", ".join(names),
        "baseline": baseline, "warehouse": warehouse_label,
        "generated": f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}",
    }

    def sql(name: str) -> dict:
        return parts.sql(queries[name], warehouse_label)

    sig_columns = ["measure", "run", "num_topics", "mean_delta", "ci_low", "ci_high", "t",
                   "significant", "wins", "losses", "ties"]
    deltas_img = (parts.figure(images["deltas"], "per-topic differences", "deltas")
                  if images["deltas"] else parts.note("(no other run)"))
    S = parts.Section
    sections = [
        S("Runs: means with 95% confidence intervals",
          "Mean over topics and the t-based 95% interval mean ± t(0.975, n−1)·sd/√n "
          "(view run_mean_ci). Sorted by the first measure.",
          [parts.table("run_means", _run_rows(data["run_means"], names),
                       ["run", "team", "topics"] + [f"{m} mean [95% CI]" for m in names],
                       links=("run",)),
           sql("run_means"), parts.figure(images["means"], f"means of {first}", "means_ci")]),
        *([text_section(data["text_scores"], sql("text_scores"))] if scope.text else []),
        S(f"Per-topic heat map ({first})", "Runs (best on top) by topics (hardest first).",
          [parts.figure(images["heatmap"], "heat map", "heatmap"), sql("heatmap")]),
        *([
            S("Precision-recall curves (11-point interpolated)",
              "Mean interpolated precision at recall 0.0, 0.1, …, 1.0 (trec_eval "
              "iprec_at_recall).",
              [parts.figure(images["pr"], "precision-recall curves", "pr_curves"),
               parts.table("pr_curves", _pr_pivot(data["pr_curves"]),
                           ["run"] + [f"{x / 10:.1f}" for x in range(11)],
                           links=("run",)),
               sql("pr_curves")]),
            S("Precision and nDCG by rank cutoff",
              "Mean P@k and nDCG@k at trec_eval's cutoffs 5 … 1000 (log scale).",
              [parts.figure(images["by_rank"], "P@k and nDCG@k by cutoff", "by_rank"),
               sql("by_rank")]),
            S("Cumulated gain curves by rank (Järvelin & Kekäläinen, ACM TOIS 2002)",
              "Mean DCG (Jarvelin-Kekalainen, log base 2, no discount before rank 2) and "
              "nDCG as mean DCG over mean ideal DCG at ranks 1-20; gains are the levels.",
              [parts.figure(images["cg"], "DCG and nDCG curves", "cg_curves"),
               parts.how(f"Warehouse.cg_curves({campaign!r}, qrels={qrels_name!r}, "
                         "depth=20, average=True); in SQL after the evaluation context "
                         "is built: SELECT * FROM cg_curve_mean(MAP {}, 20, 2, 'jk')")])]
          if scope.ranked else [ranked_note(campaign)]),
        S("ASL curves (discriminative power)",
          "Achieved significance level of every run pair under the paired bootstrap "
          "(B = 1000), pairs sorted by ASL, one curve per measure; curves lower down "
          "mean a more discriminative measure (Sakai, PROMISE 2014, Fig 16). Needs 3 "
          "runs or more.",
          [parts.figure(images["asl"], "ASL curves", "asl_curves") if images["asl"]
           else parts.note("(fewer than three runs)"),
           parts.how(f"irw meta discpower {on} -C {campaign} "
                     + " ".join(f"-m {n}" for n in names)
                     + f" --test bootstrap -B 1000 --seed {seed}")]),
        *([S(f"{scatter_names[0][0]} against {scatter_names[1][0]}",
             "Per-run means of two measures.",
             [parts.figure(images["scatter"], "scatter of two measures", "scatter"),
              parts.table("scatter", data["scatter"], ["run", "x", "y"],
                          links=("run",)),
              sql("scatter")])]
          if scatter_names else []),
        S(f"Per-topic differences against {baseline} ({first})",
          "One bar per topic: run − baseline, topics sorted by the difference "
          "(macro run_delta).", [deltas_img, sql("deltas")]),
        S(f"Significance against {baseline}",
          "Paired t test on the per-topic differences, two-sided, α = 0.05, no "
          "correction for multiple comparisons: marked rows have a 95% interval of the "
          "mean difference that excludes 0. wins/losses/ties count topics.",
          [parts.table("significance", data["significance"], sig_columns,
                       highlight="significant", links=("run",)),
           *baseline_note(data["run_means"], names, baseline), sql("significance")]),
        S(f"All pairs of runs: randomised Tukey HSD ({first})",
          "irwarehouse.stats (irw compare --test tukey) on the topics every run has; the "
          "values are the heat map query's.",
          [{"pairs": tukey} if tukey else parts.note("(not available)"),
           parts.how(f"compare_all(values, runs, test='tukey', B=5000, rng={seed}"
                     f"{rule_py}) on the matrix of queries/heatmap.sql; the same as: "
                     f"irw compare {on} -C {campaign} -m {first} "
                     + (f"--qrels {shell_word(qrels_name)} " if qrels_name else "")
                     + f"--test tukey -B 5000 --seed {seed}{rule_cli}")]),
        S(f"Hardest topics ({first})",
          "The ten topics with the lowest mean over runs (view topic_difficulty).",
          [parts.table("hard_topics", data["hard_topics"],
                       ["topic", "title", "num_runs", "mean", "sd", "min", "median", "max"],
                       links=("topic",)),
           sql("hard_topics")]),
    ]
    from .metadata import metadata_section  # the runs' ir_metadata, when they have some
    described = metadata_section(wh.con, campaign)
    if described:
        sections.insert(1, described)
    if scope.ranked and baseline in scope.ranked_runs:
        from .online import online_sections  # precision histogram, click logs
        sections += online_sections(wh, campaign, qrels_name, baseline, figures,
                                    warehouse_label, options, store=store)
    else:
        sections.append(online_note(baseline, scope.ranked))
    return {"title": f"Report: {campaign}", "campaign": campaign, "facts": meta,
            "sections": sections, "measures": names, "baseline": baseline,
            "qrels_name": qrels_name}


def _pr_pivot(rows: list[dict]) -> list[dict]:
    table: dict[str, dict] = {}
    for r in rows:
        table.setdefault(r["run"], {"run": r["run"]})[f"{r['recall']:.1f}"] = r["precision"]
    return [table[k] for k in sorted(table)]
