"""Helpers of the golden tests: comparing irwarehouse's trec_eval-layout output with the output
of the real trec_eval binaries, row by row at the printed precision (string compare)."""

from __future__ import annotations

import contextlib
import gzip
import os
from pathlib import Path

import pyarrow.compute as pc

from irwarehouse.evaluate import EvalResult
from irwarehouse.measures import registry
from irwarehouse.output import render

HERE = Path(__file__).resolve().parent
TREC_EVAL_DATA = HERE / "data" / "trec_eval"

# Measures of trec_eval's all_trec that irwarehouse does not implement yet. Their rows are taken
# out of the full-text comparison and checked by separate tests that xfail while the measure is
# missing from the registry (and compare for real once it exists). Empty this set as they land.
NOT_YET: set[str] = set()   # every all_trec measure is implemented


def realdata_dir() -> Path:
    """The team's real data sets: $IRW_REALDATA or ../shared/realdata beside the repository."""
    env = os.environ.get("IRW_REALDATA")
    return Path(env) if env else HERE.parent.parent / "shared" / "realdata"


def read_text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def measure_base(name: str) -> str:
    """The trec_eval measure a printed row belongs to: P_10 -> P, relstring_20 -> relstring."""
    name = name.strip()
    for base in sorted(NOT_YET | set(registry()), key=len, reverse=True):
        if name == base or name.startswith(base + "_"):
            return base
    return name


def is_not_yet(line: str) -> bool:
    return measure_base(line.split("\t", 1)[0]) in NOT_YET


def split_rows(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """(rows of implemented measures, {not-yet measure: its rows}), in file order."""
    main, later = [], {}
    for line in text.splitlines():
        if is_not_yet(line):
            later.setdefault(measure_base(line.split("\t", 1)[0]), []).append(line)
        else:
            main.append(line)
    return main, later


def measure_args(args: list[str]) -> list[str]:
    """trec_eval -m arguments as irwarehouse measure names, leaving out the not-yet measures
    the registry does not have (all_trec itself only expands to registered measures)."""
    out = []
    for a in args:
        base = a.split(".", 1)[0]
        if base in NOT_YET and base not in registry():
            continue
        out.append(a)
    return out


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


def trec_eval_lines(result: EvalResult, *, per_topic: bool, only: set[str] | None = None
                    ) -> list[str]:
    text = render(result, "trec_eval", per_topic=per_topic)
    lines = text.splitlines()
    if only is not None:
        lines = [ln for ln in lines if measure_base(ln.split("\t", 1)[0]) in only]
    return lines


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
    from irwarehouse import evaluate as ev
    saved = ev.choose_plan
    if plan is not None:
        ev.choose_plan = lambda con, opts=None: plan
    try:
        yield
    finally:
        ev.choose_plan = saved
