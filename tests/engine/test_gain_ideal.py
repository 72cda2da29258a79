"""trec_eval's ideal gain rankings as one context relation (ev_gain_ideal, sql/context.sql),
read by G, ndcg_rel and Rndcg for their gain table (sql/metrics/gain.sql: ev_gain_ideal_of),
and the evaluation's statements without DuckDB's join filter pushdown
(engine/evaluate.py: join_filters_off).

* Three gain tables in one evaluation (the relation then holds one ideal ranking per table,
  keyed by its levels and gains in the order given) print what the trec_eval 9.0.8 and 10.0
  binaries print for each table (tests/data/gain/custom*.expected).
* Each measure's values are the same bits whatever other gain tables are evaluated beside it,
  under -J, -c, -M and -l, and the same bits as the analyst's macro irw_<measure>, which builds
  the relation for its one table as a CTE.
"""

from __future__ import annotations

import math
import shlex

import duckdb
import pytest

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.engine.evaluate import EvalOptions, gain_maps, join_filters_off
from irwarehouse.measures import parse_measures
from irwarehouse.writers import render
from tests.helpers.paths import TEST_DATA

DATA = TEST_DATA / "gain"

# Three gain tables in one evaluation (one per measure: trec_eval keeps one parameterisation of
# a measure, the last given): tables of one level set in two orders (the order decides ties
# between gains less than 1 apart), a table shared by two measures, the default table, negative
# levels (documents outside the qrels, unjudged ones)
TRIPLES = [("G.1=3,2=9", "ndcg_rel.2=4.5,1=4.2", "Rndcg.1=4.2,2=4.5"),
           ("G.2=4.5,1=4.2", "ndcg_rel.2=4.5,1=4.2", "Rndcg.-1=1,0=-1"),
           ("G", "ndcg_rel.-2=3", "Rndcg.3=1")]


def _expected_blocks(name: str) -> list[tuple[list[str], list[str]]]:
    """(trec_eval arguments, printed lines) of each `## files args` block of an expected file."""
    blocks, current = [], None
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("## "):
            current = (shlex.split(line[3:]), [])
            blocks.append(current)
        elif not line.startswith("#"):
            current[1].append(line)
    return blocks


def _printed(text: str) -> dict[tuple[str, str], str]:
    return {(p[0], p[1]): p[2] for p in (line.split() for line in text.splitlines())
            if len(p) == 3 and p[0].split("_")[0] in ("G", "ndcg", "Rndcg")}


# (trec_eval version, expected file, files, options): trec_eval 10.0 prints custom.expected
# too except for its -c block (tests/data/gain/README.md)
CASES = [(9, "custom.expected", ["tiny.qrels", "tiny.run"], []),
         (10, "custom.expected", ["tiny.qrels", "tiny.run"], []),
         (10, "custom10.expected", ["tiny.qrels", "tiny_no_t4.run"], ["-c"])]


@pytest.mark.parametrize("version, name, files, options", CASES,
                         ids=["v9", "v10", "v10 -c"])
def test_three_gain_tables_in_one_evaluation_print_what_trec_eval_prints(version, name, files,
                                                                           options):
    """G, ndcg_rel and Rndcg each with the table of another block of the expected file (each
    block a trec_eval run, its three measures with their own tables), evaluated together: three
    tables in one ev_gain_ideal, each measure's rows as trec_eval printed them for its table."""
    blocks = {}                     # measure -> [(its argument, expected rows)]
    for args, lines in _expected_blocks(name):
        n = 2 + len(options)
        if args[:n] != files + options or args[n] != "-m":
            continue                # other files or options
        rows = _printed("\n".join(lines))
        for measure in args[n + 1::2]:
            base = measure.split(".")[0]
            blocks.setdefault(base, []).append(
                (measure, {k: v for k, v in rows.items() if k[0].split("_")[0] ==
                           base.split("_")[0] and k[0].startswith(base)}))
    sizes = [len(blocks[m]) for m in ("G", "ndcg_rel", "Rndcg")]
    assert min(sizes) >= 2
    evaluated = 0
    for i in range(max(sizes)):
        chosen = [blocks["G"][i % sizes[0]], blocks["ndcg_rel"][(i + 1) % sizes[1]],
                  blocks["Rndcg"][(i + 2) % sizes[2]]]
        measures = [m for m, _ in chosen]
        expected = {k: v for _, rows in chosen for k, v in rows.items()}
        assert len(expected) == 15, measures
        result = evaluate_files(DATA / files[0], [DATA / files[1]], measures,
                                options=EvalOptions(version=version, complete="-c" in options))
        got = _printed(render(result, "trec_eval", per_topic=True))
        assert {k: got.get(k) for k in expected} == expected, measures
        evaluated += len(gain_maps(parse_measures(measures))) > 1
    assert evaluated >= 2


