"""The Spark path without Spark (no Java needed): macros inlined into plain SELECTs
(irwarehouse.spark.inline), the portable rewrites (sql/portable), the transpiler's rules
(irwarehouse.spark.dialect), portability in the catalog, `irw export campaign` and
`irw sql --engine spark --explain`.

* every measure's inlined SELECT, run by DuckDB itself, returns what its macro returns (the
  inlining is DuckDB's own macro expansion, and the portable rewrites compute the same
  relations);
* the transpiled Spark SQL of every portable measure reads back in sqlglot's Spark dialect and
  calls only functions Spark has (the round trip); a measure marked not portable fails to
  transpile, and one marked portable does not;
* `--engine spark` refuses a measure that is not portable, by name, with the catalog's reason.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

import duckdb
import pyarrow.dataset as ds
import pytest
import sqlglot
from _paths import DATA, REALDATA
from sqlglot import exp
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import MeasureError
from irwarehouse.evaluate import EvalOptions
from irwarehouse.measures import MeasureRequest, parse_measures, registry
from irwarehouse.spark import dialect, portability
from irwarehouse.spark.dialect import SPARK_FUNCTIONS, NotPortable, to_spark
from irwarehouse.spark.engine import (
    _BUILDER_TYPES,
    _option_values,
    _typed,
    refuse_unportable,
)
from irwarehouse.spark.export import MANIFEST, export_campaign
from irwarehouse.spark.inline import InlineError, Inliner, fold_constants
from irwarehouse.sqlassets import builder

WEB12 = REALDATA / "trec2012_web_diversity"


def diversity_files(folder: Path, seed: int = 7) -> tuple[Path, Path, Path]:
    """A small random diversity campaign: qrels `topic subtopic doc level` (with unjudged -1
    levels), DINprob intents, and two runs whose scores tie now and then."""
    rng = random.Random(seed)
    qrels, intents, runs = [], [], {"divrun": [], "divrun2": []}
    for t in range(1, 5):
        docs = [f"d{t}-{k:02d}" for k in range(30)]
        n = rng.randint(2, 4)
        probs = [rng.random() + 0.1 for _ in range(n)]
        for i in range(1, n + 1):
            intents.append(f"{t} {i} {probs[i - 1] / sum(probs):.6f} "
                           f"{'nav' if rng.random() < 0.3 else 'inf'}")
            for doc in rng.sample(docs, 12):
                qrels.append(f"{t} {i} {doc} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}")
        for tag, lines in runs.items():
            for rank, doc in enumerate(rng.sample(docs, 25), start=1):
                lines.append(f"{t} Q0 {doc} {rank} {round(rng.random() * 5, 1)} {tag}")
    paths = folder / "div.qrels", folder / "div.DINprob"
    for path, lines in zip(paths, (qrels, intents)):
        path.write_text("\n".join(lines) + "\n")
    run_paths = []
    for tag, lines in runs.items():
        run_paths.append(folder / f"{tag}.run")
        run_paths[-1].write_text("\n".join(lines) + "\n")
    return paths[0], paths[1], run_paths


def build_small_warehouse(path: Path) -> Path:
    """sample: NIST's trec_eval test files with graded qrels and document lengths; div: a
    random diversity campaign with intents."""
    folder = path.parent
    docs = {line.split()[2] for line in
            (DATA / "runs" / "STANDARD.results.test").read_text().splitlines()}
    lengths = folder / "lengths.tsv"
    lengths.write_text("".join(f"{d}\t{len(d) * 37 % 900 + 50}\t{len(d) * 211 % 5000 + 300}\n"
                               for d in sorted(docs)))
    dqrels, dinprob, druns = diversity_files(folder)
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.rel_level", "sample", name="graded")
        for run in sorted((DATA / "runs").glob("*")):
            wh.ingest_run(run, "sample", name=run.name)
        wh.ingest_doclengths(lengths, "sample")
        wh.ingest_qrels(dqrels, "div", fmt="diversity")
        wh.ingest_intents(dinprob, "div")
        for run in druns:
            wh.ingest_run(run, "div")
    return path


def default_request(mdef) -> MeasureRequest:
    """The measure with its default parameters (one value of a list default: 10 if listed)."""
    args = []
    for p in mdef.params:
        text = p.default
        if p.is_list_default:
            values = p.default.split(",")
            text = "10" if "10" in values else values[0]
        if p.type == "MAP":
            args.append({int(k): float(v) for k, v in (x.split(":") for x in
                                                       text.strip("{} ").split(",") if x)})
        elif p.type == "DOUBLE[]":
            args.append([float(x) for x in text.strip("[]").split(",")])
        elif p.type == "INTEGER":
            args.append(int(float(text)))
        else:
            args.append(float(text))
    return MeasureRequest(mdef, tuple(args), mdef.name)


def campaign_of(mdef) -> str:
    return "div" if mdef.family.startswith("diversity") else "sample"


def macro_kwargs(req: MeasureRequest) -> dict:
    """The measure's parameters as arguments of its irw_ macro (syntax trees)."""
    return {p.name: _typed(a, {"MAP": "MAP(INTEGER, DOUBLE)"}.get(p.type, p.type))
            for p, a in zip(req.mdef.params, req.args)}


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12
    return a == b


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    return build_small_warehouse(tmp_path_factory.mktemp("spark_small") / "w.duckdb")


