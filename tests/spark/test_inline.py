"""Macros inlined into plain SELECTs (irwarehouse.spark.inline) and the portable rewrites
(sql/portable), checked by DuckDB itself: every measure's inlined SELECT returns what its macro
returns (the inlining is DuckDB's own macro expansion), and the rewrites build the same
relations as context.sql's. No Java needed."""

from __future__ import annotations

import duckdb
import pytest
from sqlglot import exp

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions
from irwarehouse.measures import registry
from irwarehouse.spark.engine import _BUILDER_TYPES, _option_values, _typed
from irwarehouse.spark.inline import InlineError, Inliner, fold_constants
from irwarehouse.sqlfiles import builder
from tests.helpers.catalog import default_request
from tests.helpers.paths import REALDATA
from tests.helpers.small_campaign import campaign_of, macro_kwargs, same

WEB12 = REALDATA / "trec2012_web_diversity"


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
              "ev_relevant": ["ev_judgment", "ev_topic", "ev_full_ranked", "ev_ranked"],
              "ev_div_ideal": ["ev_div_judgment"],
              "ev_ranked": ["ev_judgment", "ev_topic", "ev_full_ranked"]}[relation]
    for dep in needed:
        make = builder(dep)
        args = [_typed(values[a], _BUILDER_TYPES[a]) for a in make.args]
        ctes.append(f"{dep} AS ({plain.call(make.name, args).sql(dialect='duckdb')})")
    args = [_typed(0.5, "DOUBLE")] if relation == "ev_div_ideal" else [
        _typed(values[a], _BUILDER_TYPES[a]) for a in builder(relation).args]
    body = Inliner(portable=portable).call(builder(relation).name, args)
    # ev_relevant's precision_sum: AP's running sum stored with relevant_row (context.sql
    # reads it, the portable rewrite leaves it NULL and AP adds the terms itself)
    columns = "* EXCLUDE (precision_sum)" if relation == "ev_relevant" else "*"
    sql = f"WITH {', '.join(ctes)} SELECT {columns} FROM ({body.sql(dialect='duckdb')})"
    return sorted(con.execute(sql).fetchall(), key=str)


@pytest.mark.parametrize("relation", ["ev_counted", "ev_div_ideal", "ev_relevant", "ev_ranked"])
@pytest.mark.parametrize("opts", [EvalOptions(), EvalOptions(judged_only=True, threshold=2)],
                         ids=["default", "J-l2"])
def test_portable_rewrites_build_the_same_relations(small, relation, opts):
    """sql/portable's ev_counted (three running sums, no HUGEINT), ev_div_ideal (a fold, no
    recursive CTE), ev_relevant (its window for every run, no relevant_row: the same rows
    and counts, without AP's stored running sums) and ev_ranked (one
    pass, the plan Spark analyses halved) against context.sql's, on DuckDB."""
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


def test_inlining_errors_name_the_macro():
    inliner = Inliner()
    with pytest.raises(InlineError, match="irw_map has no parameter 'cutof'"):
        inliner.call("irw_map", [exp.Literal.string("c")], {"cutof": exp.Literal.number(1)})
    with pytest.raises(InlineError, match="give campaign"):
        inliner.call("irw_map")
