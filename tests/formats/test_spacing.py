"""One reader for every spacing (irwarehouse/formats/spacing.py): files whose fields are separated
by tabs, runs of spaces or spaces at the ends of lines take DuckDB's single-space split through
a single-spaced copy, with the same values and the same file:line errors as the regex split."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.api import evaluate_files
from irwarehouse.errors import InputError
from irwarehouse.formats import spacing, trec
from tests.formats.test_trec import MEASURES, layouts, make_run


def line_split(data: bytes) -> bytes:
    """The oracle: each line's whitespace-separated fields joined by one space."""
    return b"\n".join(b" ".join(line.split()) for line in data.split(b"\n"))


@settings(derandomize=True, max_examples=400)
@given(st.lists(st.sampled_from([b"a", b"bc", b" ", b"  ", b"\t", b"\n", b"\r\n"]),
                max_size=30),
       st.integers(min_value=1, max_value=6))
def test_single_spaced_is_the_line_split(parts, n_fields):
    data = b"".join(parts)
    out = spacing.single_spaced(data, n_fields)
    assert out is not None
    got = out.replace(b"\r\n", b"\n")
    want = line_split(data.replace(b"\r\n", b"\n"))
    if got != want:
        # left to DuckDB's checks (an empty field or another field count sends the file to the
        # regex path): only tabs were mapped, and the file has no more separators than a
        # single-spaced one of n_fields fields
        assert out == data.replace(b"\t", b" ")
        assert data.count(b" ") + data.count(b"\t") <= (n_fields - 1) * (
            data.count(b"\n") + (not data.endswith(b"\n")))
    assert got.count(b"\n") == data.count(b"\n")            # every line stays where it was


@pytest.mark.parametrize("data", [b"1 Q0 a 1 1 r\x0b\n", b"1 Q0 a 1 1 r\x0c\n",
                                  b"1 Q0 a\r1 1 r\n", b"1 Q0 a 1 1 r\r"])
def test_regex_path_bytes_are_left_alone(data):
    assert spacing.single_spaced(data) is None


def test_sources_copy_only_what_needs_it(tmp_path):
    rows, _ = make_run(1)
    files = {}
    for name, data in layouts(rows).items():
        path = tmp_path / name.replace(" ", "_")
        path.write_bytes(data)
        files[name] = path
    with spacing.spaced_sources([files["single"], files["tabs"], files["double spaces"]],
                                trec._plain) as src:
        assert src[0] == files["single"]                     # no copy of a single-spaced file
        # several files: one without a tab is read as it is (DuckDB's empty-field check then
        # sends it to the regex path, as before); one with tabs is copied
        assert src[2] == files["double spaces"]
        tabs = src[1]
        assert tabs.parent != tmp_path and tabs.read_bytes() == files["single"].read_bytes()
    with spacing.spaced_sources([files["double spaces"]], trec._plain) as src:
        assert src[0] == files["double spaces"]              # read as it is first
    with spacing.spaced_sources([files["double spaces"]], trec._plain, thorough=True) as src:
        spaces = src[0]                                      # read_spaced's second read
        assert spaces.parent != tmp_path
        assert spaces.read_bytes() == files["single"].read_bytes()
    assert not tabs.exists() and not spaces.exists()         # removed on exit
    (tmp_path / "vt").write_bytes(b"1 Q0 a 1 1 r\x0b\n")
    with spacing.spaced_sources([files["single"], tmp_path / "vt"], trec._plain) as src:
        assert src is None


def test_tab_separated_files_are_read_in_place(tmp_path):
    """Files whose fields are separated by tabs alone are split on the tab, with no copy; a
    space anywhere (or a mix with a space-separated file) keeps the single-spaced copy."""
    rows, _ = make_run(1)
    tabs = tmp_path / "tabs"
    tabs.write_bytes(layouts(rows)["tabs"])
    other = tmp_path / "tabs2"
    other.write_bytes(layouts(rows)["tabs"])
    single = tmp_path / "single"
    single.write_bytes(layouts(rows)["single"])
    spaced_tag = tmp_path / "tag_with_space"
    spaced_tag.write_bytes(layouts(rows)["tabs"].replace(b"\n", b" x\n", 1))
    with spacing.spaced_sources([tabs, other], trec._plain) as src:
        assert list(src) == [tabs, other] and src.delimiter == "\t"
    for paths in ([tabs, single], [spaced_tag]):
        with spacing.spaced_sources(paths, trec._plain) as src:
            assert src.delimiter == " " and src[0] != tabs


