"""`irw meta repro` (irwarehouse/meta/repro.py) against repro_eval (irgroup/repro_eval 0.5.0,
Breuer et al., SIGIR 2020): its test cases (repro_eval/test/test_rpd.py, test_rbo.py,
test_kwargs.py: RpdEvaluator, trim, evaluate, ktu, rbo, rmse, nrmse, er, dri, ttest) ported as
golden values on the small runs of tests/data/repro_eval and on TREC 2012 Web's Indri baselines
(../shared/realdata); tests/data/repro_eval/regenerate.py produced every expected value with
repro_eval itself. Plus hand-worked KTU values and the one-line errors."""

import json

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.meta.repro import ktu, reproduce_files
from irwarehouse.options import settings_of
from tests.helpers.paths import REALDATA, TEST_DATA

DATA = TEST_DATA / "repro_eval"
GOLDEN = json.loads((DATA / "golden.json").read_text())
MEASURES = ["AP", "P@10", "nDCG"]


def irw(*args):
    return CliRunner().invoke(app, [*args])


def _check(result, golden):
    """Every value of repro_eval's RpdEvaluator against ours (to 1e-12)."""
    order = {o.pair: o for o in result.order}
    for pair in ("advanced", "baseline"):
        assert order[pair].record()["KTU"] == pytest.approx(golden["ktu"][pair], abs=1e-12)
        assert order[pair].record()["RBO"] == pytest.approx(golden["rbo"][pair], abs=1e-12)
        per_topic = dict(zip(order[pair].topics, order[pair].ktu))
        assert per_topic == pytest.approx(golden["ktu_per_topic"][pair], abs=1e-12)
        per_topic = dict(zip(order[pair].topics, order[pair].rbo))
        assert per_topic == pytest.approx(golden["rbo_per_topic"][pair], abs=1e-12)
    for s in result.scores:
        assert s.rmse == pytest.approx(golden["rmse"][s.pair][s.measure], abs=1e-12)
        assert s.nrmse == pytest.approx(golden["nrmse"][s.pair][s.measure], abs=1e-12)
        assert s.p_value == pytest.approx(golden["ttest"][s.pair][s.measure], abs=1e-10)
    assert len(result.scores) == 2 * len(MEASURES)
    for e in result.effects:
        assert e.er == pytest.approx(golden["er"][e.measure], abs=1e-12)
        assert e.delta_ri == pytest.approx(golden["dri"][e.measure], abs=1e-12)
    assert [e.measure for e in result.effects] == MEASURES


def _files(folder, names):
    return [folder / n for n in names]


def test_example_runs_equal_repro_eval():
    qrels, oa, ra, ob, rb = _files(DATA, ["qrels.txt", "orig_a.txt", "rpd_a.txt",
                                          "orig_b.txt", "rpd_b.txt"])
    result = reproduce_files(qrels, oa, ra, original_baseline=ob, reproduced_baseline=rb,
                             measures=MEASURES)
    _check(result, GOLDEN["example"])


def test_trec2012_baselines_equal_repro_eval():
    folder = REALDATA / "trec2012_web_diversity"
    if not folder.is_dir():
        pytest.skip("../shared/realdata is not beside the repository")
    runs = folder / "runs"
    result = reproduce_files(folder / "qrels" / "qrels.adhoc.txt",
                             runs / "rm.results-cata.txt.gz", runs / "rm.results-catb.txt.gz",
                             original_baseline=runs / "ql.results-cata.txt.gz",
                             reproduced_baseline=runs / "ql.results-catb.txt.gz",
                             measures=MEASURES, given=settings_of(depth=100))
    assert result.depth == 100 == GOLDEN["trec2012"]["trim"]
    _check(result, GOLDEN["trec2012"])


