"""Cumulated gain curves by rank (sql/metrics/cg_curves.sql) for a campaign's runs, per topic
or averaged, and their plot (seed 002 and 003 figures)."""

from __future__ import annotations

import pyarrow as pa

from .evaluate import EvalOptions, _bind, build_context
from .sqlassets import relations_read
from .warehouse import install_macros

VARIANTS = ("jk", "one_plus_log")


def cg_curves(con, run_ids: list[int], qrels_id: int, *, depth: int = 20, log_base: float = 2.0,
              variant: str = "jk", gains: dict[int, float] | None = None, average: bool = False,
              options: EvalOptions | None = None) -> pa.Table:
    """CG, DCG, nCG and nDCG at ranks 1..depth: per (run, topic), or with `average` the two
    averaged forms per run (mean of normalised values; normalised mean vectors)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}")
    if depth < 1 or log_base <= 1:
        raise ValueError("depth must be >= 1 and the log base > 1")
    macro = "cg_curve_mean" if average else "cg_curve"
    install_macros(con, [macro])
    build_context(con, run_ids, qrels_id, options or EvalOptions(), relations_read([macro]))
    order = "run_id, rank" if average else "run_id, topic, rank"
    return con.sql(f"SELECT r.name AS run, c.* FROM {macro}($g, $depth, $base, $variant) c "
                   f"JOIN run r USING (run_id) ORDER BY {order}",
                   params={"g": _bind(gains or {}), "depth": depth, "base": float(log_base),
                           "variant": variant}).to_arrow_table()


def plot_curves(table: pa.Table, out, *, column: str = "ndcg_of_means", title: str = "") -> None:
    """One line per run of an averaged curve table (PNG or SVG by the file suffix)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = table.to_pylist()
    fig, ax = plt.subplots(figsize=(6, 4))
    for run in dict.fromkeys(r["run"] for r in rows):
        points = [(r["rank"], r[column]) for r in rows if r["run"] == run]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=".", label=run)
    ax.set_xlabel("rank")
    ax.set_ylabel(column)
    ax.set_title(title or column)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
