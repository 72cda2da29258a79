"""Golden tests: irwarehouse's trec_eval-layout output against the output of the real trec_eval
(9.0.8 and 10.0), compared as text (every row, at the printed precision).

* trec_eval's own regression suite (usnistgov/trec_eval test/, NIST notice; copied into
  tests/data/trec_eval: top level = 10.0 outputs, v9.0.8/ = 9.0.8 outputs).
* TREC 2003 Robust (17 participant runs) and TREC 2012 Web (8 baseline runs, qrels with -2
  levels), read from ../shared/realdata at test time (never copied into the repository).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from irwarehouse.api import evaluate_files
from irwarehouse.engine.evaluate import EvalOptions
from tests.helpers.golden import (
    TREC_EVAL_DATA,
    official_only,
    per_run,
    ranking_plan,
    read_text,
    trec_eval_lines,
)
from tests.helpers.paths import REALDATA

# --------------------------------------------------------------------------------------------
# trec_eval's regression suite. Each case: expected file, qrels, run, -m arguments, options,
# -q. The commands are those of trec_eval's Makefile (quicktest); see
# ../shared/realdata/trec_eval_test/PROVENANCE.md.
MEAS_PARAMS = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
               "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
               "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]
CASES = {
    # trec_eval qrels.test results.test
    "out.test": ("qrels.test", "results.test", [], {}, False),
    # trec_eval -m all_trec qrels.test results.test
    "out.test.a": ("qrels.test", "results.test", ["all_trec"], {}, False),
    # trec_eval -m all_trec -q qrels.test results.test
    "out.test.aq": ("qrels.test", "results.test", ["all_trec"], {}, True),
    # trec_eval -m all_trec -q -c qrels.test results.trunc (topic 302 has no results)
    "out.test.aqc": ("qrels.test", "results.trunc", ["all_trec"], {"complete": True}, True),
    # trec_eval -m all_trec -q -c -M100 qrels.test results.trunc
    "out.test.aqcM": ("qrels.test", "results.trunc", ["all_trec"],
                      {"complete": True, "depth": 100}, True),
    # trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test
    "out.test.aql": ("qrels.rel_level", "results.test", ["all_trec", "relstring.20"],
                     {"threshold": 2}, True),
    # trec_eval -q -m ... (parameterised measures) qrels.test results.test
    "out.test.meas_params": ("qrels.test", "results.test", MEAS_PARAMS, {}, True),
}
VERSIONS = (9, 10)


def expected_path(name: str, version: int) -> Path:
    return TREC_EVAL_DATA / ("v9.0.8" if version == 9 else "") / name


@functools.cache
def suite_output(name: str, version: int, qrels: str | None = None) -> list[str]:
    qrels_file, run, measures, opts, per_topic = CASES[name]
    result = evaluate_files(TREC_EVAL_DATA / (qrels or qrels_file), [TREC_EVAL_DATA / run],
                            measures,
                            options=EvalOptions(version=version, **opts))
    return trec_eval_lines(result, per_topic=per_topic)


def _compare_main(expected_text: str, got_lines: list[str]) -> None:
    """Every row, in order, as text."""
    assert "\n".join(got_lines) == "\n".join(expected_text.splitlines())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_trec_eval_suite(name, version):
    _compare_main(expected_path(name, version).read_text(), suite_output(name, version))


def test_qrels_with_comments():
    """trec_eval 10.0 skips `#` lines in qrels (`qrels.test.with-comments` gives out.test; one
    docno contains '#', which is data). 9.0.8 rejects such files; irwarehouse accepts them
    whatever the version."""
    _compare_main(expected_path("out.test", 10).read_text(),
                  suite_output("out.test", 10, qrels="qrels.test.with-comments"))


# --------------------------------------------------------------------------------------------
# Hand-made edge cases (tests/data/trec_eval_extra; expected outputs made by the trec_eval 9.0.8
# and 10.0 binaries with make_expected.sh there): byte-order and float32 ties, a topic with
# R = 0, a judged topic the run lacks (3), a run-only topic (9), -1 judgments, a topic whose
# only retrieved documents are unjudged (6), set_map rounding (topic 5: 3^2/(8*20)), and -c,
# -l2, -J, -M0, -M3 (empty lists give NaN iprec_at_recall rows).
EXTRA = TREC_EVAL_DATA.parent / "trec_eval_extra"
EXTRA_OPTIONS = {"-c": {"complete": True}, "-l2": {"threshold": 2}, "-J": {"judged_only": True},
                 "-M0": {"depth": 0}, "-M3": {"depth": 3}}
EXTRA_CASES = ["-c", "-c -l2", "-c -J", "-c -M0", "-c -M3", "-J", "-M0", "-l2 -J"]


@functools.cache
def extra_output(flags: str, version: int, plan: str | None = None) -> list[str]:
    opts = {}
    for flag in flags.split():
        opts.update(EXTRA_OPTIONS[flag])
    # 10.0 stops at a judged topic the run lacks unless -c: those cases use qrels without it
    qrels = "qrels.edge" if version == 9 or opts.get("complete") else "qrels.edge.no3"
    with ranking_plan(plan):
        result = evaluate_files(EXTRA / qrels, [EXTRA / "run.edge"], ["all_trec"],
                                options=EvalOptions(version=version, **opts))
    return trec_eval_lines(result, per_topic=True)


def extra_expected(flags: str, version: int) -> str:
    return (EXTRA / f"v{version}" / f"out.edge{flags.replace(' ', '')}").read_text()


@pytest.mark.parametrize("plan", ["counting", "window"])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("flags", EXTRA_CASES)
def test_edge_cases(flags, version, plan):
    _compare_main(extra_expected(flags, version), extra_output(flags, version, plan))


@pytest.mark.parametrize(("measure", "version"), [("utility.1,-2,3,-4", 9),
                                                  ("utility.1,-2,3,-4", 10),
                                                  ("rbp_resid.p=0.8", 10)])
@pytest.mark.parametrize("flags", ["-c", "-c -J"])
def test_edge_cases_params_complete(flags, measure, version):
    """Parameterised utility and rbp_resid on a topic -c adds: 0 in 9.x; 10.0 evaluates a
    one-document list and resets only the values named exactly `utility` and `rbp_resid`."""
    opts = {}
    for flag in flags.split():
        opts.update(EXTRA_OPTIONS[flag])
    result = evaluate_files(EXTRA / "qrels.edge", [EXTRA / "run.edge"], [measure],
                            options=EvalOptions(version=version, **opts))
    name = f"out.edge.{measure.split('.')[0]}{flags.replace(' ', '')}"
    _compare_main((EXTRA / f"v{version}" / name).read_text(),
                  trec_eval_lines(result, per_topic=True))


# --------------------------------------------------------------------------------------------
# Real data: TREC 2003 Robust and TREC 2012 Web (../shared/realdata).
ROBUST = REALDATA / "trec2003_robust"
WEB = REALDATA / "trec2012_web_diversity"
ROBUST_RUNS = sorted(p.name[len("input."):-len(".gz")]
                     for p in (ROBUST / "runs").glob("input.*.gz")) if ROBUST.is_dir() else []
WEB_RUNS = sorted(p.name[:-len(".txt.gz")]
                  for p in (WEB / "runs").glob("*.txt.gz")) if WEB.is_dir() else []

needs_robust = pytest.mark.skipif(not ROBUST_RUNS, reason=f"no real data at {ROBUST}")
needs_web = pytest.mark.skipif(not WEB_RUNS, reason=f"no real data at {WEB}")


@functools.cache
def robust_results(version: int, complete: bool = False, threshold: int = 1):
    """All 17 runs in one evaluate() call; results keyed by run name (= run tag = file name)."""
    runs = [ROBUST / "runs" / f"input.{r}.gz" for r in ROBUST_RUNS]
    result = evaluate_files(ROBUST / "qrels" / "robust03_qrels.txt", runs, ["all_trec"],
                            options=EvalOptions(version=version, complete=complete,
                                                threshold=threshold))
    out = per_run(result)
    assert sorted(out) == ROBUST_RUNS
    return out


# (expected file suffix, folder, version, -c, -l, -q, official measures only)
ROBUST_KINDS = {
    "all_trec-9": ("all_trec.txt", "expected_trec_eval_v9.0.8", 9, False, 1, False, False),
    "all_trec-10": ("all_trec.txt", "expected_trec_eval", 10, False, 1, False, False),
    "q-9": ("all_trec.q.txt.gz", "expected_trec_eval_v9.0.8", 9, False, 1, True, False),
    "q-10": ("all_trec.q.txt.gz", "expected_trec_eval", 10, False, 1, True, False),
    "q-c-10": ("all_trec.q.c.txt.gz", "expected_trec_eval", 10, True, 1, True, False),
    "l2-10": ("all_trec.l2.txt", "expected_trec_eval", 10, False, 2, False, False),
    "default-10": ("default.txt", "expected_trec_eval", 10, False, 1, False, True),
}


def _robust_case(kind: str, run: str):
    suffix, folder, version, complete, threshold, per_topic, official = ROBUST_KINDS[kind]
    result = robust_results(version, complete, threshold)[run]
    if official:
        result = official_only(result)
    return read_text(ROBUST / folder / f"{run}.{suffix}"), trec_eval_lines(result,
                                                                          per_topic=per_topic)


@pytest.mark.realdata
@pytest.mark.slow
@needs_robust
@pytest.mark.parametrize("run", ROBUST_RUNS or ["none"])
@pytest.mark.parametrize("kind", sorted(ROBUST_KINDS))
def test_trec2003_robust(kind, run):
    _compare_main(*_robust_case(kind, run))


@functools.cache
def web_results(version: int):
    """The 8 baseline runs (all tagged `indri`: one campaign per file keeps the tag)."""
    runs = [WEB / "runs" / f"{r}.txt.gz" for r in WEB_RUNS]
    result = evaluate_files(WEB / "qrels" / "qrels.adhoc.txt", runs, ["all_trec"],
                            options=EvalOptions(version=version))
    # every run is named `indri`: key the per-run results by file instead
    return per_run(result, WEB_RUNS)


WEB_KINDS = {
    "q-9": ("all_trec.q.txt.gz", "expected_trec_eval_v9.0.8", 9, True, False),
    "q-10": ("all_trec.q.txt.gz", "expected_trec_eval", 10, True, False),
    "default-10": ("default.txt", "expected_trec_eval", 10, False, True),
}


def _web_case(kind: str, run: str):
    suffix, folder, version, per_topic, official = WEB_KINDS[kind]
    result = web_results(version)[run]
    if official:
        result = official_only(result)
    return read_text(WEB / folder / f"{run}.{suffix}"), trec_eval_lines(result,
                                                                        per_topic=per_topic)


@pytest.mark.realdata
@pytest.mark.slow
@needs_web
@pytest.mark.parametrize("run", WEB_RUNS or ["none"])
@pytest.mark.parametrize("kind", sorted(WEB_KINDS))
def test_trec2012_web(kind, run):
    _compare_main(*_web_case(kind, run))
