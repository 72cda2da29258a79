"""The parsed SQL files kept between processes (irwarehouse.parsecache): the same macros and
measures as parsing the files, and never a stale answer."""

import os
import pickle
import shutil
import subprocess
import sys

import pytest

from irwarehouse import parsecache, sqlfiles
from irwarehouse.measures import catalog

# what a fresh process reads: the catalog's view of one measure and the macros' names
_PROBE = """
from irwarehouse import sqlfiles
from irwarehouse.measures import catalog
m = catalog.registry()["map"]
print(m.doc, sorted(catalog.registry()) == sorted(catalog._registry()),
      sorted(sqlfiles.all_macros()) == sorted(sqlfiles._all_macros(
          [sqlfiles.sql_dir() / "context.sql", *sqlfiles.metric_files()])), sep="|")
"""


def _probe(sql: os.PathLike) -> list[str]:
    env = {**os.environ, "IRW_SQL_DIR": str(sql)}
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip().split("|")


@pytest.fixture
def sql_copy(tmp_path):
    copy = tmp_path / "sql"
    shutil.copytree(sqlfiles.sql_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_a_second_process_reads_the_cache_and_gets_what_parsing_gives(sql_copy):
    first = _probe(sql_copy)
    kept = sql_copy / "__pycache__" / "irw-measures.pickle"
    assert kept.is_file() and (sql_copy / "__pycache__" / "irw-macros.pickle").is_file()
    assert first[1:] == ["True", "True"]
    mtime = kept.stat().st_mtime_ns
    assert _probe(sql_copy) == first
    assert kept.stat().st_mtime_ns == mtime          # read, not written again


def test_an_edited_sql_file_is_parsed_again(sql_copy):
    _probe(sql_copy)
    ap = sql_copy / "metrics" / "ap.sql"
    text = ap.read_text()
    assert "-- doc: " in text
    ap.write_text(text.replace("-- doc: ", "-- doc: EDITED ", 1))
    doc, *same = _probe(sql_copy)
    assert doc.startswith("EDITED ") and same == ["True", "True"]


def test_a_corrupt_cache_is_parsed_again_and_replaced(sql_copy):
    first = _probe(sql_copy)
    for name in ("irw-measures.pickle", "irw-macros.pickle"):
        (sql_copy / "__pycache__" / name).write_bytes(b"not a pickle")
    assert _probe(sql_copy) == first
    with open(sql_copy / "__pycache__" / "irw-measures.pickle", "rb") as f:
        assert isinstance(pickle.load(f), tuple)


def test_a_folder_where_no_cache_can_be_written_parses_in_every_process(sql_copy):
    (sql_copy / "__pycache__").write_text("a file where the cache folder would be")
    assert _probe(sql_copy)[1:] == ["True", "True"]
    assert (sql_copy / "__pycache__").is_file()


def test_a_cache_written_from_other_files_is_not_used(tmp_path, sql_copy):
    """The stamp names every file with its size and time: a value kept for other files (or
    another version of the code) is never returned."""
    calls = []

    def build():
        calls.append(1)
        return len(calls)
    files = [sql_copy / "context.sql"]
    assert parsecache.cached("probe", tmp_path, files, build) == 1
    assert parsecache.cached("probe", tmp_path, files, build) == 1
    assert parsecache.cached("probe", tmp_path, [*files, sql_copy / "schema.sql"], build) == 2
    os.utime(files[0], ns=(0, 0))
    assert parsecache.cached("probe", tmp_path, files, build) == 3
    assert catalog.registry()["map"].kernel == "m_map"
