"""The Spark engine past one process (issue 32, target 6): a Spark standalone cluster on
127.0.0.1, a master and two workers started from pyspark's own scripts as separate processes
(tests/helpers/spark_cluster.py), evaluates TREC 2003 Robust through `irw eval --engine spark
--spark-master spark://127.0.0.1:PORT --data DIR` (the driver a separate `irw` process too, with
its settings in $SPARK_CONF_DIR/spark-defaults.conf as on a real cluster), and its per-topic
values equal DuckDB's `irw eval` to 1e-9.

The measures are a representative set, one Spark query's worth (MEASURES_PER_QUERY): one
measure from each kind of SQL (average precision, cut-off precision, bpref, inferred AP,
interpolation, NTCIREVAL's Q, gain-based ERR, rank-biased precision). Every portable measure
(151) on the cluster took 10+ minutes on the 2-core CI machine (docs/scale.md, "A real
cluster"); the full catalog is checked against DuckDB on local[2] by test_engine.py, whose SQL
is the same: what a cluster adds is the transport (executors in other JVMs reading the export,
shuffles between them, results collected by the driver), which these measures exercise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from tests.helpers.paths import REALDATA
from tests.helpers.small_campaign import same_value, spark_missing
from irwarehouse import spark_submit
from tests.helpers.spark_cluster import spark_class, standalone_cluster

pytestmark = [pytest.mark.slow, pytest.mark.realdata]

ROBUST = REALDATA / "trec2003_robust"
MEASURES = ["map", "P.10", "bpref", "infAP", "iprec_at_recall.0.10", "Q@10", "nERR@10",
            "rbp.0.8"]
# the driver's settings, as a cluster's users keep them: results small, so two shuffle
# partitions (Spark's default 200 makes every shuffle 200 tiny tasks); the driver on loopback
DEFAULTS = """spark.sql.shuffle.partitions 2
spark.driver.host 127.0.0.1
spark.driver.bindAddress 127.0.0.1
spark.ui.enabled false
spark.executor.memory 1g
"""


def _irw(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def robust(tmp_path_factory) -> tuple[Path, Path]:
    """TREC 2003 Robust in a warehouse (17 runs) and its `irw export campaign` folder."""
    if not ROBUST.is_dir():
        pytest.skip("../shared/realdata/trec2003_robust absent")
    folder = tmp_path_factory.mktemp("robust_cluster")
    path = folder / "w.duckdb"
    _irw("ingest", "qrels", ROBUST / "qrels" / "robust03_qrels.txt", "-C", "robust03",
         "-w", path)
    _irw("ingest", "runs", ROBUST / "runs", "-C", "robust03", "-w", path)
    _irw("export", "campaign", "robust03", folder / "export", "-w", path)
    return path, folder / "export"


def test_a_standalone_cluster_gives_duckdbs_values(robust, tmp_path):
    reason = spark_missing()
    if reason:
        pytest.skip(reason)
    path, export = robust
    flags = [x for m in MEASURES for x in ("-m", m)]
    want = json.loads(_irw("eval", "-C", "robust03", "-w", path, "-q", "-f", "json", *flags))

    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(DEFAULTS)
    env = {**os.environ, "SPARK_CONF_DIR": str(conf), "PYSPARK_PYTHON": sys.executable}
    irw_args = ["eval", "--engine", "spark", "--data", str(export), "-C", "robust03",
                "-w", str(tmp_path / "absent.duckdb"), "-q", "-f", "json"]
    with standalone_cluster(tmp_path / "cluster") as master:
        driver = subprocess.run(
            [sys.executable, "-m", "irwarehouse.cli", *irw_args, "--spark-master", master,
             *flags], capture_output=True, text=True, timeout=1500, env=env)
        # the same through spark-submit, its --master taken (irwarehouse/spark_submit.py)
        submit = Path(spark_class()).with_name("spark-submit")
        submitted = subprocess.run(
            [str(submit), "--master", master, str(Path(spark_submit.__file__)), *irw_args,
             "-m", "map", "-m", "P.10"], capture_output=True, text=True, timeout=900,
            env=env)
    assert driver.returncode == 0, driver.stderr[-3000:]
    assert submitted.returncode == 0, submitted.stderr[-3000:]
    got = json.loads(driver.stdout)

    # the work ran in the workers' executors, one on each worker
    master_log = (tmp_path / "cluster" / "master.log").read_text(errors="replace")
    launched = {line.rsplit(" on worker ", 1)[1] for line in master_log.splitlines()
                if "Launching executor" in line}
    assert len(launched) == 2, master_log[-2000:]
    assert master_log.count("Registering app irwarehouse") == 2

    by_spark_submit = json.loads(submitted.stdout)
    assert by_spark_submit == [r for r in got if r["measure"] in ("map", "P_10")]

    key = ("run", "topic", "measure")
    assert len(got) == len(want) > 17 * 100 * len(MEASURES) * 0.9
    assert [tuple(r[k] for k in key) for r in got] == [tuple(r[k] for k in key) for r in want]
    differ = sorted({b["measure"] for a, b in zip(got, want)
                     if not (a["value"] == b["value"] if isinstance(b["value"], str)
                             or b["value"] is None else same_value(a["value"], b["value"]))})
    assert differ == []
