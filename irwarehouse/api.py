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
from typing import TYPE_CHECKING, Any

from .argcheck import checked, checked_methods
from .engine.evaluate import EvalOptions, EvalResult, evaluate
from .measures import NtcirSettings, parse_measures, wants_runid
from .store import ingest as _ingest
from .store import lookup as _lookup
from .store.connection import close as close_connection
from .store.connection import connect, fit_threads, leave_to_exit

if TYPE_CHECKING:
    import pyarrow as pa


def _settled(cls):
    """Every public method of `cls` leaves the shared connection with no unfinished result
    (a query read with fetchone() keeps one open, and DuckDB then refuses the next `con.sql`
    with ResourceInUseException): the API can be called in any order, and `wh.con` used
    between the calls."""
    import functools

    def settle(method):
        @functools.wraps(method)
        def settled(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            finally:
                con = getattr(self, "con", None)
                if con is not None:
                    try:
                        con.abort()
                    except Exception:  # noqa: BLE001 - a closed connection has none left
                        pass
        return settled
    for name, member in list(vars(cls).items()):
        if callable(member) and not name.startswith("_") and name != "close":
            setattr(cls, name, settle(member))
    return cls


@_settled
@checked_methods
class Warehouse:
    """A warehouse file (or a private in-memory one when `path` is None)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 create: bool = True, macros: bool = True, wait: float | None = None,
                 lean: bool = False):
        """`macros=False`: create the metric macros only when an evaluation needs them;
        `wait`: seconds to wait for a file another process holds (default 30); `lean` (in
        memory): no analyst views, only the macros an evaluation calls, and no sha256 of the
        qrels files it stores (a private warehouse of files evaluated, thrown away after)."""
        self.path = path
        self._digests = not (lean and path is None)
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
    def ingest_qrels(self, path: Any, campaign: str, *, name: str | None = None,
                     fmt: str | None = None, replace: bool = False) -> int:
        """Store qrels: a file (`fmt`: its format, default trec_eval's qrels; `name` defaults
        to the file's name), `irds:DATASET_ID` (an ir_datasets dataset's qrels: their type, ad
        hoc or diversity, decides the format; `fmt` is not read) or judgments in memory (a
        pandas or polars DataFrame, a pyarrow Table, a dict {query_id: {doc_id: relevance}},
        ir_measures' Qrel tuples, a ranx Qrels; formats.inmemory), checked as a file is;
        `name` defaults to 'qrels'."""
        from .formats import is_path
        if is_path(path):
            from .formats.irds import dataset_id
            did = dataset_id(path)
            if did is not None:
                from .store.irds import ingest_irds_qrels
                return ingest_irds_qrels(self.con, did, campaign, name=name, replace=replace)
            return _ingest.ingest_qrels(self.con, path, campaign, name=name,
                                        fmt=fmt or "qrels", replace=replace,
                                        digest=self._digests)
        from .analyst.tables import ingest_qrels_table
        return ingest_qrels_table(self.con, path, campaign, name=name, fmt=fmt,
                                  replace=replace)

    def ingest_ir_datasets(self, dataset_id: str, campaign: str, *, name: str | None = None,
                           replace: bool = False) -> dict:
        """An ir_datasets dataset by its ID (`"clueweb09/en/trec-web-2012/diversity"`, or with
        the `irds:` prefix): its qrels (ad hoc, or diversity with subtopics) as qrels `name`
        (default: the ID) and its queries as topics, in one transaction, the ID and the
        ir_datasets version recorded as their provenance. Needs `pip install
        'irwarehouse[irds]'`. Returns {qrels_id, judgments, format, topics, judged_topics,
        source, version}."""
        from .formats.irds import PREFIX
        from .store.irds import ingest_ir_datasets
        did = dataset_id[len(PREFIX):] if dataset_id.startswith(PREFIX) else dataset_id
        return ingest_ir_datasets(self.con, did, campaign, name=name, replace=replace)

    def ingest_run(self, path: Any, campaign: str, *, name: str | None = None,
                   team: str | None = None, replace: bool = False,
                   keep_first: bool = False, metadata: str | Path | None = None) -> int:
        """Store a run: a TREC run file (named by its tag unless `name`) or a run in memory
        (a pandas or polars DataFrame, a pyarrow Table, a dict {query_id: {doc_id: score}},
        ir_measures' ScoredDoc tuples, a ranx Run; formats.inmemory), checked as a file is:
        named `name`, else by its tag column, else by the ranx Run's name. A file's
        ir_metadata (ir-metadata.org) comes from the YAML file `metadata`, else from the
        `# ir_metadata.start` block at the head of the run file, if any."""
        from .formats import is_path
        if is_path(path):
            return _ingest.ingest_run(self.con, path, campaign, name=name, team=team,
                                      replace=replace, keep_first=keep_first,
                                      metadata=metadata)
        if metadata is not None:
            from .errors import WarehouseError
            raise WarehouseError("metadata= goes with a run file (ir_metadata beside it or in "
                                 "its header); a run in memory has none")
        from .analyst.tables import ingest_run_table
        return ingest_run_table(self.con, path, campaign, name=name, team=team,
                                replace=replace, keep_first=keep_first)

    def run_metadata(self, campaign: str, run: str) -> str | None:
        """The ir_metadata YAML stored with a run (None when it has none)."""
        from .store.run_metadata import stored_metadata
        return stored_metadata(self.con, campaign, run)

    def ingest_run_table(self, table, campaign: str, name: str | None = None,
                         team: str | None = None, *, replace: bool = False,
                         keep_first: bool = False) -> int:
        """Store a run given as a Parquet file path or in memory (as ingest_run takes it), with
        columns topic, doc, score (rank and tag optional; ir_measures', ranx's and PyTerrier's
        names too: formats.inmemory): validated like a run file, written in one transaction.
        Returns its run_id."""
        from .analyst.tables import ingest_run_table
        return ingest_run_table(self.con, table, campaign, name=name, team=team,
                                replace=replace, keep_first=keep_first)

    def export(self, kind: str, campaign: str, out: str | Path, *, fmt: str = "parquet",
               measure: str | None = None) -> int:
        """Write a campaign's per-topic scores (`kind="scores"`) or run rows (`"runs"`) as
        parquet, csv or arrow (IPC file); returns the number of rows written."""
        from .analyst.tables import export_reader, write_stream
        return write_stream(export_reader(self.con, kind, campaign, measure), fmt, out)

    def export_warehouse(self, out: str | Path, duckdb_version: str = "1.x", *,
                         replace: bool = False) -> str:
        """Copy the whole warehouse into a new file `out` that DuckDB `duckdb_version` opens
        ("1.x", "1.4", "2.x"; irwarehouse.store.storage); returns the storage format written."""
        from .errors import WarehouseError
        from .sqlfiles import sql_digest
        from .store.connection import recorded_digest
        from .store.storage import export_warehouse
        if recorded_digest(self.con) != sql_digest():    # the copy would keep older macros
            raise WarehouseError("the warehouse was made by another version of irw: open it "
                                 "once read-write (`irw init`) to update its macros, then "
                                 "export it")
        return export_warehouse(self.con, Path(out), duckdb_version, replace=replace)

    def ingest_intents(self, path: str | Path, campaign: str, *, normalise: bool = False) -> int:
        """Intent probabilities/types (NTCIREVAL Iprob or DINprob) for diversity measures."""
        return _ingest.ingest_intents(self.con, path, campaign, normalise=normalise)

    def ingest_topic_alphas(self, path, campaign: str) -> int:
        """Per-topic alphas (`topic alpha`) for alpha-nDCG-Pr."""
        return _ingest.ingest_topic_alphas(self.con, path, campaign)

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
        from .request.evaluation import run_ids
        return run_ids(self.con, campaign, names)

    # -- the evaluation request ---------------------------------------------------------------
    # Every method below takes the same request as `irw eval -C`: measures (any spelling), the
    # options (an EvalOptions, an EvalSettings, or keyword options such as threshold=2,
    # order="file"), the qrels; what is not given comes from the campaign's profile, then the
    # defaults. `frame="pandas"` returns a pandas DataFrame instead of an Arrow table.
    def scope(self, campaign: str, *, qrels: str | None = None, options=None,
              **option_values):
        """The qrels and options a request on `campaign` is answered with
        (request.evaluation.Scope; `.describe()` says which and where they came from)."""
        from .request.evaluation import scope
        return scope(self.con, campaign, _settings(options, qrels, option_values))

    def evaluate(self, measures: list[str], *, campaign: str, runs: list[str] | None = None,
                 qrels: str | None = None, store: bool = False, options=None,
                 ntcir: NtcirSettings | None = None, progress=None,
                 gcompute: bool = False, arrow: bool = True, **option_values) -> EvalResult:
        """Evaluate stored runs of a campaign, as `irw eval -C`; with `store`, materialise the
        per-topic values into `score` (replacing the values stored under the same measure and
        options, whatever spelling stored them). `result.scope` says which qrels and options
        were used. `ntcir`: NTCIREVAL's gains and cutoffs (default: the request's -g and
        --cutoffs); `gcompute`: also NTCIREVAL's gcompute blocks of the D/DIN/IA measures;
        `arrow=False` leaves per_topic and summary as evaluate.Rows."""
        from .request.evaluation import evaluate
        where = self.scope(campaign, qrels=qrels, options=options, **option_values)
        result = evaluate(self.con, where, measures, runs=runs, store=store,
                          progress=progress, gcompute=gcompute, ntcir=ntcir)
        return result.with_arrow() if arrow else result

    def scores(self, campaign: str | None = None, measure: str | None = None, *,
               frame: str = "arrow"):
        """Stored per-topic scores (the `topic_score` view), every spelling of `measure` (its
        canonical name: AP finds map)."""
        name = None
        if measure is not None:
            from .request.evaluation import score_name
            name = score_name(self.con, campaign or "", measure)[0]
        table = self.con.sql("""
            SELECT * FROM topic_score
            WHERE ($campaign IS NULL OR campaign = $campaign)
              AND ($measure IS NULL OR measure = $measure)
            ORDER BY campaign, run, measure, topic""",
                             params={"campaign": campaign, "measure": name}).to_arrow_table()
        return _frame(table, frame)

    def score_matrix(self, campaign: str | list[str], measure: str, *,
                     runs: list[str] | None = None, qrels: str | None = None, options=None,
                     missing: str = "error", store: bool = False, **option_values):
        """The topics x runs matrix of one measure (engine.matrix.ScoreMatrix), the input of
        irwarehouse.stats: stored scores, or evaluated (and stored with `store`) for the runs
        that have none. Several campaigns: runs named "campaign/run", on shared topics."""
        from .request.comparison import matrix_for
        campaigns = [campaign] if isinstance(campaign, str) else list(campaign)
        return matrix_for(self, campaigns, measure, runs, missing,
                          _settings(options, qrels, option_values), store=store)

    def compare(self, campaign: str | list[str], measures: list[str] | str, *,
                test: str | None = None, correction: str | None = None, alpha: float = 0.05,
                B: int | None = None, seed: int | None = None, runs: list[str] | None = None,
                qrels: str | None = None, options=None, missing: str = "error",
                store: bool = False, tie_rule: str = "ge", **option_values) -> list:
        """`irw compare`: every pair of runs under one significance test, per measure; a list
        of (stats.Comparison, ScoreMatrix), one per measure, in the order given (Jupyter shows it
        as a table per measure). `test=None`: randomised Tukey HSD over more than two runs
        (without a correction), the paired bootstrap for two (stats.compare.default_test, as
        `irw compare`)."""
        from .request.comparison import matrices_for, run_tests
        campaigns = [campaign] if isinstance(campaign, str) else list(campaign)
        names = [measures] if isinstance(measures, str) else list(measures)
        matrices = matrices_for(self, campaigns, names, runs, missing,
                                _settings(options, qrels, option_values), store=store)
        from .stats.compare import Comparisons
        out = Comparisons()
        for matrix in matrices:
            result = run_tests(matrix, test=test, correction=correction, alpha=alpha, B=B,
                               seed=seed, tie_rule=tie_rule)
            seed = result.seed if seed is None else seed
            out.append((result, matrix))
        return out

    def metrics(self, campaign: str, measures: list[str], *, runs: list[str] | None = None,
                qrels: str | None = None, options=None, missing: str = "error",
                store: bool = False, **option_values):
        """The per-topic matrices of several measures on the same runs and topics
        (meta._common.MetricSet), the input of irwarehouse.meta: discpower_table(metrics, ...),
        swap_table, correlation_matrix(metrics.run_means()), concordance_table, ..."""
        from .meta.load import load_metrics
        return load_metrics(self, campaign, measures, runs=runs, missing=missing,
                            given=_settings(options, qrels, option_values), store=store)

    def informativeness(self, campaign: str, measures: list[str], *,
                        runs: list[str] | None = None, qrels: str | None = None, options=None,
                        missing: str = "error", **option_values):
        """`irw meta informativeness`: the maximum entropy method of Aslam, Yilmaz & Pavlu
        (SIGIR 2005) on each list (meta.informativeness.Informativeness: .summary_records(),
        .run_records(), .curve_records(), .lists)."""
        from .meta.informativeness import informativeness
        return informativeness(self, campaign, measures, runs=runs, missing=missing,
                               given=_settings(options, qrels, option_values))

    def qrels_agreement(self, campaign: str, qrels_a: str, qrels_b: str, *,
                        measures: list[str] | None = None, runs: list[str] | None = None,
                        options=None, missing: str = "error", **option_values):
        """`irw meta qrels-agreement`: Cohen's kappa at the relevance level (threshold=),
        weighted kappa, Krippendorff's alpha and the confusion matrix of levels on the
        documents both qrels judged, and for each measure the agreement of the run rankings
        under each qrels (meta.agreement.Agreement: .as_dict(), .summary_records(),
        .rankings)."""
        from .meta.agreement import qrels_agreement
        return qrels_agreement(self, campaign, qrels_a, qrels_b, measures=measures,
                               runs=runs, given=_settings(options, None, option_values),
                               missing=missing)

    def repro(self, campaign: str, original: str, reproduced: str, *,
              original_baseline: str | None = None, reproduced_baseline: str | None = None,
              measures: list[str] | None = None, qrels: str | None = None, options=None,
              rbo_p: float = 0.95, **option_values):
        """`irw meta repro -C`: the reproducibility measures of Breuer et al. (SIGIR 2020;
        repro_eval's values) between stored runs (meta.repro.Reproduction: .as_dict(),
        .order, .scores, .effects); for run files, irwarehouse.meta.repro.reproduce_files."""
        from .meta.repro import reproduce
        return reproduce(self.con, campaign, original, reproduced,
                         original_baseline=original_baseline,
                         reproduced_baseline=reproduced_baseline,
                         measures=["AP", "nDCG", "P@10"] if measures is None else measures,
                         given=_settings(options, qrels, option_values), p=rbo_p)

    def power(self, design: str = "paired-t", *, campaign: str | None = None,
              measures: list[str] | str | None = None, runs: list[str] | None = None,
              alpha: float = 0.05, power: float | None = None, beta: float | None = None,
              effect_size: float | None = None, min_diff: float | None = None,
              systems: int | None = None, min_range: float | None = None,
              width: float | None = None, variance: float | None = None,
              topics: int | None = None, qrels: str | None = None, options=None,
              missing: str = "error", **option_values):
        """`irw meta power`: topic set size design (Sakai, IRJ 2016). Without a campaign the
        design alone (meta.power.Plan; irwarehouse.meta.power.plan needs no warehouse); with
        `campaign` and `measures`, one meta.power.CampaignPower per measure: the variance from
        its runs' per-topic scores (the one request: stored, or evaluated), what its topics
        detect, and the post-hoc power of each pair of runs."""
        from .meta import power as pw
        inputs = {"effect_size": effect_size, "min_diff": min_diff, "systems": systems,
                  "min_range": min_range, "width": width}
        if campaign is None:
            if measures or runs:
                raise pw.PowerError("measures and runs need a campaign")
            return pw.plan(design, alpha=alpha, power=power, beta=beta, variance=variance,
                           topics=topics, **inputs)
        if not measures:
            raise pw.PowerError("give the measure whose scores give the variance")
        if variance is not None or topics is not None:
            raise pw.PowerError("variance and topics come from the campaign: leave them out")
        names = [measures] if isinstance(measures, str) else list(measures)
        metrics = self.metrics(campaign, names, runs=runs, qrels=qrels, options=options,
                               missing=missing, **option_values)
        return pw.campaign_power(metrics, campaign, design, alpha=alpha, power=power,
                                 beta=beta, **inputs)

    def cg_curves(self, campaign: str, *, runs: list[str] | None = None,
                  qrels: str | None = None, depth: int = 20, log_base: float = 2.0,
                  variant: str = "jk", gains: dict[int, float] | None = None,
                  average: bool = False, options: EvalOptions | None = None) -> pa.Table:
        """CG/DCG/nCG/nDCG curves by rank (irwarehouse.engine.curves.cg_curves) as Arrow."""
        from .engine.curves import cg_curves
        return cg_curves(self.con, self.run_ids(campaign, runs), self.qrels_id(campaign, qrels),
                         depth=depth, log_base=log_base, variant=variant, gains=gains,
                         average=average, options=options)


def _settings(options, qrels: str | None, option_values: dict):
    """The request's settings from the API's arguments: an EvalOptions (every option), an
    EvalSettings, or keyword options (threshold=2, order="file", ...), and a qrels name."""
    from .argcheck import ArgumentError
    from .meta.load import request_settings
    from .options import EvalSettings, settings_of
    if options is not None and not isinstance(options, (EvalOptions, EvalSettings)):
        raise ArgumentError(f"options must be EvalOptions or EvalSettings, not "
                            f"{type(options).__name__}")
    if qrels is not None and not isinstance(qrels, str):
        raise ArgumentError(f"qrels must be str, not {type(qrels).__name__}")
    if option_values:
        if options is not None:
            raise TypeError("give either options= or keyword options, not both")
        options = settings_of(**option_values)
    if isinstance(options, EvalSettings):
        from dataclasses import replace
        return replace(options, qrels=qrels) if qrels is not None else options
    return request_settings(None, options, qrels)


def _frame(table, frame: str):
    if frame == "pandas":
        return table.to_pandas()
    if frame != "arrow":
        raise ValueError(f"frame must be 'arrow' or 'pandas', not {frame!r}")
    return table


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
    wh = Warehouse(None, macros=False, lean=True)
    try:
        fit_threads(wh.con, [qrels, *runs])
        qid = wh.ingest_qrels(qrels, "files", fmt=qrels_format)
        if intents is not None:
            wh.ingest_intents(intents, "files")
        for path, unit in ((doclengths, "words"), (doclengths_chars, "chars")):
            if path is not None:
                wh.ingest_doclengths(path, "files", unit=unit)
        # A batch of files at a time, each file its own campaign (engine.files)
        from .engine.evaluate import batchable
        from .engine.files import FileRuns
        files = FileRuns(wh.con, runs, keep_first=keep_first,
                         in_batches=batchable(requests, options))
        try:
            result = evaluate(wh.con, files.run_ids, qid, requests, options,
                              progress=progress, gcompute=gcompute, batches=files.batches,
                              prepare=files.prepare, file_order=True)
        finally:
            files.close()
        result.runid = wants_runid(measures)
    except BaseException:               # the error under way is the one to report
        close_connection(wh.con, checkpoint=False)
        raise
    if not leave_to_exit(wh.con):       # the `irw` process ends right after: its exit frees it
        wh.close()
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
