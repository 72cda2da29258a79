"""The `irw` CLI and the Python API end to end: init, ingest, eval (files and campaigns), --store
and the score table read with plain duckdb, $IRW_WAREHOUSE, output formats, ir_measures names,
and pandas."""

from __future__ import annotations

import csv
import io
import json
import math

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions
from tests.helpers.golden import TREC_EVAL_DATA

QRELS = TREC_EVAL_DATA / "qrels.test"
GRADED = TREC_EVAL_DATA / "qrels.rel_level"
RUN = TREC_EVAL_DATA / "results.test"


def irw(*args, env=None):
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    return result


def ok(*args, env=None):
    result = irw(*args, env=env)
    assert result.exit_code == 0, result.output
    return result


def expected_rows(name="out.test.aq", version=10) -> dict[tuple[str, str], str]:
    """{(measure, topic): printed value} of an expected trec_eval output."""
    folder = TREC_EVAL_DATA / ("v9.0.8" if version == 9 else "")
    rows = {}
    for line in (folder / name).read_text().splitlines():
        measure, topic, value = line.split("\t")
        rows[(measure.strip(), topic)] = value
    return rows


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """`irw init`, `irw ingest qrels/run`, `irw eval --campaign --store`, once for the module."""
    path = tmp_path_factory.mktemp("wh") / "irw.duckdb"
    out = ok("init", "-w", path)
    assert path.exists() and "warehouse ready" in out.stdout
    assert "3681 judgments" in ok("ingest", "qrels", QRELS, "-C", "trec", "-w", path).stdout
    ok("ingest", "qrels", GRADED, "-C", "trec", "--name", "graded", "-w", path)
    out = ok("ingest", "run", RUN, "-C", "trec", "--team", "nist", "-w", path)
    assert "ingested run STANDARD" in out.stdout
    ok("eval", "--campaign", "trec", "--qrels", "qrels.test", "-m", "all_trec", "--store",
       "-w", path)
    return path


def test_stored_scores_are_trec_eval_values(warehouse):
    expected = expected_rows(version=9)            # the default semantics: trec_eval 9.0.8
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute("SELECT topic, measure, CASE WHEN text IS NULL THEN value ELSE NULL END, text FROM score").fetchall()
        views = con.execute("""SELECT campaign, run, team, qrels, count(*) FROM topic_score
                               GROUP BY ALL""").fetchall()
        run_score = dict(con.execute("""SELECT measure, mean FROM run_score
                                        WHERE measure IN ('map', 'P_10')""").fetchall())
    finally:
        con.close()
    assert views == [("trec", "STANDARD", "nist", "qrels.test", len(rows))]
    compared = 0
    for topic, measure, number, text in rows:
        value = number if text is None else text
        printed = expected.get((measure, topic))
        if printed is None:
            continue                   # gm_map/gm_bpref are stored per topic, printed in all
        if isinstance(value, str):                 # relstring, printed between quotes
            assert f"'{value}'" == printed, (measure, topic)
        else:
            assert f"{value:6.4f}" == printed or str(int(value)) == printed, (measure, topic)
        compared += 1
    assert compared >= 3 * 80
    assert f"{run_score['map']:6.4f}" == expected[("map", "all")]
    assert f"{run_score['P_10']:6.4f}" == expected[("P_10", "all")]


def test_store_replaces_earlier_values(warehouse, tmp_path):
    path = tmp_path / "copy.duckdb"
    path.write_bytes(warehouse.read_bytes())
    count = "SELECT count(*) FROM score WHERE measure = 'map'"
    with Warehouse(path) as wh:
        before = wh.con.execute(count).fetchone()[0]
        wh.evaluate(["map"], campaign="trec", qrels="qrels.test", store=True)
        assert wh.con.execute(count).fetchone()[0] == before == 3
        # other options are stored beside, not over
        wh.evaluate(["map"], campaign="trec", qrels="qrels.test", store=True,
                    options=EvalOptions(depth=10))
        assert wh.con.execute(count).fetchone()[0] == 6


def test_campaign_eval_prints_trec_eval_output(warehouse):
    out = ok("eval", "-C", "trec", "--qrels", "qrels.test", "-w", warehouse)
    assert out.stdout == (TREC_EVAL_DATA / "v9.0.8" / "out.test").read_text()
    out = ok("eval", "-C", "trec", "--qrels", "qrels.test", "--trec-eval-version", "10",
             "-w", warehouse)
    assert out.stdout == (TREC_EVAL_DATA / "out.test").read_text()


