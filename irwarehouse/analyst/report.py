"""`irw report`: a self-contained HTML report of a campaign, with its figures as PNG and SVG.

Every table and figure is drawn from one SQL query over the analyst views; the query is shown
beside it (in a <details> block, with its parameters written in as literals, ready for
`irw sql -f`) and saved under queries/, so every number can be reproduced.

Contents: per-run means with t-based 95% confidence intervals; a per-topic heat map (runs x
topics); 11-point interpolated precision-recall curves (from the stored iprec_at_recall
scores, evaluated first when missing); P@k and nDCG@k by rank cutoff; per-topic difference bars of every run against a
baseline (TREC's per-topic "precision histograms"); a paired t table against the baseline;
a randomised Tukey HSD table of all pairs (irwarehouse.stats, when present); the hardest
topics.
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..errors import IrwError, WarehouseError

DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
PR_SPEC = "iprec_at_recall"
# trec_eval's default cutoffs (5, 10, 15, 20, 30, 100, 200, 500, 1000) of P and ndcg_cut,
# for the by-rank curves.
RANK_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
RANK_SPECS = (f"P.{RANK_CUTOFFS}", f"ndcg_cut.{RANK_CUTOFFS}")


# -- queries -----------------------------------------------------------------------------------
def sql_literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(sql_literal(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class Query:
    """A report query: SQL with $parameters (bound when run, written in when shown)."""
    name: str
    sql: str
    params: dict = field(default_factory=dict)

    def shown(self) -> str:
        text = re.sub(r"\$(\w+)", lambda m: sql_literal(self.params[m.group(1)]), self.sql)
        return "\n".join(line[8:] if line.startswith(" " * 8) else line
                         for line in text.strip("\n").splitlines()) + ";\n"

    def rows(self, con) -> list[dict]:
        used = {k: v for k, v in self.params.items() if f"${k}" in self.sql}
        return con.sql(self.sql, params=used).to_arrow_table().to_pylist()


def _queries(campaign: str, qrels: str, options: str, measures: list[str], first: str,
             baseline: str) -> dict[str, Query]:
    base = {"campaign": campaign, "qrels": qrels, "options": options}
    return {
        "run_means": Query("run_means", """
        SELECT run, team, measure, num_topics, mean, ci_low, ci_high
        FROM run_mean_ci
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND list_contains($measures, measure)
        ORDER BY run, measure""", {**base, "measures": measures}),
        "heatmap": Query("heatmap", """
        SELECT run, topic, value
        FROM topic_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure = $measure
        ORDER BY run, topic""", {**base, "measure": first}),
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
        ORDER BY run, delta DESC, topic""", {**base, "measure": first, "baseline": baseline}),
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
                  WHERE s.campaign = $campaign AND s.qrels = $qrels AND s.options = $options
                    AND b.run = $baseline AND s.run <> $baseline
                    AND list_contains($measures, s.measure))
            GROUP BY measure, run)
        ORDER BY measure, mean_delta DESC""", {**base, "baseline": baseline,
                                                  "measures": measures}),
        "hard_topics": Query("hard_topics", """
        SELECT topic, num_runs, mean, sd, min, median, max
        FROM topic_difficulty
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure = $measure AND difficulty_rank <= 10
        ORDER BY difficulty_rank""", {**base, "measure": first}),
    }


def scatter_query(campaign: str, qrels: str, options: str, x: str, y: str) -> Query:
    """Per-run values of two measures side by side (e.g. D-nDCG@10 against I-rec@10)."""
    return Query("scatter", """
        SELECT run, any_value(mean) FILTER (WHERE measure = $x) AS x,
               any_value(mean) FILTER (WHERE measure = $y) AS y
        FROM run_score
        WHERE campaign = $campaign AND qrels = $qrels AND options = $options
          AND measure IN ($x, $y)
        GROUP BY run
        ORDER BY run""", {"campaign": campaign, "qrels": qrels, "options": options,
                          "x": x, "y": y})


# -- scores ------------------------------------------------------------------------------------
def ensure_scores(wh, campaign: str, qrels: str | None, specs: list[str]) -> tuple[str, str]:
    """Evaluate and store every requested measure that the score table lacks for some run of
    the campaign (default options). Returns (qrels name, options text)."""
    from ..evaluate import EvalOptions
    from ..measures import parse_measures
    options = EvalOptions()
    qid = wh.qrels_id(campaign, qrels)
    qrels_name = wh.con.execute("SELECT name FROM qrels WHERE qrels_id = ?",
                                [qid]).fetchall()[0][0]
    num_runs = len(wh.run_ids(campaign))
    missing = []
    for spec in specs:
        for req in parse_measures([spec]):
            have = wh.con.execute("""
                SELECT count(DISTINCT s.run_id) FROM score s JOIN run r USING (run_id)
                JOIN campaign c ON c.campaign_id = r.campaign_id
                WHERE c.name = ? AND s.qrels_id = ? AND s.options = ? AND s.measure = ?""",
                                  [campaign, qid, options.describe(), req.name]).fetchall()[0][0]
            if have < num_runs:
                missing.append(spec)
                break
    if missing:
        wh.evaluate(missing, campaign=campaign, qrels=qrels_name, store=True, options=options)
    return qrels_name, options.describe()


def measure_names(specs: list[str]) -> list[str]:
    """Stored names of the requested measures, in the order given (the first drives plots)."""
    from ..measures import parse_measures
    names: list[str] = []
    for spec in specs:
        names += [req.name for req in parse_measures([spec]) if req.name not in names]
    return names


def pick_baseline(con, query: Query) -> str:
    """The median run by the first measure (lower median), as TREC plots compare runs with the
    middle of the field."""
    means = {}
    for row in query.rows(con):
        means.setdefault(row["run"], row["mean"])
    ranked = sorted(means, key=lambda r: (means[r] is None, means[r] or 0, r))
    return ranked[(len(ranked) - 1) // 2]


def tukey_text(rows: list[dict], measure: str, *, seed: int, B: int = 5000,
               tie_rule: str = "ge") -> str | None:
    """All pairs of runs under the randomised Tukey HSD test of irwarehouse.stats, on the
    topics every run has (the heat map query's values), as `irw compare` prints it. None when
    there are fewer than two runs or the stats package is not available."""
    try:
        import numpy as np

        from ..compare import table_text
        from ..matrix import ScoreMatrix
        from ..stats import compare_all
    except ImportError:
        return None
    cells = {(r["run"], r["topic"]): r["value"] for r in rows if r["value"] is not None}
    runs = sorted({run for run, _ in cells})
    topics = sorted({t for _, t in cells if all((run, t) in cells for run in runs)})
    if len(runs) < 2 or len(topics) < 2:
        return None
    values = np.array([[cells[(run, t)] for run in runs] for t in topics], dtype=float)
    comparison = compare_all(values, runs, test="tukey", B=B, rng=seed, tie_rule=tie_rule)
    return table_text(comparison, ScoreMatrix(values, topics, runs, measure))


# -- figures -------------------------------------------------------------------------------------
def _figure(width: float, height: float):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise IrwError("irw report needs matplotlib (pip install 'irwarehouse[plots]')") from None
    return Figure(figsize=(width, height), dpi=110, layout="constrained")


def _save(fig, folder: Path, name: str) -> str:
    """Write PNG and SVG; return the PNG as base64 for the HTML."""
    folder.mkdir(parents=True, exist_ok=True)
    fig.savefig(folder / f"{name}.svg")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    (folder / f"{name}.png").write_bytes(buf.getvalue())
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_means(rows: list[dict], measure: str, folder: Path) -> str:
    rows = sorted((r for r in rows if r["measure"] == measure), key=lambda r: r["mean"] or 0)
    fig = _figure(7, max(2.5, 0.28 * len(rows) + 1))
    ax = fig.subplots()
    y = range(len(rows))
    means = [r["mean"] or 0 for r in rows]
    low = [m - (r["ci_low"] if r["ci_low"] is not None else m) for m, r in zip(means, rows)]
    high = [(r["ci_high"] if r["ci_high"] is not None else m) - m for m, r in zip(means, rows)]
    ax.errorbar(means, list(y), xerr=[low, high], fmt="o", capsize=3, color="#1f5fa8")
    ax.set_yticks(list(y), [r["run"] for r in rows], fontsize=7)
    ax.set_xlabel(f"mean {measure} (95% t interval over topics)")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, folder, "means_ci")


def plot_heatmap(rows: list[dict], measure: str, folder: Path) -> str:
    import numpy as np
    runs = sorted({r["run"] for r in rows})
    topics = sorted({r["topic"] for r in rows})
    grid = np.full((len(runs), len(topics)), np.nan)
    ri = {r: i for i, r in enumerate(runs)}
    ti = {t: i for i, t in enumerate(topics)}
    for r in rows:
        if r["value"] is not None:
            grid[ri[r["run"]], ti[r["topic"]]] = r["value"]
    filled = np.where(np.isnan(grid), 0.0, grid)
    run_order = np.argsort(filled.mean(axis=1))[::-1]          # best run on top
    topic_order = np.argsort(filled.mean(axis=0))              # hardest topic first
    grid = grid[run_order][:, topic_order]
    fig = _figure(min(16, 3 + 0.12 * len(topics)), max(2.5, 0.3 * len(runs) + 1.2))
    ax = fig.subplots()
    image = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=0,
                      vmax=max(1.0, float(np.nanmax(grid)) if np.isfinite(grid).any() else 1.0),
                      interpolation="nearest")
    ax.set_yticks(range(len(runs)), [runs[i] for i in run_order], fontsize=7)
    ax.set_xticks(range(len(topics)), [topics[i] for i in topic_order], fontsize=5, rotation=90)
    ax.set_xlabel("topic (hardest first)")
    fig.colorbar(image, ax=ax, label=measure, shrink=0.8)
    return _save(fig, folder, "heatmap")


def plot_pr(rows: list[dict], folder: Path) -> str:
    fig = _figure(7, 5)
    ax = fig.subplots()
    runs = sorted({r["run"] for r in rows})
    from matplotlib import colormaps
    cmap = colormaps["tab20"]
    styles = ["-", "--", ":", "-."]
    for i, run in enumerate(runs):
        pts = sorted((r["recall"], r["precision"]) for r in rows if r["run"] == run)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=run,
                linestyle=styles[(i // 20) % 4], color=cmap(i % 20))
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncols=2 if len(runs) > 10 else 1, loc="upper right")
    return _save(fig, folder, "pr_curves")


def plot_by_rank(rows: list[dict], folder: Path) -> str:
    """Mean P@k and nDCG@k against the cutoff k (log scale), one line per run."""
    fig = _figure(12, 4.5)
    axes = fig.subplots(1, 2, sharey=True)
    runs = sorted({r["run"] for r in rows})
    from matplotlib import colormaps
    cmap = colormaps["tab20"]
    for ax, curve in zip(axes, ("P@k", "nDCG@k")):
        for i, run in enumerate(runs):
            pts = sorted((r["k"], r["mean"]) for r in rows
                         if r["run"] == run and r["curve"] == curve)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=run,
                    color=cmap(i % 20), linestyle=("-", "--", ":", "-.")[(i // 20) % 4])
        ax.set_xscale("log")
        ax.set_xlabel("rank cutoff k")
        ax.set_title(curve, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean over topics")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, loc="outside right upper")
    return _save(fig, folder, "by_rank")


def plot_cg_curves(rows: list[dict], folder: Path) -> str:
    """Seed 002/003 figures: mean DCG and normalised DCG (mean DCG / mean ideal DCG) by rank,
    one line per run."""
    fig = _figure(12, 4.5)
    axes = fig.subplots(1, 2)
    runs = sorted({r["run"] for r in rows})
    from matplotlib import colormaps
    cmap = colormaps["tab20"]
    for ax, column, title in zip(axes, ("dcg", "ndcg_of_means"),
                                 ("DCG (mean over topics)", "nDCG (mean DCG / mean ideal DCG)")):
        for i, run in enumerate(runs):
            pts = sorted((r["rank"], r[column]) for r in rows if r["run"] == run)
            ax.plot([p[0] for p in pts], [p[1] if p[1] is not None else float("nan")
                                          for p in pts], marker=".", label=run,
                    color=cmap(i % 20), linestyle=("-", "--", ":", "-.")[(i // 20) % 4])
        ax.set_xlabel("rank")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, loc="outside right upper")
    return _save(fig, folder, "cg_curves")


def plot_asl(measures_rows: dict[str, list[dict]], folder: Path, *, seed: int) -> str | None:
    """ASL curves (seed 000 Fig 16, seed 001 Figs 8-9) of the paired bootstrap, one curve per
    measure, from irwarehouse.meta.discpower; None with fewer than three runs."""
    import numpy as np
    from ..meta.discpower import discriminative_power
    rows = []
    for measure, cells in measures_rows.items():
        runs = sorted({c["run"] for c in cells})
        topics = sorted({c["topic"] for c in cells})
        if len(runs) < 3:
            return None
        value = {(c["run"], c["topic"]): c["value"] for c in cells}
        topics = [t for t in topics if all((r, t) in value for r in runs)]
        matrix = np.array([[value[(r, t)] for r in runs] for t in topics], dtype=float)
        rows.append(discriminative_power(matrix, measure=measure, test="bootstrap", B=1000,
                                         rng=seed))
    fig = _figure(7, 4.5)
    ax = fig.subplots()
    for row in rows:
        asl = np.sort(np.asarray(row.asl))
        ax.plot(np.arange(1, len(asl) + 1), asl, label=row.measure)
    ax.axhline(0.05, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("ASL (paired bootstrap, B = 1000)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, folder, "asl_curves")


def plot_scatter(rows: list[dict], x: str, y: str, folder: Path) -> str:
    fig = _figure(6, 5)
    ax = fig.subplots()
    pts = [r for r in rows if r["x"] is not None and r["y"] is not None]
    ax.scatter([r["x"] for r in pts], [r["y"] for r in pts], color="#1f5fa8")
    for r in pts:
        ax.annotate(r["run"], (r["x"], r["y"]), fontsize=6, xytext=(3, 3),
                    textcoords="offset points")
    ax.set_xlabel(f"mean {x}")
    ax.set_ylabel(f"mean {y}")
    ax.grid(alpha=0.3)
    return _save(fig, folder, "scatter")


def plot_deltas(rows: list[dict], measure: str, baseline: str, folder: Path) -> str:
    runs = sorted({r["run"] for r in rows})
    cols = 4 if len(runs) > 4 else max(1, len(runs))
    nrows = max(1, -(-len(runs) // cols))
    fig = _figure(3.2 * cols, 2.2 * nrows + 0.6)
    axes = fig.subplots(nrows, cols, squeeze=False, sharey=True)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax, run in zip(axes.flat, runs):
        deltas = sorted((r["delta"] for r in rows if r["run"] == run and r["delta"] is not None),
                        reverse=True)
        colors = ["#2a7f3f" if d > 0 else "#b03030" for d in deltas]
        ax.bar(range(len(deltas)), deltas, width=1.0, color=colors)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(run, fontsize=8)
        ax.set_xticks([])
        ax.tick_params(labelsize=6)
    fig.suptitle(f"per-topic {measure} difference against {baseline} (topics sorted)",
                 fontsize=9)
    return _save(fig, folder, "deltas")


# -- HTML ----------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
details{margin:.3em 0 1em}summary{cursor:pointer;color:#1f5fa8}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
img{max-width:100%;border:1px solid #eee}.sig{font-weight:bold;color:#2a7f3f}
.meta td{text-align:left}
"""


def _num(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return html.escape(str(value))


def _sql_block(query: Query, warehouse: str) -> str:
    return (f"<details><summary>SQL that reproduces these numbers (queries/{query.name}.sql; "
            f"<code>irw sql -w {html.escape(warehouse)} -f queries/{query.name}.sql</code>)"
            f"</summary><pre>{html.escape(query.shown())}</pre></details>")


def _table(rows: list[dict], columns: list[str], left: tuple[str, ...] = ("run", "team",
           "measure", "topic"), highlight: str | None = None) -> str:
    head = "".join(f"<th class={'l' if c in left else 'r'}>{html.escape(c)}</th>"
                   for c in columns)
    body = []
    for row in rows:
        cls = ' class="sig"' if highlight and row.get(highlight) else ""
        body.append(f"<tr{cls}>" + "".join(
            f"<td class={'l' if c in left else 'r'}>{_num(row.get(c))}</td>" for c in columns)
            + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _run_table(rows: list[dict], measures: list[str]) -> str:
    """Runs x measures: mean and [ci_low, ci_high]."""
    by_run: dict[str, dict] = {}
    for r in rows:
        entry = by_run.setdefault(r["run"], {"team": r["team"], "n": r["num_topics"]})
        entry[r["measure"]] = r
    first = measures[0]
    order = sorted(by_run, key=lambda run: -(by_run[run].get(first, {}).get("mean") or 0))
    head = "<th class=l>run</th><th class=l>team</th><th>topics</th>" + "".join(
        f"<th>{html.escape(m)} mean [95% CI]</th>" for m in measures)
    body = []
    for run in order:
        e = by_run[run]
        cells = []
        for m in measures:
            r = e.get(m)
            cells.append("<td>–</td>" if r is None else
                         f"<td>{_num(r['mean'])} [{_num(r['ci_low'])}, {_num(r['ci_high'])}]</td>")
        body.append(f"<tr><td class=l>{html.escape(run)}</td><td class=l>"
                    f"{html.escape(e['team'] or '')}</td><td>{e['n']}</td>{''.join(cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _python_block(text: str) -> str:
    return (f"<details><summary>How these numbers were computed</summary>"
            f"<pre>{html.escape(text)}</pre></details>")


def _section(title: str, intro: str, *blocks: str) -> str:
    return "\n".join([f"<h2>{title}</h2>", f"<p>{intro}</p>", *blocks])


def _img(b64: str, alt: str, name: str) -> str:
    return (f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'
            f"<p>Files: figures/{name}.png, figures/{name}.svg</p>")


# -- the report ----------------------------------------------------------------------------------
def build_report(wh, campaign: str, out_dir: str | Path, *, measures: list[str] | None = None,
                 baseline: str | None = None, qrels: str | None = None,
                 warehouse_label: str = "irw.duckdb", seed: int = 1,
                 scatter: tuple[str, str] | None = None, tie_rule: str = "ge") -> Path:
    """Write out_dir/report.html (self-contained), figures/*.png|svg and queries/*.sql.
    Evaluates (and stores) measures the warehouse lacks. `scatter` = two measures whose
    per-run means are plotted against each other (e.g. D-nDCG@10 and I-rec@10 for a diversity
    campaign). Returns the HTML path."""
    specs = list(measures or DEFAULT_MEASURES)
    names = measure_names(specs)
    scatter_names = None
    if scatter:
        scatter_names = [measure_names([spec]) for spec in scatter]
        if len(scatter) != 2 or any(len(n) != 1 for n in scatter_names):
            raise WarehouseError("--scatter takes two single measures, e.g. 'P.10,map'")
        specs += [spec for spec in scatter if spec not in specs]
    runs = wh.con.execute("""SELECT r.name FROM run r JOIN campaign c USING (campaign_id)
                             WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
    if not runs:
        raise WarehouseError(f"no runs in campaign {campaign!r}")
    qrels_name, options = ensure_scores(wh, campaign, qrels,
                                        specs + [PR_SPEC, *RANK_SPECS])
    first = names[0]
    probe = _queries(campaign, qrels_name, options, names, first, "")["run_means"]
    if baseline is None:
        baseline = pick_baseline(wh.con, Query(probe.name, probe.sql,
                                               {**probe.params, "measures": [first]}))
    elif baseline not in {r for (r,) in runs}:
        raise WarehouseError(f"no run {baseline!r} in campaign {campaign!r}")
    queries = _queries(campaign, qrels_name, options, names, first, baseline)
    if scatter_names:
        queries["scatter"] = scatter_query(campaign, qrels_name, options,
                                           scatter_names[0][0], scatter_names[1][0])
    out = Path(out_dir)
    (out / "queries").mkdir(parents=True, exist_ok=True)
    for q in queries.values():
        (out / "queries" / f"{q.name}.sql").write_text(q.shown(), encoding="utf-8")
    data = {name: q.rows(wh.con) for name, q in queries.items()}
    figures = out / "figures"
    images = {
        "means": plot_means(data["run_means"], first, figures),
        "heatmap": plot_heatmap(data["heatmap"], first, figures),
        "pr": plot_pr(data["pr_curves"], figures),
        "scatter": plot_scatter(data["scatter"], *(n[0] for n in scatter_names), figures)
        if scatter_names else None,
        "by_rank": plot_by_rank(data["by_rank"], figures),
        "deltas": plot_deltas(data["deltas"], first, baseline, figures) if data["deltas"]
        else None,
    }
    curves = wh.cg_curves(campaign, qrels=qrels_name, depth=20, average=True).to_pylist()
    images["cg"] = plot_cg_curves(curves, figures)
    per_measure = {m: wh.con.execute(
        "SELECT run, topic, value FROM topic_score WHERE campaign = ? AND qrels = ? "
        "AND options = ? AND measure = ?", [campaign, qrels_name, options, m]).fetchall()
        for m in names}
    images["asl"] = plot_asl({m: [{"run": r, "topic": t, "value": v} for r, t, v in rows]
                                  for m, rows in per_measure.items()}, figures, seed=seed)
    num_topics = len({r["topic"] for r in data["heatmap"]})
    tukey = tukey_text(data["heatmap"], first, seed=seed, tie_rule=tie_rule)
    rule_py, rule_cli = ((", tie_rule='gt'", " --tie-rule gt") if tie_rule == "gt" else ("", ""))
    esc = html.escape
    meta = {
        "qrels": esc(qrels_name), "evaluation options": f"<code>{esc(options)}</code>",
        "runs / topics": f"{len(runs)} / {num_topics}", "measures": esc(", ".join(names)),
        "baseline": esc(baseline), "warehouse": esc(warehouse_label),
        "generated": f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}",
    }

    def sql(name: str) -> str:
        return _sql_block(queries[name], warehouse_label)

    sig_columns = ["measure", "run", "num_topics", "mean_delta", "ci_low", "ci_high", "t",
                   "significant", "wins", "losses", "ties"]
    deltas_img = (_img(images["deltas"], "per-topic differences", "deltas")
                  if images["deltas"] else "<p>(no other run)</p>")
    sections = [
        _section("Runs: means with 95% confidence intervals",
                 "Mean over topics and the t-based 95% interval mean ± t(0.975, n−1)·sd/√n "
                 "(view <code>run_mean_ci</code>). Sorted by the first measure.",
                 _run_table(data["run_means"], names), sql("run_means"),
                 _img(images["means"], f"means of {first}", "means_ci")),
        _section(f"Per-topic heat map ({esc(first)})",
                 "Runs (best on top) by topics (hardest first).",
                 _img(images["heatmap"], "heat map", "heatmap"), sql("heatmap")),
        _section("Precision-recall curves (11-point interpolated)",
                 "Mean interpolated precision at recall 0.0, 0.1, …, 1.0 (trec_eval "
                 "<code>iprec_at_recall</code>).",
                 _img(images["pr"], "precision-recall curves", "pr_curves"),
                 _table(_pr_pivot(data["pr_curves"]),
                        ["run"] + [f"{x / 10:.1f}" for x in range(11)]),
                 sql("pr_curves")),
        _section("Precision and nDCG by rank cutoff",
                 "Mean P@k and nDCG@k at trec_eval's cutoffs 5 … 1000 (log scale).",
                 _img(images["by_rank"], "P@k and nDCG@k by cutoff", "by_rank"),
                 sql("by_rank")),
        _section("Cumulated gain curves by rank (seed 002, 003)",
                 "Mean DCG (Jarvelin-Kekalainen, log base 2, no discount before rank 2) and "
                 "nDCG as mean DCG over mean ideal DCG at ranks 1-20; gains are the levels.",
                 _img(images["cg"], "DCG and nDCG curves", "cg_curves"),
                 _python_block(f"Warehouse.cg_curves({campaign!r}, qrels={qrels_name!r}, "
                               "depth=20, average=True); in SQL after the evaluation context "
                               "is built: SELECT * FROM cg_curve_mean(MAP {}, 20, 2, 'jk')")),
        _section("ASL curves (discriminative power)",
                 "Achieved significance level of every run pair under the paired bootstrap "
                 "(B = 1000), pairs sorted by ASL, one curve per measure; curves lower down "
                 "mean a more discriminative measure (seed 000 Fig 16). Needs 3 runs or more.",
                 _img(images["asl"], "ASL curves", "asl_curves") if images["asl"]
                 else "<p>(fewer than three runs)</p>",
                 _python_block(f"irw meta discpower -C {campaign} "
                               + " ".join(f"-m {n}" for n in names)
                               + f" --test bootstrap -B 1000 --seed {seed}")),
        *([_section(f"{esc(scatter_names[0][0])} against {esc(scatter_names[1][0])}",
                    "Per-run means of two measures.",
                    _img(images["scatter"], "scatter of two measures", "scatter"),
                    _table(data["scatter"], ["run", "x", "y"]), sql("scatter"))]
          if scatter_names else []),
        _section(f"Per-topic differences against {esc(baseline)} ({esc(first)})",
                 "One bar per topic: run − baseline, topics sorted by the difference "
                 "(macro <code>run_delta</code>).", deltas_img, sql("deltas")),
        _section(f"Significance against {esc(baseline)}",
                 "Paired t test on the per-topic differences, two-sided, α = 0.05, no "
                 "correction for multiple comparisons: bold rows have a 95% interval of the "
                 "mean difference that excludes 0. wins/losses/ties count topics.",
                 _table(data["significance"], sig_columns, highlight="significant"),
                 sql("significance")),
        _section(f"All pairs of runs: randomised Tukey HSD ({esc(first)})",
                 "irwarehouse.stats (<code>irw compare --test tukey</code>) on the topics "
                 "every run has; the values are the heat map query's.",
                 f"<pre>{esc(tukey)}</pre>" if tukey else "<p>(not available)</p>",
                 _python_block(f"compare_all(values, runs, test='tukey', B=5000, rng={seed}"
                               f"{rule_py}) on the matrix of queries/heatmap.sql; the same as: "
                               f"irw compare -C {campaign} -m {first} --test tukey --seed {seed}"
                               f"{rule_cli}")),
        _section(f"Hardest topics ({esc(first)})",
                 "The ten topics with the lowest mean over runs (view "
                 "<code>topic_difficulty</code>).",
                 _table(data["hard_topics"], ["topic", "num_runs", "mean", "sd", "min",
                                              "median", "max"]),
                 sql("hard_topics")),
    ]
    from ..online.report import online_sections  # precision histogram, click logs
    sections += online_sections(wh, campaign, qrels_name, baseline, figures, warehouse_label)
    meta_rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in meta.items())
    parts = [
        (f"<!doctype html><html><head><meta charset='utf-8'><title>irw report: "
         f"{esc(campaign)}</title><style>{_CSS}</style></head><body>"),
        f"<h1>Campaign {esc(campaign)}</h1>",
        f"<table class=meta>{meta_rows}</table>",
        *sections,
        "</body></html>",
    ]
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _pr_pivot(rows: list[dict]) -> list[dict]:
    table: dict[str, dict] = {}
    for r in rows:
        table.setdefault(r["run"], {"run": r["run"]})[f"{r['recall']:.1f}"] = r["precision"]
    return [table[k] for k in sorted(table)]
