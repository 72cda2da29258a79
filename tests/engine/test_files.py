"""Many run files in one `irw eval` (engine.files): read and evaluated a batch of files at a time,
ranked by the files' own order (sql/context.sql, plan: file order). The values must be those of
each file evaluated alone, bit for bit, wherever the batch boundaries fall, for runs in order,
with ties, with topics missing, out of order and with a topic's lines apart; and those of a
reference computation of trec_eval's rules written here (score descending, docno descending).
An error names the bad file and line, and nothing is printed."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irwarehouse.api import evaluate_files
from irwarehouse.cli import app
from irwarehouse.engine import files as ef
from irwarehouse.engine.evaluate import EvalOptions
from tests.helpers.paths import REALDATA

MEASURES = ["map", "P.10", "recip_rank", "num_ret", "num_rel_ret", "ndcg_cut.10", "bpref",
            "Rprec"]
TOPICS = [str(t) for t in range(401, 409)]


def _bits(result):
    """(run, topic, measure, value bits) of every per-topic and run value."""
    def b(v):
        return struct.pack("<d", v).hex() if isinstance(v, float) else v
    topics = [(r["run"], r["topic"], r["measure"], b(r["value"]))
              for r in result.per_topic.to_pylist()]
    runs = [(r["run"], "all", r["measure"], b(r["value"])) for r in result.summary.to_pylist()]
    return sorted(topics + runs)


def _campaign(folder: Path, n_runs: int = 9, seed: int = 5):
    """Qrels and `n_runs` runs over 8 topics of 60 documents: scores with many exact ties (one
    decimal), and runs that are (i) in ranking order, (ii) missing topics, (iii) shuffled line
    by line, (iv) with one topic's lines in two places, (v) in ascending score order."""
    rng = random.Random(seed)
    docs = {t: [f"D{t}-{k:03d}" for k in range(90)] for t in TOPICS}
    qrels = folder / "qrels"
    with open(qrels, "w") as f:
        for t in TOPICS:
            for d in rng.sample(docs[t], 40):
                f.write(f"{t} 0 {d} {rng.choice([0, 0, 1, 2])}\n")
    runs = []
    for r in range(n_runs):
        lines = []
        topics = TOPICS if r % 3 else TOPICS[::2]            # every third run lacks topics
        for t in topics:
            picked = rng.sample(docs[t], 60)
            scored = [(round(rng.random() * 3, 1), d) for d in picked]   # ties: 31 values
            scored.sort(key=lambda x: -x[0])                  # ties left in drawing order
            lines += [f"{t} Q0 {d} {k + 1} {s} tag{r:02d}\n" for k, (s, d) in enumerate(scored)]
        if r == 4:
            rng.shuffle(lines)                                # no order at all
        elif r == 5:
            lines = lines[:30] + lines[60:90] + lines[30:60] + lines[90:]   # a list in two
        elif r == 7:
            lines = lines[::-1]                               # ascending scores
        path = folder / f"run.{r:02d}"
        path.write_text("".join(lines))
        runs.append(path)
    return qrels, runs


def _reference(qrels: Path, run: Path) -> dict[tuple[str, str], float]:
    """map, P_10, recip_rank, num_ret, num_rel_ret per topic and their means, by trec_eval's
    rules: a list sorted by score descending then docno descending; judged topics only."""
    rel: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        t, _, d, level = line.split()
        rel.setdefault(t, {})[d] = int(level)
    lists: dict[str, list[tuple[float, str]]] = {}
    for line in run.read_text().splitlines():
        t, _, d, _, s, _ = line.split()
        lists.setdefault(t, []).append((float(s), d))
    out = {}
    for t, items in lists.items():
        if t not in rel:
            continue
        ranked = [d for _, d in sorted(items, key=lambda x: (x[0], x[1]), reverse=True)]
        hits = [rel[t].get(d, 0) >= 1 for d in ranked]
        n_rel = sum(1 for v in rel[t].values() if v >= 1)
        found, ap, rr = 0, 0.0, 0.0
        for i, h in enumerate(hits, start=1):
            if h:
                found += 1
                ap += found / i
                rr = rr or 1.0 / i
        out[(t, "map")] = ap / n_rel if n_rel else 0.0
        out[(t, "P_10")] = sum(hits[:10]) / 10
        out[(t, "recip_rank")] = rr
        out[(t, "num_ret")] = float(len(ranked))
        out[(t, "num_rel_ret")] = float(found)
    return out


