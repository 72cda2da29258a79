"""The two readers of a run file agree: DuckDB's single-space CSV split (the fast path, taken
only by files that file_facts finds single-spaced) and the whitespace regex split (every other
file). Each layout below is the same run; the fast path must take only the first."""

from __future__ import annotations

import gzip
import random

import pytest

from irwarehouse.api import evaluate_files
from irwarehouse.errors import InputError
from irwarehouse.formats.trec import _single_spaced, file_facts

MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank", "num_ret", "bpref"]


def make_run(seed: int) -> tuple[list[tuple[str, str, int, str, str]], str]:
    """Rows (topic, doc, rank, score text, tag) with ties, and a qrels text."""
    rng = random.Random(seed)
    rows, qrels = [], []
    for t in range(1, 6):
        docs = rng.sample(range(200), 40)
        for k, d in enumerate(docs):
            score = f"{rng.choice([1, 2, 3, 4]) + rng.random():.2f}" if k % 3 else f"{rng.randint(1, 4)}"
            rows.append((str(t), f"D{d:03d}", k + 1, score, "tagA"))
        for d in rng.sample(range(200), 30):
            qrels.append(f"{t} 0 D{d:03d} {rng.choice([0, 0, 1, 2])}\n")
    return rows, "".join(qrels)


def layouts(rows) -> dict[str, bytes]:
    single = "".join(f"{t} Q0 {d} {r} {s} {g}\n" for t, d, r, s, g in rows)
    return {
        "single": single.encode(),
        "tabs": "".join(f"{t}\tQ0\t{d}\t{r}\t{s}\t{g}\n" for t, d, r, s, g in rows).encode(),
        "double spaces": "".join(f"{t}  Q0 {d}  {r} {s} {g}\n" for t, d, r, s, g in rows).encode(),
        "leading space": "".join(f" {t} Q0 {d} {r} {s} {g}\n" for t, d, r, s, g in rows).encode(),
        "trailing space": "".join(f"{t} Q0 {d} {r} {s} {g} \n" for t, d, r, s, g in rows).encode(),
        "blank lines": ("\n" + single.replace("\n", "\n\n", 7)).encode(),
        "comment with six fields": ("# a comment of six fields\n" + single).encode(),
        "crlf": single.replace("\n", "\r\n").encode(),
        "rank as 3.0": "".join(f"{t} Q0 {d} {r}.0 {s} {g}\n" for t, d, r, s, g in rows).encode(),
    }


def test_layouts_agree(tmp_path):
    rows, qrels = make_run(3)
    (tmp_path / "qrels").write_text(qrels)
    results, fast = {}, {}
    for name, data in layouts(rows).items():
        for gz in (False, True):
            path = tmp_path / (name.replace(" ", "_") + (".gz" if gz else ""))
            path.write_bytes(gzip.compress(data) if gz else data)
            fast[(name, gz)] = file_facts(path, digest=False)[1]
            res = evaluate_files(tmp_path / "qrels", [path], MEASURES)
            results[(name, gz)] = sorted(zip(res.per_topic["topic"].to_pylist(),
                                             res.per_topic["measure"].to_pylist(),
                                             res.per_topic["value"].to_pylist()))
    want = results[("single", False)]
    assert len(want) == 5 * len(MEASURES)
    for key, got in results.items():
        assert got == want, key
    # the fast path is tried on the layouts without tabs (those with empty fields, a seventh
    # field or a comment line then have bad rows, which hand the file over to the regex path)
    assert {k for k, v in fast.items() if not v} == {("tabs", gz) for gz in (False, True)}


@pytest.mark.parametrize("text, plain", [
    (b"1 Q0 a 1 1 r\n", True),
    (b"1 Q0 a 1 1 r", True),
    (b"1 Q0 a 1 1 r\r\n2 Q0 b 1 1 r\r\n", True),
    (b"1 Q0  a 1 1 r \n\n", True),        # empty fields: found by the fast path's gap column
    (b"1 Q0 a 1 1 r\r", False),
    (b"1 Q0\ra 1 1 r\n", False),
    (b"1\tQ0 a 1 1 r\n", False),
    (b"1 Q0 a 1 1 r\x0b\n", False),
    (b"1 Q0 a 1 1 r\x0c\n", False),
])
def test_single_spaced(text, plain):
    assert _single_spaced(text) is plain


