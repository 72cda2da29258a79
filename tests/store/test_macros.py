"""The metric macros an analyst calls (irw_<measure>(campaign := ...), irwarehouse.store.macros) and
the measure catalog, as any DuckDB client sees them in a warehouse file:

* every measure of measure_catalog, called through its macro, equals `irw eval`'s values (the
  engine's path over materialised context tables) to 1e-12, with default and other options;
* a Python that never imports irwarehouse computes metrics from the file alone;
* unknown campaigns, qrels and runs are errors that name them, never an empty result;
* run_score forms run values by the catalog's summary kind (trec_eval's `all` lines);
* a read-only open writes nothing; an older warehouse is upgraded on a read-write open."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from tests.helpers.macro_calls import evaluate_macros, macro_call
from irwarehouse.measures import MeasureRequest, parse_measures, registry
from tests.helpers.catalog import default_request
from tests.helpers.paths import DATA, TEST_DATA
from tests.helpers.small_campaign import diversity_files

TREC_EVAL = TEST_DATA / "trec_eval"
OLD_WAREHOUSE = TEST_DATA / "warehouses" / "ae439d3_sample.duckdb.gz"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """sample: NIST's trec_eval test files, graded qrels only, document lengths for TBG and U;
    multi: the same with both qrels; div: a random diversity campaign with intents."""
    folder = tmp_path_factory.mktemp("macros")
    path = folder / "w.duckdb"
    lengths = folder / "lengths.tsv"
    docs = {line.split()[2] for line in
            (DATA / "runs" / "STANDARD.results.test").read_text().splitlines()}
    lengths.write_text("".join(f"{d}\t{len(d) * 37 % 900 + 50}\t{len(d) * 211 % 5000 + 300}\n"
                               for d in sorted(docs)))
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.rel_level", "sample", name="graded")
        for campaign in ("sample", "multi"):
            for run in sorted((DATA / "runs").glob("*")):
                wh.ingest_run(run, campaign, name=run.name)
        wh.ingest_doclengths(lengths, "sample")
        wh.ingest_qrels(DATA / "qrels.test", "multi", name="binary")
        wh.ingest_qrels(DATA / "qrels.rel_level", "multi", name="graded")
        dqrels, dinprob, (drun,) = diversity_files(folder, tags=("divrun",))
        wh.ingest_qrels(dqrels, "div", fmt="diversity")
        wh.ingest_intents(dinprob, "div")
        wh.ingest_run(drun, "div")
    return path


def _campaign(mdef) -> str:
    return "div" if mdef.family.startswith("diversity") else "sample"


def _engine_rows(con, campaign: str, req: MeasureRequest, opts: EvalOptions) -> dict:
    """(run, topic) -> value or text, computed by evaluate() on materialised context tables."""
    qid = con.execute("SELECT qrels_id FROM ev_make_scope(?, NULL)", [campaign]).fetchone()[0]
    run_ids = [r for (r,) in con.execute("SELECT run_id FROM run WHERE campaign_id = (SELECT "
                                         "campaign_id FROM campaign WHERE name = ?)",
                                         [campaign]).fetchall()]
    result = evaluate(con, run_ids, qid, [req], opts)
    return {(t["run"], t["topic"]): t["value"] if t["text"] is None else t["text"]
            for t in result.per_topic.to_pylist()}


def _macro_rows(con, campaign: str, req: MeasureRequest, opts: EvalOptions) -> dict:
    sql, values = macro_call(req, opts)
    values.update(campaign=campaign, qrels=None, run=None)
    return {(r, t): v if x is None else x for r, t, v, x in con.execute(sql, values).fetchall()}


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12
    return a == b


def _catalog(path: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT measure, macro FROM measure_catalog WHERE domain = 'ranked' "
                           "ORDER BY measure").fetchall()


def _walk(path: Path, opts: EvalOptions, measures=None) -> list[str]:
    """Every measure of the catalog through its macro and through the engine: the measures
    whose values differ."""
    reg = registry()
    differ = []
    catalog = _catalog(path)
    with Warehouse(path, read_only=True) as wh:
        for measure, macro in catalog:
            if measures is not None and measure not in measures:
                continue
            mdef = reg[measure]
            assert macro == mdef.macro
            req = default_request(mdef)
            engine = _engine_rows(wh.con, _campaign(mdef), req, opts)
            sql = _macro_rows(wh.con, _campaign(mdef), req, opts)
            assert engine, measure
            if engine.keys() != sql.keys() or not all(_same(engine[k], sql[k]) for k in engine):
                differ.append(measure)
    return differ


def test_the_catalog_lists_every_measure_with_its_macro(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute("SELECT measure, macro, summary, doc, source, parameters, domain "
                           "FROM measure_catalog").fetchall()
        macros = {n for (n,) in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_type = 'table_macro' "
            "AND NOT internal").fetchall()}
        builtins = {n.lower() for (n,) in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE internal").fetchall()}
    # one catalog: the ranked measures of sql/metrics, and the online and text measures
    assert {r[0] for r in rows if r[6] == "ranked"} == set(registry())
    from irwarehouse.online.measures import catalog as online_catalog
    assert {r[0] for r in rows if r[6] == "online"} == \
        {m.name for m in online_catalog().values()}
    assert {r[0] for r in rows if r[6] == "texts"} >= {"ROUGE", "nuggetF", "POURPRE", "S#", "M"}
    by_measure = {r[0]: r for r in rows}
    assert by_measure["gm_map"][2] == "gmean" and by_measure["num_ret"][2] == "sum"
    assert by_measure["ndcg_cut"][5][3] == {"name": "cutoff", "type": "INTEGER",
                                            "default": "NULL"}
    for measure, macro, _, doc, source, _, _ in rows:
        assert macro in macros, measure
        assert macro.lower() not in builtins, macro
        assert doc and source, measure
        assert "seed 00" not in doc + source, measure


def test_every_measure_of_the_catalog_equals_the_engine(warehouse):
    assert _walk(warehouse, EvalOptions()) == []


@pytest.mark.slow
@pytest.mark.parametrize("opts", [
    EvalOptions(threshold=2), EvalOptions(judged_only=True), EvalOptions(depth=20),
    EvalOptions(order="file"), EvalOptions(order="rank"), EvalOptions(version=10),
    EvalOptions(complete=True, version=10), EvalOptions(complete=True, judged_only=True),
], ids=lambda o: o.describe())
def test_every_measure_equals_the_engine_with_other_options(warehouse, opts):
    assert _walk(warehouse, opts) == []


def test_a_python_without_irwarehouse_computes_metrics_from_the_file(warehouse, tmp_path):
    """Opened read-only by plain duckdb, the file alone computes metrics: the values of
    `irw eval` (the engine), by any parameter."""
    script = tmp_path / "client.py"
    script.write_text(
        "import json, sys\nimport duckdb\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "macro = con.execute(\"SELECT macro FROM measure_catalog WHERE measure = 'ndcg_cut'\")"
        ".fetchone()[0]\n"
        "out = {'imported': 'irwarehouse' in sys.modules,\n"
        "       'ndcg_cut': con.execute(f\"SELECT run, topic, value FROM {macro}(campaign := "
        "'sample', cutoff := 10)\").fetchall(),\n"
        "       'map_l2': con.execute(\"SELECT run, topic, value FROM irw_map(campaign := "
        "'sample', relevance_level := 2)\").fetchall(),\n"
        "       'alpha': con.execute(\"SELECT run, topic, value FROM irw_div_alpha_ndcg("
        "campaign := 'div', cutoff := 20, alpha := 0.3)\").fetchall()}\n"
        "print(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-I", str(script), str(warehouse)],
                          capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["imported"] is False
    reg = registry()
    with Warehouse(warehouse, read_only=True) as wh:
        for key, campaign, req, opts in [
                ("ndcg_cut", "sample", MeasureRequest(reg["ndcg_cut"], (10,), "x"),
                 EvalOptions()),
                ("map_l2", "sample", MeasureRequest(reg["map"], (), "x"),
                 EvalOptions(threshold=2)),
                ("alpha", "div", MeasureRequest(reg["alpha-nDCG"], (20, 0.3), "x"),
                 EvalOptions())]:
            engine = _engine_rows(wh.con, campaign, req, opts)
            got = {(r, t): v for r, t, v in out[key]}
            assert got.keys() == engine.keys() and len(got) > 1, key
            assert all(_same(engine[k], got[k]) for k in engine), key


@pytest.mark.parametrize("call, message", [
    ("irw_map(campaign := 'nope')", "no campaign 'nope' in the warehouse"),
    ("irw_map(campaign := 'multi')",
     "campaign 'multi' has several qrels (binary, graded); choose one with qrels := 'NAME'"),
    ("irw_map(campaign := 'sample', qrels := 'nope')", "no qrels 'nope' in campaign 'sample'"),
    ("irw_map(campaign := 'sample', run := 'nope')", "no run 'nope' in the campaign"),
    ("irw_P(campaign := 'sample')", "irw_P: give cutoff := ..."),
    ("irw_map(campaign := 'sample', sort_order := 'nope')", "sort_order must be"),
    ("irw_map(campaign := NULL)", "campaign := 'NAME' is required"),
])
def test_a_name_that_does_not_exist_is_an_error_naming_it(warehouse, call, message):
    pattern = message.replace("(", r"\(").replace(")", r"\)")
    with duckdb.connect(str(warehouse), read_only=True) as con, \
            pytest.raises(duckdb.Error, match=pattern):
        con.execute(f"SELECT * FROM {call}").fetchall()


def test_qrels_and_run_choose_what_is_evaluated(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        binary = con.execute("SELECT run, topic, value FROM irw_map(campaign := 'multi', "
                             "qrels := 'binary') ORDER BY ALL").fetchall()
        one = con.execute("SELECT run, topic, value FROM irw_map(campaign := 'multi', "
                          "qrels := 'binary', run := 'STANDARD.results.trunc') ORDER BY ALL"
                          ).fetchall()
    assert one == [r for r in binary if r[0] == "STANDARD.results.trunc"] and one


def test_trec_eval_files_through_the_macros(tmp_path):
    """trec_eval's own test files (qrels.test, results.test): its outputs out.test.a (10.0) and
    v9.0.8/out.test.a, byte for byte, from the metric macros of a warehouse."""
    from tests.helpers.golden import trec_eval_lines
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(TREC_EVAL / "qrels.test", "t")
        wh.ingest_run(TREC_EVAL / "results.test", "t")
        for version, expected in ((10, TREC_EVAL / "out.test.a"),
                                  (9, TREC_EVAL / "v9.0.8" / "out.test.a")):
            requests = parse_measures(["all_trec"], version=version)
            result = evaluate_macros(wh.con, "t", requests, EvalOptions(version=version))
            assert trec_eval_lines(result, per_topic=False)[1:] == \
                [ln for ln in expected.read_text().splitlines() if not ln.startswith("runid")]


def _run_values(con, measures) -> dict:
    return {m: v for m, v in con.execute(
        "SELECT measure, mean FROM run_score WHERE list_contains(?, measure)",
        [measures]).fetchall()}


def test_run_score_forms_run_values_by_summary_kind(tmp_path):
    """gm_map and gm_bpref are geometric means (1e-5 floor), num_* sums: trec_eval's `all`
    lines (out.test.a of trec_eval 10.0 on its own test files)."""
    measures = ["map", "gm_map", "gm_bpref", "num_ret", "num_rel", "num_rel_ret", "num_q"]
    expected = {}
    for line in (TREC_EVAL / "out.test.a").read_text().splitlines():
        name, topic, value = line.split("\t")
        if name.strip() in measures and topic == "all":
            expected[name.strip()] = float(value)
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(TREC_EVAL / "qrels.test", "t")
        wh.ingest_run(TREC_EVAL / "results.test", "t")
        wh.evaluate(measures, campaign="t", store=True)
        got = _run_values(wh.con, measures)
        summary = dict(wh.con.execute("SELECT measure, summary FROM run_score").fetchall())
    assert summary["gm_map"] == "gmean" and summary["num_ret"] == "sum"
    assert {m: round(v, 4) for m, v in got.items()} == expected


def test_run_score_with_complete_counts_judged_relevant_documents(tmp_path):
    """trec_eval -c: num_rel's `all` is the number of judged documents of level > 0 whatever
    -l (te_calc_avg_num_rel); out.test.aqc (-c -q) prints it."""
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(TREC_EVAL / "qrels.test", "t")
        wh.ingest_run(TREC_EVAL / "results.trunc", "t")
        wh.evaluate(["num_rel", "num_ret"], campaign="t", store=True,
                    options=EvalOptions(complete=True, threshold=2))
        got = _run_values(wh.con, ["num_rel"])
        result = wh.evaluate(["num_rel"], campaign="t", options=EvalOptions(complete=True,
                                                                            threshold=2))
    assert got["num_rel"] == result.summary.to_pylist()[0]["value"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_read_only_open_of_an_up_to_date_warehouse_writes_nothing(warehouse):
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    before = _digest(warehouse)
    with Warehouse(warehouse, read_only=True) as wh:
        wh.evaluate(["map", "alpha-nDCG@10"], campaign="sample")
    result = CliRunner().invoke(app, ["sql", "-w", str(warehouse),
                                      "SELECT count(*) FROM irw_map('sample')"])
    assert result.exit_code == 0, result.output
    assert result.output.split()[2] == "5"          # 3 topics of one run, 2 of the other
    assert _digest(warehouse) == before
    assert not warehouse.with_suffix(".duckdb.wal").exists()


def test_an_older_warehouse_is_upgraded_on_its_first_read_write_open(tmp_path):
    """A warehouse written by the release before the metric macros (commit ae439d3): read-only,
    it still evaluates (TEMP macros) and says it is out of date; read-write, it gains the
    macros, the catalog, the stored judged rows and the run values by summary kind."""
    path = tmp_path / "old.duckdb"
    with gzip.open(OLD_WAREHOUSE) as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    with duckdb.connect(str(path), read_only=True) as con:     # as that release left it
        assert con.execute("SELECT round(mean, 4) FROM run_score WHERE measure = 'gm_map' AND "
                           "run = 'STANDARD.results.test'").fetchone() == (0.1774,)
    before = _digest(path)
    with Warehouse(path, read_only=True) as wh:
        engine = wh.evaluate(["gm_map"], campaign="sample", qrels="graded").summary.to_pylist()
    assert _digest(path) == before
    with Warehouse(path) as wh:
        assert wh.con.execute("SELECT count(*) FROM measure_catalog WHERE domain = 'ranked'"
                              ).fetchone()[0] == len(registry())
        assert wh.con.execute("SELECT count(*) FROM judged_pair").fetchone() == (4,)
        assert wh.con.execute("SELECT count(*) FROM run_row WHERE score_rank IS NULL"
                              ).fetchone() == (0,)
        values = dict(wh.con.execute("SELECT run, mean FROM run_score WHERE measure = 'gm_map'"
                                     ).fetchall())
        families = dict(wh.con.execute("SELECT DISTINCT measure, family FROM score").fetchall())
        macro = wh.con.execute("SELECT count(*) FROM irw_gm_map('sample', qrels := 'graded')"
                               ).fetchone()
    assert {r["run"]: round(r["value"], 12) for r in engine} == \
        {run: round(v, 12) for run, v in values.items()}
    assert families["P_10"] == "P" and families["gm_map"] == "gm_map"
    assert macro == (5,)


def test_compare_and_meta_form_run_values_by_summary_kind(tmp_path):
    """The run values irw compare prints and meta ranks runs by are run_score's: gm_map's
    geometric mean, not the arithmetic mean of the per-topic values."""
    from irwarehouse.request import comparison as cmp
    from irwarehouse.meta.load import load_metrics
    from irwarehouse.writers.comparison import table_text
    reversed_run = tmp_path / "results.reversed"          # every topic, another ranking
    reversed_run.write_text("".join(
        " ".join(f[:4] + [str(-float(f[4])), "rev"]) + "\n"
        for f in (line.split() for line in (TREC_EVAL / "results.test").read_text()
                  .splitlines())))
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(TREC_EVAL / "qrels.test", "t")
        for run in (TREC_EVAL / "results.test", reversed_run):
            wh.ingest_run(run, "t", name=run.name)
        wh.evaluate(["gm_map"], campaign="t", store=True)
        stored = dict(wh.con.execute("SELECT run, mean FROM run_score").fetchall())
        matrix = cmp.matrix_for(wh, ["t"], "gm_map", None, "error")
        metrics = load_metrics(wh, "t", ["gm_map"])
        fresh = load_metrics(wh, "t", ["gm_bpref"], stored=False)
        expected_bpref = {s["run"]: s["value"] for s in wh.evaluate(
            ["gm_bpref"], campaign="t").summary.to_pylist()}
    got = dict(zip(matrix.runs, matrix.run_values()))
    assert got == pytest.approx(stored, abs=1e-12)
    assert dict(zip(metrics.runs, metrics.run_means()["gm_map"])) == \
        pytest.approx(stored, abs=1e-12)
    assert dict(zip(fresh.runs, fresh.run_means()["gm_bpref"])) == \
        pytest.approx(expected_bpref, abs=1e-12)
    arithmetic = dict(zip(matrix.runs, matrix.values.mean(axis=0)))
    assert all(abs(arithmetic[r] - got[r]) > 1e-3 for r in got)
    table = table_text(cmp.run_tests(matrix, test="t", correction=None, alpha=0.05,
                                         B=None, seed=None), matrix)
    assert f"{stored['results.test']:>8.4f}" in table


def test_irw_schema_lists_the_metric_macros_with_their_docs():
    from typer.testing import CliRunner

    from irwarehouse.cli import app
    out = CliRunner().invoke(app, ["schema"]).output
    from irwarehouse.store.macros import domain_catalog_rows
    heads = [line for line in out.splitlines() if line.startswith("metric macro ")]
    # every measure of the one catalog: sql/metrics, and the online and text measures
    assert len(heads) == len(registry()) + len(domain_catalog_rows())
    assert any(line.startswith("metric macro irw_sdcg ") for line in heads)
    assert any(line.startswith("metric macro irw_gm_map  -- gm_map: Geometric mean")
               for line in heads)
    full = CliRunner().invoke(app, ["schema", "irw_ndcg_cut"]).output
    assert "Source: trec_eval m_ndcg.c" in full and "cutoff" in full
    assert "m_map" not in out.split() and "ev_make_ranked" not in out