def test_read_spaced_reads_again_only_what_re_spacing_changes(tmp_path):
    """read_spaced: a file read as it is and refused is read once more from its single-spaced
    copy, and only when the copy differs; a refusal of the copy means the regex path (None)."""
    rows, _ = make_run(1)
    data = layouts(rows)
    paths = {}
    for name in ("single", "double spaces", "tabs", "comment with six fields"):
        paths[name] = tmp_path / name.replace(" ", "_")
        paths[name].write_bytes(data[name])

    def reader(refuse_first: bool):
        seen = []

        def read(sources):
            seen.append((list(sources), sources.delimiter))
            return None if len(seen) == 1 and refuse_first else "read"
        return seen, read
    seen, read = reader(refuse_first=False)
    assert spacing.read_spaced([paths["single"]], trec._plain, read) == "read"
    assert seen == [([paths["single"]], " ")]
    seen, read = reader(refuse_first=True)
    assert spacing.read_spaced([paths["double spaces"]], trec._plain, read) == "read"
    assert seen[0] == ([paths["double spaces"]], " ") and seen[1][0] != [paths["double spaces"]]
    seen, read = reader(refuse_first=True)
    assert spacing.read_spaced([paths["tabs"]], trec._plain, read) == "read"
    assert seen[0] == ([paths["tabs"]], "\t") and seen[1][1] == " "
    seen, read = reader(refuse_first=True)                # nothing to re-space: regex path
    assert spacing.read_spaced([paths["comment with six fields"]], trec._plain, read) is None
    assert len(seen) == 1


@pytest.mark.parametrize("edit", [
    lambda data: data.replace(b"\tQ0\t", b"\t\tQ0\t", 3),           # a run of tabs
    lambda data: data.replace(b"\n", b"\t\n", 2),                    # a tab ending a line
    lambda data: b"\t" + data,                                      # a tab starting one
])
def test_uneven_tabs_take_the_regex_split_with_the_same_values(tmp_path, edit):
    """A tab-separated file with an empty field of the tab split (a run of tabs, a tab at an end
    of a line) is read by the regex split, whose whitespace runs give the values of the
    single-spaced file."""
    rows, qrels = make_run(4)
    (tmp_path / "qrels").write_text(qrels)
    single = _write(tmp_path, "single", layouts(rows)["single"], False)
    uneven = _write(tmp_path, "uneven", edit(layouts(rows)["tabs"]), False)
    want = evaluate_files(tmp_path / "qrels", [single], MEASURES).per_topic.to_pylist()
    assert evaluate_files(tmp_path / "qrels", [uneven], MEASURES).per_topic.to_pylist() == want


def test_every_spacing_takes_the_csv_split(tmp_path, monkeypatch):
    """The layouts that differ from a single-spaced file only in their spacing are evaluated
    without the regex split, gzipped or not, with the values of the single-spaced file."""
    rows, qrels = make_run(5)
    (tmp_path / "qrels").write_text(qrels.replace(" ", "\t"))        # a tab-separated qrels
    want = evaluate_files(tmp_path / "qrels", [_write(tmp_path, "single", layouts(rows)["single"],
                                                      False)], MEASURES).per_topic.to_pylist()

    def no_regex(*args, **kwargs):
        raise AssertionError("the regex split was used")
    monkeypatch.setattr(trec, "_stage_lines", no_regex)
    for name in ("tabs", "double spaces", "leading space", "trailing space", "crlf"):
        for gz in (False, True):
            path = _write(tmp_path, name, layouts(rows)[name], gz)
            got = evaluate_files(tmp_path / "qrels", [path], MEASURES).per_topic.to_pylist()
            assert got == want, (name, gz)


def _write(tmp_path, name, data, gz):
    path = tmp_path / (name.replace(" ", "_") + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.mark.parametrize("bad, message", [
    (b"1\tQ0\tD001\t1\tx\ttag\n", "score 'x' is not a number"),
    (b"1\tQ0\tD001\t1\n", "expected 6 fields"),
    (b"1  Q0  D001  1.5  2  tag\n", "rank '1.5' is not an integer"),
])
def test_errors_name_the_users_file_and_line(tmp_path, bad, message):
    """A bad line of a re-spaced file is reported with the user's path and line number (the
    copy DuckDB reads is never named)."""
    rows, qrels = make_run(2)
    (tmp_path / "qrels").write_text(qrels)
    lines = layouts(rows)["tabs"].splitlines(keepends=True)
    path = tmp_path / "run"
    path.write_bytes(b"".join(lines[:7]) + bad + b"".join(lines[7:]))
    with pytest.raises(InputError) as err:
        evaluate_files(tmp_path / "qrels", [path], MEASURES)
    assert str(err.value).startswith(f"{path}:8: ")
    assert message in str(err.value)


def test_duplicates_in_a_respaced_file(tmp_path):
    rows, qrels = make_run(3)
    (tmp_path / "qrels").write_text(qrels)
    lines = layouts(rows)["double spaces"].splitlines(keepends=True)
    path = tmp_path / "run"
    path.write_bytes(b"".join(lines) + lines[2])
    with pytest.raises(InputError, match=rf"^{path}:{len(lines) + 1}: document .* appears twice"):
        evaluate_files(tmp_path / "qrels", [path], MEASURES)


def test_qrels_fall_back_on_comments_and_blank_lines(tmp_path):
    """A qrels file with a comment or a blank line goes to the regex path (which skips them):
    the same judgments either way."""
    rows, qrels = make_run(4)
    run = _write(tmp_path, "single", layouts(rows)["single"], False)
    (tmp_path / "plain").write_text(qrels)
    (tmp_path / "commented").write_text("# judged by hand\n\n" + qrels.replace(" ", "  "))
    want = evaluate_files(tmp_path / "plain", [run], MEASURES).per_topic.to_pylist()
    assert evaluate_files(tmp_path / "commented", [run], MEASURES).per_topic.to_pylist() == want
