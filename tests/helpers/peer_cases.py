"""Shared by the peer runners (tests/peers/test_*.py): the golden cases ported from the
peers' test suites (tests/peers/<peer>/cases.json: input data sets and, per case, the peer's
measure, topic and expected value with the test's tolerance), and irw's values for them.

irw computes every case through the Python API: a private in-memory warehouse per data set, a
MeasureRequest built from the registry's canonical measure and parameters (the runner's mapping
table says which), and irwarehouse.engine.evaluate.evaluate. No measure name goes through irw's name
grammar here, so the runners test definitions, not spellings.
"""

from __future__ import annotations

import atexit
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import MeasureRequest, registry
from tests.helpers.paths import REPO

PEERS = REPO / "tests" / "peers"


def load(peer: str) -> dict:
    return json.loads((PEERS / peer / "cases.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Irw:
    """An irw measure: the canonical name (registry()), parameters by name (the others take
    their defaults) and evaluation options (EvalOptions fields)."""
    measure: str
    params: tuple = ()
    options: tuple = ()

    @staticmethod
    def of(measure: str, params: dict | None = None, **options) -> Irw:
        return Irw(measure, tuple(sorted((params or {}).items())), tuple(sorted(options.items())))

    def request(self) -> MeasureRequest:
        mdef = registry()[self.measure]
        given = dict(self.params)
        unknown = set(given) - {p.name for p in mdef.params}
        assert not unknown, f"{self.measure} has no parameter(s) {sorted(unknown)}"
        args = tuple(given[p.name] if p.name in given else _default(p) for p in mdef.params)
        return MeasureRequest(mdef, args, str(self))

    def eval_options(self) -> EvalOptions:
        return EvalOptions(**dict(self.options))

    def __str__(self) -> str:
        params = ",".join(f"{k}={v}" for k, v in self.params)
        options = ",".join(f"{k}={v}" for k, v in self.options)
        return self.measure + (f"({params})" if params else "") + (f"[{options}]"
                                                                    if options else "")


def _default(p):
    """A parameter's header default (a family with a list of defaults needs an explicit value)."""
    assert not p.is_list_default, f"give {p.name} (its default is a list: {p.default})"
    if p.default.upper() == "NULL":
        return None
    if p.type == "MAP":
        return {int(k): float(v) for k, v in (x.split(":") for x in
                                              p.default.strip("{} ").split(",") if x.strip())}
    if p.type == "DOUBLE[]":
        return [float(x) for x in p.default.strip("[]").split(",")]
    return int(float(p.default)) if p.type == "INTEGER" else float(p.default)


@dataclass
class Loaded:
    """One data set in its own in-memory warehouse."""
    wh: Warehouse
    qrels_id: int
    run_ids: list[int]
    values: dict = field(default_factory=dict)


_LOADED: dict[tuple, Loaded] = {}


@atexit.register
def _close_all() -> None:
    for loaded in _LOADED.values():
        loaded.wh.close()
    _LOADED.clear()


def _load(qrels: str, runs: tuple[str, ...], qrels_format: str, extra_qrels: tuple) -> Loaded:
    key = (qrels, runs, qrels_format, extra_qrels)
    if key not in _LOADED:
        wh = Warehouse(None, macros=False)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "qrels"
            path.write_text(qrels, encoding="utf-8")
            qid = wh.ingest_qrels(path, "peer", name="qrels", fmt=qrels_format)
            for name, text in extra_qrels:
                extra = Path(tmp) / name
                extra.write_text(text, encoding="utf-8")
                wh.ingest_qrels(extra, "peer", name=name)
            run_ids = []
            for i, text in enumerate(runs):
                path = Path(tmp) / f"run{i}"
                path.write_text(text, encoding="utf-8")
                run_ids.append(wh.ingest_run(path, "peer", name=f"run{i}"))
        _LOADED[key] = Loaded(wh, qid, run_ids)
    return _LOADED[key]


def irw_values(qrels: str, run: str | tuple[str, ...], irw: Irw, *, qrels_format: str = "qrels",
               extra_qrels: tuple = ()) -> tuple[dict[str, float], float | None]:
    """irw's per-topic values {topic: value} and run value (the summary of the measure) for one
    run; each data set is loaded once per session. `extra_qrels`: (name, text) pairs stored in
    the same campaign (a second qrels that uRBP reads by its qrels_id)."""
    runs = (run,) if isinstance(run, str) else tuple(run)
    loaded = _load(qrels, runs, qrels_format, tuple(extra_qrels))
    if str(irw) not in loaded.values:
        result = evaluate(loaded.wh.con, loaded.run_ids[:1], loaded.qrels_id, [irw.request()],
                          irw.eval_options()).with_arrow()
        per_topic = {r["topic"]: r["value"] for r in result.per_topic.to_pylist()}
        summary = [r["value"] for r in result.summary.to_pylist()]
        loaded.values[str(irw)] = (per_topic, summary[0] if summary else None)
    return loaded.values[str(irw)]


def qrels_id(qrels: str, run: str, name: str, *, extra_qrels: tuple = ()) -> int:
    """The qrels_id of a qrels stored with a data set (for uRBP's other_qrels)."""
    loaded = _load(qrels, (run,), "qrels", tuple(extra_qrels))
    return loaded.wh.con.execute("SELECT qrels_id FROM qrels WHERE name = ?", [name]).fetchone()[0]


def case_id(case: dict) -> str:
    return f"{case['test']}:{case.get('provider', '')}:{case['measure']}:{case['topic']}"
