"""ir_datasets by ID (irwarehouse/formats/irds.py, store/irds.py): `irw ingest qrels irds:ID`,
`irw ingest topics irds:ID`, `irw eval irds:ID RUN` and Warehouse.ingest_ir_datasets, on
datasets built through ir_datasets' own API from local files (no network, no mock): datasets
registered here (ir_datasets.registry.register of a Dataset of TrecQrels / TrecSubQrels /
TrecPrels / TsvQueries / TrecXmlQueries on LocalDownload files), and ir_datasets' own
`clueweb09/en/trec-web-2012/diversity` read from its download cache, filled with the
realdata's copies of NIST's files (the MD5s ir_datasets expects: checked below)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import duckdb
import pytest

from irwarehouse import Warehouse
from irwarehouse.errors import InputError
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA, REALDATA, TEST_DATA

WEB2012 = REALDATA / "trec2012_web_diversity"
RUN = DATA / "runs" / "STANDARD.results.test"
SAMPLED = TEST_DATA / "sampled"
needs_web2012 = pytest.mark.skipif(not WEB2012.is_dir(), reason="shared realdata absent")
TOPICS = "301\tinternational organized crime\n302\tpoliomyelitis and post-polio\n" \
         "303\thubble telescope achievements\n"


@pytest.fixture(scope="module")
def irds():
    """ir_datasets and its IR_DATASETS_HOME: a temporary folder of the test process
    (tests/conftest.py sets it before anything imports ir_datasets)."""
    ir_datasets = pytest.importorskip("ir_datasets")
    return ir_datasets, Path(os.environ["IR_DATASETS_HOME"])


@pytest.fixture(scope="module")
def local(irds, tmp_path_factory):
    """{kind: dataset ID} of datasets registered from local files: `adhoc` (data/qrels.test
    and three queries), `diversity` (a small subtopic qrels), `dup` (a judgment twice),
    `missing` (a qrels file that is not there), `prels` (the statAP golden test's prels,
    tests/data/sampled), `dupq` (good qrels, a query id twice)."""
    ir_datasets, _ = irds
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecPrels, TrecQrels, TrecSubQrels, TsvQueries
    from ir_datasets.util import LocalDownload
    folder = tmp_path_factory.mktemp("irds_files")
    (folder / "topics.tsv").write_text(TOPICS)
    (folder / "dupq.tsv").write_text(TOPICS + "302\tagain\n")
    (folder / "div.txt").write_text("1 1 a 1\n1 2 a 2\n1 2 b 0\n1 3 c 1\n2 1 d 1\n")
    (folder / "dup.txt").write_text("301 0 a 1\n301 0 b 0\n301 0 a 2\n")
    prefix = f"irw-test-{folder.name}"
    datasets = {
        "adhoc": Dataset(TrecQrels(LocalDownload(DATA / "qrels.test"), {}),
                         TsvQueries(LocalDownload(folder / "topics.tsv"))),
        "diversity": Dataset(TrecSubQrels(LocalDownload(folder / "div.txt"), {})),
        "dup": Dataset(TrecQrels(LocalDownload(folder / "dup.txt"), {})),
        "missing": Dataset(TrecQrels(LocalDownload(folder / "absent.txt", mkdir=False), {})),
        "prels": Dataset(TrecPrels(LocalDownload(SAMPLED / "mq.prels"), {})),
        "dupq": Dataset(TrecQrels(LocalDownload(DATA / "qrels.test"), {}),
                        TsvQueries(LocalDownload(folder / "dupq.tsv"))),
    }
    ids = {}
    for kind, dataset in datasets.items():
        ids[kind] = f"{prefix}/{kind}"
        ir_datasets.registry.register(ids[kind], dataset)
    return ids


def _rows(path, sql, params=()):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def test_adhoc_qrels_and_queries_stored_with_their_provenance(irds, local, tmp_path):
    ir_datasets, _ = irds
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        got = wh.ingest_ir_datasets(local["adhoc"], campaign="c")
        wh.ingest_qrels(DATA / "qrels.test", "c", name="file")
    assert got["format"] == "qrels" and got["topics"] == 3 and got["judged_topics"] == 3
    # the same judgments as the file's
    judged = "SELECT topic, intent, doc, rel FROM judgment JOIN qrels USING (qrels_id) " \
             "WHERE name = ? ORDER BY ALL"
    file_rows = _rows(path, judged, ["file"])
    assert _rows(path, judged, [local["adhoc"]]) == file_rows and len(file_rows) == 3681
    # provenance: the ID, ir_datasets' version, the digest of the rows in ir_datasets' order
    lines = [line.split() for line in (DATA / "qrels.test").read_text().splitlines()]
    digest = hashlib.sha256("".join(f"{t}\t\t{d}\t{r}\n" for t, _, d, r in lines).encode())
    assert _rows(path, "SELECT source_path, source_version, sha256, num_rows, format FROM qrels "
                 "WHERE name = ?", [local["adhoc"]]) == [
        (f"irds:{local['adhoc']}", f"ir_datasets {ir_datasets.__version__}",
         digest.hexdigest(), 3681, "qrels")]
    assert _rows(path, "SELECT topic, title, source_path, source_version FROM topic "
                 "ORDER BY topic") == [
        (t, title, f"irds:{local['adhoc']}", f"ir_datasets {ir_datasets.__version__}")
        for t, title in (line.split("\t") for line in TOPICS.splitlines())]
    assert irw("check", "-w", path).exit_code == 0


def test_cli_ingest_and_eval_by_id_equal_the_files(local, tmp_path):
    path = tmp_path / "w.duckdb"
    source = f"irds:{local['adhoc']}"
    result = irw("ingest", "qrels", source, "-C", "c", "-w", path)
    assert result.exit_code == 0, result.output
    assert f"ingested 3681 judgments (qrels) from {source}" in result.stdout
    result = irw("ingest", "topics", source, "-C", "c", "-w", path)
    assert result.exit_code == 0 and "ingested 3 topics" in result.stdout, result.output
    assert irw("ingest", "run", RUN, "-C", "c", "-w", path).exit_code == 0
    by_id = irw("eval", source, RUN, "-m", "all_trec", "-q")
    by_file = irw("eval", DATA / "qrels.test", RUN, "-m", "all_trec", "-q")
    stored = irw("eval", "-C", "c", "-m", "all_trec", "-q", "-w", path)
    assert by_id.exit_code == 0, by_id.output
    assert by_id.stdout == by_file.stdout == stored.stdout
    assert "map                   \tall\t0.1785" in by_id.stdout   # trec_eval 9's, in README


def test_diversity_qrels_keep_their_subtopics(local, tmp_path):
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(f"irds:{local['diversity']}", "c")
    assert _rows(path, "SELECT format FROM qrels") == [("diversity",)]
    assert _rows(path, "SELECT topic, intent, doc, rel FROM judgment ORDER BY ALL") == [
        ("1", "1", "a", 1), ("1", "2", "a", 2), ("1", "2", "b", 0), ("1", "3", "c", 1),
        ("2", "1", "d", 1)]
    with Warehouse(path) as wh:          # a dataset without queries: its qrels alone
        got = wh.ingest_ir_datasets(f"irds:{local['diversity']}", campaign="d")
    assert (got["format"], got["judgments"], got["topics"]) == ("diversity", 5, None)


def test_qrels_and_queries_are_stored_together_or_not_at_all(local, tmp_path):
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        with pytest.raises(InputError, match=r"^irds:.*/dupq: query 4: query id '302' again "
                           r"\(first at query 2\)$"):
            wh.ingest_ir_datasets(local["dupq"], campaign="c")
    assert _rows(path, "SELECT count(*) FROM qrels") == [(0,)]
    assert _rows(path, "SELECT count(*) FROM topic") == [(0,)]


def test_sampled_judgments_give_statap_as_the_prels_file(local, tmp_path):
    """ir_datasets' TrecPrels (the Million Query and TREC 2009 Web tracks' prels) read as the
    prels file: statAP equals the file's, which equals statAP_MQ_eval's (test_sampled.py)."""
    source = f"irds:{local['prels']}"
    for run in ("run1.txt", "run2.txt"):
        by_id = irw("eval", source, SAMPLED / run, "-m", "statAP", "-q")
        by_file = irw("eval", SAMPLED / "mq.prels", SAMPLED / run, "-m", "statAP", "-q",
                      "--qrels-format", "prels")
        assert by_id.exit_code == 0, by_id.output
        assert by_id.stdout == by_file.stdout and "statAP" in by_id.stdout
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        wh.ingest_qrels(source, "mq")
    assert _rows(path, "SELECT format FROM qrels") == [("prels",)]
    assert _rows(path, "SELECT count(*) FROM judgment_sample") == \
        _rows(path, "SELECT count(*) FROM judgment")


def test_bad_sources_are_one_line_and_store_nothing(local, tmp_path):
    path = tmp_path / "w.duckdb"
    assert irw("init", "-w", path).exit_code == 0
    cases = [
        (f"irds:{local['dup']}", f"irds:{local['dup']}: judgment 3: document 'a' judged twice "
                                 "for topic '301' (first at judgment 1)"),
        (f"irds:{local['missing']}", f"ir_datasets could not provide the qrels of "
                                     f"{local['missing']}: "),
        ("irds:no/such/dataset", "ir_datasets has no dataset 'no/such/dataset'"),
    ]
    for source, message in cases:
        result = irw("ingest", "qrels", source, "-C", "c", "-w", path)
        assert result.exit_code == 1 and message in one_line(result), result.stderr
    result = irw("ingest", "qrels", f"irds:{local['adhoc']}", "-C", "c", "--format",
                 "diversity", "-w", path)
    assert "--format does not apply to irds: sources" in one_line(result)
    assert _rows(path, "SELECT count(*) FROM qrels") == [(0,)]
    assert _rows(path, "SELECT count(*) FROM campaign") == [(0,)]
    assert irw("ingest", "qrels", f"irds:{local['adhoc']}", "-C", "c", "-w", path).exit_code == 0
    again = irw("ingest", "qrels", f"irds:{local['adhoc']}", "-C", "c", "-w", path)
    assert "is already in campaign 'c' (use --replace" in one_line(again)


def test_without_ir_datasets_one_line_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)      # import ir_datasets fails
    result = irw("ingest", "qrels", "irds:vaswani", "-C", "c", "-w", tmp_path / "w.duckdb")
    assert result.exit_code == 1
    assert "pip install 'irwarehouse[irds]'" in one_line(result)


# -- TREC 2012 Web diversity: ndeval's values from ir_datasets' rows -----------------------------
NDEVAL_RUN = "rm.results-cata"
EXPECTED = WEB2012 / "expected_ndeval" / f"{NDEVAL_RUN}.ndeval2012.c.traditional.csv"
# The files ir_datasets 0.5-0.6 downloads for clueweb09/en/trec-web-2012[/diversity]
# (ir_datasets/etc/downloads.json: cache_path and expected_md5), here from the realdata.
CACHE = {"qrels.all": ("qrels.diversity.txt", "bbfde42fc4bc502b19aec5dcc6922faa"),
         "qrels": ("qrels.adhoc.txt", "079723ba3e955269f0de6254c4bec180"),
         "queries.xml": ("full-topics.xml", "a0b8ee33da312a284fda379582b0bc2a")}


def _ndeval_by_irds(source: str) -> str:
    result = irw("eval", "--format", "ndeval", "-c", "--order", "score", source,
                 WEB2012 / "runs" / f"{NDEVAL_RUN}.txt.gz")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.realdata
@needs_web2012
def test_registered_web2012_diversity_qrels_give_ndevals_csv(irds, tmp_path):
    """NIST's raw qrels.diversity (spam -2 levels, subtopics without relevant documents), read
    by ir_datasets' TrecSubQrels as ir_datasets reads it for clueweb09/en/trec-web-2012/
    diversity, gives ndeval 2012's CSV byte for byte (ndeval ran on NIST's cleaned
    qrels-for-ndeval; realdata PROVENANCE). ir_measures on the same rows gives 0.1195 for
    alpha-nDCG@20 (issue 35), ndeval and irw 0.207430."""
    ir_datasets, _ = irds
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.clueweb09 import TrecWebTrackQuery
    from ir_datasets.formats import TrecSubQrels, TrecXmlQueries
    from ir_datasets.util import LocalDownload
    did = f"irw-test-{tmp_path.name}/web2012-diversity"
    ir_datasets.registry.register(did, Dataset(
        TrecSubQrels(LocalDownload(WEB2012 / "qrels" / "qrels.diversity.txt"), {}),
        TrecXmlQueries(LocalDownload(WEB2012 / "qrels" / "full-topics.xml"),
                       qtype=TrecWebTrackQuery)))
    produced = _ndeval_by_irds(f"irds:{did}")
    assert produced == EXPECTED.read_text()
    assert produced.splitlines()[-1].split(",")[13] == "0.207430"     # alpha-nDCG@20, amean
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        got = wh.ingest_ir_datasets(did, campaign="web2012")
    assert (got["format"], got["judgments"], got["topics"]) == ("diversity", 62394, 50)
    assert _rows(path, "SELECT title, topic_type FROM topic WHERE topic = '151'") == [
        ("403b", "faceted")]


@pytest.mark.realdata
@needs_web2012
def test_ir_datasets_own_web2012_id_read_from_its_cache(irds):
    """`irds:clueweb09/en/trec-web-2012/diversity` itself: ir_datasets' download cache filled
    with the realdata's copies of NIST's files (their MD5s are those ir_datasets expects), so
    that it reads them instead of downloading."""
    ir_datasets, home = irds
    did = "clueweb09/en/trec-web-2012/diversity"
    try:        # where it will look, without downloading (qrels_path() would download)
        handler = ir_datasets.load(did).qrels_handler()
        cache = Path(handler._qrels_dlc.path(force=False)).parent
    except (AttributeError, TypeError):
        pytest.skip("this ir_datasets keeps its download paths elsewhere")
    assert home in cache.parents, (home, cache)          # the test's folder, not the user's
    cache.mkdir(parents=True, exist_ok=True)
    for name, (source, md5) in CACHE.items():
        data = (WEB2012 / "qrels" / source).read_bytes()
        assert hashlib.md5(data).hexdigest() == md5
        shutil.copy(WEB2012 / "qrels" / source, cache / name)
    assert _ndeval_by_irds(f"irds:{did}") == EXPECTED.read_text()
