"""The conformance suite of the Spark engine (irwarehouse.spark.engine): the metric SQL, inlined
and transpiled, run by Apache Spark (local[2]), against DuckDB's `irw eval` on the same data.

* every portable measure of the ranked catalog: Spark's per-topic values equal DuckDB's to 1e-9
  on TREC 2003 Robust (17 runs, ../shared/realdata) and on bench/bench_eval.py's 100-run
  campaign (gen_campaign, lists cut to 100 documents to keep CI short; bench/bench_spark.py
  runs the full size), and on a small warehouse with other evaluation options;
* `irw export campaign` + `irw eval --engine spark` print what `irw eval` prints, and --store
  stores what a DuckDB evaluation stores; `irw sql --engine spark` runs analyst SQL on Spark,
  and the SQL `--explain` shows runs on Spark with the macros' values;
* errors of the metric SQL (unknown campaign, run) reach the user as one line.

Needs Java 17+ and pyspark (the `spark` extra, which .ci/run installs with Java); the `spark`
fixture (conftest.py: one local SparkSession for the test session) skips with the reason only
when they cannot be found.
"""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.errors import IrwError
from irwarehouse.measures import parse_measures, registry
from irwarehouse.measures.portability import measure_portability
from irwarehouse.spark.dialect import SPARK_FUNCTIONS
from irwarehouse.spark.engine import evaluate_spark, register_export
from irwarehouse.spark.export import export_campaign
from tests.helpers.catalog import default_request
from tests.helpers.paths import REALDATA, REPO
from tests.helpers.small_campaign import same_value

pytestmark = pytest.mark.slow

ROBUST = REALDATA / "trec2003_robust"


def portable_requests():
    return [default_request(m) for m in registry().values() if measure_portability(m)[0]]


def conformance(spark, path: Path, campaign: str, folder: Path, opts: EvalOptions,
                requests=None) -> list[str]:
    """The measures whose per-topic values (or run values) on Spark differ from DuckDB's
    evaluate() by more than 1e-9, or that one engine has for a (run, topic) and not the
    other."""
    requests = requests or portable_requests()
    with Warehouse(path, read_only=True) as wh:
        want = evaluate(wh.con, wh.run_ids(campaign), wh.qrels_id(campaign), requests, opts)
        if not folder.exists():
            export_campaign(wh.con, campaign, folder)
    register_export(spark, folder)
    got = evaluate_spark(spark, campaign, requests, opts)
    differ = set()
    for table in ("per_topic", "summary"):
        key = ("run", "topic", "measure") if table == "per_topic" else ("run", "measure")
        w = {tuple(r[k] for k in key): r for r in getattr(want, table).to_pylist()}
        g = {tuple(r[k] for k in key): r for r in getattr(got, table).to_pylist()}
        for k in w.keys() ^ g.keys():
            differ.add(k[-1])
        for k in w.keys() & g.keys():
            a, b = w[k], g[k]
            if not same_value(a["value"], b["value"]) or a.get("text") != b.get("text") \
                    or a.get("in_run") != b.get("in_run"):
                differ.add(k[-1])
    assert want.per_topic.num_rows > 0
    return sorted(differ)


# -- conformance ----------------------------------------------------------------------------

@pytest.mark.realdata
@pytest.mark.skipif(not ROBUST.is_dir(), reason="../shared/realdata/trec2003_robust absent")
def test_every_portable_measure_on_trec_2003_robust(spark_campaign_sized, tmp_path_factory):
    folder = tmp_path_factory.mktemp("robust")
    path = folder / "robust.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(ROBUST / "qrels" / "robust03_qrels.txt", "robust03")
        for run in sorted((ROBUST / "runs").glob("input.*.gz")):
            wh.ingest_run(run, "robust03", name=run.name.removeprefix("input.")[:-3])
        assert len(wh.run_ids("robust03")) == 17
    assert conformance(spark_campaign_sized, path, "robust03", folder / "export",
                       EvalOptions()) == []


