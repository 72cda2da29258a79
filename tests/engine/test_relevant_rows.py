"""Issue 32, target 5: a stored campaign re-evaluated from relevant_row (the relevant documents
of each (qrels, run) pair with their running count, stored at ingestion) gives the same bits
as the general path, through `irw eval --campaign` and the metric macros, and equals trec_eval
9.0.8 on TREC 2003 Robust; the rows follow a replaced run or qrels and `irw rm`; a read-only
warehouse evaluates from them, and one without them falls back."""

from __future__ import annotations

import gzip
import shutil
import struct

import duckdb
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.engine import evaluate as ev
from irwarehouse.engine import relevant_rows
from tests.helpers.faults import irw
from tests.helpers.paths import DATA, REALDATA

ROBUST = REALDATA / "trec2003_robust"
# the four measures of the target, and the other kernels the views serve (relevant_rows)
MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank", "map_cut.100", "recall.30", "P.200"]
# trec_eval's names of MEASURES (-q lines)
TREC_NAMES = ["map", "P_10", "ndcg_cut_10", "recip_rank", "map_cut_100", "recall_30", "P_200"]
MACROS = [("irw_map", {}, "map"), ("irw_P", {"cutoff": 10}, "P_10"),
          ("irw_ndcg_cut", {"cutoff": 10}, "ndcg_cut_10"), ("irw_recip_rank", {}, "recip_rank"),
          ("irw_map_cut", {"cutoff": 100}, "map_cut_100"), ("irw_recall", {"cutoff": 30},
                                                            "recall_30")]


def _bits(value):
    return struct.pack("<d", value).hex() if isinstance(value, float) else value


def _evaluate(wh, campaign, *, fast=True, monkeypatch=None, used=None, **options):
    """(run, topic, measure) -> value bits of `irw eval --campaign`'s request; `fast`: whether
    relevant_rows may be used (False: the general path); `used`: a list that records whether
    it was."""
    saved = relevant_rows.usable

    def usable(*args, **kwargs):
        ok = fast and saved(*args, **kwargs)
        if used is not None:
            used.append(ok)
        return ok
    monkeypatch.setattr(relevant_rows, "usable", usable)
    try:
        result = wh.evaluate(MEASURES, campaign=campaign,
                             options=ev.EvalOptions(**options) if options else None)
    finally:
        monkeypatch.setattr(relevant_rows, "usable", saved)
    per_topic = {(r["run"], r["topic"], r["measure"]): _bits(r["value"])
                 for r in result.per_topic.to_pylist()}
    summary = {(r["run"], r["measure"]): _bits(r["value"]) for r in result.summary.to_pylist()}
    return per_topic, summary


def _macros(path, campaign, read_only=True):
    """(run, topic, measure) -> value bits of the metric macros, from plain DuckDB."""
    con = duckdb.connect(str(path), read_only=read_only)
    try:
        out = {}
        for macro, params, name in MACROS:
            args = "".join(f", {k} := {int(v)}" for k, v in params.items())
            for run, topic, value in con.execute(
                    f"SELECT run, topic, value FROM {macro}(campaign := ?{args})",
                    [campaign]).fetchall():
                out[(run, topic, name)] = _bits(value)
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def robust_warehouse(tmp_path_factory):
    """TREC 2003 Robust's qrels and 17 runs, stored by `irw ingest runs` (one transaction)."""
    if not (ROBUST / "runs").is_dir():
        pytest.skip(f"no real data at {ROBUST}")
    path = tmp_path_factory.mktemp("robust_relevant") / "w.duckdb"
    assert irw("ingest", "qrels", ROBUST / "qrels" / "robust03_qrels.txt", "-C", "robust03",
               "-w", path).exit_code == 0
    result = irw("ingest", "runs", ROBUST / "runs", "-C", "robust03", "-w", path)
    assert result.exit_code == 0, result.stderr
    return path


@pytest.fixture
def robust(robust_warehouse, tmp_path):
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(robust_warehouse, copy)
    return copy


def _trec_eval_q(run: str) -> dict:
    """trec_eval 9.0.8's -q values of run (../shared/realdata, computed by NIST's trec_eval)."""
    out = {}
    path = ROBUST / "expected_trec_eval_v9.0.8" / f"{run}.all_trec.q.txt.gz"
    with gzip.open(path, "rt") as f:
        for line in f:
            name, topic, value = line.split()
            if name in TREC_NAMES and topic != "all":
                out[(topic, name)] = value
    return out


