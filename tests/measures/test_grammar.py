"""The measure-name grammar (irwarehouse.measures.grammar) and what a name means
(irwarehouse.measures.resolve): every form of docs/measure_names.md, the spellings that name one
measure, the errors; and every command that takes -m reading every spelling alike."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import MeasureError
from irwarehouse.measures import parse_measures
from irwarehouse.measures.grammar import parse, printed_form
from tests.helpers.paths import DATA


@pytest.mark.parametrize(("text", "form", "stem", "extra"), [
    ("P.5,10", "trec", "P", {"dotted": "5,10"}),
    ("ndcg_cut.10", "trec", "ndcg_cut", {"dotted": "10"}),
    ("ndcg.1=3,2=7", "trec", "ndcg", {"dotted": "1=3,2=7"}),
    ("P_10", "trec", "P_10", {}),       # a word; read as P with 10 when P_10 means nothing
    ("map", "trec", "map", {}),
    ("nDCG@10", "call", "nDCG", {"cutoff": "10"}),
    ("SetF(beta=1)", "call", "SetF", {"kwargs": (("beta", "1"),)}),
    ("Q@10", "call", "Q", {"cutoff": "10"}),
    ("nERR@10", "call", "nERR", {"cutoff": "10"}),
    ("D#-nDCG@10", "call", "D#-nDCG", {"cutoff": "10"}),
    ("alpha-nDCG@20", "call", "alpha-nDCG", {"cutoff": "20"}),
    ("alpha-nDCG(alpha=0.3)@10", "call", "alpha-nDCG",
     {"kwargs": (("alpha", "0.3"),), "cutoff": "10"}),
    ("ntcir:Q@10", "call", "Q", {"ntcir": True, "cutoff": "10"}),
    ("condensed:map", "trec", "map", {"condensed": True}),
    ("AP'", "trec", "AP", {"condensed": True}),
])
def test_every_form_is_taken_apart(text, form, stem, extra):
    name = parse(text)
    assert (name.form, name.stem) == (form, stem)
    for key, value in extra.items():
        assert getattr(name, key) == value, key


def test_a_printed_trec_eval_name_is_read_when_the_word_means_nothing_else():
    name = printed_form(parse("iprec_at_recall_0.10"))
    assert (name.stem, name.printed) == ("iprec_at_recall", "0.10")
    assert printed_form(parse("nDCG@10")) is None


def _meaning(text: str):
    return [(r.mdef.name, r.args, r.condensed) for r in parse_measures([text])]


@pytest.mark.parametrize("spellings", [
    ["P.10", "P_10", "P@10"],
    ["ndcg_cut.10", "ndcg_cut_10", "nDCG@10"],
    ["map", "AP"],
    ["recip_rank", "RR"],
    ["condensed:map", "map'", "AP'", "condensed:AP"],
    ["Q@10", "ntcir:Q@10", "Q(beta=1)@10"],
    ["alpha-nDCG@20", "alpha-nDCG(alpha=0.5)@20"],
    ["TBG(gain=1,p_click_rel=0.5)", "TBG(p_click_rel=0.5,gain=1)"],
])
def test_spellings_of_one_measure_mean_the_same(spellings):
    meanings = [_meaning(s) for s in spellings]
    assert all(m == meanings[0] for m in meanings), dict(zip(spellings, meanings))


@pytest.mark.parametrize(("text", "names"), [
    ("P.5,10", ["P_5", "P_10"]),                     # a trec_eval list: one measure per value
    ("P", ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]),
    ("ndcg.1=3,2=7", ["ndcg_1=3,2=7"]),              # printed as trec_eval prints it
    ("nDCG@10", ["nDCG@10"]),                        # other names printed as typed
    ("SetF(beta=1)", ["SetF(beta=1)"]),
    # issue 25: named parameters in the order typed, not the catalog's (p_click_rel, ..., gain)
    ("TBG(gain=1,p_click_rel=0.5)", ["TBG(gain=1,p_click_rel=0.5)"]),
    ("TBG(p_click_rel=0.5,gain=1)", ["TBG(p_click_rel=0.5,gain=1)"]),
    ("condensed:map", ["map'"]),
])
def test_printed_names(text, names):
    assert [r.name for r in parse_measures([text])] == names


def test_the_first_dialect_that_knows_a_word_decides():
    """AP is ir_measures' (trec_eval's map); NTCIREVAL's AP needs ntcir: (docs/measure_names.md)."""
    assert _meaning("AP") == _meaning("map")
    assert parse_measures(["ntcir:AP"])[0].mdef.name == "AP"