def test_batches_give_the_values_of_each_file_alone(tmp_path, monkeypatch):
    qrels, runs = _campaign(tmp_path)
    alone = sorted(x for run in runs for x in _bits(evaluate_files(qrels, [run], MEASURES)))
    sizes = [run.stat().st_size for run in runs]
    # batches of two files, of four (the boundary inside the list of files), and all at once
    for limit in (2 * max(sizes), 4 * max(sizes), 10 ** 9):
        monkeypatch.setattr(ef, "BATCH_BYTES", limit)
        batches = ef.file_batches(runs)
        assert [p for b in batches for p in b] == runs
        assert (len(batches) == 1) == (limit == 10 ** 9)
        assert _bits(evaluate_files(qrels, runs, MEASURES)) == alone


def test_values_equal_a_reference_of_trec_eval_rules(tmp_path, monkeypatch):
    qrels, runs = _campaign(tmp_path)
    monkeypatch.setattr(ef, "BATCH_BYTES", 3 * max(r.stat().st_size for r in runs))
    result = evaluate_files(qrels, runs, ["map", "P.10", "recip_rank", "num_ret",
                                          "num_rel_ret"])
    got: dict[str, dict] = {}
    for row in result.per_topic.to_pylist():
        got.setdefault(row["run"], {})[(row["topic"], row["measure"])] = row["value"]
    for r, run in enumerate(runs):
        want = _reference(qrels, run)
        mine = got[f"tag{r:02d}"]
        assert mine.keys() == want.keys()
        for key, value in want.items():
            assert mine[key] == pytest.approx(value, abs=1e-12), (run.name, key)


def test_other_orders_and_options_in_batches(tmp_path, monkeypatch):
    """trec_eval 9's float scores, the rank column's order, NTCIREVAL's file order, -M and -J
    ranked from the files' order: the values of each file alone."""
    qrels, runs = _campaign(tmp_path, n_runs=6, seed=11)
    monkeypatch.setattr(ef, "BATCH_BYTES", 2 * max(r.stat().st_size for r in runs))
    for options in (EvalOptions(version=9), EvalOptions(order="rank"),
                    EvalOptions(order="file"), EvalOptions(depth=25, judged_only=True),
                    EvalOptions(complete=True)):
        alone = sorted(x for run in runs
                       for x in _bits(evaluate_files(qrels, [run], MEASURES, options=options)))
        assert _bits(evaluate_files(qrels, runs, MEASURES, options=options)) == alone


def test_all_trec_over_three_files_in_two_batches(tmp_path, monkeypatch):
    qrels, runs = _campaign(tmp_path, n_runs=3, seed=3)
    alone = sorted(x for run in runs for x in _bits(evaluate_files(qrels, [run], ["all_trec"])))
    monkeypatch.setattr(ef, "BATCH_BYTES", 2 * max(r.stat().st_size for r in runs))
    assert len(ef.file_batches(runs)) == 2
    assert _bits(evaluate_files(qrels, runs, ["all_trec"])) == alone


ROBUST = REALDATA / "trec2003_robust"
ROBUST_RUNS = sorted((ROBUST / "runs").glob("input.*.gz")) if ROBUST.is_dir() else []


@pytest.mark.skipif(not ROBUST_RUNS, reason=f"no real data at {ROBUST}")
def test_robust_runs_in_batches_of_three(monkeypatch):
    """TREC 2003 Robust's 17 participant runs (real files: ties, lists in and out of score
    order) in batches of about three files give the bits of one batch of all of them (which the
    golden tests hold against trec_eval's own output, tests/metrics/test_trec_eval_golden.py)."""
    qrels = ROBUST / "qrels" / "robust03_qrels.txt"
    one = _bits(evaluate_files(qrels, ROBUST_RUNS, ["all_trec"]))
    monkeypatch.setattr(ef, "BATCH_BYTES", 3 * ef.GZIP_RATIO *
                        max(p.stat().st_size for p in ROBUST_RUNS))
    assert len(ef.file_batches(ROBUST_RUNS)) >= 5
    assert _bits(evaluate_files(qrels, ROBUST_RUNS, ["all_trec"])) == one


def test_a_bad_line_in_the_57th_file_names_it_and_prints_nothing(tmp_path, monkeypatch):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    runs = []
    for i in range(60):
        path = tmp_path / f"run.{i:02d}"
        path.write_text(f"1 Q0 a 1 2.0 r{i}\n1 Q0 b 2 1.0 r{i}\n"
                        + ("1 Q0 c three 0.5 r56\n" if i == 56 else ""))
        runs.append(path)
    monkeypatch.setattr(ef, "BATCH_BYTES", 200)      # 5 files a batch: the 12th batch
    assert len(ef.file_batches(runs)) == 12
    result = CliRunner().invoke(app, ["eval", str(qrels), *map(str, runs), "-m", "map"])
    assert result.exit_code != 0
    assert "run.56" in result.output and ":3" in result.output
    assert "rank 'three' is not a number" in result.output
    assert "map" not in result.output                 # no value of the 56 good files


