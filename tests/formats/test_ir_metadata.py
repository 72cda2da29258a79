"""A run's ir_metadata (irwarehouse/formats/ir_metadata.py; Breuer et al., SIGIR 2022): stored
from a YAML file (`irw ingest run RUN --metadata run.yml`) or from the block at the head of the
run file, shown by `irw runs` and the report, written back by `irw export run --metadata`;
the round trip gives the YAML back byte for byte; a malformed file is one line naming the key
and the line; the block never changes how the run evaluates."""

from __future__ import annotations

import json

import duckdb
import pytest
import yaml

from irwarehouse import Warehouse
from irwarehouse.formats import ir_metadata
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA

RUN = DATA / "runs" / "STANDARD.results.test"
QRELS = DATA / "qrels.test"
# The schema's components (ir-metadata.org, schema version 0.1), with a blank line, a comment,
# a quoted value, a block scalar and non-ASCII text, none of which may be lost.
METADATA = """\
schema-version: 0.1
run-version: 1.0
tag: STANDARD   # the run tag of the file's last column
platform:
  hardware:
    cpu:
      model: "Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz"
    ram: 32 GB
  software:
    retrieval toolkit:
    - anserini==0.3.0

research goal:
  venue:
    name: ECIR
    year: 2019
implementation:
  source:
    repository: https://github.com/castorini/anserini
    commit: 9548cd6
method:
  automatic: true
  retrieval:
  - name: bm25
    b: 0.4
    k1: 0.9
actor:
  team: h2oloo
  note: |
    Läuft auf zwei Kernen.
    Second line.
data:
  test collection:
    name: TREC disks 4 and 5
"""


def _ok(*args):
    result = irw(*args)
    assert result.exit_code == 0, result.output
    return result


def _stored(path, sql="SELECT name, ir_metadata FROM run ORDER BY name"):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _eval(*files):
    return _ok("eval", QRELS, *files, "-m", "all_trec", "-q").stdout


def test_round_trip_gives_the_yaml_back_byte_for_byte(tmp_path):
    yml = tmp_path / "run.yml"
    yml.write_bytes(METADATA.encode())
    path = tmp_path / "w.duckdb"
    result = _ok("ingest", "run", RUN, "-C", "c", "--metadata", yml, "-w", path)
    assert result.stdout.rstrip().endswith("with its ir_metadata")
    assert _stored(path) == [("STANDARD", METADATA)]
    out = tmp_path / "exported.run"
    _ok("export", "run", "STANDARD", "-C", "c", "--out", out, "--metadata", "-w", path)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0] == "# ir_metadata.start\n"
    end = lines.index("# ir_metadata.end\n")
    # the block: each YAML line behind '# ' ('#' alone for the blank line)
    block = "".join(line[2:] if line.startswith("# ") else line[1:] for line in lines[1:end])
    assert block.encode() == yml.read_bytes()
    assert len(lines) - end - 1 == 1500
    # read back by the run reader and the metadata reader: same rows, same YAML
    _ok("ingest", "run", out, "-C", "again", "-w", path)
    assert _stored(path, "SELECT DISTINCT ir_metadata FROM run") == [(METADATA,)]
    assert _eval(out) == _eval(RUN)
    with Warehouse(path) as wh:
        assert wh.run_metadata("again", "STANDARD") == METADATA
    plain = tmp_path / "plain.run"
    _ok("export", "run", "STANDARD", "-C", "c", "--out", plain, "-w", path)
    assert plain.read_text().splitlines()[0].split() == \
        ["301", "Q0", "FR940202-2-00150", "104", "2.129133", "STANDARD"]