@pytest.mark.realdata
@pytest.mark.slow
def test_robust_same_bits_and_trec_eval(robust, monkeypatch):
    used = []
    with Warehouse(robust, read_only=True) as wh:
        fast = _evaluate(wh, "robust03", monkeypatch=monkeypatch, used=used)
        general = _evaluate(wh, "robust03", fast=False, monkeypatch=monkeypatch)
    assert used == [True]                           # the views were read
    assert fast == general                           # every per-topic and run value, as bits
    runs = sorted({run for run, _, _ in fast[0]})
    assert len(runs) == 17
    with Warehouse(robust, read_only=True) as wh:
        values = {(r["run"], r["topic"], r["measure"]): r["value"]
                  for r in wh.evaluate(MEASURES, campaign="robust03").per_topic.to_pylist()}
    # independent: trec_eval 9.0.8's printed values (4 decimals), every topic of every run
    checked = 0
    for run in runs:
        for (topic, name), text in _trec_eval_q(run).items():
            assert f"{values[(run, topic, name)]:.4f}" == text, (run, topic, name)
            checked += 1
    assert checked == 17 * 100 * len(TREC_NAMES)        # 100 topics
    # the metric macros from plain DuckDB: the same bits as irw eval
    macros = _macros(robust, "robust03")
    assert macros == {k: v for k, v in fast[0].items() if k[2] in macros_names()}


def macros_names():
    return {name for _, _, name in MACROS}


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("options,expect_views", [
    ({"depth": 100}, True), ({"complete": True}, True), ({"depth": 0}, True),
    ({"threshold": 2}, False), ({"judged_only": True}, False), ({"version": 10}, False),
    ({"order": "rank"}, False)])
def test_options_same_bits(robust, monkeypatch, options, expect_views):
    used = []
    with Warehouse(robust, read_only=True) as wh:
        fast = _evaluate(wh, "robust03", monkeypatch=monkeypatch, used=used, **options)
        general = _evaluate(wh, "robust03", fast=False, monkeypatch=monkeypatch, **options)
    assert used == [expect_views]
    assert fast == general and fast[0]


def test_other_measures_keep_the_general_path(sample_warehouse, monkeypatch):
    """A measure that reads non-relevant judged documents (bpref) beside map: no views; ev_relevant
    still comes from relevant_row (sql/context.sql), and the values equal the window's."""
    used = []
    saved = relevant_rows.usable
    monkeypatch.setattr(relevant_rows, "usable",
                        lambda *a, **k: used.append(saved(*a, **k)) or used[-1])
    with Warehouse(sample_warehouse, read_only=True) as wh:
        got = wh.evaluate(["map", "bpref"], campaign="sample", qrels="graded")
        with_rows = [tuple(map(_bits, r.values())) for r in got.per_topic.to_pylist()]
    assert used == [False]
    con = duckdb.connect(str(sample_warehouse))
    con.execute("DELETE FROM relevant_pair")      # ev_relevant by its window for every run
    con.close()
    with Warehouse(sample_warehouse, read_only=True) as wh:
        got = wh.evaluate(["map", "bpref"], campaign="sample", qrels="graded")
        assert [tuple(map(_bits, r.values())) for r in got.per_topic.to_pylist()] == with_rows


