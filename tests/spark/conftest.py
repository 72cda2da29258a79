"""Fixtures of the Spark engine's tests: the small warehouse (built once), and one local
SparkSession for the whole test session (starting a JVM takes seconds)."""

from pathlib import Path

import pytest

from tests.helpers.small_campaign import build_small_warehouse, spark_missing


@pytest.fixture(scope="session")
def small(tmp_path_factory) -> Path:
    return build_small_warehouse(tmp_path_factory.mktemp("spark_small") / "w.duckdb")


@pytest.fixture(scope="session")
def spark():
    """local[2] with settings for small data, where planning, not reading, takes the time:
    one shuffle partition and no adaptive re-planning halve the time of the many small
    queries (measured on the sample campaign: 124 s -> 64 s); no code generation (Java
    compiled per query, for a few hundred rows) and no constraint propagation (an optimizer
    pass that grows fast with the metric SQL's many CASE expressions) take off about 30% more
    (the explained SELECT of irw_map: 24 s -> 14-16 s on a loaded 2-core machine). Skips,
    with the reason, only when pyspark or Java cannot be found."""
    reason = spark_missing()
    if reason:
        pytest.skip(reason)
    from irwarehouse.spark.engine import spark_session
    session = spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "1",
                                              "spark.sql.adaptive.enabled": "false",
                                              "spark.sql.codegen.wholeStage": "false",
                                              "spark.sql.codegen.factoryMode": "NO_CODEGEN",
                                              "spark.sql.constraintPropagation.enabled":
                                                  "false",
                                              # the explained D#-nDCG SELECT ran out of
                                              # 1 GB once (CI of 2026-11-27)
                                              "spark.driver.memory": "2g"})
    yield session
    session.stop()


# Spark's own settings for data of real size: code generation (the default) pays for its
# compilation once a query reads 10^5-10^6 rows (TREC 2003 Robust's conformance: 460 s
# interpreted, 245 s compiled, at load 2-4), and one shuffle partition per core.
CAMPAIGN_SIZED = {"spark.sql.codegen.wholeStage": "true",
                  "spark.sql.codegen.factoryMode": "FALLBACK",
                  "spark.sql.shuffle.partitions": "2"}


@pytest.fixture
def spark_campaign_sized(spark):
    """The session with CAMPAIGN_SIZED for one test, its own settings back afterwards."""
    before = {key: spark.conf.get(key) for key in CAMPAIGN_SIZED}
    for key, value in CAMPAIGN_SIZED.items():
        spark.conf.set(key, value)
    yield spark
    for key, value in before.items():
        spark.conf.set(key, value)
