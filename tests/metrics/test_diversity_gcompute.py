"""NTCIREVAL's gcompute blocks on diversity gain lists (sql/metrics/diversity_gcompute.sql):
the whole .Dnev / .DINnev / .nevIA files of NTCIREVAL 190111, the SQL block against the
pure-Python oracle (tests/oracles/diversity_oracle.py) on random topics, and `-g` for the
diversity gains (DIN-splitqrels' L1G..L9G table)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import parse_measures
from tests.metrics.test_diversity import (
    NTCIR,
    NTCIR_PROPERTY,
    _random_ntcir_case,
    _same,
    loaded,
    needs_ntcir,
)
from tests.oracles import diversity_oracle as oracle
from tests.oracles.test_diversity_oracle import _read_ntcir_inputs

__all__ = ["loaded"]                                   # the fixture, imported for these tests

FILES = {"D": ("Dtest.DINprob", "Dnev"), "DIN": ("Dtest.DINprob", "DINnev"),
         "IA": ("Dtest.Iprob", "nevIA")}
# oracle.gcompute keys -> ev_ntd_gcompute columns
PLAIN = {"RR": "rr", "O-measure": "o_measure", "P-measure": "p_measure", "P-plus": "p_plus",
         "AP": "ap", "Q-measure": "q_measure", "NCUrb,P": "ncurb_p", "NCUrb,BR": "ncurb_br",
         "RBP": "rbp", "ERR": "err", "EBR": "ebr"}
AT = {"AP": "ap_at", "Q": "q_at", "nDCG": "ndcg_at", "MSnDCG": "msndcg_at", "P": "p_at",
      "RBP": "rbp_at", "ERR": "err_at", "nERR": "nerr_at", "EBR": "ebr_at", "Hit": "hit_at"}
FACTS = ("syslen", "jrel", "jnonrel", "r1", "rp")


def _cli(kind: str, cutoff: int, *extra: str) -> str:
    intents, _ = FILES[kind]
    res = CliRunner().invoke(app, ["eval", "--format", "ntcireval", "--diversity", kind,
                                   "--intents", str(NTCIR / intents), "--cutoffs", str(cutoff),
                                   "--order", "file", "--qrels-format", "diversity", *extra,
                                   str(NTCIR / "Dtest.Dqrels"), str(NTCIR / "TRECRUN")])
    assert res.exit_code == 0, res.output
    return res.output


# ----------------------------------------------------------------------------- golden files


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("cutoff", [10, 20])
@pytest.mark.parametrize("kind", ["D", "DIN", "IA"])
def test_whole_ntcireval_files(kind, cutoff):
    """`irw eval --format ntcireval --diversity K --intents PROB --cutoffs l --order file
    Dtest.Dqrels TRECRUN` is NTCIREVAL's TRECRUN.l<l>.<K>nev, byte for byte: the gcompute
    block over global (DIN) gains, #intent_num, I-rec, the # lines; per intent for .nevIA."""
    _, suffix = FILES[kind]
    expected = (NTCIR / "generated_ntcireval" / f"TRECRUN.l{cutoff}.{suffix}").read_text()
    assert _cli(kind, cutoff) == expected


# ----------------------------------------------------------------------------- SQL vs oracle


def _blocks(con, measures: list[str], opts: EvalOptions) -> dict[tuple[str, str], dict]:
    result = evaluate(con, [1], 1, parse_measures(measures), opts, gcompute=True)
    return {(row["topic"], row["key"]): row for row in result.gcompute.to_pylist()}


def _check_block(row: dict, want: dict, cutoff: int, where) -> None:
    for key in FACTS:
        assert row[key] == want[key], (where, key)
    for key, col in PLAIN.items():
        assert _same(row[col], want[key]), (where, key, row[col], want[key])
    for key, col in AT.items():
        assert _same(row[col], want[f"{key}@{cutoff:04d}"]), (where, key)


@NTCIR_PROPERTY
@given(rng=st.randoms(use_true_random=False), cutoff=st.sampled_from([1, 3, 5, 10]),
       gains=st.sampled_from([(), ((1, 1.0), (2, 3.0), (3, 7.0)), ((1, 0.5), (2, 0.25)),
                              ((2, 10.0),)]))
