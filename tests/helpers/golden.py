"""Helpers of the golden tests: comparing irwarehouse's trec_eval-layout output with the output
of the real trec_eval binaries, row by row at the printed precision (string compare)."""

from __future__ import annotations

import contextlib
import gzip
from pathlib import Path

import pyarrow.compute as pc

from irwarehouse.engine.evaluate import EvalResult
from irwarehouse.writers import render
from tests.helpers.paths import TEST_DATA

TREC_EVAL_DATA = TEST_DATA / "trec_eval"

def read_text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def per_run(result: EvalResult, keys: list[str] | None = None) -> dict[str, EvalResult]:
    """Split a several-run result into one result per run, keyed by run name (or by `keys`,
    one per run in input order, when run names repeat)."""
    out = {}
    pairs = list(dict.fromkeys(zip(result.summary["run_id"].to_pylist(),
                                   result.summary["run"].to_pylist())))
    if keys is not None:
        assert len(keys) == len(pairs)
        pairs = [(run_id, key) for (run_id, _), key in zip(pairs, keys)]
    for run_id, name in pairs:
        out[name] = EvalResult(
            result.per_topic.filter(pc.equal(result.per_topic["run_id"], run_id)),
            result.summary.filter(pc.equal(result.summary["run_id"], run_id)),
            result.requests, result.options, result.runid)
    return out


def trec_eval_lines(result: EvalResult, *, per_topic: bool) -> list[str]:
    return render(result, "trec_eval", per_topic=per_topic).splitlines()


def official_only(result: EvalResult) -> EvalResult:
    """The `official` measures (trec_eval's default) of an all_trec result."""
    from irwarehouse.measures import parse_measures
    names = {r.name for r in parse_measures(["official"], version=result.options.version)}
    assert names
    reqs = [r for r in result.requests if r.name in names]
    return EvalResult(result.per_topic.filter(pc.is_in(result.per_topic["measure"],
                                                       value_set=_arr(names))),
                      result.summary.filter(pc.is_in(result.summary["measure"],
                                                     value_set=_arr(names))),
                      reqs, result.options, True)


def _arr(names):
    import pyarrow as pa
    return pa.array(sorted(names))


@contextlib.contextmanager
def ranking_plan(plan: str | None):
    """Force evaluate()'s ranking plan ('window', 'counting' or 'stored'; None = its own
    choice), so that small test cases exercise every plan: on its own it picks 'stored' for runs
    ingested into a warehouse and 'counting' for sparsely judged lists. 'stored' reads the rank
    stored at ingestion, so it is only forced on ingested runs evaluated in trec_eval 9's score
    order."""
    from irwarehouse.engine import evaluate as ev
    saved = ev.choose_plan
    if plan is not None:
        ev.choose_plan = lambda con, opts=None: plan
    try:
        yield
    finally:
        ev.choose_plan = saved