def test_a_name_differing_only_in_case_means_the_measure():
    """MAP, NDCG@10, p@10: a name that differs from the catalog's only in case means it when
    every name it could be is the same measure (issue 29: `WHERE measure = 'map'` finds the
    scores asked for as MAP)."""
    assert [r.stored_name() for r in parse_measures(["MAP"])] == ["map"]
    assert [r.stored_name() for r in parse_measures(["NDCG@10"])] == ["ndcg_cut_10"]
    assert [r.stored_name() for r in parse_measures(["p@10"])] == ["P_10"]


@pytest.mark.parametrize(("text", "message"), [
    ("P@1.5", "P@1.5"),
    ("MAPP", "did you mean"),
    ("nDCG@", "nDCG@"),
    ("SetF(gamma=1)", "gamma"),
    ("-m", "not a measure name"),
])
def test_bad_names_are_one_clear_error(text, message):
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_measures([text])


# -- every command that takes -m --------------------------------------------------------------
SPELLINGS = ("P.10", "P_10", "P@10")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The bundled sample with a third run, so that every pair test has pairs."""
    folder = tmp_path_factory.mktemp("sample")
    run = (DATA / "runs" / "STANDARD.results.test").read_text().splitlines()
    (folder / "third").write_text("\n".join(
        " ".join([*f.split()[:4], str(-float(f.split()[4])), "third"]) for f in run) + "\n")
    path = folder / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.test", "s")
        wh.ingest_run(DATA / "runs" / "STANDARD.results.test", "s")
        wh.ingest_run(folder / "third", "s")
    return path


def _invoke(*args) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_irw_eval_reads_every_spelling_alike(sample):
    values = {s: [line.split()[2] for line in _invoke("eval", "-C", "s", "-m", s, "-w",
                                                      str(sample)).splitlines()]
              for s in SPELLINGS}
    assert values["P.10"] == values["P_10"] == values["P@10"] and values["P.10"]


def test_irw_meta_reads_every_spelling_alike(sample):
    out = {s: [{k: v for k, v in row.items() if k != "measure"}
               for row in json.loads(_invoke("meta", "discpower", "-C", "s", "-m", s, "--seed",
                                             "3", "-f", "json", "-w", str(sample)))]
           for s in SPELLINGS}
    assert out["P.10"] == out["P_10"] == out["P@10"] and out["P.10"]


def test_irw_compare_reads_every_spelling_alike(sample):
    out = {s: json.loads(_invoke("compare", "-C", "s", "-m", s, "--seed", "3", "-f", "json",
                                 "-w", str(sample))) for s in SPELLINGS}
    for spelling, rows in out.items():         # each row names the measure as it was asked for
        assert {row.pop("measure") for row in rows} == {spelling}
    assert out["P.10"] == out["P_10"] == out["P@10"] and out["P.10"]


# -- names that mean what their tool means (issue 20) -------------------------------------------
@pytest.mark.parametrize(("text", "measure", "args"), [
    ("ERR@20", "gdeval_ERR", (20, 4)),                     # ir_measures' ERR@k is gdeval's
    ("ntcir:ERR@20", "ERR", ({}, 20)),                      # NTCIREVAL's, asked for as such
    ("ERR", "ERR", ({}, None)),                             # no @k: not gdeval's, NTCIREVAL's
    ("RBP", "trectools_RBP", (0.8, 10**9, 1, 1)),           # ir_measures: p = 0.8, graded
    ("RBP(p=0.5)@10", "trectools_RBP", (0.5, 10, 1, 1)),
    ("rbp.p=0.5", "rbp", (0.5,)),                           # trec_eval 10's rbp
    ("Judged@10", "judged", (10,)),
    ("Judged", "judged", (0,)),                             # 0: the whole list
    ("RR@10", "recip_rank_cut", (10,)),
    ("NumRet", "num_ret", ()),
    ("NumRet(rel=1)", "num_rel_ret", ()),
    ("nDCG(dcg='exp-log2')@10", "ndcg_burges", (10,)),
    ("nDCG(gains={0:0,1:1,2:3})@10", "ndcg_cut_gains", (10, {0: 0.0, 1: 1.0, 2: 3.0})),
    ("nDCG(gains={0:0,1:1,2:3})", "ndcg", ({0: 0.0, 1: 1.0, 2: 3.0},)),
    ("ndcg@10", "ndcg_cut", (10,)),                         # ranx
    ("map@100", "map_cut", (100,)),
    ("mrr@10", "recip_rank_cut", (10,)),
    ("hit_rate@3", "success", (3,)),
    ("r-precision", "Rprec", ()),
])
def test_each_tool_s_name_means_what_the_tool_means(text, measure, args):
    (req,) = parse_measures([text])
    assert (req.mdef.name, req.args) == (measure, args)


def test_trec_eval_nickname_set_and_printed_lists():
    assert [r.name for r in parse_measures(["set"])] == [
        "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_map",
        "set_F", "set_relative_P", "utility"] or {r.name for r in parse_measures(["set"])} == {
        "num_q", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_map",
        "set_F", "set_relative_P", "utility"}
    assert [r.name for r in parse_measures(["ndcg_cut_20,4"])] == ["ndcg_cut_4", "ndcg_cut_20"]
    # a family named bare gives way to the same family with parameters, as in trec_eval
    assert [r.name for r in parse_measures(["ndcg_cut", "ndcg_cut.1,4"])] == \
        ["ndcg_cut_1", "ndcg_cut_4"]


def test_per_measure_options_equal_the_global_ones():
    """AP(rel=2) is map under -l 2, nDCG(judged_only=True)@10 is ndcg_cut_10 under -J, in one
    evaluation beside measures computed with the run's options."""
    from irwarehouse.api import evaluate_files
    from irwarehouse.engine.evaluate import EvalOptions
    qrels, run = DATA / "qrels.rel_level", [DATA / "runs" / "STANDARD.results.test"]

    def values(measures, **opts):
        result = evaluate_files(qrels, run, measures, options=EvalOptions(**opts))
        return {r["measure"]: r["value"] for r in result.summary.to_pylist()}

    mixed = values(["map", "AP(rel=2)", "nDCG(judged_only=True)@10", "ndcg_cut.10"])
    assert mixed["AP(rel=2)"] == values(["map"], threshold=2)["map"] != mixed["map"]
    assert mixed["nDCG(judged_only=True)@10"] == \
        values(["ndcg_cut.10"], judged_only=True)["ndcg_cut_10"]
    assert mixed["ndcg_cut_10"] == values(["ndcg_cut.10"])["ndcg_cut_10"]


@pytest.mark.parametrize("text", ["P@1.5", "Judged@1.5", "RR@0", "AP(rel=1.5)",
                                  "nDCG(judged_only=maybe)@10", "nDCG(foo=1)@10"])
def test_non_integer_cutoffs_and_unknown_parameters_are_errors(text):
    with pytest.raises(MeasureError):
        parse_measures([text])


def test_irw_measures_says_what_a_name_means():
    out = _invoke("measures", "ERR@20", "ntcir:ERR@20")
    gdeval, ntcir = out.split("ntcir:ERR@20 ->")
    assert "gdeval_ERR" in gdeval and "gdeval.pl" in gdeval
    assert "measure ERR (ntcireval" in ntcir and "NTCIREVAL" in ntcir
