"""ir_measures itself (a test dependency, with cwl_eval for RBP(rel=r)) against irw on the
name an ir_measures user types: every form of every ir_measures measure that takes `rel=`
(rel = 0..3, with and without judged_only=True and a cutoff), and the gains=, judged_only= and
cutoff forms of nDCG, on random graded data. Each name goes through irw's name grammar
(irwarehouse.measures.parse_measures), so this tests what a name means, not only a definition
(tests/peers/test_ir_measures.py ports ir_measures' own test cases).

A form counts when ir_measures' default pipeline computes it; the forms it refuses or fails on
(no provider: NumRel(rel=2), IPrec(rel=2); its own errors: Bpref(rel=0), the ndeval measures
without a cutoff or with judged_only=True) have no value to compare with and are counted, not
compared. ir_measures reports every topic of the qrels: irw's -c."""

from __future__ import annotations

import contextlib
import io
import random

import ir_measures
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import parse_measures

# ir_measures' diversity measures: read from a qrels whose second column is the subtopic
DIVERSITY = {"AP_IA", "ERR_IA", "MAP_IA", "NRBP", "P_IA", "StRecall", "alpha_DCG",
             "alpha_nDCG", "nERR_IA", "nNRBP", "α_DCG", "α_nDCG"}


# ir_measures' name -> why irw's value differs
DIFFERENT = {
    # ir_measures' accuracy provider reads an unjudged document as level 0, so that at rel=0
    # every unjudged document is relevant; irw never counts an unjudged document as relevant
    # (trec_eval's rule, which every other rel= form follows)
    "Accuracy(rel=0)", "Accuracy(rel=0)@5",
}


def _data(seed: int = 7):
    """Graded ad hoc qrels (levels -1..3), diversity qrels (3 subtopics) and one run with
    distinct scores (ir_measures' providers break ties in different ways)."""
    rng = random.Random(seed)
    adhoc, div, run = [], [], []
    for t in range(1, 8):
        docs = [f"d{t}_{k:02d}" for k in range(40)]
        for d in rng.sample(docs, 25):
            adhoc.append((str(t), "0", d, rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])))
        for i in range(1, 4):
            for d in rng.sample(docs, 15):
                div.append((str(t), str(i), d, rng.choice([0, 0, 1, 1, 2, 3])))
        for i, d in enumerate(rng.sample(docs, 30)):
            run.append((str(t), d, round(100.0 - i + rng.random() * 0.5, 6)))
    return adhoc, div, run


def _forms() -> list[tuple[str, object]]:
    """(ir_measures name, measure) of every rel= form, and nDCG's gains/judged_only/cutoffs."""
    from ir_measures import measures
    out = []
    for name, meas in sorted(measures.registry.items()):
        params = meas.SUPPORTED_PARAMS
        if "rel" not in params:
            continue
        cutoffs = [0.5] if "recall" in params else [None, 5] if "cutoff" in params else [None]
        for rel in (None, 0, 1, 2, 3):
            for cutoff in cutoffs:
                for judged_only in ([False, True] if "judged_only" in params else [False]):
                    kw = {} if rel is None else {"rel": rel}
                    if judged_only:
                        kw["judged_only"] = True
                    form = meas(**kw)
                    out.append((name, form @ cutoff if cutoff is not None else form))
    ndcg = measures.registry["nDCG"]
    for kw in ({}, {"judged_only": True}, {"gains": {0: 0, 1: 1, 2: 5, 3: 10}},
               {"gains": {1: 2, 2: 1}, "judged_only": True}):
        for cutoff in (None, 5, 20):
            form = ndcg(**kw)
            out.append(("nDCG", form @ cutoff if cutoff is not None else form))
    for p in (0.5, 0.95):
        out.append(("RBP", measures.registry["RBP"](rel=2, p=p)))
    return out


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    adhoc, div, run = _data()
    folder = tmp_path_factory.mktemp("irm")
    files = {"adhoc": folder / "adhoc.qrels", "div": folder / "div.qrels",
             "run": folder / "run"}
    files["adhoc"].write_text("".join(f"{t} {i} {d} {r}\n" for t, i, d, r in adhoc))
    files["div"].write_text("".join(f"{t} {i} {d} {r}\n" for t, i, d, r in div))
    files["run"].write_text("".join(f"{t} Q0 {d} {k} {s:.6f} x\n"
                                    for k, (t, d, s) in enumerate(run)))
    wh = Warehouse(None, macros=False)
    ids = {"adhoc": wh.ingest_qrels(files["adhoc"], "adhoc"),
           "div": wh.ingest_qrels(files["div"], "div", fmt="diversity")}
    runs = {c: wh.ingest_run(files["run"], c, name="run") for c in ("adhoc", "div")}
    qrels = {c: [ir_measures.Qrel(t, d, r, i) for t, i, d, r in rows]
             for c, rows in (("adhoc", adhoc), ("div", div))}
    scored = [ir_measures.ScoredDoc(t, d, s) for t, d, s in run]
    yield wh, ids, runs, qrels, scored
    wh.close()