def test_gcompute_block_matches_oracle(loaded, rng, cutoff, gains):
    """Every line of the D, DIN and per-intent gcompute blocks, exact arithmetic, with the
    default gains (level) and with -g tables (listed levels replaced, others = level)."""
    qrels, runs, intents, topics = _random_ntcir_case(rng)
    loaded.load(qrels, runs, intents)
    table = {lv: float(lv) for lv in range(1, 10)} | dict(gains)
    got = _blocks(loaded.con, [f"D-Q@{cutoff}", f"DIN-nDCG@{cutoff}", f"IA-ERR@{cutoff}"],
                  EvalOptions(order="file", gains=gains))
    for t, (topic, ranking) in topics.items():
        if not topic.intents_with_relevant():
            assert not [k for k in got if k[0] == str(t)]   # gcompute prints nothing
            continue
        want = oracle.ntcireval_topic(topic, ranking, cutoff, gains=table, compat=False)
        _check_block(got[(str(t), "D")], want["D"], cutoff, (t, "D"))
        _check_block(got[(str(t), "DIN")], want["DIN"], cutoff, (t, "DIN"))
        for intent, block in want["IA"].items():
            _check_block(got[(str(t), f"I:{intent}")], block, cutoff, (t, intent))
        assert got[(str(t), "D")]["intent_num"] == len(topic.intents_with_relevant())


# ----------------------------------------------------------------------------- -g


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("kind", ["D", "DIN", "IA"])
def test_default_gains_are_one_to_nine(kind):
    """DIN-splitqrels' default table L1G..L9G = 1..9 is `-g 1:2:3:4:5:6:7:8:9`."""
    assert _cli(kind, 10) == _cli(kind, 10, "-g", "1:2:3:4:5:6:7:8:9")


