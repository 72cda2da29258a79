"""What every reader refuses before it reads (issue 31 items 5 and 7): a device, a named pipe, a
folder, a symbolic link to nothing, a file over the reader's limit; and the characters the XML
readers (ROUGE configurations, XML topics) take from character references, refused as the line
readers refuse them as bytes. A runs folder names its pipes and dangling links.

A reader that opened a named pipe would wait for a writer for ever, so each refusal runs in a
thread with a deadline; /dev/null stands for every device (reading /dev/zero would not end)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.tables import as_arrow
from irwarehouse.analyst.teams import read_team_file
from irwarehouse.cli import app
from irwarehouse.errors import InputError
from irwarehouse.formats.lines import WHOLE_FILE_LIMIT
from irwarehouse.formats.topics import read_topics
from irwarehouse.texts.rouge_config import read_config, read_file_list
from irwarehouse.texts.rougetext import read_sentences
from tests.formats.test_lines import READERS

EVERY_READER = {
    **{kind: read for kind, (read, _) in READERS.items()},
    "topics": read_topics,
    "teams": read_team_file,
    "rouge_config": read_config,
    "rouge_file_list": lambda p: read_file_list(p, "SPL", "X"),
    "summary": read_sentences,
    "parquet": as_arrow,
}


def irw(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _refusal(read, path) -> str:
    """The message of the InputError `read(path)` raises, within 20 s (a reader that opened a
    named pipe would wait for a writer: the thread is then left waiting, and the test fails)."""
    outcome: list = []

    def call():
        try:
            read(path)
            outcome.append("read without an error")
        except InputError as exc:
            outcome.append(str(exc))
        except Exception as exc:    # noqa: BLE001 - the test reports what else came out
            outcome.append(f"{type(exc).__name__}: {exc}")
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(20)
    assert outcome, f"{path}: still reading after 20 s"
    return outcome[0]


@pytest.fixture
def special(tmp_path):
    """name -> (path, what the refusal says)."""
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    (tmp_path / "to_device").symlink_to("/dev/null")
    (tmp_path / "folder").mkdir()
    return {"pipe": (tmp_path / "pipe", "not a file (a named pipe)"),
            "device": (Path("/dev/null"), "not a file (a device)"),
            "link_to_device": (tmp_path / "to_device", "not a file (a device)"),
            "dangling": (tmp_path / "dangling", "no such file (a symbolic link to nothing)"),
            "folder": (tmp_path / "folder", "not a file (a folder)")}


@pytest.mark.parametrize("kind", EVERY_READER)
@pytest.mark.parametrize("case", ["pipe", "device", "link_to_device", "dangling", "folder"])
def test_every_reader_refuses_what_is_not_a_file_before_reading(special, kind, case):
    path, words = special[case]
    assert _refusal(EVERY_READER[kind], path) == f"{path}: {words}"


def _config(tmp_path, peer: str, peer_id: str = "sys1") -> Path:
    (tmp_path / "model.txt").write_text("the cat sat\n")
    config = tmp_path / "config.xml"
    config.write_bytes(
        b'<ROUGE_EVAL version="1.55">\n<EVAL ID="1">\n<INPUT-FORMAT TYPE="SPL"/>\n<PEERS>\n'
        + f'<P ID="{peer_id}">{peer}</P>\n'.encode() + b'</PEERS>\n<MODELS>\n'
        + f'<M ID="A">{tmp_path / "model.txt"}</M>\n'.encode()
        + b"</MODELS>\n</EVAL>\n</ROUGE_EVAL>\n")
    return config


@pytest.mark.parametrize("case", ["pipe", "device", "folder"])
def test_a_rouge_peer_that_is_not_a_file_is_named_with_the_configurations_line(
        tmp_path, special, case):
    """The issue's /dev/zero peer took `irw ingest texts` to 9.3 GB; a named pipe hung."""
    path, words = special[case]
    config = _config(tmp_path, str(path))
    for args in (["rouge", "-a", config], ["ingest", "texts", config, "-C", "c",
                                           "-w", tmp_path / "w.duckdb"]):
        result = irw(*args)
        assert (result.exit_code, result.stdout) == (1, ""), result.output
        assert result.stderr == f"irw: error: {config}:5: summary file {path}: {words}\n"


def test_files_over_the_whole_file_limit_are_refused_before_reading(tmp_path):
    """A ROUGE configuration, file list and summary are read whole: a (sparse) file one byte
    over the limit is refused by its size."""
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(WHOLE_FILE_LIMIT + 1)
    limit = f"larger than {WHOLE_FILE_LIMIT:,} bytes (the limit of a"
    assert _refusal(read_config, big) == f"{big}: {limit} ROUGE configuration)"
    assert _refusal(lambda p: read_file_list(p, "SPL", "X"), big) == \
        f"{big}: {limit} ROUGE file list)"
    config = _config(tmp_path, str(big))
    result = irw("rouge", "-a", config)
    assert result.stderr == f"irw: error: {config}:5: summary file {big}: {limit} summary)\n"


