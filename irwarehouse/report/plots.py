"""The figures of `irw report` (report/campaign.py, report/online.py), each drawn from the rows
of one report query and written as PNG and SVG (irwarehouse.writers.figures)."""

from __future__ import annotations

from pathlib import Path

from ..writers.figures import new_figure, save_pair

# Run styles: ten colours (tab10), seven markers and four line styles. 7 and 10 share no factor,
# so the first 70 runs each get their own colour and marker pair, and runs ten apart (same
# colour) differ in marker and line style too: 17 runs in tab20's paired shades were hard to
# tell apart, in print or for readers with a colour vision deficiency.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINESTYLES = ("-", "--", "-.", ":")


def run_styles(runs: list[str]) -> dict[str, dict]:
    """run -> matplotlib keyword arguments (color, marker, linestyle) for its line."""
    from matplotlib import colormaps
    cmap = colormaps["tab10"]
    return {run: {"color": cmap(i % 10), "marker": MARKERS[i % len(MARKERS)],
                  "linestyle": LINESTYLES[(i // 10) % len(LINESTYLES)]}
            for i, run in enumerate(runs)}


def _plot_run(ax, run: str, xs, ys, style: dict) -> None:
    """One run's line, markers thinned to about ten so that dense curves stay readable."""
    ax.plot(xs, ys, label=run, markevery=max(1, len(xs) // 10), markersize=4, linewidth=1.2,
            **style)


def complete_matrix(rows: list[dict], measure: str):
    """The topics x runs matrix of (run, topic, value) rows on the topics every run has."""
    from ..engine.matrix import matrix_from_rows
    return matrix_from_rows([(r["run"], r["topic"], r["value"]) for r in rows
                             if r["value"] is not None], measure, missing="drop")



def plot_means(rows: list[dict], measure: str, folder: Path) -> str:
    rows = sorted((r for r in rows if r["measure"] == measure), key=lambda r: r["mean"] or 0)
    fig = new_figure(7, max(2.5, 0.28 * len(rows) + 1))
    ax = fig.subplots()
    y = range(len(rows))
    means = [r["mean"] or 0 for r in rows]
    low = [m - (r["ci_low"] if r["ci_low"] is not None else m) for m, r in zip(means, rows)]
    high = [(r["ci_high"] if r["ci_high"] is not None else m) - m for m, r in zip(means, rows)]
    ax.errorbar(means, list(y), xerr=[low, high], fmt="o", capsize=3, color="#1f5fa8")
    ax.set_yticks(list(y), [r["run"] for r in rows], fontsize=7)
    ax.set_xlabel(f"mean {measure} (95% t interval over topics)")
    ax.grid(axis="x", alpha=0.3)
    return save_pair(fig, folder, "means_ci")


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
    fig = new_figure(min(16, 3 + 0.12 * len(topics)), max(2.5, 0.3 * len(runs) + 1.2))
    ax = fig.subplots()
    image = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=0,
                      vmax=max(1.0, float(np.nanmax(grid)) if np.isfinite(grid).any() else 1.0),
                      interpolation="nearest")
    ax.set_yticks(range(len(runs)), [runs[i] for i in run_order], fontsize=7)
    ax.set_xticks(range(len(topics)), [topics[i] for i in topic_order], fontsize=5, rotation=90)
    ax.set_xlabel("topic (hardest first)")
    fig.colorbar(image, ax=ax, label=measure, shrink=0.8)
    return save_pair(fig, folder, "heatmap")


def plot_pr(rows: list[dict], folder: Path) -> str:
    fig = new_figure(7, 5)
    ax = fig.subplots()
    runs = sorted({r["run"] for r in rows})
    styles = run_styles(runs)
    for run in runs:
        pts = sorted((r["recall"], r["precision"]) for r in rows if r["run"] == run)
        _plot_run(ax, run, [p[0] for p in pts], [p[1] for p in pts], styles[run])
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncols=2 if len(runs) > 10 else 1, loc="upper right")
    return save_pair(fig, folder, "pr_curves")


def plot_by_rank(rows: list[dict], folder: Path) -> str:
    """Mean P@k and nDCG@k against the cutoff k (log scale), one line per run."""
    fig = new_figure(12, 4.5)
    axes = fig.subplots(1, 2, sharey=True)
    runs = sorted({r["run"] for r in rows})
    styles = run_styles(runs)
    for ax, curve in zip(axes, ("P@k", "nDCG@k")):
        for run in runs:
            pts = sorted((r["k"], r["mean"]) for r in rows
                         if r["run"] == run and r["curve"] == curve)
            _plot_run(ax, run, [p[0] for p in pts], [p[1] for p in pts], styles[run])
        ax.set_xscale("log")
        ax.set_xlabel("rank cutoff k")
        ax.set_title(curve, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("mean over topics")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, loc="outside right upper")
    return save_pair(fig, folder, "by_rank")


def plot_cg_curves(rows: list[dict], folder: Path) -> str:
    """Mean DCG and normalised DCG (mean DCG / mean ideal DCG) by rank, one line per run, as
    drawn by Järvelin & Kekäläinen (ACM TOIS 2002) and Baeza-Yates & Ribeiro-Neto (Modern
    Information Retrieval, 2011, ch. 4)."""
    fig = new_figure(12, 4.5)
    axes = fig.subplots(1, 2)
    runs = sorted({r["run"] for r in rows})
    styles = run_styles(runs)
    for ax, column, title in zip(axes, ("dcg", "ndcg_of_means"),
                                 ("DCG (mean over topics)", "nDCG (mean DCG / mean ideal DCG)")):
        for run in runs:
            pts = sorted((r["rank"], r[column]) for r in rows if r["run"] == run)
            _plot_run(ax, run, [p[0] for p in pts],
                      [p[1] if p[1] is not None else float("nan") for p in pts], styles[run])
        ax.set_xlabel("rank")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, loc="outside right upper")
    return save_pair(fig, folder, "cg_curves")


def plot_asl(measures_rows: dict[str, list[dict]], folder: Path, *, seed: int) -> str | None:
    """ASL curves (Sakai, PROMISE 2014, Fig 16; Sakai, IPSJ JIP 2013, Figs 8-9) of the paired
    bootstrap, one curve per measure, from irwarehouse.meta.discpower; None with fewer than
    three runs."""
    import numpy as np

    from ..meta.discpower import discriminative_power
    rows = []
    for measure, cells in measures_rows.items():
        matrix = complete_matrix(cells, measure)
        if len(matrix.runs) < 3:
            return None
        rows.append(discriminative_power(matrix.values, measure=measure, test="bootstrap",
                                         B=1000, rng=seed))
    fig = new_figure(7, 4.5)
    ax = fig.subplots()
    for row in rows:
        asl = np.sort(np.asarray(row.asl))
        ax.plot(np.arange(1, len(asl) + 1), asl, label=row.measure)
    ax.axhline(0.05, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("ASL (paired bootstrap, B = 1000)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return save_pair(fig, folder, "asl_curves")


def plot_scatter(rows: list[dict], x: str, y: str, folder: Path) -> str:
    fig = new_figure(6, 5)
    ax = fig.subplots()
    pts = [r for r in rows if r["x"] is not None and r["y"] is not None]
    ax.scatter([r["x"] for r in pts], [r["y"] for r in pts], color="#1f5fa8")
    for r in pts:
        ax.annotate(r["run"], (r["x"], r["y"]), fontsize=6, xytext=(3, 3),
                    textcoords="offset points")
    ax.set_xlabel(f"mean {x}")
    ax.set_ylabel(f"mean {y}")
    ax.grid(alpha=0.3)
    return save_pair(fig, folder, "scatter")


def delta_bars(rows: list[dict], title: str, *, sort: bool):
    """One small bar chart per run (four to a row, one y scale) of its per-topic differences
    against the baseline (`delta`), green above 0 and red below: in topic order, or sorted
    when `sort`. Returns (figure, {run: axes})."""
    runs = sorted({r["run"] for r in rows})
    cols = min(4, max(1, len(runs)))
    nrows = max(1, -(-len(runs) // cols))
    fig = new_figure(3.2 * cols, 2.2 * nrows + 0.6)
    axes = fig.subplots(nrows, cols, squeeze=False, sharey=True)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax, run in zip(axes.flat, runs):
        deltas = [r["delta"] for r in rows if r["run"] == run and r["delta"] is not None]
        if sort:
            deltas.sort(reverse=True)
        ax.bar(range(len(deltas)), deltas, width=1.0 if sort else 0.8,
               color=["#2a7f3f" if d > 0 else "#b03030" for d in deltas])
        ax.axhline(0, color="black", linewidth=0.6)
        ax.tick_params(labelsize=6)
    fig.suptitle(title, fontsize=9 if sort else 8)
    return fig, dict(zip(runs, axes.flat))


def plot_deltas(rows: list[dict], measure: str, baseline: str, folder: Path) -> str:
    fig, axes = delta_bars(rows, f"per-topic {measure} difference against {baseline} (topics "
                           "sorted)", sort=True)
    for run, ax in axes.items():
        ax.set_title(run, fontsize=8)
        ax.set_xticks([])
    return save_pair(fig, folder, "deltas")