# -- inlining, checked by DuckDB itself ---------------------------------------------------

@pytest.mark.slow
def test_every_inlined_measure_returns_what_its_macro_returns(small):
    """The irw_ macro of every measure, inlined (portable rewrites, constants folded) into one
    plain SELECT and run by DuckDB, against the macro itself."""
    inliner = Inliner(portable=True)
    differ = []
    with duckdb.connect(str(small), read_only=True) as con:
        for name, mdef in registry().items():
            req, campaign = default_request(mdef), campaign_of(mdef)
            kwargs = macro_kwargs(req)
            tree = fold_constants(inliner.call(mdef.macro, [exp.Literal.string(campaign)],
                                               kwargs))
            got = con.execute(tree.sql(dialect="duckdb")).fetchall()
            args = "".join(f", {k} := {v.sql(dialect='duckdb')}" for k, v in kwargs.items())
            want = con.execute(f"SELECT * FROM {mdef.macro}('{campaign}'{args})").fetchall()
            assert want, name
            got, want = sorted(got, key=str), sorted(want, key=str)
            if len(got) != len(want) or not all(
                    a[:2] == b[:2] and same(a[2], b[2]) and a[3:] == b[3:]
                    for a, b in zip(got, want)):
                differ.append(name)
    assert differ == []


def _relation(con, relation: str, campaign: str, portable: bool, opts: EvalOptions):
    """The rows of a context relation built by its builder, inlined, over CTEs of the
    relations it reads (warehouse definitions)."""
    values = _option_values(opts)
    plain = Inliner(portable=False)
    ctes = [f"ev_scope AS ({plain.call('ev_make_scope', [exp.Literal.string(campaign), exp.Null()]).sql(dialect='duckdb')})",
            f"ev_runs AS ({plain.call('ev_make_runs', [exp.Null()]).sql(dialect='duckdb')})"]
    needed = {"ev_counted": ["ev_judgment", "ev_topic", "ev_full_ranked", "ev_ranked"],
              "ev_div_ideal": ["ev_div_judgment"]}[relation]
    for dep in needed:
        make = builder(dep)
        args = [_typed(values[a], _BUILDER_TYPES[a]) for a in make.args]
        ctes.append(f"{dep} AS ({plain.call(make.name, args).sql(dialect='duckdb')})")
    args = [_typed(0.5, "DOUBLE")] if relation == "ev_div_ideal" else []
    body = Inliner(portable=portable).call(builder(relation).name, args)
    sql = f"WITH {', '.join(ctes)} SELECT * FROM ({body.sql(dialect='duckdb')})"
    return sorted(con.execute(sql).fetchall(), key=str)


@pytest.mark.parametrize("relation", ["ev_counted", "ev_div_ideal"])
@pytest.mark.parametrize("opts", [EvalOptions(), EvalOptions(judged_only=True, threshold=2)],
                         ids=["default", "J-l2"])
def test_portable_rewrites_build_the_same_relations(small, relation, opts):
    """sql/portable's ev_counted (three running sums, no HUGEINT) and ev_div_ideal (a fold, no
    recursive CTE) against context.sql's, on DuckDB."""
    with duckdb.connect(str(small), read_only=True) as con:
        for campaign in ("sample", "div"):
            want = _relation(con, relation, campaign, False, opts)
            assert want
            assert _relation(con, relation, campaign, True, opts) == want