def _stored_rows(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        stored = con.execute("SELECT * FROM relevant_row ORDER BY ALL").fetchall()
        # rebuilt from judged_row by hand: the relevant rows of each list, numbered by rank,
        # with AP's running sum added in rank order (Python floats: IEEE doubles)
        rebuilt, sums = [], {}
        for row in con.execute("""
                SELECT qrels_id, run_id, topic, score_rank, rel,
                       count(*) OVER (PARTITION BY qrels_id, run_id, topic ORDER BY score_rank)
                FROM judged_row WHERE rel >= 1 ORDER BY ALL""").fetchall():
            key = row[:3]
            sums[key] = sums.get(key, 0.0) + row[5] / row[3]
            rebuilt.append((*row, sums[key]))
        pairs = con.execute("SELECT * FROM relevant_pair ORDER BY ALL").fetchall()
        judged = con.execute("SELECT * FROM judged_pair ORDER BY ALL").fetchall()
        return stored, rebuilt, pairs, judged
    finally:
        con.close()


def _consistent(path):
    stored, rebuilt, pairs, judged = _stored_rows(path)
    assert stored == rebuilt and stored
    assert pairs == judged


def test_replaced_run_and_qrels_and_rm(sample_warehouse, monkeypatch, tmp_path):
    """relevant_row follows the run or qrels it hangs on: --replace writes the new one's rows
    (same transaction as judged_row), irw rm deletes them; values equal the general path."""
    w = sample_warehouse
    _consistent(w)
    used, before = _same_with_qrels(w, monkeypatch)
    # a run replaced by another ranking of the same name: reversed lists
    run = DATA / "runs" / "STANDARD.results.test"
    lines = run.read_text().splitlines()
    flipped = tmp_path / "flipped.run"
    flipped.write_text("".join(
        " ".join(p[:4] + [str(-float(p[4])), p[5]]) + "\n" for p in (x.split() for x in lines)))
    name = lines[0].split()[5]
    result = irw("ingest", "run", flipped, "-C", "sample", "--name", name, "--replace", "-w", w)
    assert result.exit_code == 0, result.stderr
    _consistent(w)
    used, after = _same_with_qrels(w, monkeypatch)
    assert used == [True]
    assert after != before                            # the flipped run's values changed
    # a qrels replaced: every level raised by one
    qrels = DATA / "qrels.test"
    raised = tmp_path / "qrels.raised"
    raised.write_text("".join(" ".join(p[:3] + [str(int(p[3]) + 1)]) + "\n"
                              for p in (x.split() for x in qrels.read_text().splitlines())))
    qname = "binary"                                  # the sample's qrels.test
    result = irw("ingest", "qrels", raised, "-C", "sample", "--name", qname, "--replace",
                 "-w", w)
    assert result.exit_code == 0, result.stderr
    _consistent(w)
    _same_with_qrels(w, monkeypatch, qname)
    # irw rm: the run's relevant rows and pairs go with it
    assert irw("rm", "run", name, "-C", "sample", "-w", w).exit_code == 0
    _consistent(w)
    con = duckdb.connect(str(w), read_only=True)
    assert not con.execute("SELECT count(*) FROM relevant_row WHERE run_id NOT IN "
                           "(SELECT run_id FROM run)").fetchone()[0]
    con.close()
    assert irw("check", "-w", w).exit_code == 0


def _same_with_qrels(w, monkeypatch, qrels=None):
    """irw eval's values with and without the views, for every qrels of the sample (or one)."""
    with Warehouse(w, read_only=True) as wh:
        names = [q for (q,) in wh.con.execute(
            "SELECT q.name FROM qrels q JOIN campaign c USING (campaign_id) "
            "WHERE c.name = 'sample' ORDER BY 1").fetchall()]
    out, used = {}, []
    for q in ([qrels] if qrels else names):
        with Warehouse(w, read_only=True) as wh:
            saved = relevant_rows.usable
            fast = _eval_qrels(wh, q, monkeypatch, True, used)
            general = _eval_qrels(wh, q, monkeypatch, False, [])
            assert relevant_rows.usable is saved
        assert fast == general, q
        out[q] = fast
    return used[-1:], out


def _eval_qrels(wh, qrels, monkeypatch, fast, used):
    saved = relevant_rows.usable

    def usable(*args, **kwargs):
        ok = fast and saved(*args, **kwargs)
        used.append(ok)
        return ok
    monkeypatch.setattr(relevant_rows, "usable", usable)
    try:
        result = wh.evaluate(MEASURES, campaign="sample", qrels=qrels)
    finally:
        monkeypatch.setattr(relevant_rows, "usable", saved)
    return [tuple(map(_bits, r.values())) for r in result.per_topic.to_pylist()]


def test_older_warehouse_read_only_then_upgraded(sample_warehouse, monkeypatch):
    """A warehouse made before relevant_row: read-only, the general path (nothing is written);
    its first read-write open stores the rows of every judged pair."""
    w = sample_warehouse
    con = duckdb.connect(str(w))
    con.execute("DELETE FROM relevant_row")
    con.execute("DELETE FROM relevant_pair")
    con.execute("UPDATE irw_meta SET value = 'older' WHERE key = 'sql_sha256'")
    con.close()
    used, values = _same_with_qrels(w, monkeypatch)
    assert used == [False]
    assert _stored_rows(w)[0] == []                    # read-only: nothing written
    with Warehouse(w):                                 # read-write: upgraded
        pass
    _consistent(w)
    used, again = _same_with_qrels(w, monkeypatch)
    assert used == [True] and again == values
    assert irw("check", "-w", w).exit_code == 0
