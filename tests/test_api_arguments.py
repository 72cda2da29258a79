"""The Python API raises irwarehouse's own errors for wrongly typed arguments (issue 31): every
argument of every public method and function, given a value of each wrong kind, ends in an
IrwError naming the argument, never in DuckDB's errors, pyarrow's, an AttributeError or a
TypeError from deep inside."""

from __future__ import annotations

import inspect

import pytest

from irwarehouse.api import Warehouse, evaluate_files, evaluate_rel_res
from irwarehouse.frames import evaluate
from irwarehouse.errors import IrwError
from tests.helpers.paths import DATA

QRELS = str(DATA / "qrels.test")
RUN = str(DATA / "runs" / "STANDARD.results.test")
WRONG = [5, 1.5, True, b"bytes", object(), ["x"], {"a": 1}, None, ("a", 2)]


def _table():
    import pyarrow as pa
    return pa.table({"topic": ["301"], "doc": ["d1"], "score": [1.0]})


def _calls(tmp_path):
    """(callable, valid keyword arguments) of the API's public entry points."""
    wh = Warehouse(None)
    wh.ingest_qrels(QRELS, "c")
    wh.ingest_run(RUN, "c")
    return wh, {
        Warehouse: {"path": None, "wait": 1.0},
        wh.ingest_qrels: {"path": QRELS, "campaign": "c", "name": "q2"},
        wh.ingest_run: {"path": RUN, "campaign": "c", "name": "r2", "team": "t"},
        wh.ingest_intents: {"path": QRELS, "campaign": "c"},
        wh.ingest_doclengths: {"path": QRELS, "campaign": "c"},
        wh.assign_intent_probabilities: {"campaign": "c"},
        wh.ingest_run_table: {"table": _table(), "campaign": "c", "name": "r3"},
        # an ID no dataset has: one line from ir_datasets' registry, no download
        wh.ingest_ir_datasets: {"dataset_id": "irw-test/no-such-dataset", "campaign": "c"},
        wh.run_metadata: {"campaign": "c", "run": "STANDARD"},
        wh.export: {"kind": "scores", "campaign": "c", "out": str(tmp_path / "s.parquet")},
        wh.qrels_id: {"campaign": "c"},
        wh.run_ids: {"campaign": "c", "names": ["STANDARD"]},
        wh.evaluate: {"measures": ["map"], "campaign": "c", "runs": ["STANDARD"]},
        wh.cg_curves: {"campaign": "c", "depth": 5},
        wh.scores: {"campaign": "c", "measure": "map"},
        wh.scope: {"campaign": "c"},
        wh.score_matrix: {"campaign": "c", "measure": "map"},
        wh.compare: {"campaign": "c", "measures": ["map"], "test": "t"},
        evaluate_files: {"qrels": QRELS, "runs": [RUN], "measures": ["map"]},
        evaluate_rel_res: {"rel": QRELS, "res": RUN},
        evaluate: {"qrels": QRELS, "run": RUN, "measures": ["map"]},
    }


def test_wrongly_typed_arguments_are_irwarehouses_own_errors(tmp_path):
    wh, calls = _calls(tmp_path)
    leaks = []
    for fn, valid in calls.items():
        names = [n for n in inspect.signature(fn).parameters if n != "self"]
        for name in names:
            for wrong in WRONG:
                kwargs = {**valid, name: wrong}
                try:
                    fn(**kwargs)
                except IrwError:
                    continue
                except Exception as exc:         # noqa: BLE001 - what the test looks for
                    leaks.append(f"{fn.__qualname__}({name}={wrong!r}): "
                                 f"{type(exc).__name__}: {exc}")
    wh.close()
    assert not leaks, "\n".join(leaks[:20])


def test_the_message_names_the_argument():
    with pytest.raises(IrwError, match=r"Warehouse.ingest_run: campaign must be str, not int"):
        Warehouse(None).ingest_run(RUN, 5)
    with pytest.raises(TypeError, match=r"measures must be list\[str\], not str"):
        evaluate_files(QRELS, [RUN], "map")