def _bench_module():
    spec = importlib.util.spec_from_file_location("bench_eval", REPO / "bench" / "bench_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_portable_measure_on_the_bench_campaign(spark_campaign_sized, tmp_path_factory):
    """bench/bench_eval.py's campaign, seed 7: 100 runs x 50 topics drawn from shared pools
    of 3,000 documents of which 1,500 are judged (graded 0-3), scores with ties; the lists cut
    to 100 documents (the bench's --scale 0.025) so that CI stays short."""
    folder = tmp_path_factory.mktemp("bench")
    qrels, runs = _bench_module().gen_campaign(folder / "files", np.random.default_rng(7),
                                               n_runs=100, n_topics=50, depth=100,
                                               judged=1500, pool=3000)
    path = folder / "bench.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "bench")
        for run in runs:
            wh.ingest_run(run, "bench")
    shutil.rmtree(folder / "files")
    assert conformance(spark_campaign_sized, path, "bench", folder / "export",
                       EvalOptions()) == []


@pytest.mark.parametrize("opts", [
    EvalOptions(threshold=2, judged_only=True, depth=20),
    EvalOptions(complete=True, version=10, order="rank"),
    EvalOptions(order="file", gains=((1, 3.0), (2, 7.0))),
], ids=lambda o: o.describe())
def test_every_portable_measure_with_other_options(spark, small, tmp_path_factory, opts):
    """-l, -J, -M, -c, trec_eval 10, the rank and file orders and NTCIREVAL's diversity gains,
    on the sample campaign (NIST's trec_eval test files, document lengths) and a random
    diversity campaign with intents."""
    folder = tmp_path_factory.mktemp("options")
    for campaign in ("sample", "div"):
        requests = [r for r in portable_requests()
                    if r.mdef.family.startswith("diversity") == (campaign == "div")]
        assert conformance(spark, small, campaign, folder / campaign, opts, requests) == []


def test_three_gain_tables_on_spark(spark, small, tmp_path_factory):
    """G, ndcg_rel and Rndcg with three gain tables (one level set in two orders, negative
    levels): Spark's ev_gain_ideal holds the three ideal rankings as DuckDB's does."""
    folder = tmp_path_factory.mktemp("gains")
    requests = parse_measures(["G.2=4.5,1=4.2", "ndcg_rel.1=4.2,2=4.5", "Rndcg.-1=1,0=-1"])
    for opts in (EvalOptions(), EvalOptions(threshold=2, judged_only=True, depth=20)):
        assert conformance(spark, small, "sample", folder / opts.describe(), opts,
                           requests) == []


# -- the commands ---------------------------------------------------------------------------

MEASURES = ["-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "relstring.5", "-m",
            "Q", "-m", "nERR@10", "-m", "TBG", "-m", "map'"]


def _irw(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_irw_eval_engine_spark_prints_what_irw_eval_prints(spark, small, tmp_path):
    """The same lines in trec_eval's layout (values printed to 4 decimals); the same rows in
    JSON, whose full-precision values may differ in the last bits (sums in another order)."""
    _irw("export", "campaign", "sample", "--format", "parquet", tmp_path / "sample", "-w", small)
    outputs = {}
    for fmt in ("trec_eval", "json"):
        want = _irw("eval", "-C", "sample", "-w", small, "-q", "-f", fmt, *MEASURES)
        got = _irw("eval", "--engine", "spark", "-C", "sample", "--data", tmp_path / "sample",
                   "-w", tmp_path / "absent.duckdb", "-q", "-f", fmt, *MEASURES)
        outputs[fmt] = got, want
    assert outputs["trec_eval"][0] == outputs["trec_eval"][1]
    got, want = (json.loads(text) for text in outputs["json"])
    assert len(got) == len(want) > 0
    for a, b in zip(got, want):
        assert (a["run"], a["topic"], a["measure"]) == (b["run"], b["topic"], b["measure"])
        if isinstance(b["value"], str) or b["value"] is None:
            assert a["value"] == b["value"]
        else:
            assert same_value(a["value"], b["value"])


def test_irw_eval_engine_spark_store_stores_what_duckdb_stores(spark, small, tmp_path):
    copies = {}
    for engine in ("duckdb", "spark"):
        copies[engine] = tmp_path / f"{engine}.duckdb"
        shutil.copy(small, copies[engine])
        _irw("eval", "--engine", engine, "-C", "div", "-w", copies[engine], "--store",
             "-m", "alpha-nDCG@10", "-m", "D#-nDCG@10", "-m", "P.10")
    stored = {}
    for engine, path in copies.items():
        with duckdb.connect(str(path), read_only=True) as con:
            stored[engine] = con.execute(
                "SELECT run_id, qrels_id, topic, measure, family, params, options, value, "
                "definition_hash FROM score ORDER BY ALL").fetchall()
    assert len(stored["spark"]) == len(stored["duckdb"]) > 0
    for a, b in zip(stored["spark"], stored["duckdb"]):
        assert a[:7] == b[:7] and a[8] == b[8] and same_value(a[7], b[7])


def test_irw_sql_engine_spark_runs_analyst_sql(spark, small, tmp_path):
    query = ("SELECT run, count(*) AS topics, avg(value) AS mean "
             "FROM irw_ndcg_cut('sample', cutoff := 10, relevance_level := 2) "
             "GROUP BY run ORDER BY run")
    want = _irw("sql", query, "--format", "csv", "-w", small).splitlines()
    got = _irw("sql", "--engine", "spark", query, "--format", "csv", "-w", small).splitlines()
    assert got[0] == want[0] and len(got) == len(want) == 3
    for a, b in zip(got[1:], want[1:]):
        run_a, n_a, mean_a = a.split(",")
        run_b, n_b, mean_b = b.split(",")
        assert (run_a, n_a) == (run_b, n_b) and same_value(float(mean_a), float(mean_b))


@pytest.mark.parametrize("call, campaign", [
    ("irw_map('sample')", "sample"),
    ("irw_infAP('sample', judged_only := true)", "sample"),
    ("irw_ntcir_q('sample', beta := 0.5)", "sample"),
    ("irw_relstring('sample', length := 5)", "sample"),
    ("irw_div_alpha_ndcg('div', cutoff := 5, alpha := 0.3)", "div"),
    ("irw_ntd_dsharp_ndcg('div', cutoff := 10)", "div"),
])
def test_the_explained_sql_runs_on_spark_with_the_macros_values(spark, small, tmp_path, call,
                                                                campaign):
    """`irw sql --engine spark --explain` prints one self-contained SELECT, which an analyst
    runs on their own cluster: run here, it gives the macro's values."""
    query = f"SELECT * FROM {call}"
    sql = _irw("sql", "--engine", "spark", "--explain", query, "-w", small)
    folder = tmp_path / campaign
    with duckdb.connect(str(small), read_only=True) as con:
        want = {(r[0], r[1]): r[2:] for r in con.execute(query).fetchall()}
        export_campaign(con, campaign, folder)
    register_export(spark, folder)
    got = {(r[0], r[1]): tuple(r[2:]) for r in spark.sql(sql).collect()}
    assert got.keys() == want.keys() and want
    for k, (value, *text) in want.items():
        assert same_value(got[k][0], value) and list(got[k][1:]) == text, k


def test_errors_of_the_metric_sql_are_one_line(spark, small, tmp_path):
    folder = tmp_path / "sample"
    with duckdb.connect(str(small), read_only=True) as con:
        export_campaign(con, "sample", folder)
    register_export(spark, folder)
    requests = parse_measures(["map"])
    with pytest.raises(IrwError, match="no run 'nope' in the campaign"):
        evaluate_spark(spark, "sample", requests, runs=["nope"])
    with pytest.raises(IrwError, match="no campaign 'other' in the warehouse"):
        evaluate_spark(spark, "other", requests)
    result = CliRunner().invoke(app, ["eval", "--engine", "spark", "-C", "div", "--data",
                                      str(folder), "-m", "map"])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "holds campaign(s) sample" in result.output


def test_a_run_subset_on_spark(spark, small, tmp_path):
    folder = tmp_path / "sample"
    with duckdb.connect(str(small), read_only=True) as con:
        export_campaign(con, "sample", folder)
    register_export(spark, folder)
    got = evaluate_spark(spark, "sample", parse_measures(["map"]),
                         runs=["STANDARD.results.test"])
    assert {r["run"] for r in got.per_topic.to_pylist()} == {"STANDARD.results.test"}


def test_spark_has_every_function_the_transpiler_emits(spark):
    functions = {r[0].lower() for r in spark.sql("SHOW FUNCTIONS").collect()}
    assert SPARK_FUNCTIONS <= functions, sorted(SPARK_FUNCTIONS - functions)


def test_random_lists_on_both_engines(spark, tmp_path):
    """Random qrels and runs (ties, unjudged -1 levels, topics without relevant documents)
    through a few measures of each family, both engines."""
    rng = random.Random(3)
    qrels, run = [], []
    for t in range(1, 9):
        docs = [f"t{t}d{k:03d}" for k in range(60)]
        for doc in rng.sample(docs, 30):
            qrels.append(f"{t} 0 {doc} {rng.choice([-1, 0, 0, 0, 1, 2, 3] if t != 4 else [0])}")
        for rank, doc in enumerate(rng.sample(docs, rng.randint(1, 50)), start=1):
            run.append(f"{t} Q0 {doc} {rank} {rng.randint(0, 9)} rnd")
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r").write_text("\n".join(run) + "\n")
    path = tmp_path / "rnd.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(tmp_path / "q", "rnd")
        wh.ingest_run(tmp_path / "r", "rnd")
    requests = parse_measures(["map", "bpref", "infAP", "iprec_at_recall.0.3", "11pt_avg",
                               "ndcg_rel", "Rndcg", "G", "Q", "ntcir:nDCG@10", "nERR@10",
                               "rbp", "recall.5", "utility.2,-1,0,0"])
    for opts in (EvalOptions(), EvalOptions(judged_only=True, version=10)):
        assert conformance(spark, path, "rnd", tmp_path / f"export{opts.judged_only}", opts,
                           requests) == []


def test_the_campaign_profile_applies_on_spark(spark, small, tmp_path):
    """Issue 29: the profile is the default of every front door, Spark's too: irw eval --engine
    spark on the warehouse and on an export of it (which carries the profile), and an analyst
    macro on Spark, give what irw eval -C gives with the profile."""
    path = tmp_path / "w.duckdb"
    shutil.copy(small, path)
    _irw("campaign", "set", "sample", "--order", "file", "-c", "-M", "5", "-w", path)
    measures = ["-m", "map", "-m", "P.10", "-m", "Q"]
    want = _irw("eval", "-C", "sample", "-w", path, *measures)
    assert want != _irw("eval", "-C", "sample", "-w", small, *measures)   # the profile matters
    assert _irw("eval", "--engine", "spark", "-C", "sample", "-w", path, *measures) == want
    _irw("export", "campaign", "sample", "--format", "parquet", tmp_path / "export", "-w", path)
    assert _irw("eval", "--engine", "spark", "-C", "sample", "--data", tmp_path / "export",
                "-w", tmp_path / "absent.duckdb", *measures) == want
    query = "SELECT run, avg(value) AS mean FROM irw_map('sample') GROUP BY run ORDER BY run"
    local = _irw("sql", query, "--format", "csv", "-w", path).splitlines()
    remote = _irw("sql", "--engine", "spark", query, "--format", "csv", "-w", path).splitlines()
    assert len(local) == len(remote) == 3
    for a, b in zip(local[1:], remote[1:]):
        assert a.split(",")[0] == b.split(",")[0]
        assert same_value(float(a.split(",")[1]), float(b.split(",")[1]))


def test_sampled_qrels_on_spark(spark, tmp_path):
    """The measures of sampled judgments read the strata and probabilities of the export
    (judgment_sample): Spark's xinfAP, infNDCG and statAP equal DuckDB's on the golden
    campaign of tests/data/sampled (sample_eval.pl's and statAP_MQ_eval's inputs)."""
    data = REPO / "tests" / "data" / "sampled"
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(data / "sampleval.qrels", "strata", fmt="sampleval")
        wh.ingest_qrels(data / "mq.prels", "probs", fmt="prels")
        for run in sorted(data.glob("run*.txt")):
            for campaign in ("strata", "probs"):
                wh.ingest_run(run, campaign)
    opts = EvalOptions(version=10)
    for campaign, names in (("strata", ["xinfAP", "infNDCG"]), ("probs", ["statAP"])):
        assert conformance(spark, path, campaign, tmp_path / campaign, opts,
                           parse_measures(names)) == []