# -- characters from XML character references: refused as the line readers refuse the bytes ------
@pytest.mark.parametrize("text, words", [
    ("&#x85;", "control character U+0085"), ("&#x9f;", "control character U+009F"),
    ("&#x7f;", "control character U+007F"), ("\x7f", "control character U+007F"),
    ("\u0085", "control character U+0085"), ("&#xfeff;", "byte-order mark"),
])
def test_rouge_configurations_refuse_what_the_line_readers_refuse(tmp_path, text, words):
    """In a peer ID (a DEL there was refused without file or line, as a bad run name), and in a
    file name."""
    for config in (_config(tmp_path, "p.txt", peer_id=f"sys{text}"),
                   _config(tmp_path, f"p{text}.txt")):
        message = _refusal(read_config, config)
        assert message.startswith(f"{config}:5: {words}"), message


def test_rouge_configurations_do_not_read_entity_declarations(tmp_path):
    """An entity can expand without bound (the topic reader refused them already)."""
    config = _config(tmp_path, "p.txt")
    text = config.read_text()
    config.write_text('<!DOCTYPE ROUGE_EVAL [\n<!ENTITY x "xxxxxxxx">\n]>\n' + text)
    assert _refusal(read_config, config) == \
        f"{config}:2: entity declarations are not read in a ROUGE configuration"


@pytest.mark.parametrize("text, words", [
    ("&#x85;", "control character U+0085"), ("&#x9b;", "control character U+009B"),
    ("&#x7f;", "control character U+007F"), ("&#xfeff;", "byte-order mark"),
])
def test_xml_topics_refuse_what_the_line_readers_refuse(tmp_path, text, words):
    for body in (f'<topic number="40{text}1"><query>q</query></topic>',
                 f'<topic number="401"><query>a{text}b</query></topic>'):
        path = tmp_path / "topics.xml"
        path.write_text(f"<topics>\n{body}\n</topics>\n")
        message = _refusal(read_topics, path)
        assert message.startswith(f"{path}:2: {words}"), message


def test_the_line_readers_refuse_the_same_characters_as_bytes(tmp_path):
    """The rule the XML readers now follow: a NUL, C1 or DEL in a topic file's line."""
    for raw, words in ((b"\xc2\x85", "U+0085"), (b"\x7f", "U+007F"), (b"\x00", "NUL byte")):
        path = tmp_path / "topics.tsv"
        path.write_bytes(b"401\tfirst\n402\tsec" + raw + b"ond\n")
        assert words in _refusal(read_topics, path)


def test_stored_summaries_refuse_control_characters_with_file_and_line(tmp_path):
    """`irw ingest texts CONFIG.xml` stores the summaries' text: the characters the TSV readers
    refuse are refused there too (`irw rouge` alone reads bytes as ROUGE-1.5.5 does)."""
    peer = tmp_path / "peer.txt"
    wh = tmp_path / "w.duckdb"
    config = _config(tmp_path, str(peer))
    for data, words in ((b"a cat\nsat \x01 here\n", "control character U+0001 in the line"),
                        (b"a cat\nsat\x00\n", "NUL byte in the line"),
                        (b"a cat\ndon\x92t\n", ("control character U+0092 in the line (the "
                                                "file is not UTF-8, so it is read as "
                                                "Latin-1"))):
        peer.write_bytes(data)
        assert irw("rouge", "-a", config).exit_code == 0
        result = irw("ingest", "texts", config, "-C", "c", "-w", wh)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"irw: error: {peer}:2: {words}"), result.stderr
    peer.write_bytes("a cat\ndon’t\n".encode())
    assert irw("ingest", "texts", config, "-C", "c", "-w", wh).exit_code == 0


# -- a runs folder --------------------------------------------------------------------------------
def test_a_runs_folder_names_its_pipes_and_dangling_links(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.txt").write_text("1 Q0 d1 1 1.0 good\n")
    (folder / "old").mkdir()
    os.mkfifo(folder / "pipe.txt")
    (folder / "zlink.txt").symlink_to(folder / "gone.txt")
    wh = tmp_path / "w.duckdb"
    result = irw("ingest", "runs", folder, "-C", "c", "-w", wh)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == \
        f"irw: error: {folder / 'pipe.txt'}: not a file (a named pipe)"
    result = irw("ingest", "runs", folder, "-C", "c", "-w", wh, "--keep-going")
    assert result.exit_code == 1
    assert result.stdout == "good.txt\tgood\tteam=good\n"
    errors = [line for line in result.stderr.splitlines() if not line.startswith("checking")]
    assert errors == ["skipped old: a folder",
                      f"irw: error: {folder / 'pipe.txt'}: not a file (a named pipe)",
                      (f"irw: error: {folder / 'zlink.txt'}: no such file (a symbolic link "
                       "to nothing)"),
                      "1 runs stored in campaign c, 1 skipped, 2 failed"]