# A number in each form that DuckDB's DOUBLE cast reads otherwise than the number rule (digit
# separators, a doubled sign; formats.trec._absent_bytes), or that no rule reads, in the
# middle file of a batch of five: the error is the single-file reader's, naming that file's
# line, whether the batch's numbers were typed by the CSV reader or checked as text.
BAD_NUMBERS = [
    ("1 Q0 c 3 1_000 r", "score '1_000' is not a decimal number"),
    ("1 Q0 c 3 +-2 r", "score '+-2' is not a"),
    ("1 Q0 c 3 2e1_0 r", "score '2e1_0' is not a decimal number"),
    ("1 Q0 c +-3 0.5 r", "rank '+-3' is not a"),
    ("1 Q0 c 3_0 0.5 r", "rank '3_0' is not a"),
    ("1 Q0 c 3 abc r", "score 'abc' is not a number"),
    ("1 Q0 c 3 0x10 r", "score '0x10' is not a number"),
    ("1 Q0 c 3 inf r", "score 'inf' is not finite"),
    ("1 Q0 c 3 1e400 r", "score '1e400' is not finite"),
    ("1 Q0 c 3.5 0.5 r", "rank '3.5' is not an integer"),
]


@pytest.mark.parametrize("line,message", BAD_NUMBERS)
def test_a_number_that_the_cast_alone_would_read_is_refused_in_a_batch(tmp_path, line, message):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    runs = []
    for i in range(5):
        path = tmp_path / f"run.{i}"
        path.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n" + (line + "\n" if i == 2 else ""))
        runs.append(path)
    result = CliRunner().invoke(app, ["eval", str(qrels), *map(str, runs), "-m", "map"])
    assert result.exit_code == 1, result.output
    assert f"run.2:3: {message}" in result.output, result.output
    assert "map" not in result.output


def test_typed_and_text_numbers_give_the_same_rows(tmp_path):
    """The batch read with the CSV reader typing the numbers (files without `_` and `+`) and
    with the numbers checked as text (a file with them: a docno with `_`, a score with `+`)
    stage the same values, bit for bit, and evaluate to the same values."""
    import duckdb

    from irwarehouse.formats import trec
    forms = ["1", "2.5", "-0.25", ".5", "5.", "1e3", "1E-3", "-7e2", "00012", "3.0000000001",
             "123456789012345678", "4.9e-324", "1.7976931348623157e308", "-0"]
    plain, mixed = tmp_path / "plain", tmp_path / "mixed"
    lines = [f"1 Q0 d{k} {k + 1} {s} r\n" for k, s in enumerate(forms)]
    plain.write_text("".join(lines))
    (tmp_path / "plain2").write_text("".join(lines))
    # the same lines, but one docno with `_` and one score written with a `+`
    mixed.write_text("".join(lines) + "2 Q0 doc_x 1 +1.5 r\n")
    assert trec._absent_bytes([str(plain)], (b"_", b"+")) == [True, True]
    assert trec._absent_bytes([str(mixed)], (b"_", b"+")) == [False, False]
    rows = {}
    for name, files in (("typed", [plain, tmp_path / "plain2"]),
                        ("text", [plain, mixed])):
        con = duckdb.connect()
        assert trec.stage_runs_bulk(con, files, digest=False) is not None
        rows[name] = con.execute(
            "SELECT fi, topic, doc, CAST(score AS VARCHAR), rank FROM stage_runs "
            "WHERE topic = '1' ORDER BY rowid").fetchall()
        if name == "text":
            assert con.execute("SELECT score, rank FROM stage_runs WHERE doc = 'doc_x'"
                               ).fetchall() == [(1.5, 1)]
    assert rows["typed"] == rows["text"]
    assert [float(r[3]) for r in rows["typed"][:len(forms)]] == [float(s) for s in forms]


FAST = ["map", "P.10", "recip_rank", "ndcg_cut.10"]


def _spy_rank_files(monkeypatch) -> list:
    """The `relevant_only` of every file-plan ranking (engine.evaluate._rank_files)."""
    from irwarehouse.engine import evaluate as ev
    seen, real = [], ev._rank_files

    def spy(con, args, relevant_only):
        seen.append(relevant_only)
        return real(con, args, relevant_only)
    monkeypatch.setattr(ev, "_rank_files", spy)
    return seen