def test_file_eval_like_trec_eval():
    out = ok("eval", QRELS, RUN)
    assert out.stdout == (TREC_EVAL_DATA / "v9.0.8" / "out.test").read_text()


def test_ambiguous_qrels_needs_a_choice(warehouse):
    result = irw("eval", "-C", "trec", "-w", warehouse)
    assert result.exit_code == 1 and "choose one with --qrels" in result.stderr


def test_env_var_names_the_warehouse(tmp_path):
    path = tmp_path / "from-env.duckdb"
    env = {"IRW_WAREHOUSE": str(path)}
    ok("init", env=env)
    assert path.exists()
    ok("ingest", "qrels", QRELS, "-C", "env", env=env)
    ok("ingest", "run", RUN, "-C", "env", env=env)
    out = ok("eval", "-C", "env", "-m", "map", env=env)
    assert out.stdout.splitlines()[-1] == "map                   \tall\t0.1785"   # v9.0.8/out.test
    # -w wins over the variable
    other = tmp_path / "other.duckdb"
    ok("init", "-w", other, env=env)
    assert irw("eval", "-C", "env", "-m", "map", "-w", other, env=env).exit_code == 1


def test_eval_campaign_of_missing_warehouse(tmp_path):
    result = irw("eval", "-C", "x", "-w", tmp_path / "none.duckdb")
    assert result.exit_code == 1 and "irw init" in result.stderr
    assert not (tmp_path / "none.duckdb").exists()


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json"])
def test_formats(fmt):
    measures = ["-m", "map", "-m", "P.10", "-m", "num_ret"]
    out = ok("eval", QRELS, RUN, "-q", "--format", fmt, *measures).stdout
    if fmt == "json":
        rows = json.loads(out)
    else:
        rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
    assert {tuple(sorted(r)) for r in rows} == {("measure", "run", "topic", "value")}
    got = {(r["measure"], r["topic"]): float(r["value"]) for r in rows}
    assert {r["run"] for r in rows} == {"STANDARD"}
    expected = expected_rows()
    assert len(got) == 3 * 4
    for (measure, topic), value in got.items():
        printed = expected[(measure, topic)]
        assert (str(int(value)) if measure == "num_ret" else f"{value:6.4f}") == printed
    # full precision, not the printed rounding
    assert any(abs(v * 1e4 - round(v * 1e4)) > 1e-6 for v in got.values())
    # without -q: only the summary rows
    out = ok("eval", QRELS, RUN, "--format", fmt, *measures).stdout
    rows = json.loads(out) if fmt == "json" else list(
        csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
    assert {r["topic"] for r in rows} == {"all"} and len(rows) == 3


IR_MEASURES = {
    "AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
    "R@100": "recall_100", "Rprec": "Rprec", "Bpref": "bpref", "SetF(beta=1)": "set_F",
    "nDCG": "ndcg", "AP@100": "map_cut_100", "Success@5": "success_5", "SetP": "set_P",
    "NumRet": "num_ret", "NumRelRet": "num_rel_ret", "IPrec@0.1": "iprec_at_recall_0.10",
    "infAP": "infAP",
}


@pytest.mark.parametrize("qrels", [QRELS, GRADED])
def test_ir_measures_names_match_trec_eval_names(qrels):
    irm = evaluate_files(qrels, [RUN], list(IR_MEASURES))
    trec = evaluate_files(qrels, [RUN], sorted(set(IR_MEASURES.values())))
    ours = {(r["measure"], r["topic"]): r["value"] for r in irm.per_topic.to_pylist()}
    theirs = {(r["measure"], r["topic"]): r["value"] for r in trec.per_topic.to_pylist()}
    for name, trec_name in IR_MEASURES.items():
        for topic in ("301", "302", "303"):
            assert ours[(name, topic)] == theirs[(trec_name, topic)], (name, topic)
    summary = {r["measure"]: r["value"] for r in irm.summary.to_pylist()}
    trec_summary = {r["measure"]: r["value"] for r in trec.summary.to_pylist()}
    assert all(summary[n] == trec_summary[t] for n, t in IR_MEASURES.items())


def test_ir_measures_names_match_the_ir_measures_library():
    ir_measures = pytest.importorskip("ir_measures")
    # ir_measures itself wants SetF(beta=1.0); irwarehouse accepts both spellings
    names = {"AP": "AP", "P@10": "P@10", "nDCG@10": "nDCG@10", "RR": "RR", "R@100": "R@100",
             "Rprec": "Rprec", "Bpref": "Bpref", "SetF(beta=1)": "SetF(beta=1.0)",
             "IPrec@0.1": "IPrec@0.1", "infAP": "infAP"}
    qrels = list(ir_measures.read_trec_qrels(str(GRADED)))
    run = list(ir_measures.read_trec_run(str(RUN)))
    theirs = {(str(m.measure), m.query_id): m.value
              for m in ir_measures.iter_calc([ir_measures.parse_measure(n)
                                              for n in names.values()], qrels, run)}
    result = evaluate_files(GRADED, [RUN], list(names))
    ours = {(r["measure"], r["topic"]): r["value"] for r in result.per_topic.to_pylist()}
    for name, irm_name in names.items():
        key = str(ir_measures.parse_measure(irm_name))
        for topic in ("301", "302", "303"):
            assert math.isclose(ours[(name, topic)], theirs[(key, topic)], abs_tol=1e-9), \
                (name, topic)


def test_scores_to_pandas(warehouse):
    pd = pytest.importorskip("pandas")
    with Warehouse(warehouse, read_only=True) as wh:
        table = wh.scores("trec", "map")
        df = table.to_pandas()
        everything = wh.scores().to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df["topic"]) == ["301", "302", "303"]
    assert {"campaign", "run", "team", "qrels", "topic", "measure", "value"} <= set(df.columns)
    assert df["value"].dtype == "float64"
    expected = expected_rows()
    assert [f"{v:6.4f}" for v in df["value"]] == [expected[("map", t)]
                                                  for t in ("301", "302", "303")]
    assert len(everything) > len(df) and set(everything["campaign"]) == {"trec"}
    means = everything.groupby("measure")["value"].mean()
    assert f"{means['map']:6.4f}" == expected[("map", "all")]


