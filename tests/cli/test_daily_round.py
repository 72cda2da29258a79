"""Issue 19, the analyst's daily round: campaign settings that stick (items 1, 2), compare's
output (item 4), no silent empty or meaningless result (item 5), labelled run blocks (item 7).
Each test first reproduces the failure the issue reports."""

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from tests.engine.test_comparison import _write_campaign, build_two_qrels_campaign
from tests.helpers.paths import REALDATA
from tests.helpers.www4 import oracle_thuir_q10 as _oracle_thuir_q10

WWW4 = REALDATA / "ntcir16_www4_english"
NTCIREVAL = ["-g", "1:2", "--order", "file", "-c", "-M", "1000"]
OFFICIAL_THUIR_Q10 = "0.4491"        # THUIR-CO-NEW-2.waseda.nev, Q@0010 (NTCIREVAL)



def irw(*args, code=0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return result


@pytest.fixture(scope="module")
def www4_built(tmp_path_factory):
    if not WWW4.is_dir():
        pytest.skip("realdata not present")
    path = tmp_path_factory.mktemp("www4") / "w.duckdb"
    irw("init", "-w", path)
    irw("ingest", "qrels", WWW4 / "www4gold-corrected.qrels", "-C", "www4", "--name",
        "official", "--format", "ntcir_qrels", "-w", path)
    for run in sorted((WWW4 / "runs").iterdir()):
        irw("ingest", "run", run, "-C", "www4", "-w", path)
    return path


@pytest.fixture
def www4(www4_built, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(www4_built, path)
    return path


def _thuir(text: str) -> str:
    return re.search(r"THUIR-CO-NEW-2\s+(\d\.\d{4})", text).group(1)


def _option_sets(path) -> list[str]:
    with Warehouse(path, read_only=True) as wh:
        return [o for (o,) in wh.con.execute(
            "SELECT DISTINCT options FROM score ORDER BY options").fetchall()]


# -- item 1: the profile sticks ---------------------------------------------------------------
@pytest.mark.slow      # the real WWW-4 campaign
def test_report_and_compare_answer_the_request_as_eval_does(www4, tmp_path):
    # Issue 19 had report and compare read whichever option set eval had stored; since the one
    # evaluation request (issue 29) every door answers the request it is given (its flags, else
    # the campaign's profile, else the defaults), reading stored scores only under that key:
    # the same command line gives the same value through eval, report and compare.
    out = irw("eval", "-C", "www4", *NTCIREVAL, "-m", "Q@10", "--store", "-w", www4).stdout
    assert OFFICIAL_THUIR_Q10 in out
    irw("report", "-C", "www4", "-m", "Q@10", *NTCIREVAL, "-o", tmp_path / "rep", "-w", www4)
    html = (tmp_path / "rep" / "report.html").read_text()
    assert OFFICIAL_THUIR_Q10 in html and _oracle_thuir_q10() not in html
    res = irw("compare", "-C", "www4", "-m", "Q@10", *NTCIREVAL, "--seed", "1", "-w", www4)
    assert _thuir(res.stdout) == OFFICIAL_THUIR_Q10
    assert "order file" in res.stderr and "not stored" not in res.stderr    # read as stored
    # without the flags (and no profile) the request is trec_eval's defaults, in every door
    plain = irw("eval", "-C", "www4", "-m", "Q@10", "-w", www4).stdout
    assert _oracle_thuir_q10() in plain
    res = irw("compare", "-C", "www4", "-m", "Q@10", "--seed", "1", "-w", www4)
    assert _thuir(res.stdout) == _oracle_thuir_q10() and "not stored" in res.stderr
    assert len(_option_sets(www4)) == 1               # nothing stored without --store


@pytest.mark.slow      # the real WWW-4 campaign
def test_two_stored_option_sets_each_answer_their_own_request(www4):
    irw("eval", "-C", "www4", *NTCIREVAL, "-m", "Q@10", "--store", "-w", www4)
    irw("eval", "-C", "www4", "-m", "Q@10", "--store", "-w", www4)      # defaults: 2nd set
    assert len(_option_sets(www4)) == 2
    picked = irw("compare", "-C", "www4", "-m", "Q@10", *NTCIREVAL, "--seed", "1", "-w", www4)
    assert _thuir(picked.stdout) == OFFICIAL_THUIR_Q10
    default = irw("compare", "-C", "www4", "-m", "Q@10", "--seed", "1", "-w", www4)
    assert _thuir(default.stdout) == _oracle_thuir_q10()
    meta = irw("meta", "rankcorr", "-C", "www4", "-m", "Q@10", "-m", "nDCG@10", *NTCIREVAL,
               "-w", www4)
    assert "order file" in meta.stderr


@pytest.mark.slow      # the real WWW-4 campaign
def test_campaign_profile_is_used_by_eval_report_compare_meta(www4, tmp_path):
    res = irw("campaign", "set", "www4", "--gains", "1:2", "--order", "file", "-c", "-M", "1000",
              "--qrels", "official", "-w", www4)
    assert res.stdout.strip() == "www4: --gains 1:2 --order file -c -M 1000 --qrels official"
    shown = irw("campaign", "show", "www4", "-w", www4).stdout
    assert "--order file -c -M 1000" in shown
    listing = irw("campaigns", "-w", www4).stdout
    assert re.search(r"www4\s+4\s+50\s+1 \(official\)\s+--gains 1:2 --order file", listing)
    rows = json.loads(irw("campaigns", "-f", "json", "-w", www4).stdout)
    assert rows == [{"campaign": "www4", "runs": 4, "topics": 50, "qrels": ["official"],
                     "profile": "--gains 1:2 --order file -c -M 1000 --qrels official"}]
    ev = irw("eval", "-C", "www4", "-m", "Q@10", "--store", "-w", www4)
    assert OFFICIAL_THUIR_Q10 in ev.stdout and "profile" in ev.stderr
    irw("report", "-C", "www4", "-m", "Q@10", "-o", tmp_path / "rep", "-w", www4)
    assert OFFICIAL_THUIR_Q10 in (tmp_path / "rep" / "report.html").read_text()
    cmp = irw("compare", "-C", "www4", "-m", "Q@10", "--seed", "1", "-w", www4)
    assert _thuir(cmp.stdout) == OFFICIAL_THUIR_Q10 and "profile" in cmp.stderr
    meta = irw("meta", "rankcorr", "-C", "www4", "-m", "Q@10", "-m", "nDCG@10", "-w", www4)
    assert "profile" in meta.stderr
    assert len(_option_sets(www4)) == 1              # nothing re-evaluated with other options
    # a command-line option wins over the profile
    over = irw("compare", "-C", "www4", "-m", "Q@10", "--order", "score", "--seed", "1",
               "-w", www4)
    assert _thuir(over.stdout) == _oracle_thuir_q10()
    irw("campaign", "clear", "www4", "-w", www4)
    assert "no profile" in irw("campaign", "show", "www4", "-w", www4).stdout


@pytest.mark.slow      # the real WWW-4 campaign
def test_profile_refuses_bad_values_and_leaves_the_warehouse_unchanged(www4):
    for args, message in ((["--qrels", "nope"], "no qrels 'nope'"),
                          (["--gains", "x:y"], "gain"), (["-M", "-3"], "-M")):
        res = irw("campaign", "set", "www4", *args, "-w", www4, code=1)
        assert message in res.stderr
    assert "no profile" in irw("campaign", "show", "www4", "-w", www4).stdout
    assert "no campaign" in irw("campaign", "set", "nope", "-c", "-w", www4, code=1).stderr


@pytest.mark.slow      # the real WWW-4 campaign
def test_an_older_warehouse_gains_the_profile_table(www4):
    from irwarehouse.store.connection import DIGEST_KEY
    with Warehouse(www4) as wh:
        wh.con.execute("DROP TABLE campaign_profile")
        wh.con.execute("UPDATE irw_meta SET value = 'older' WHERE key = ?", [DIGEST_KEY])
    irw("campaign", "set", "www4", "--order", "file", "-w", www4)
    assert "--order file" in irw("campaign", "show", "www4", "-w", www4).stdout


# -- item 2: --qrels on compare, report and meta ----------------------------------------------
@pytest.fixture
def two_qrels(tmp_path):
    return build_two_qrels_campaign(tmp_path)


def test_qrels_is_an_option_of_compare_report_and_meta(two_qrels, tmp_path):
    base = ["-C", "c", "-m", "P@10", "-w", two_qrels]
    assert "choose one with --qrels" in irw("compare", *base, code=1).stderr
    irw("compare", *base, "--qrels", "b", "--seed", "1")
    irw("report", *base, "--qrels", "b", "-o", tmp_path / "rep")
    irw("meta", "rankcorr", *base, "-m", "map", "--qrels", "b")
    # or the profile's qrels
    irw("campaign", "set", "c", "--qrels", "a", "-w", two_qrels)
    irw("compare", *base, "--seed", "1")
    irw("meta", "rankcorr", *base, "-m", "map")


# -- item 4: compare's options and output -----------------------------------------------------
@pytest.fixture
def one_qrels(tmp_path):
    qrels, runs = _write_campaign(tmp_path, n_runs=5)
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(qrels, "c")
        for run in runs:
            wh.ingest_run(run, "c")
    return path


def test_compare_json_is_one_document_and_jsonl_lines(one_qrels):
    base = ["compare", "-C", "c", "-m", "map", "--seed", "3", "--correction", "holm",
            "-w", one_qrels]
    rows = json.loads(irw(*base, "-f", "json").stdout)
    assert isinstance(rows, list) and len(rows) == 10
    for row in rows:
        assert set(row) >= {"measure", "test", "correction", "B", "seed", "p", "p_adjusted",
                            "significant", "effect_size", "ci_low", "ci_high"}
        assert row["measure"] == "map" and row["correction"] == "holm" and row["B"] == 1000
        assert row["options"] == "l=1;J=0;M=;c=0;order=score;v=9"      # the set it read
        assert row["p_adjusted"] >= row["p"]
        if row["ci_low"] is not None:
            assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    lines = [json.loads(line) for line in irw(*base, "-f", "jsonl").stdout.splitlines()]
    assert lines == rows


def test_plus_one_on_the_cli_and_a_warning_when_B_is_too_small(one_qrels):
    # the bootstrap named: over five runs the default is Tukey HSD (stats.default_test)
    base = ["compare", "-C", "c", "-m", "map", "--seed", "3", "-f", "jsonl", "--test",
            "bootstrap", "-w", one_qrels]
    plain = [json.loads(x) for x in irw(*base, "-B", "100").stdout.splitlines()]
    plus = [json.loads(x) for x in irw(*base, "-B", "100", "--plus-one").stdout.splitlines()]
    assert all(q["p"] > 0 for q in plus)
    assert [q["p"] for q in plus] == pytest.approx([(p["p"] * 100 + 1) / 101 for p in plain])
    # 10 pairs at alpha 0.05: alpha/pairs = 0.005 < 1/100: B=100 cannot resolve it
    small = irw(*base, "-B", "100", "--correction", "holm")
    assert "B=100 is too small for 10 pairs" in small.stderr and "-B 200" in small.stderr
    assert "too small" not in irw(*base, "-B", "1000", "--correction", "holm",
                                  "--plus-one").stderr
    assert "too small" not in irw(*base, "-B", "100").stderr          # no correction


# -- item 5: no silent empty or meaningless result --------------------------------------------
def test_a_campaign_dropped_from_a_cross_campaign_comparison_is_an_error(tmp_path):
    path = tmp_path / "w.duckdb"
    for name, offset in (("c", 0), ("d", 100)):
        folder = tmp_path / name
        folder.mkdir()
        qrels, runs = _write_campaign(folder)
        # campaign d: other topic ids, as robust03 and www4 share none
        for f in (qrels, *runs):
            f.write_text("".join(f"{int(line.split()[0]) + offset} {line.split(' ', 1)[1]}"
                                 for line in f.read_text().splitlines(keepends=True)))
        with Warehouse(path) as wh:
            wh.ingest_qrels(qrels, name)
            for run in runs:
                wh.ingest_run(run, name)
    res = irw("compare", "-C", "c", "-C", "d", "-m", "map", "--missing", "drop", "-w", path,
              code=1)
    assert "share no topic" in res.stderr


def test_a_run_without_a_common_topic_is_an_error_or_a_warning(tmp_path):
    qrels, runs = _write_campaign(tmp_path, n_runs=2)
    other = tmp_path / "other.run"
    other.write_text("".join(f"9{line}".replace(" r0", " elsewhere")
                             for line in runs[0].read_text().splitlines(True)))
    res = irw("eval", "-m", "map", qrels, other, code=1)
    assert "run 'elsewhere' has no topic in common with the qrels" in res.stderr
    assert res.stdout == ""
    both = irw("eval", "-m", "map", qrels, runs[0], other)
    assert "run 'r0' has no topic in common" not in both.stderr
    assert "run 'elsewhere' has no topic in common with the qrels" in both.stderr


def test_a_diversity_measure_on_ad_hoc_qrels_warns(tmp_path):
    qrels, runs = _write_campaign(tmp_path, n_runs=1)
    res = irw("eval", "-m", "alpha-nDCG@20", qrels, runs[0])
    assert "alpha-nDCG@20" in res.stdout
    assert "diversity measure" in res.stderr and "without subtopics" in res.stderr
    assert "warning" not in irw("eval", "-m", "map", qrels, runs[0]).stderr


# -- item 7: several runs in the trec_eval layout ---------------------------------------------
def test_several_runs_get_a_runid_line_per_block_and_one_run_is_trec_eval(tmp_path):
    qrels, runs = _write_campaign(tmp_path, n_runs=3)
    one = irw("eval", "-m", "map", qrels, runs[2]).stdout
    assert one.splitlines()[0].startswith("map") and "runid" not in one
    several = irw("eval", "-m", "map", "-m", "P.10", qrels, *runs).stdout.splitlines()
    assert [line.split("\t")[2] for line in several if line.startswith("runid")] == \
        ["r0", "r1", "r2"]
    assert several[0].startswith("runid") and len(several) == 3 * 3
    # -m all_trec already has its runid line: not twice
    all_trec = irw("eval", "-m", "all_trec", qrels, *runs).stdout
    assert all_trec.count("runid") == 3


def test_removing_the_profiles_qrels_keeps_the_rest_of_the_profile(two_qrels):
    irw("campaign", "set", "c", "--qrels", "a", "--order", "file", "-w", two_qrels)
    irw("rm", "qrels", "a", "-C", "c", "-w", two_qrels)
    assert irw("campaign", "show", "c", "-w", two_qrels).stdout.strip() == "c: --order file"


def test_compare_of_a_misspelled_measure_suggests_the_name(sample_warehouse):
    """A name neither in the grammar nor stored (online and text scores are read as stored):
    the grammar's one-line error with its suggestion, not 'evaluate with --store first'."""
    res = CliRunner().invoke(app, ["compare", "-C", "sample", "-m", "ndcg_cutt.10",
                                   "-w", str(sample_warehouse)])
    assert res.exit_code == 1
    assert res.output.strip() == ("irw: error: unknown measure 'ndcg_cutt.10'; did you mean "
                                  "ndcg_cut.10? (see `irw measures`)")