def test_relevant_documents_alone_give_the_bits_of_every_judged_one(tmp_path, monkeypatch):
    """Measures that read only a ranking's relevant documents (map, P, recip_rank, ndcg_cut:
    relevant_rows.fits) have only those ranked by the file plan: the bits of the same measures
    evaluated beside one that reads every judged document (num_ret, which has them all
    ranked), in batches, for every order, -M, -c and trec_eval 9's float scores, with qrels that
    hold negative levels (in the pool, unjudged)."""
    qrels, runs = _campaign(tmp_path, n_runs=6, seed=13)
    judged = {tuple(line.split()[::2]) for line in qrels.read_text().splitlines()}
    with open(qrels, "a") as f:
        for t in TOPICS:
            for k in range(90):
                if (t, f"D{t}-{k:03d}") not in judged and k % 7 == 0:
                    f.write(f"{t} 0 D{t}-{k:03d} -1\n")
    monkeypatch.setattr(ef, "BATCH_BYTES", 2 * max(r.stat().st_size for r in runs))
    seen = _spy_rank_files(monkeypatch)
    for options in (EvalOptions(), EvalOptions(version=9), EvalOptions(order="rank"),
                    EvalOptions(order="file"), EvalOptions(depth=25),
                    EvalOptions(complete=True)):
        seen.clear()
        fast = _bits(evaluate_files(qrels, runs, FAST, options=options))
        assert seen and all(s is True for s in seen)     # only the relevant documents
        seen.clear()
        every = _bits(evaluate_files(qrels, runs, FAST + ["num_ret"], options=options))
        assert seen and not any(seen)
        assert fast == [x for x in every if x[2] != "num_ret"], options
    seen.clear()
    _bits(evaluate_files(qrels, runs, ["P.10", "recip_rank"]))
    assert seen and all(s is True for s in seen)


def test_ties_at_a_batch_start_and_across_lists_by_hand(tmp_path, monkeypatch):
    """Values worked by hand from trec_eval's order (score descending, then docno descending)
    for ties on the first row of a batch, a list whose first score equals the last score of
    the list before it (of its own run, and of the run before it in the batch): neither is a
    tie. Both files in one batch and each alone; only the relevant documents ranked."""
    import math
    # 31 judged documents no run retrieves: more than 30 judged a topic, the file plan's
    # (engine.evaluate.choose_plan)
    fillers = "".join(f"{t} 0 f{k:02d} 0\n" for t in (1, 2) for k in range(31))
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n2 0 z 0\n" + fillers)
    first = tmp_path / "run.0"
    first.write_text("1 Q0 a 1 2.0 r0\n1 Q0 b 2 2.0 r0\n1 Q0 c 3 1.0 r0\n"
                     "2 Q0 y 1 1.0 r0\n2 Q0 x 2 1.0 r0\n2 Q0 z 3 0.5 r0\n")
    second = tmp_path / "run.1"
    second.write_text("1 Q0 a 1 0.5 r1\n1 Q0 c 2 0.5 r1\n1 Q0 b 3 0.1 r1\n")
    lg = math.log2
    # r0, topic 1: b, a, c (a at 2, c at 3); topic 2: y, x, z (x at 2). r1, topic 1: c, a, b.
    want = {("r0", "1"): {"map": (1 / 2 + 2 / 3) / 2, "P_10": 0.2, "recip_rank": 0.5,
                          "ndcg_cut_10": (1 / lg(3) + 2 / lg(4)) / (2 / lg(2) + 1 / lg(3))},
            ("r0", "2"): {"map": 0.5, "P_10": 0.1, "recip_rank": 0.5,
                          "ndcg_cut_10": (1 / lg(3)) / 1.0},
            ("r1", "1"): {"map": 1.0, "P_10": 0.2, "recip_rank": 1.0, "ndcg_cut_10": 1.0}}
    seen = _spy_rank_files(monkeypatch)
    for files in ([first, second], [first], [second]):
        got = {}
        for row in evaluate_files(qrels, files, FAST).per_topic.to_pylist():
            got.setdefault((row["run"], row["topic"]), {})[row["measure"]] = row["value"]
        assert got.keys() == {k for k in want if tmp_path / f"run.{k[0][1]}" in files}
        for key, values in got.items():
            assert values == pytest.approx(want[key], abs=1e-12), key
    assert seen and all(s is True for s in seen)