def _values(result) -> dict[tuple[str, str], float]:
    return {(r["measure"], r["topic"]): r["value"] for r in result.per_topic.to_pylist()}


def _same_bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                 math.copysign(1, b))


OPTIONS = [{}, {"judged_only": True}, {"complete": True}, {"depth": 4}, {"threshold": 2},
           {"version": 10, "complete": True}]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
                         or "default")
def test_values_do_not_depend_on_the_other_gain_tables(opts):
    """Each measure alone (its table alone in ev_gain_ideal) and with the other two tables:
    the same bits, topic by topic (tiny_no_t4.run: a topic absent from the run, for -c)."""
    run = DATA / ("tiny_no_t4.run" if opts.get("complete") else "tiny.run")
    compared = 0
    for triple in TRIPLES:
        together = _values(evaluate_files(DATA / "tiny.qrels", [run], list(triple),
                                          options=EvalOptions(**opts)))
        for measure in triple:
            alone = _values(evaluate_files(DATA / "tiny.qrels", [run], [measure],
                                           options=EvalOptions(**opts)))
            assert alone
            for key, value in alone.items():
                assert _same_bits(value, together[key]), (measure, key, value, together[key])
                compared += 1
    assert compared >= 3 * 3 * 4


def test_analyst_macros_give_the_same_bits(tmp_path):
    """irw_G / irw_ndcg_rel / irw_Rndcg (the relation built for the call's one table, as a
    CTE) against `irw eval` of a stored run with three tables at once."""
    checked = 0
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(DATA / "tiny.qrels", "tiny")
        wh.ingest_run(DATA / "tiny.run", "tiny", name="r")
        for triple in TRIPLES:
            together = _values(wh.evaluate(list(triple), campaign="tiny", version=10))
            for measure in triple:
                base, _, table = measure.partition(".")
                gains = ("MAP {" + ", ".join(f"{k}: {float(v)!r}" for k, v in
                                             (kv.split("=") for kv in table.split(",")))
                         + "}" if table else "NULL")
                rows = wh.con.execute(f"SELECT topic, value FROM irw_{base}('tiny', gains := "
                                      f"{gains}, trec_eval_version := 10)").fetchall()
                assert rows
                for topic, value in rows:
                    assert _same_bits(value, together[(measure.replace(".", "_", 1), topic)]), (
                        measure, topic)
                    checked += 1
    assert checked >= 3 * 3 * 4


def test_gain_maps_each_table_once_in_the_order_given():
    requests = parse_measures(["G.2=4.5,1=4.2", "ndcg_rel.2=4.5,1=4.2", "Rndcg.1=4.2,2=4.5",
                               "map", "ndcg.1=3"])
    assert gain_maps(requests) == [{2: 4.5, 1: 4.2}, {1: 4.2, 2: 4.5}]
    assert [list(m) for m in gain_maps(requests)] == [[2, 1], [1, 2]]
    assert gain_maps(parse_measures(["G", "ndcg_rel", "Rndcg.3=1", "P.10"])) == [{}, {3: 1.0}]
    assert gain_maps(parse_measures(["map", "ndcg"])) == []


def test_join_filters_off_restores_the_setting():
    """The optimizer is off inside, and the connection's own setting is back afterwards, also
    after an error."""
    con = duckdb.connect()
    setting = "SELECT current_setting('disabled_optimizers')"
    with join_filters_off(con):
        assert con.execute(setting).fetchone()[0] == "join_filter_pushdown"
    assert con.execute(setting).fetchone()[0] == ""
    con.execute("SET disabled_optimizers = 'top_n'")
    with pytest.raises(ZeroDivisionError), join_filters_off(con):
        assert set(con.execute(setting).fetchone()[0].split(",")) == {
            "top_n", "join_filter_pushdown"}
        raise ZeroDivisionError
    assert con.execute(setting).fetchone()[0] == "top_n"