def _ir_measures(form, qrels, run) -> dict[str, float] | None:
    """ir_measures' per-topic values, None when its default pipeline cannot compute the form."""
    try:
        if not ir_measures.DefaultPipeline.supports(form):
            return None
        with contextlib.redirect_stderr(io.StringIO()):      # pyndeval's one-subtopic warning
            return {m.query_id: float(m.value)
                    for m in ir_measures.iter_calc([form], qrels, run)}
    except (ValueError, TypeError, AssertionError, RuntimeError, ZeroDivisionError):
        return None                                         # ir_measures' own failures


def _irw(loaded, campaign: str, name: str) -> dict[str, float]:
    wh, ids, runs, _, _ = loaded
    result = evaluate(wh.con, [runs[campaign]], ids[campaign], parse_measures([name]),
                      EvalOptions(complete=True))
    return {r["topic"]: r["value"] for r in result.per_topic.to_pylist()}


def test_every_rel_form_gives_ir_measures_value(loaded):
    _, _, _, qrels, scored = loaded
    compared, refused, wrong = 0, 0, []
    for stem, form in _forms():
        campaign = "div" if stem in DIVERSITY else "adhoc"
        want = _ir_measures(form, qrels[campaign], scored)
        if want is None or str(form) in DIFFERENT:
            refused += 1
            continue
        got = _irw(loaded, campaign, str(form))
        if got.keys() != want.keys() or any(abs(got[t] - want[t]) > 1e-9 for t in want):
            wrong.append((str(form), got, want))
        compared += 1
    assert wrong == []
    assert compared >= 260 and refused > 0, (compared, refused)


def test_the_issues_rbp_example(tmp_path):
    """Issue 30: qrels a 3, b 1, c 2, d 0 and the run a, b, c, d: ir_measures' RBP(rel=2) is
    binary at level 2, 0.2 (1 + 0.8^2) = 0.328 (trectools' graded RBP at threshold 2 gives
    0.2 (3 + 2 0.8^2) = 0.856, the wrong answer irw gave)."""
    from irwarehouse.api import evaluate_files
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 3\n1 0 b 1\n1 0 c 2\n1 0 d 0\n")
    run.write_text("".join(f"1 Q0 {d} {k} {4 - k} r\n" for k, d in enumerate("abcd")))
    value = evaluate_files(qrels, [run], ["RBP(rel=2)"]).summary.to_pylist()[0]["value"]
    assert value == pytest.approx(0.2 * (1 + 0.8 ** 2), abs=1e-12)
    peer = ir_measures.calc_aggregate(
        [ir_measures.RBP(rel=2)],
        [ir_measures.Qrel("1", d, r) for d, r in zip("abcd", (3, 1, 2, 0))],
        [ir_measures.ScoredDoc("1", d, 4.0 - k) for k, d in enumerate("abcd")])
    assert value == pytest.approx(peer[ir_measures.RBP(rel=2)], abs=1e-12)
