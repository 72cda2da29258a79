"""The Python API; the CLI is a thin layer over it.

    from irwarehouse import Warehouse
    with Warehouse("irw.duckdb") as wh:
        wh.ingest_qrels("qrels.test", campaign="demo")
        wh.ingest_run("results.test", campaign="demo")
        result = wh.evaluate(["map", "P@10"], campaign="demo", store=True)
        result.per_topic          # pyarrow.Table: run, topic, measure, value
        wh.scores("demo").to_pandas()
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .argcheck import checked, checked_methods
from .engine.evaluate import EvalOptions, EvalResult, evaluate
from .errors import WarehouseError
from .measures import NtcirSettings, parse_measures, wants_runid
from .store import ingest as _ingest
from .store import lookup as _lookup
from .store.connection import close as close_connection
from .store.connection import connect
from .store.results import store_scores

if TYPE_CHECKING:
    import pyarrow as pa


@checked_methods
class Warehouse:
    """A warehouse file (or a private in-memory one when `path` is None)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 create: bool = True, macros: bool = True, wait: float | None = None,
                 lean: bool = False):
        """`macros=False`: create the metric macros only when an evaluation needs them;
        `wait`: seconds to wait for a file another process holds (default 30); `lean` (in
        memory): no analyst views, and only the macros an evaluation calls."""
        self.path = path
        self.con = connect(path, read_only=read_only, create=create, macros=macros, wait=wait,
                           lean=lean)

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self.close()
        else:               # the error under way is the one to report; DuckDB keeps its log
            close_connection(self.con, checkpoint=False)

    def close(self) -> None:
        """Close, checkpointing first: a checkpoint that fails is an error (StorageError)."""
        close_connection(self.con)

    # -- ingest -----------------------------------------------------------------------------
    def ingest_qrels(self, path: str | Path, campaign: str, *, name: str | None = None, fmt: str = "qrels",
                     replace: bool = False) -> int:
        return _ingest.ingest_qrels(self.con, path, campaign, name=name, fmt=fmt, replace=replace)

    def ingest_run(self, path: str | Path, campaign: str, *, name: str | None = None,
                   team: str | None = None, replace: bool = False,
                   keep_first: bool = False) -> int:
        return _ingest.ingest_run(self.con, path, campaign, name=name, team=team,
                                  replace=replace, keep_first=keep_first)

    def ingest_run_table(self, table, campaign: str, name: str | None = None,
                         team: str | None = None, *, replace: bool = False,
                         keep_first: bool = False) -> int:
        """Store a run given as a pyarrow Table, pandas DataFrame or Parquet file path, with
        columns topic, doc, score (rank and tag optional): validated like a run file, written
        in one transaction. Returns its run_id."""
        from .analyst.tables import ingest_run_table
        return ingest_run_table(self.con, table, campaign, name=name, team=team,
                                replace=replace, keep_first=keep_first)

    def export(self, kind: str, campaign: str, out: str | Path, *, fmt: str = "parquet",
               measure: str | None = None) -> int:
        """Write a campaign's per-topic scores (`kind="scores"`) or run rows (`"runs"`) as
        parquet, csv or arrow (IPC file); returns the number of rows written."""
        from .analyst.tables import export_reader, write_stream
        return write_stream(export_reader(self.con, kind, campaign, measure), fmt, out)

    def ingest_intents(self, path: str | Path, campaign: str, *, normalise: bool = False) -> int:
        """Intent probabilities/types (NTCIREVAL Iprob or DINprob) for diversity measures."""
        return _ingest.ingest_intents(self.con, path, campaign, normalise=normalise)

    def ingest_doclengths(self, path: str | Path, campaign: str, *, unit: str = "words") -> int:
        """Document lengths (`docno length` in `unit` words|chars, or `docno words chars`)
        for TBG and the U-measure."""
        return _ingest.ingest_doclengths(self.con, path, campaign, unit=unit)

    def assign_intent_probabilities(self, campaign: str, *, scheme: str = "sakai2013",
                                    qrels: str | None = None) -> int:
        """Probabilities by scheme (uniform / sakai2013) for every intent of the campaign."""
        return _ingest.assign_intent_probabilities(self.con, campaign, scheme=scheme,
                                                   qrels_name=qrels)

    # -- lookups ----------------------------------------------------------------------------
    def qrels_id(self, campaign: str, name: str | None = None) -> int:
        return _lookup.qrels_id(self.con, campaign, name)

    def run_ids(self, campaign: str, names: list[str] | None = None) -> list[int]:
        rows = self.con.execute("""
            SELECT r.run_id, r.name FROM run r JOIN campaign c USING (campaign_id)
            WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
        if names:
            by_name = {n: i for i, n in rows}
            missing = [n for n in names if n not in by_name]
            if missing:
                raise WarehouseError(f"no run {missing[0]!r} in campaign {campaign!r}")
            return [by_name[n] for n in names]
        if not rows:
            raise WarehouseError(f"no runs in campaign {campaign!r}")
        return [i for i, _ in rows]

    # -- evaluation -------------------------------------------------------------------------
    def evaluate(self, measures: list[str], *, campaign: str, runs: list[str] | None = None,
                 qrels: str | None = None, store: bool = False,
                 options: EvalOptions | None = None,
                 ntcir: NtcirSettings | None = None, progress: Callable | None = None,
                 gcompute: bool = False, arrow: bool = True) -> EvalResult:
        """Evaluate stored runs of a campaign; with `store`, materialise the per-topic values
        into the `score` table (replacing earlier values of the same measure and options).
        `ntcir`: gains and cutoffs of NTCIREVAL's measures (measures.NtcirSettings);
        `gcompute`: also NTCIREVAL's gcompute blocks of the D/DIN/IA measures (EvalResult);
        `arrow=False` leaves per_topic and summary as evaluate.Rows (the CLI prints them without
        importing pyarrow)."""
        options = options or EvalOptions()
        qid = self.qrels_id(campaign, qrels)
        run_ids = self.run_ids(campaign, runs)
        requests = parse_measures(measures, version=options.version, ntcir=ntcir)
        result = evaluate(self.con, run_ids, qid, requests, options, progress=progress,
                          gcompute=gcompute)
        result.runid = wants_runid(measures)
        if store:
            store_scores(self.con, result, qid)
        return result.with_arrow() if arrow else result

    def cg_curves(self, campaign: str, *, runs: list[str] | None = None,
                  qrels: str | None = None, depth: int = 20, log_base: float = 2.0,
                  variant: str = "jk", gains: dict[int, float] | None = None,
                  average: bool = False, options: EvalOptions | None = None) -> pa.Table:
        """CG/DCG/nCG/nDCG curves by rank (irwarehouse.engine.curves.cg_curves) as Arrow."""
        from .engine.curves import cg_curves
        return cg_curves(self.con, self.run_ids(campaign, runs), self.qrels_id(campaign, qrels),
                         depth=depth, log_base=log_base, variant=variant, gains=gains,
                         average=average, options=options)

    def scores(self, campaign: str | None = None, measure: str | None = None) -> pa.Table:
        """Stored per-topic scores (the `topic_score` view) as Arrow."""
        return self.con.sql("""
            SELECT * FROM topic_score
            WHERE ($campaign IS NULL OR campaign = $campaign)
              AND ($measure IS NULL OR measure = $measure)
            ORDER BY campaign, run, measure, topic""",
                            params={"campaign": campaign, "measure": measure}).to_arrow_table()


@checked
def evaluate_files(qrels: str | Path, runs: list[str | Path], measures: list[str], *,
                   options: EvalOptions | None = None, qrels_format: str = "qrels",
                   keep_first: bool = False, intents: str | Path | None = None,
                   ntcir: NtcirSettings | None = None, progress: Callable | None = None,
                   gcompute: bool = False, doclengths: str | Path | None = None,
                   doclengths_chars: str | Path | None = None, arrow: bool = True
                   ) -> EvalResult:
    """trec_eval on files: a private in-memory warehouse, nothing written to disk. `intents`:
    an intent probability/type file for the diversity measures; `ntcir`: NTCIREVAL's gains and
    cutoffs; `gcompute`: also NTCIREVAL's gcompute blocks of the D/DIN/IA measures;
    `doclengths` / `doclengths_chars`: document length files for TBG and U whose 2-field lines
    give words / characters (a 3-field line gives both); `arrow=False`: see
    Warehouse.evaluate."""
    options = options or EvalOptions()
    requests = parse_measures(measures, version=options.version, ntcir=ntcir)
    with Warehouse(None, macros=False, lean=True) as wh:
        qid = wh.ingest_qrels(qrels, "files", fmt=qrels_format)
        if intents is not None:
            wh.ingest_intents(intents, "files")
        for path, unit in ((doclengths, "words"), (doclengths_chars, "chars")):
            if path is not None:
                wh.ingest_doclengths(path, "files", unit=unit)
        # One campaign per file, so that runs sharing a tag keep their trec_eval runid.
        run_ids = _ingest.ingest_run_files(wh.con, runs, keep_first=keep_first, private=True)
        result = evaluate(wh.con, run_ids, qid, requests, options, progress=progress,
                          gcompute=gcompute)
        result.runid = wants_runid(measures)
        return result.with_arrow() if arrow else result


@checked
def evaluate_rel_res(rel: str | Path, res: str | Path, *, gains: dict | None = None,
                     cutoffs: tuple = (1000,), topic: str = "", judged_only: bool = False,
                     measures: list[str] | None = None) -> str:
    """`ntcir_eval label [-j] -r REL < RES | ntcir_eval compute -r REL -g ... -cutoffs ...
    -out TOPIC` on NTCIREVAL's per-topic files: the .nev block of one topic (nothing when the
    topic has no relevant document). `measures` defaults to ntcir_eval's full set
    (`ntcireval-j` adds the `compute -j` lines). A document listed twice in the .res file is
    kept once (ntcir_eval would count it twice)."""
    import pyarrow as pa

    from .formats.ntcir import read_rel, read_res
    from .writers.ntcireval import nev_text
    judged = read_rel(rel)
    docs = list(dict.fromkeys(read_res(res)))
    settings = NtcirSettings(gains=dict(gains or {}), cutoffs=tuple(cutoffs), prefer=True)
    requests = parse_measures(measures or [], ntcir=settings)
    con = connect(None)
    try:
        cid = con.execute("INSERT INTO campaign (name) VALUES ('rel-res') "
                          "RETURNING campaign_id").fetchone()[0]
        qid = con.execute("INSERT INTO qrels (campaign_id, name, format) VALUES (?, ?, 'rel') "
                          "RETURNING qrels_id", [cid, str(rel)]).fetchone()[0]
        rid = con.execute("INSERT INTO run (campaign_id, name) VALUES (?, ?) "
                          "RETURNING run_id", [cid, Path(res).name]).fetchone()[0]
        rel_rows = pa.table({"doc": list(judged), "rel": pa.array(list(judged.values()),
                                                                  pa.int32())})
        con.register("rel_rows", rel_rows)
        con.execute("INSERT INTO judgment (qrels_id, topic, intent, doc, rel) "
                    "SELECT ?, ?, '', doc, rel FROM rel_rows", [qid, topic])
        res_rows = pa.table({"doc": docs, "pos": pa.array(range(1, len(docs) + 1), pa.int64())})
        con.register("res_rows", res_rows)
        con.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order) "
                    "SELECT ?, ?, doc, -pos, pos, pos FROM res_rows",
                    [rid, topic])
        result = evaluate(con, [rid], qid, requests,
                          EvalOptions(order="file", judged_only=judged_only, complete=True))
        return nev_text(result)
    finally:
        con.close()