def test_embedded_block_as_repro_eval_writes_it(tmp_path):
    """repro_eval's MetadataHandler.write_metadata (irgroup/repro_eval, the ir_metadata
    authors' tool) writes `# ir_metadata.start`, then each YAML line as '#', the line and a
    space ("# line \\n"), then `# ir_metadata.end`, then the run's lines."""
    annotated = tmp_path / "annotated.run"
    body = "".join(f"# {line} \n" for line in METADATA.split("\n")[:-1])
    annotated.write_text(f"# ir_metadata.start\n{body}# ir_metadata.end\n" + RUN.read_text(),
                         encoding="utf-8")
    path = tmp_path / "w.duckdb"
    _ok("ingest", "run", annotated, "-C", "c", "-w", path)
    (_, stored), = _stored(path)
    assert stored == METADATA              # its trailing spaces are the writer's, not YAML's
    assert yaml.safe_load(stored) == yaml.safe_load(METADATA)
    assert _eval(annotated) == _eval(RUN)          # the block changes no value


def test_a_folder_of_runs_keeps_each_runs_block(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.run").write_text(ir_metadata.header(METADATA) + RUN.read_text())
    (folder / "b.run").write_text((DATA / "runs" / "STANDARD.results.trunc").read_text()
                                  .replace("STANDARD", "trunc"))
    path = tmp_path / "w.duckdb"
    _ok("ingest", "runs", folder, "-C", "c", "-w", path)
    assert _stored(path) == [("STANDARD", METADATA), ("trunc", None)]
    (folder / "c.run").write_text("# ir_metadata.start\n# tag: [x\n# ir_metadata.end\n"
                                  + RUN.read_text().replace("STANDARD", "third"))
    result = irw("ingest", "runs", folder, "-C", "d", "-w", path)
    assert result.exit_code == 1 and f"{folder / 'c.run'}:2: ir_metadata key 'tag'" \
        in result.stderr
    assert _stored(path, "SELECT count(*) FROM run") == [(2,)]     # all or nothing


def test_runs_and_the_report_show_it(tmp_path):
    yml = tmp_path / "run.yml"
    yml.write_text(METADATA, encoding="utf-8")
    path = tmp_path / "w.duckdb"
    _ok("ingest", "run", RUN, "-C", "c", "--metadata", yml, "-w", path)
    _ok("ingest", "run", DATA / "runs" / "STANDARD.results.trunc", "-C", "c", "--name",
        "bare", "-w", path)
    rows = {r["run"]: r for r in json.loads(_ok("runs", "-w", path, "-f", "json").stdout)}
    assert rows["STANDARD"]["metadata"] == ("tag STANDARD; platform, research goal, "
                                            "implementation, method, actor, data")
    assert rows["bare"]["metadata"] is None and "ir_metadata" not in rows["bare"]
    full = json.loads(_ok("runs", "-w", path, "-f", "json", "--metadata").stdout)
    assert {r["run"]: r["ir_metadata"] for r in full} == {"STANDARD": METADATA, "bare": None}
    table = _ok("runs", "-w", path, "--metadata").stdout
    assert "# ir_metadata of run STANDARD of campaign c\n" + METADATA in table
    _ok("ingest", "qrels", DATA / "qrels.test", "-C", "c", "-w", path)
    out = path.parent / "report"
    _ok("report", "-C", "c", "-m", "map", "-w", path, "--out", out)
    html = (out / "report.html").read_text()
    section = html[html.index("Run metadata (ir_metadata)"):]
    section = section[:section.index("</section>")]
    assert "Läuft auf zwei Kernen." in section and ">bare<" not in section
    assert '"Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz"' not in section       # escaped
    assert ("&#34;Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz&#34;" in section
            or "&quot;Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz&quot;" in section)


# (YAML, line, message): the error names the file, the line and the key's dotted path.
MALFORMED = [
    ("tag: STANDARD\nplatform:\n  hardware:\n    cpu: [Xeon\n    ram: 32 GB\n", 4,
     "ir_metadata key 'platform.hardware.cpu': is not valid YAML: expected ',' or ']', but "
     "got ':' at line 5, while parsing a flow sequence opened here"),
    ("tag: STANDARD\nmethod:\n  automatic: true\n retrieval: bm25\n", 4,
     "ir_metadata key 'method.retrieval': is not valid YAML: expected <block end>, but found "
     "'<block mapping start>'"),
    ("tag: STANDARD\nactor:\n  team: a\n  team: b\n", 4,
     "ir_metadata key 'actor.team': appears twice in its mapping (first at line 3)"),
    ("tag: STANDARD\nplatform: a laptop\n", 2,
     "ir_metadata key 'platform': must hold a mapping of its subcomponents, found a single "
     "value"),
    ("- tag: STANDARD\n", 1,
     "ir_metadata must be a mapping (schema-version, tag, platform, ...), found a list"),
    ("schema-version: 0.1\ntag: bm25\n", 2,
     "ir_metadata key 'tag': 'bm25' is not the run's tag 'STANDARD' (the metadata of another "
     "run?)"),
    ("tag: STANDARD\nmethod: !!python/object/apply:os.system [ls]\n", 2,
     "ir_metadata key 'method': is not valid YAML: could not determine a constructor for the "
     "tag 'tag:yaml.org,2002:python/object/apply:os.system'"),
]


@pytest.mark.parametrize("text, line, message", MALFORMED)
def test_a_malformed_file_is_one_line_naming_key_and_line(tmp_path, text, line, message):
    yml = tmp_path / "run.yml"
    yml.write_text(text)
    path = tmp_path / "w.duckdb"
    _ok("init", "-w", path)
    result = irw("ingest", "run", RUN, "-C", "c", "--metadata", yml, "-w", path)
    assert result.exit_code == 1
    assert one_line(result) == f"irw: error: {yml}:{line}: {message}"
    assert _stored(path) == []                       # nothing stored


def test_a_malformed_embedded_block_names_the_run_files_line(tmp_path):
    run = tmp_path / "annotated.run"
    run.write_text("# ir_metadata.start\n# tag: STANDARD\n# actor:\n#   team: [a\n"
                   "# ir_metadata.end\n" + RUN.read_text())
    result = irw("ingest", "run", run, "-C", "c", "-w", tmp_path / "w.duckdb")
    assert one_line(result).startswith(f"irw: error: {run}:4: ir_metadata key 'actor.team': ")
    unclosed = tmp_path / "unclosed.run"
    unclosed.write_text("# ir_metadata.start\n# tag: STANDARD\n" + RUN.read_text())
    result = irw("ingest", "run", unclosed, "-C", "c", "-w", tmp_path / "w.duckdb")
    assert one_line(result) == (f"irw: error: {unclosed}:3: a run line inside the ir_metadata "
                                "block opened at line 1 (no `# ir_metadata.end` line before it)")


def test_export_without_stored_metadata_is_refused(tmp_path):
    path = tmp_path / "w.duckdb"
    _ok("ingest", "run", RUN, "-C", "c", "-w", path)
    result = irw("export", "run", "STANDARD", "-C", "c", "--out", tmp_path / "x.run",
                 "--metadata", "-w", path)
    assert "run 'STANDARD' of campaign 'c' has no ir_metadata" in one_line(result)
    assert not (tmp_path / "x.run").exists()
    result = irw("export", "run", "nope", "-C", "c", "--out", tmp_path / "x.run", "-w", path)
    assert "no run 'nope' in campaign 'c'" in one_line(result)


def test_header_reads_back_through_embedded(tmp_path):
    run = tmp_path / "r.run"
    for text in (METADATA, "tag: x\n", "tag: x\n\n\nmethod: {}\n", "tag: x"):
        run.write_text(ir_metadata.header(text) + "1 Q0 d 1 1.0 x\n")
        want = text if text.endswith("\n") else text + "\n"
        assert ir_metadata.embedded(run) == want


def test_a_warehouse_without_the_column_lists_its_runs(tmp_path):
    """A warehouse of an earlier version opened read-only (not upgraded) has no
    run.ir_metadata: `irw runs` shows no metadata rather than failing."""
    path = tmp_path / "w.duckdb"
    _ok("ingest", "run", RUN, "-C", "c", "-w", path)
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE run DROP COLUMN ir_metadata")
    con.close()
    rows = json.loads(_ok("runs", "-w", path, "-f", "json", "--metadata").stdout)
    assert [(r["run"], r["metadata"], r["ir_metadata"]) for r in rows] == [
        ("STANDARD", None, None)]