@pytest.mark.slow
@pytest.mark.realdata
@pytest.mark.skipif(not WEB12.is_dir(), reason="../shared/realdata/trec2012_web_diversity absent")
def test_portable_greedy_ideal_list_on_trec_2012_web(tmp_path):
    """ndeval's greedy ideal lists of the 50 TREC 2012 Web topics (up to 6 subtopics, 5,559
    ranked documents), fold against recursive CTE."""
    path = tmp_path / "web.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(WEB12 / "qrels" / "qrels.diversity.txt", "web12", fmt="diversity")
    with duckdb.connect(str(path), read_only=True) as con:
        for alpha_opts in (EvalOptions(),):
            want = _relation(con, "ev_div_ideal", "web12", False, alpha_opts)
            assert len(want) == 5559
            assert _relation(con, "ev_div_ideal", "web12", True, alpha_opts) == want


# -- transpiling ---------------------------------------------------------------------------

def _spark_sql(mdef) -> str:
    req = default_request(mdef)
    tree = Inliner(portable=True).call(mdef.macro, [exp.Placeholder(this="campaign")],
                                       macro_kwargs(req))
    return to_spark(tree)


def _functions(tree: exp.Expression) -> set[str]:
    return {node.name.lower() for node in tree.find_all(exp.Anonymous)}


@pytest.mark.slow
def test_every_portable_measure_transpiles_and_reads_back_as_spark_sql():
    """Portability as the catalog says it, both ways; the Spark SQL of every portable measure
    parses in sqlglot's Spark dialect (round trip), keeps no macro call, and every function
    sqlglot does not know is one Spark has (SPARK_FUNCTIONS, checked against Spark's own list
    in test_spark_engine)."""
    macro_names = {m.lower() for m in (*(d.macro for d in registry().values()),
                                       *Inliner().macros)}
    problems = []
    for name, mdef in registry().items():
        portable, reason = portability.measure_portability(mdef)
        try:
            sql = _spark_sql(mdef)
        except NotPortable:
            if portable:
                problems.append(f"{name}: said portable, does not transpile")
            continue
        if not portable:
            problems.append(f"{name}: said not portable ({reason}), transpiles")
            continue
        tree = sqlglot.parse_one(sql, read=dialect.SparkSQL)
        again = sqlglot.parse_one(tree.sql(dialect=dialect.SparkSQL), read=dialect.SparkSQL)
        assert again == tree, name
        unknown = _functions(tree) - SPARK_FUNCTIONS
        if unknown:
            problems.append(f"{name}: functions Spark lacks: {sorted(unknown)}")
        called = {t.name.lower() for t in tree.find_all(exp.Table)} & macro_names
        if called:
            problems.append(f"{name}: macros left: {sorted(called)}")
    assert problems == []


def _rule(sql: str) -> exp.Expression:
    """The Spark syntax tree of a DuckDB expression (bracket indices marked as the inliner
    marks them)."""
    from irwarehouse.spark.inline import mark_index_shift
    tree = sqlglot.parse_one(f"SELECT {sql} FROM t", read="duckdb").transform(mark_index_shift)
    return dialect.to_spark_tree(tree).selects[0]


def test_decimal_literals_become_doubles():
    """Spark keeps 1.0/3 a DECIMAL (0.333333); DuckDB divides decimals as doubles."""
    node = _rule("x * 0.5")
    assert isinstance(node.expression, exp.Cast) and node.expression.to.is_type("double")
    assert not isinstance(_rule("x * 5").expression, exp.Cast)


def test_division_keeps_ieee_results_for_a_zero_divisor():
    node = _rule("a / b")
    assert isinstance(node, exp.Case)
    by_zero = node.args["ifs"][0]
    assert isinstance(by_zero.this, exp.EQ) and by_zero.this.expression.name == "0"
    assert any(n.name.lower() == "power" for n in by_zero.find_all(exp.Anonymous))
    assert isinstance(node.args["default"], exp.Div)
    assert isinstance(_rule("a / 2"), exp.Div)