def _parse_block_lines(text: str, kind: str) -> dict[tuple, str]:
    """{(topic, intent or kind, name): printed value} of a .Dnev/.DINnev/.nevIA text."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if kind == "IA" and len(parts) >= 4 and parts[1].isdigit() and "=" in parts[3]:
            out[(parts[0], int(parts[1]), parts[3].rstrip("="))] = parts[4]
        elif kind != "IA" and parts[1].endswith("=") and len(parts) == 3:
            out[(parts[0], kind, parts[1].rstrip("="))] = parts[2]
    return out


@pytest.mark.realdata
@needs_ntcir
@pytest.mark.parametrize("kind", ["D", "DIN", "IA"])
def test_other_gains_change_values_as_ntcireval_would(kind):
    """`-g 3` (L1 = 3; the sample's levels are L0/L1) against the oracle run through
    NTCIREVAL's text round trips with that table: every printed gcompute, I-rec and # value."""
    topics, runs, intent_order = _read_ntcir_inputs()
    if kind == "IA":                                  # D-NTCIR-IAeval reads the Iprob file
        for tid, topic in topics.items():
            topic.types = {}
    table = {lv: float(lv) for lv in range(1, 10)} | {1: 3.0}
    printed = _parse_block_lines(_cli(kind, 10, "-g", "3"), kind)
    default = _parse_block_lines(_cli(kind, 10), kind)
    assert printed.keys() == default.keys()
    assert sum(printed[k] != default[k] for k in printed) > 10     # the gains matter
    checked = 0
    for (tid, which, name), text in printed.items():
        want = oracle.ntcireval_topic(topics[tid], runs.get(tid, []), 10, gains=table,
                                      intent_order=intent_order[tid])
        block = want["IA"][which] if kind == "IA" else want[kind]
        if name in block:
            assert text == f"{block[name]:.4f}", (tid, which, name)
            checked += 1
    assert checked == len(printed)


def test_diversity_gains_reach_the_context_only(loaded):
    """-g changes the NTCIREVAL diversity measures, not ndeval's (binary) ones or I-rec."""
    rng = random.Random(7)
    qrels, runs, intents, _ = _random_ntcir_case(rng)
    loaded.load(qrels, runs, intents)
    names = ["alpha-nDCG@10", "I-rec@10", "D-nDCG@10"]

    def values(gains):
        result = evaluate(loaded.con, [1], 1, parse_measures(names),
                          EvalOptions(order="file", gains=gains))
        return {(r["topic"], r["measure"]): r["value"] for r in result.per_topic.to_pylist()}
    base, other = values(()), values(((1, 5.0),))
    for key, value in base.items():
        if key[1] != "D-nDCG@10":
            assert other[key] == value


def test_bad_gains_are_one_line_errors():
    res = CliRunner().invoke(app, ["eval", "--format", "ntcireval", "--diversity", "D",
                                   "-g", "1:x", "q", "r"])
    assert res.exit_code == 1
    assert len(res.output.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- ndeval's rows


def _ndeval_files(tmp_path, rng: random.Random):
    """Random diversity qrels and a run over overlapping topic sets: some run topics are not in
    the qrels, some qrels topics are not in the run (possibly none in common)."""
    qrels_topics = rng.sample(range(1, 8), rng.randint(1, 4))
    run_topics = rng.sample(range(1, 8), rng.randint(1, 4))
    qrels, lines = {}, []
    for t in qrels_topics:
        docs = [f"d{k}" for k in range(rng.randint(1, 8))]
        qrels[t] = {}
        for s in range(1, rng.randint(1, 3) + 1):
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            qrels[t][s] = {d: rng.choice([0, 1, 2]) for d in judged}
            lines += [f"{t} {s} {d} {lv}" for d, lv in qrels[t][s].items()]
    (tmp_path / "qrels").write_text("\n".join(lines) + "\n")
    run = []
    for t in run_topics:
        docs = rng.sample([f"d{k}" for k in range(10)], rng.randint(1, 10))
        run += [f"{t} Q0 {d} {k + 1} {len(docs) - k + rng.random():.6f} tag"
                for k, d in enumerate(docs)]
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return qrels, run


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("complete", [False, True])
def test_ndeval_rows_of_run_topics_absent_from_qrels(tmp_path, seed, complete):
    """ndeval.c 4.4 (outputMeasures): a row per RUN topic in ascending number, zeros for a run
    topic the qrels lack, no row for a qrels topic the run lacks; amean over the common topics
    (-c: over the qrels topics); `0.00` per column when nothing is common (without -c). Checked
    against the oracle's whole CSV, which mirrors ndeval.c and reproduces its TREC 2012
    outputs."""
    rng = random.Random(seed)
    qrels, run = _ndeval_files(tmp_path, rng)
    qrels_by_int = {t: {s: {d: min(lv, 1) for d, lv in docs.items()} for s, docs in subs.items()}
                    for t, subs in qrels.items()}
    runid, rows = oracle.ndeval_run(qrels_by_int, run, traditional=True, complete=complete)
    expected = oracle.ndeval_format_csv(runid, rows)
    args = ["eval", "--format", "ndeval", "--order", "score", "--qrels-format", "diversity",
            str(tmp_path / "qrels"), str(tmp_path / "run")]
    res = CliRunner().invoke(app, args[:1] + (["-c"] if complete else []) + args[1:])
    assert res.exit_code == 0, res.output
    assert res.stdout == expected
    # nothing in common: ndeval's zero rows on stdout, and irw says why on stderr (issue 19)
    common = set(qrels) & {int(line.split()[0]) for line in run}
    assert ("no topic in common" in res.stderr) == (not common), res.stderr


# ----------------------------------------------------------------------------- # measures


@pytest.mark.realdata
@needs_ntcir
def test_sharp_measures_exact_and_printed_from_sql():
    """D#/DIN# are SQL values both ways: exact (default) and, with printed=1, combined from the
    4-decimal I-rec and D-/DIN- components as NTCIREVAL's awk does; the latter are the
    values of the .Dnev/.DINnev lines."""
    from irwarehouse.api import evaluate_files
    names = [f"{m}@{c}" for c in (10, 20) for m in
             ("I-rec", "D-Q", "D-nDCG", "DIN-Q", "DIN-nDCG", "D#-Q", "D#-nDCG", "DIN#-Q",
              "DIN#-nDCG", "D#-Q(printed=1)", "D#-nDCG(printed=1)", "DIN#-Q(printed=1)",
              "DIN#-nDCG(printed=1)")]
    result = evaluate_files(NTCIR / "Dtest.Dqrels", [NTCIR / "TRECRUN"], names,
                            options=EvalOptions(order="file"), qrels_format="diversity",
                            intents=NTCIR / "Dtest.DINprob")
    got = {(r["topic"], r["measure"]): r["value"] for r in result.per_topic.to_pylist()}
    lines = {}
    for c in (10, 20):
        for kind in ("D", "DIN"):
            text = (NTCIR / "generated_ntcireval" / f"TRECRUN.l{c}.{kind}nev").read_text()
            for line in text.splitlines():
                topic, name, *value = line.split()
                if "#-" in name:
                    lines[(topic, name.rstrip("="))] = value[0]
    differ = 0
    for (topic, name), printed in lines.items():
        sharp, cutoff = name.split("@")
        m = sharp.replace("#", "")
        c = int(cutoff)
        exact = got[(topic, f"{sharp}@{c}")]
        rounded = got[(topic, f"{sharp}(printed=1)@{c}")]
        assert exact == pytest.approx(0.5 * got[(topic, f"I-rec@{c}")]
                                      + 0.5 * got[(topic, f"{m}@{c}")], abs=1e-15)
        assert rounded == pytest.approx(0.5 * round(got[(topic, f"I-rec@{c}")], 4)
                                        + 0.5 * round(got[(topic, f"{m}@{c}")], 4), abs=1e-15)
        assert f"{rounded:.4f}" == printed
        differ += f"{exact:.4f}" != printed
    assert len(lines) == 24 and differ > 0         # the round trip matters on this sample
