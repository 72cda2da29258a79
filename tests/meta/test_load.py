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


def test_text_scores_are_read_by_their_stored_names(tmp_path):
    """ROUGE and nugget scores (issue 17) are stored under names the measure grammar does not
    read (ROUGE-1-R, nuggetF): irw meta and predictive-power read them as stored."""
    import json

    from typer.testing import CliRunner

    from irwarehouse.cli import app
    w = str(tmp_path / "w.duckdb")
    files = {"out.tsv": "t1\tA\tthe cat sat on the mat\nt2\tA\tdogs bark\n"
                        "t1\tB\ta dog sat\nt2\tB\tcats sleep\n",
             "refs.tsv": "t1\tr1\tthe cat sat on the mat\nt2\tr1\tdogs bark at night\n",
             "gold.tsv": "t1\tn1\t1\tcat\nt2\tn1\t1\tdogs\n",
             "match.tsv": "t1\tA\tn1\t6\nt2\tA\tn1\t4\nt1\tB\tn1\t3\n",
             "len.tsv": "t1\tA\t17\nt2\tA\t8\nt1\tB\t7\nt2\tB\t9\n",
             "prefs.tsv": "t1\tA\tB\tleft\tu\nt2\tB\tA\tright\tu\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)

    def irw(*args):
        result = CliRunner().invoke(app, [str(a) for a in args])
        assert result.exit_code == 0, result.output
        return result.stdout
    irw("ingest", "texts", tmp_path / "out.tsv", "-C", "c", "-w", w)
    irw("ingest", "texts", tmp_path / "refs.tsv", "-C", "c", "--kind", "references",
        "--name", "refs", "-w", w)
    irw("rouge", "-n", "1", "--campaign", "c", "--references", "refs", "--warehouse", w)
    irw("ingest", "nuggets", "-C", "c", "--name", "gold", "--gold", tmp_path / "gold.tsv",
        "--matches", tmp_path / "match.tsv", "--lengths", tmp_path / "len.tsv", "-w", w)
    irw("nuggets", "-C", "c", "--nuggets", "gold", "-m", "nuggetF", "--store", "-w", w)
    got = json.loads(irw("meta", "rankcorr", "-C", "c", "-m", "ROUGE-1-R", "-m", "nuggetF",
                         "-f", "json", "-w", w))
    assert [(r["measure_a"], r["measure_b"], r["kendall"]) for r in got["rows"]] == \
        [("ROUGE-1-R", "nuggetF", 1.0)]
    irw("ingest", "preferences", tmp_path / "prefs.tsv", "-w", w)
    got = json.loads(irw("meta", "predictive-power", "-C", "c", "-m", "ROUGE-1-R", "-f", "json",
                         "-w", w))
    assert (got[0]["agree"], got[0]["predictive_power"]) == (2, 1.0)
    with Warehouse(w) as wh, pytest.raises(MeasureError, match="unknown measure"):
        load_metrics(wh, "c", ["ROUGE-9-Q"])
    # the one lookup (irw meta and irw report): the grammar first, then the name as stored
    from irwarehouse.meta.load import score_name
    with Warehouse(w) as wh:
        assert score_name(wh.con, "c", "P.10") == ("P_10", False)
        assert score_name(wh.con, "c", "nuggetF") == ("nuggetF", True)
        with pytest.raises(MeasureError, match="unknown measure"):
            score_name(wh.con, "c", "nuggetF", as_stored=False)
        with pytest.raises(MeasureError, match="unknown measure"):
            score_name(wh.con, "other", "ROUGE-1-R")
