"""Cumulated gain curves by rank (sql/metrics/cg_curves.sql) for a campaign's runs, per topic
or averaged, and their plot (the figures of Järvelin & Kekäläinen, ACM TOIS 2002, and Baeza-Yates &
Ribeiro-Neto, Modern Information Retrieval 2011)."""

from __future__ import annotations

import pyarrow as pa

from ..sqlfiles import relations_read
from ..store.connection import install_macros
from .evaluate import EvalOptions, build_context, placeholder

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
    g, g_values = placeholder(gains or {}, "g")
    return con.sql(f"SELECT r.name AS run, c.* FROM {macro}({g}, $depth, $base, $variant) c "
                   f"JOIN run r USING (run_id) ORDER BY {order}",
                   params={**g_values, "depth": depth, "base": float(log_base),
                           "variant": variant}).to_arrow_table()