def test_ktu_by_hand():
    # union a b c (sorted): original a b c -> 0 1 2, reproduced b a c -> 1 0 2:
    # pairs (0,1) discordant, (0,2) and (1,2) concordant: tau = (2 - 1) / 3
    assert ktu(["a", "b", "c"], ["b", "a", "c"]) == pytest.approx(1 / 3, abs=1e-14)
    assert ktu(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert ktu(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    # other documents: union a b c d; original a b -> 0 1, reproduced d c -> 3 2: discordant
    assert ktu(["a", "b"], ["d", "c"]) == -1.0
    # lists of different lengths (repro_eval refuses them): the ranks both have, numbered in
    # the union a b c: 0 1 against 0 1
    assert ktu(["a", "b", "c"], ["a", "b"]) == 1.0
    assert ktu(["a"], ["a"]) != ktu(["a"], ["a"])           # one document: undefined (NaN)


def test_cli_files_and_stored_runs_agree(tmp_path):
    names = ["orig_a.txt", "rpd_a.txt", "orig_b.txt", "rpd_b.txt"]
    oa, ra, ob, rb = (str(p) for p in _files(DATA, names))
    common = ["--original-baseline", ob, "--reproduced-baseline", rb, "-f", "json"]
    files = irw("meta", "repro", "--original", oa, "--reproduced", ra, "--qrels",
                str(DATA / "qrels.txt"), *common)
    assert files.exit_code == 0, files.output
    from_files = json.loads(files.stdout)
    assert {e["measure"] for e in from_files["effects"]} == {"AP", "nDCG", "P@10"}
    for e in from_files["effects"]:
        assert e["ER"] == pytest.approx(GOLDEN["example"]["er"][e["measure"]], abs=1e-12)
    # the same runs stored in a campaign, named by -C
    w = str(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", str(DATA / "qrels.txt"), "-C", "c", "-w", w).exit_code == 0
    for path in (oa, ra, ob, rb):
        assert irw("ingest", "run", path, "-C", "c", "-w", w).exit_code == 0
    stored = irw("meta", "repro", "-C", "c", "-w", w, "--original", "orig_a", "--reproduced",
                 "rpd_a", "--original-baseline", "orig_b", "--reproduced-baseline", "rpd_b",
                 "-f", "json")
    assert stored.exit_code == 0, stored.output
    got = json.loads(stored.stdout)
    for key in ("scores", "effects"):
        assert got[key] == from_files[key]
    assert [o["KTU"] for o in got["order"]] == [o["KTU"] for o in from_files["order"]]
    table = irw("meta", "repro", "--original", oa, "--reproduced", ra, "--per-topic")
    assert table.exit_code == 0 and "KTU" in table.stdout and "401" in table.stdout
    assert "the document order only" in table.stderr


def test_one_line_errors(tmp_path):
    oa = str(DATA / "orig_a.txt")
    other = tmp_path / "other.txt"
    other.write_text("999 Q0 x 1 1.0 other\n")
    cases = [
        (["--original", oa, "--reproduced", str(other)], "no topic in common"),
        (["--original", oa, "--reproduced", str(tmp_path / "absent")], "no file"),
        (["--original", oa, "--reproduced", oa, "--original-baseline", oa], "both"),
        (["--original", oa, "--reproduced", oa, "--rbo-p", "1"], "--rbo-p"),
        (["--original", oa, "--reproduced", oa, "--qrels", str(DATA / "qrels.txt"),
          "-m", "NoSuchMeasure"], "NoSuchMeasure"),
    ]
    for args, says in cases:
        bad = irw("meta", "repro", *args)
        assert bad.exit_code == 1, (args, bad.output)
        lines = bad.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("irw: error:") and says in lines[0], \
            lines


def test_api_on_stored_runs(tmp_path):
    from irwarehouse.api import Warehouse
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(DATA / "qrels.txt", "c")
        for name in ("orig_a", "rpd_a", "orig_b", "rpd_b"):
            wh.ingest_run(DATA / f"{name}.txt", "c")
        result = wh.repro("c", "orig_a", "rpd_a", original_baseline="orig_b",
                          reproduced_baseline="rpd_b", measures=MEASURES)
        _check(result, GOLDEN["example"])
        with pytest.raises(Exception, match="no run 'nope'"):
            wh.repro("c", "orig_a", "nope")


def test_topics_of_one_run_only_are_left_out_with_a_warning(tmp_path):
    oa = DATA / "orig_a.txt"
    fewer = tmp_path / "fewer.txt"
    fewer.write_text("".join(line + "\n" for line in (DATA / "rpd_a.txt").read_text()
                             .splitlines() if not line.startswith("401 ")))
    warned = []
    result = reproduce_files(None, oa, fewer, warn=warned.append)
    assert result.order[0].topics == ["402", "403", "404", "405", "406"]
    assert warned == ["run: topics only one run has are left out (1 only in orig_a.txt, 0 "
                      "only in fewer.txt)"]
    # the other topics keep repro_eval's per-topic values
    golden = GOLDEN["example"]["ktu_per_topic"]["advanced"]
    assert result.order[0].ktu == pytest.approx([golden[t] for t in result.order[0].topics],
                                                abs=1e-12)
