"""What the diversity measures need beyond their SQL (sql/metrics/diversity_*.sql): whether an
evaluation has any, NTCIREVAL's gcompute blocks behind the D/DIN/IA measures, and intent
probabilities by scheme. Their layouts are irwarehouse.writers.ndeval / .ntcireval."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa


def needed(requests) -> bool:
    """Whether an evaluation has a diversity measure (its intents, run topics, gcompute)."""
    return any(r.mdef.is_diversity for r in requests)


# The requested measures whose NTCIREVAL script prints a gcompute block: the list it evaluates
_BLOCK_KIND = {"D-Q": "D", "D-nDCG": "D", "D#-Q": "D", "D#-nDCG": "D",
               "DIN-Q": "DIN", "DIN-nDCG": "DIN", "DIN#-Q": "DIN", "DIN#-nDCG": "DIN",
               "IA-ERR": "I", "IA-nERR": "I", "IA-nDCG": "I", "IA-Q": "I", "IA-AP": "I"}


# gcompute's parameters in NTCIREVAL's diversity scripts (its defaults): NCU gamma, RBP p, logb
_GCOMPUTE_DEFAULTS = (0.95, 0.95, 2.0)


def gcompute_blocks(con: duckdb.DuckDBPyConnection, requests) -> pa.Table | None:
    """NTCIREVAL's gcompute block (SQL macro ev_ntd_gcompute, sql/metrics/diversity_gcompute.sql)
    of every list the requested D/DIN/IA measures evaluate, at their cutoffs: rows (cutoff,
    run_id, topic, key, ...); None when no such measure is requested."""
    wanted: dict[tuple[int, str], float] = {}
    for req in requests:
        kind = _BLOCK_KIND.get(req.mdef.name)
        if kind is None:
            continue
        params = dict(zip([p.name for p in req.mdef.params], req.args))
        if "beta" in params or (params["cutoff"], kind) not in wanted:
            wanted[(params["cutoff"], kind)] = float(params.get("beta", 1.0))
    if not wanted:
        return None
    parts, values = [], []
    for (cutoff, kind), beta in sorted(wanted.items()):
        where = "starts_with(key, 'I:')" if kind == "I" else "key = ?"
        parts.append(f"SELECT CAST(? AS BIGINT) AS cutoff, * "
                     f"FROM ev_ntd_gcompute(?, ?, ?, ?, ?) WHERE {where}")
        values += [cutoff, cutoff, beta, *_GCOMPUTE_DEFAULTS] + ([] if kind == "I" else [kind])
    return con.sql("\nUNION ALL\n".join(parts), params=values).to_arrow_table()