def test_list_indices_are_one_based_and_map_keys_are_kept():
    """DuckDB l[2] is Spark try_element_at(l, 2); a map's key stays the key written (sqlglot
    stores a literal index minus one, keys of maps too)."""
    node = _rule("l[2]")
    assert node.name.lower() == "try_element_at"
    assert node.expressions[1].this.name == "2"
    node = _rule("CAST(g AS MAP(INTEGER, DOUBLE))[-2]")
    assert isinstance(node, exp.Bracket)
    assert node.expressions[0].sql(dialect="spark") == "-2"
    node = _rule("CAST(g AS MAP(INTEGER, DOUBLE))[rel]")
    assert node.expressions[0].name == "rel"


def test_rules_of_other_duckdb_constructs():
    assert _rule("error('x')").name.lower() == "raise_error"
    assert isinstance(_rule("log(x)"), exp.Log) and _rule("log(x)").this.name == "10"
    assert isinstance(_rule("regexp_full_match(a, '[0-9]+')"), exp.RegexpLike)
    assert _rule("regexp_full_match(a, '[0-9]+')").expression.name == "^(?:[0-9]+)$"
    assert _rule("list_sum(l)").name.lower() == "aggregate"
    ordered = _rule("list(x ORDER BY s)")
    assert isinstance(ordered, exp.Transform)
    assert ordered.this.name.lower() == "sort_array"
    assert _rule("len(map_keys(g))").key == "arraysize"


@pytest.mark.parametrize("sql, construct", [
    ("CAST(x AS HUGEINT)", "HUGEINT"),
    ("[0 for x in range(3)]", "list comprehensions"),
    ("rowid", "rowid"),
    ("list(x ORDER BY s DESC)", "DESC"),
])
def test_constructs_without_a_rule_are_not_portable(sql, construct):
    with pytest.raises(NotPortable, match=construct):
        _rule(sql)


def test_the_warehouse_definitions_of_the_rewritten_macros_are_not_portable():
    """Without sql/portable, ev_counted (HUGEINT) and the greedy ideal list (a recursive CTE
    with list state) have no Spark translation: the rewrites are what makes them portable."""
    plain = Inliner(portable=False)
    with pytest.raises(NotPortable, match="HUGEINT"):
        to_spark(plain.call("ev_make_counted"))
    with pytest.raises(NotPortable):
        to_spark(plain.call("ev_make_div_ideal", [_typed(0.5, "DOUBLE")]))


def test_inlining_errors_name_the_macro():
    inliner = Inliner()
    with pytest.raises(InlineError, match="irw_map has no parameter 'cutof'"):
        inliner.call("irw_map", [exp.Literal.string("c")], {"cutof": exp.Literal.number(1)})
    with pytest.raises(InlineError, match="give campaign"):
        inliner.call("irw_map")


# -- the catalog and refusals --------------------------------------------------------------

def test_the_catalog_says_whether_each_measure_is_portable(small):
    with duckdb.connect(str(small), read_only=True) as con:
        rows = con.execute("SELECT measure, portable, portable_reason FROM measure_catalog"
                           ).fetchall()
    assert {r[0] for r in rows} == set(registry())
    for measure, portable, reason in rows:
        assert (portable, reason) == portability.measure_portability(registry()[measure])
        assert portable == (reason is None)


@pytest.fixture
def ndeval_not_portable(monkeypatch):
    """Mark ndeval's greedy ideal list as having no Spark translation (no macro of this
    version lacks one: this is how a future one would be refused)."""
    monkeypatch.setitem(portability.NOT_PORTABLE, "ev_make_div_ideal", "no rule yet")
    return "ev_make_div_ideal"


def test_measures_that_are_not_portable_are_refused_by_name(ndeval_not_portable):
    requests = parse_measures(["map", "alpha-nDCG@20", "nERR-IA@20"])
    with pytest.raises(MeasureError) as err:
        refuse_unportable(requests)
    text = str(err.value)
    assert "alpha-nDCG@20 (" in text and "nERR-IA@20 (" in text and "map (" not in text
    assert "ev_make_div_ideal: no rule yet" in text
    refuse_unportable(parse_measures(["map", "P.10"]))


def test_irw_eval_engine_spark_refuses_them_before_starting_spark(ndeval_not_portable, small,
                                                                   tmp_path):
    """The refusal needs neither Java nor pyspark: it comes first, from the catalog."""
    result = CliRunner().invoke(app, ["eval", "--engine", "spark", "-C", "div", "-w",
                                      str(small), "-m", "alpha-nDCG@20", "-m", "map"])
    assert result.exit_code == 1
    assert "not portable to Spark: alpha-nDCG" in result.output
    assert "no rule yet" in result.output


