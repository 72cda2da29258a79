import numpy as np
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.errors import MeasureError, WarehouseError
from irwarehouse.meta.load import load_metrics, matrix_from_rows
from tests.helpers.meta_campaign import RUNS, write_campaign


def test_stored_and_on_the_fly_scores_agree(tmp_path):
    path, _, _ = write_campaign(tmp_path)
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(path / "qrels", "c")
        for run in RUNS:
            wh.ingest_run(path / run, "c")
        fly = load_metrics(wh, "c", ["AP", "P@5"])
        wh.evaluate(["AP"], campaign="c", store=True)
        stored = load_metrics(wh, "c", ["AP", "P@5"])
        assert stored.runs == sorted(RUNS) and stored.measures == ["AP", "P@5"]
        np.testing.assert_allclose(stored["AP"], fly["AP"])
        explicit = load_metrics(wh, "c", ["AP"], qrels="qrels", runs=["beta1", "alphaA"])
        assert explicit.runs == ["alphaA", "beta1"]
        with pytest.raises(MeasureError):
            load_metrics(wh, "c", ["AP", "AP"])
        with pytest.raises(MeasureError):
            load_metrics(wh, "c", ["P.5,10"])
        wh.ingest_qrels(path / "qrels", "c", name="again")
        wh.evaluate(["AP"], campaign="c", qrels="again", store=True)
        with pytest.raises(WarehouseError, match="several qrels"):
            load_metrics(wh, "c", ["AP"])
        np.testing.assert_allclose(load_metrics(wh, "c", ["AP"], qrels="again")["AP"],
                                   fly["AP"])


def test_missing_topic_policies():
    rows = [("a", "1", 0.5), ("a", "2", 0.25), ("b", "1", 1.0)]
    with pytest.raises(WarehouseError):
        matrix_from_rows(rows, "AP")
    assert matrix_from_rows(rows, "AP", "drop").values.tolist() == [[0.5, 1.0]]
    assert matrix_from_rows(rows, "AP", "zero").values.tolist() == [[0.5, 1.0], [0.25, 0.0]]
