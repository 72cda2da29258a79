"""The same qrels and run in every shape irwarehouse.evaluate takes, each built from the TREC
files by this module's own Python parsing (str.split, float()), independent of irw's readers:
pandas and polars DataFrames under trec_eval's, ir_measures', ranx's and PyTerrier's column
names, pyarrow Tables, pytrec_eval's dicts, ir_measures' namedtuple iterators and ranx objects."""

from __future__ import annotations

import gzip
from pathlib import Path


def _lines(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        for line in f:
            fields = line.split()
            if fields:
                yield fields


def qrels_rows(path: Path) -> list[tuple[str, str, str, int]]:
    """(topic, iteration, doc, rel) of a trec_eval qrels file."""
    return [(t, it, d, int(r)) for t, it, d, r in _lines(path)]


def run_rows(path: Path) -> list[tuple[str, str, int, float, str]]:
    """(topic, doc, rank, score, tag) of a TREC run file (score by Python's float(), which
    rounds correctly, as DuckDB's reader does)."""
    return [(f[0], f[2], int(f[3]), float(f[4]), f[5]) for f in _lines(path)]


def shapes(qrels_path: Path, run_path: Path, *, ranx: bool = False) -> dict[str, tuple]:
    """name -> (qrels, run) in that shape."""
    import ir_measures
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    q = qrels_rows(qrels_path)
    r = run_rows(run_path)
    qt, qi, qd, qr = (list(c) for c in zip(*q))
    rt, rd, rk, rs, rg = (list(c) for c in zip(*r))
    qrels_dict: dict = {}
    for t, _, d, rel in q:
        qrels_dict.setdefault(t, {})[d] = rel
    run_dict: dict = {}
    for t, d, _, s, _ in r:
        run_dict.setdefault(t, {})[d] = s
    out = {
        "pandas, trec_eval's names": (
            pd.DataFrame({"topic": qt, "iteration": qi, "doc": qd, "rel": qr}),
            pd.DataFrame({"topic": rt, "q0": "Q0", "doc": rd, "rank": rk, "score": rs,
                          "tag": rg})),
        "pandas, ir_measures' names": (
            pd.DataFrame({"query_id": qt, "doc_id": qd, "relevance": qr, "iteration": qi}),
            pd.DataFrame({"query_id": rt, "doc_id": rd, "score": rs})),
        "pandas, PyTerrier's names": (
            pd.DataFrame({"qid": qt, "docno": qd, "label": qr}),
            pd.DataFrame({"qid": rt, "query": "the query's text", "docid": range(len(rd)),
                          "docno": rd, "score": rs, "rank": [k - 1 for k in rk]})),
        "polars, ranx's names": (
            pl.DataFrame({"q_id": qt, "doc_id": qd, "score": qr}),
            pl.DataFrame({"q_id": rt, "doc_id": rd, "score": rs})),
        "pyarrow": (
            pa.table({"topic": qt, "doc": qd, "rel": pa.array(qr, pa.int8())}),
            pa.table({"topic": rt, "doc": rd, "score": rs, "rank": rk})),
        "dicts (pytrec_eval)": (qrels_dict, run_dict),
        "iterators (ir_measures)": (
            (ir_measures.Qrel(t, d, rel, it) for t, it, d, rel in q),
            (ir_measures.ScoredDoc(t, d, s) for t, d, _, s, _ in r)),
    }
    if ranx:
        from ranx import Qrels, Run
        out["ranx"] = (Qrels(qrels_dict), Run(run_dict, name="ranx-run"))
    return out