# -- export ----------------------------------------------------------------------------------

def test_export_campaign_writes_its_tables_partitioned_by_run(small, tmp_path):
    out = tmp_path / "export"
    result = CliRunner().invoke(app, ["export", "campaign", "div", "--format", "parquet",
                                      str(out), "-w", str(small)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["campaigns"] == ["div"]
    with duckdb.connect(str(small), read_only=True) as con:
        run_ids = {r for (r,) in con.execute(
            "SELECT run_id FROM run JOIN campaign USING (campaign_id) WHERE campaign.name = "
            "'div'").fetchall()}
        div = "(SELECT campaign_id FROM campaign WHERE name = 'div')"
        for table, want_sql in (
                ("run_row", ("SELECT * FROM run_row WHERE run_id IN (SELECT run_id FROM run "
                             f"WHERE campaign_id = {div})")),
                ("judgment", ("SELECT * FROM judgment WHERE qrels_id IN (SELECT qrels_id "
                              f"FROM qrels WHERE campaign_id = {div})")),
                ("intent", f"SELECT * FROM intent WHERE campaign_id = {div}")):
            cursor = con.execute(want_sql)
            names = [d[0] for d in cursor.description]
            want = sorted(cursor.fetchall(), key=str)
            got = ds.dataset(out / table, format="parquet", partitioning="hive").to_table()
            got = sorted(zip(*[got[n].to_pylist() for n in names]), key=str)
            assert got == want, table
            assert manifest["tables"][table]["rows"] == len(want)
    assert {p.name for p in (out / "run_row").iterdir()} == {f"run_id={r}" for r in run_ids}
    assert {p.name for p in (out / "judged_row").iterdir()} == {f"run_id={r}" for r in run_ids}
    assert not (out / "session_row").exists()          # none stored: not written


def test_export_refuses_a_folder_that_is_not_an_earlier_export(small, tmp_path):
    out = tmp_path / "export"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["export", "campaign", "div", str(out), "-w", str(small),
                                      "--replace"])
    assert result.exit_code == 1
    assert "not an irw export" in result.output
    assert (out / "notes.txt").read_text() == "mine"
    with duckdb.connect(str(small), read_only=True) as con:
        export_campaign(con, "div", tmp_path / "again")
        with pytest.raises(Exception, match="not empty"):
            export_campaign(con, "div", tmp_path / "again")
        export_campaign(con, "sample", tmp_path / "again", replace=True)
        with pytest.raises(Exception, match="no campaign 'nope'"):
            export_campaign(con, "nope", tmp_path / "other")
    assert json.loads((tmp_path / "again" / MANIFEST).read_text())["campaign"] == "sample"
    assert not (tmp_path / "other").exists()


# -- irw sql --engine spark --explain ---------------------------------------------------------

def test_irw_sql_explain_shows_the_transpiled_query(small):
    query = ("SELECT run, avg(value) AS mean FROM irw_ndcg_cut('sample', cutoff := 10) "
             "GROUP BY run ORDER BY run")
    result = CliRunner().invoke(app, ["sql", "--engine", "spark", "--explain", query, "-w",
                                      str(small)])
    assert result.exit_code == 0, result.output
    tree = sqlglot.parse_one(result.output, read=dialect.SparkSQL)
    tables = {t.name for t in tree.find_all(exp.Table)}
    assert {"run_row", "judgment", "judged_row", "run"} <= tables
    assert not any(t.lower().startswith(("irw_", "m_", "ev_make")) for t in tables)
    assert "'sample'" in result.output and "GROUP BY" in result.output


def test_irw_sql_engine_spark_keeps_the_read_only_guard(small):
    result = CliRunner().invoke(app, ["sql", "--engine", "spark", "--explain",
                                      "DELETE FROM run", "-w", str(small)])
    assert result.exit_code == 1
    assert "refused" in result.output


def test_spark_options_belong_to_the_spark_engine(small):
    result = CliRunner().invoke(app, ["sql", "--explain", "SELECT 1", "-w", str(small)])
    assert result.exit_code == 1 and "--engine spark" in result.output
    result = CliRunner().invoke(app, ["eval", "-C", "sample", "--data", "x", "-w", str(small)])
    assert result.exit_code == 1 and "--engine spark" in result.output


if __name__ == "__main__":                                        # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