def test_measures_command_lists_the_registry():
    out = ok("measures").stdout
    for name in ("map", "P", "ndcg_cut", "iprec_at_recall", "rbp", "unj"):
        assert any(line.split()[0] == name for line in out.splitlines()), name


@pytest.mark.parametrize("fmt", ["trec_eval", "tsv", "csv", "json"])
def test_nan_values_in_every_format(tmp_path, fmt):
    """An empty evaluated list (-J, nothing judged retrieved) has NaN iprec_at_recall_0.00, as
    trec_eval prints it ('  -nan'); JSON has no NaN and gets null."""
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 1.0 r\n")
    out = ok("eval", tmp_path / "q", tmp_path / "r", "-J", "-q", "-m", "iprec_at_recall..0",
             "-m", "map", "--format", fmt).stdout
    if fmt == "trec_eval":
        assert out == ("map                   \t1\t0.0000\niprec_at_recall_0.00  \t1\t  -nan\n"
                       "map                   \tall\t0.0000\niprec_at_recall_0.00  \tall\t  -nan\n")
    elif fmt == "json":
        rows = json.loads(out)
        assert [r["value"] for r in rows] == [0.0, None, 0.0, None]
    else:
        rows = list(csv.DictReader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
        assert [r["value"] for r in rows] == ["0.0", "nan", "0.0", "nan"]


@pytest.mark.parametrize("measure", ["ndcg.-1=2,1=1", "ndcg.-2=3,2=1"])
def test_unsupported_gains_are_refused(measure):
    """trec_eval gives retrieved documents outside the qrels (-1) or unjudged (-2) these gains;
    irwarehouse cannot, and says so instead of computing something else."""
    result = irw("eval", QRELS, RUN, "-m", measure)
    assert result.exit_code == 1 and "is not supported" in result.stderr


def test_rows_result_equals_the_arrow_result():
    """The CLI's results stay Python rows (evaluate.Rows, no pyarrow import); made a Table they
    equal the API's Arrow result, column types included, and they read like one."""
    import pyarrow as pa

    from irwarehouse.engine.evaluate import Rows
    measures = ["map", "P.10", "relstring", "num_rel"]
    rows = evaluate_files(QRELS, [RUN], measures, arrow=False)
    table = evaluate_files(QRELS, [RUN], measures)
    assert isinstance(rows.per_topic, Rows) and isinstance(table.per_topic, pa.Table)
    for name in ("per_topic", "summary"):
        got, want = getattr(rows, name), getattr(table, name)
        assert got.to_pylist() == want.to_pylist()
        assert got.to_pydict() == want.to_pydict()
        assert got.num_rows == want.num_rows > 0
        assert got.to_arrow().schema == want.schema
        assert got["measure"].to_pylist() == want["measure"].to_pylist()   # Table access
    assert rows.with_arrow().per_topic.equals(table.per_topic)