@pytest.mark.parametrize("rank, problem", [
    ("1.5", "rank '1.5' is not an integer"),
    ("1e-1", "rank '1e-1' is not an integer"),
    ("x", "rank 'x' is not a number"),
    ("1_0", "rank '1_0'"),
    ("+-1", "rank '+-1'"),
    ("9007199254740992", "rank '9007199254740992' is out of range"),
])
@pytest.mark.parametrize("sep", [" ", "\t"])
def test_rank_errors_on_both_paths(tmp_path, rank, problem, sep):
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    run = tmp_path / "run"
    run.write_text(sep.join(["1", "Q0", "a", "1", "2.0", "r"]) + "\n"
                   + sep.join(["1", "Q0", "b", rank, "1.0", "r"]) + "\n")
    with pytest.raises(InputError) as err:
        evaluate_files(tmp_path / "qrels", [run], ["map"])
    assert f"{run}:2:" in str(err.value) and problem in str(err.value)


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_integral_rank_forms_are_read_as_integers(tmp_path, sep):
    """'3.0' and '3e0' are the rank 3 (a decimal number with an integral value), on both paths;
    --order rank ranks by them."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    lines = [["1", "Q0", "a", "3e0", "9", "r"], ["1", "Q0", "b", "1.0", "1", "r"],
             ["1", "Q0", "c", "+2", "5", "r"]]
    run.write_text("".join(sep.join(f) + "\n" for f in lines))
    from irwarehouse.engine.evaluate import EvalOptions
    res = evaluate_files(tmp_path / "qrels", [run], ["recip_rank"],
                         options=EvalOptions(order="rank"))
    assert res.summary["value"].to_pylist() == [pytest.approx(1 / 3)]


def test_duplicates_found_per_file(tmp_path):
    """The same document in two files is fine; twice in one file is an error naming its line."""
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "r1").write_text("1 Q0 a 1 2.0 r1\n1 Q0 b 2 1.0 r1\n")
    (tmp_path / "r2").write_text("1 Q0 a 1 2.0 r2\n1 Q0 b 2 1.0 r2\n1 Q0 a 3 0.5 r2\n")
    (tmp_path / "r3").write_text("1 Q0 b 1 2.0 r3\n1 Q0 a 2 1.0 r3\n")
    res = evaluate_files(tmp_path / "qrels", [tmp_path / "r1", tmp_path / "r3"], ["map"])
    assert res.summary["value"].to_pylist() == [1.0, 0.5]
    with pytest.raises(InputError) as err:
        evaluate_files(tmp_path / "qrels", [tmp_path / "r1", tmp_path / "r2"], ["map"])
    assert f"{tmp_path / 'r2'}:3:" in str(err.value) and "appears twice" in str(err.value)


def test_each_file_of_an_evaluation_is_scanned_once(tmp_path, monkeypatch):
    """issue 32: the facts cache held one file, so that every run file of `irw eval QRELS
    RUN...` was scanned twice (by stage_runs_bulk, then by the spacing check), gzipped or not;
    and the qrels twice (for its rows, then again for its digest)."""
    from irwarehouse.formats import trec
    scanned = []
    for name in ("_mapped_scan", "_stream_scan"):
        original = getattr(trec, name)
        monkeypatch.setattr(trec, name, lambda path, f=original: scanned.append(path) or f(path))
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n")
    runs = []
    for k in range(4):
        data = f"1 Q0 d1 1 2.0 r{k}\n1 Q0 d2 2 1.0 r{k}\n".encode()
        runs.append(tmp_path / (f"r{k}.gz" if k % 2 else f"r{k}.txt"))
        runs[-1].write_bytes(gzip.compress(data) if k % 2 else data)
    result = evaluate_files(tmp_path / "q", runs, ["map"])
    assert [v for v in result.summary.column("value").to_pylist()] == [1.0] * 4
    assert sorted(map(str, scanned)) == sorted(map(str, [tmp_path / "q", *runs]))


@pytest.mark.parametrize("small_table", [10**9, 0])   # grouped in DuckDB, sorted in numpy
def test_duplicate_check_compares_keys_when_hashes_repeat(small_table):
    """_has_duplicate_keys compares the keys only when a hash repeats: a hash that is the same
    for every row (every row a collision) must not make distinct keys duplicates, and a real
    duplicate is found whichever hash is given."""
    import duckdb

    from irwarehouse.formats.trec import _has_duplicate_keys
    con = duckdb.connect()
    con.execute("CREATE TABLE distinct_keys AS SELECT * FROM (VALUES (1, 'a'), (1, 'b'), "
                "(2, 'a')) t(fi, doc)")
    con.execute("CREATE TABLE twice AS SELECT * FROM (VALUES (1, 'a'), (1, 'b'), (1, 'a')) "
                "t(fi, doc)")
    # two docnos of TREC 2003 Robust's runs whose DuckDB hashes are equal (2.0.1), beside a
    # real duplicate in another hash's rows
    con.execute("INSERT INTO distinct_keys VALUES (3, 'FR941202-0-00043'), "
                "(3, 'FR941205-0-00044')")
    con.execute("INSERT INTO twice VALUES (3, 'FR941202-0-00043'), (3, 'FR941205-0-00044')")
    for hashed in ("hash(fi, doc)", "CAST(0 AS UBIGINT)", "hash(fi, doc) % 2"):
        assert not _has_duplicate_keys(con, "distinct_keys", "fi, doc", hashed, small_table)
        assert _has_duplicate_keys(con, "twice", "fi, doc", hashed, small_table)


def test_sha256_of_a_file_is_hashlibs_of_its_bytes(tmp_path):
    """The digest recorded for a file (hashed from its mapping, or read when it cannot be
    mapped: an empty file) is the sha256 of its bytes as stored, gzipped ones too; the empty
    file's is the well-known e3b0c442...b855."""
    import hashlib

    from irwarehouse.formats.trec import _sha256
    plain = tmp_path / "run"
    plain.write_bytes(b"1 Q0 d1 1 0.5 x\n" * 1000)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    for path in (plain, packed):
        assert _sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert _sha256(empty) == ("e3b0c44298fc1c149afbf4c8996fb924"
                              "27ae41e4649b934ca495991b7852b855")
