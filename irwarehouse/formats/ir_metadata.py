"""A run's ir_metadata (Breuer et al., "ir_metadata: An Extensible Metadata Schema for IR
Experiments", SIGIR 2022; https://www.ir-metadata.org): a YAML document describing the run
along the PRIMAD model (platform, research goal, implementation, method, actor, data), given
as its own file (`irw ingest run RUN --metadata run.yml`) or embedded at the head of the run
file as ir_metadata specifies and repro_eval's MetadataHandler writes it:

    # ir_metadata.start
    # schema-version: 0.1
    # tag: bm25
    # method:
    #   retrieval:
    #   - name: bm25
    # ir_metadata.end
    301 Q0 FBIS3-10082 1 12.3 bm25

The run reader skips `#` lines (formats.trec), so the block never changes the run's rows. The
embedded YAML is the block's lines without their `#` and the one space after it (and without
the one space repro_eval's writer puts at the end of every line, when every line has it).

What is stored (run.ir_metadata) is the YAML text itself, byte for byte as given (a file's
text; a block's lines as just said), so that `irw export run --metadata` gives the same YAML
back; it is checked first: valid YAML (PyYAML's safe loader: no Python objects), one mapping
at the top, no key twice in a mapping (PyYAML would keep the last silently), each PRIMAD
component a mapping, `tag` a single value and the run's tag. A problem is one line naming the
key and the line."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from ..failures import shown

START = "# ir_metadata.start"
END = "# ir_metadata.end"
# The PRIMAD components of the schema (ir-metadata.org, schema version 0.1): each a mapping.
COMPONENTS = ("platform", "research goal", "implementation", "method", "actor", "data")
_KEY = re.compile(r"""^(\s*)(?:-\s+)?("[^"]*"|'[^']*'|[^\s#:'"\-?][^:#]*?)\s*:(\s|$)""")


# -- reading -------------------------------------------------------------------------------------
def read_file(path: str | Path, *, run_tag: str | None = None) -> str:
    """The checked YAML text of an ir_metadata file."""
    path = Path(path)
    from .trec import check_readable
    check_readable(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise InputError(path, line, "not valid UTF-8") from None
    text = text[1:] if text.startswith("\ufeff") else text
    check(text, path, run_tag=run_tag)
    return text


def embedded(path: str | Path, *, run_tag: str | None = None) -> str | None:
    """The checked YAML of the ir_metadata block at the head of a run file (its first
    non-blank line `# ir_metadata.start`), or None when it has none. Reads only the head."""
    from .trec import text_lines
    path = Path(path)
    lines: list[str] = []
    start = None
    for lineno, text in text_lines(path):
        if start is None:
            if not text.strip():
                continue
            if text.rstrip() != START:
                return None
            start = lineno
            continue
        if text.rstrip() == END:
            if lines and all(line.endswith(" ") for line in lines):
                # repro_eval's MetadataHandler writes "# " + line + " ": its space, not the
                # YAML's (it would end every line of a block scalar)
                lines = [line[:-1] for line in lines]
            yaml_text = "".join(f"{line}\n" for line in lines)
            check(yaml_text, path, offset=start, run_tag=run_tag)
            return yaml_text
        if not text.startswith("#"):
            raise InputError(path, lineno, f"a run line inside the ir_metadata block opened at "
                             f"line {start} (no `{END}` line before it)")
        body = text[1:]
        lines.append(body[1:] if body.startswith(" ") else body)
    if start is None:
        return None
    raise InputError(path, start, f"the ir_metadata block is not closed (no `{END}` line)")


def check(text: str, source, *, offset: int = 0, run_tag: str | None = None) -> None:
    """Refuse ir_metadata text that is not valid YAML or not one mapping as the schema has it;
    `offset`: the file line before the text's first (an embedded block's). The error names
    the key (as a dotted path) and the line."""
    import yaml
    lines = text.splitlines()

    def fail(index: int, message: str, *, keyed: bool = True):
        key = key_path(lines, index) if keyed else None
        where = f"key {key!r}: " if key else ""
        return InputError(source, offset + index + 1, f"ir_metadata {where}{message}")

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        yaml.safe_load(text)                  # what the composer lets through: !!python/...
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "not valid YAML").split())
        opened = exc.context_mark is not None and exc.problem_mark is not None and \
            any(w in (exc.context or "") for w in ("flow", "quoted", "scanning"))
        if opened:                            # an unclosed [ { or quote: name where it opened
            problem += f" at line {offset + exc.problem_mark.line + 1}, {exc.context} opened here"
            mark = exc.context_mark
        raise fail(mark.line if mark else 0, f"is not valid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise fail(0, f"is not valid YAML: {' '.join(str(exc).split())}") from None
    if root is None:
        raise InputError(source, offset + 1 if offset else None, "ir_metadata is empty")
    if not isinstance(root, yaml.MappingNode):
        raise fail(root.start_mark.line, "must be a mapping (schema-version, tag, platform, "
                   f"...), found a {_kind(root)}", keyed=False)
    _no_key_twice(root, fail)
    for key_node, value in root.value:
        key = key_node.value
        if key in COMPONENTS and not isinstance(value, yaml.MappingNode) and \
                not _is_null(value):
            raise fail(key_node.start_mark.line, f"must hold a mapping of its subcomponents, "
                       f"found a {_kind(value)}")
        if key == "tag":
            if not isinstance(value, yaml.ScalarNode):
                raise fail(key_node.start_mark.line, f"must be one value, found a "
                           f"{_kind(value)}")
            if run_tag is not None and value.value != run_tag:
                raise fail(key_node.start_mark.line, f"{shown(value.value)} is not the run's "
                           f"tag {shown(run_tag)} (the metadata of another run?)")


def _no_key_twice(node, fail) -> None:
    import yaml
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value in node.value:
            key = str(key_node.value)
            if key in seen:
                raise fail(key_node.start_mark.line, f"appears twice in its mapping (first at "
                           f"line {seen[key] + 1})")
            seen[key] = key_node.start_mark.line
            _no_key_twice(value, fail)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _no_key_twice(item, fail)


def _kind(node) -> str:
    import yaml
    return {yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}.get(type(node), "single value")


def _is_null(node) -> bool:
    import yaml
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


def key_path(lines: list[str], index: int) -> str | None:
    """The dotted path of the key on line `index` (0-based) or the nearest one above it,
    through the keys of less indentation above (`platform.hardware.cpu`)."""
    path: list[str] = []
    indent = None
    for i in range(min(index, len(lines) - 1), -1, -1):
        m = _KEY.match(lines[i])
        if not m:
            continue
        width = len(m.group(1))
        if indent is None or width < indent:
            path.append(m.group(2).strip("'\""))
            indent = width
            if width == 0:
                break
    return ".".join(reversed(path)) or None


# -- showing and writing -------------------------------------------------------------------------
def summary(text: str | None) -> str | None:
    """A short line for `irw runs`: the tag and which PRIMAD components are described,
    e.g. `tag bm25; platform, implementation, method`."""
    if not text:
        return None
    import yaml
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return "(unreadable)"
    if not isinstance(doc, dict):
        return "(unreadable)"
    parts = []
    if doc.get("tag") is not None:
        parts.append(f"tag {doc['tag']}")
    present = [c for c in COMPONENTS if doc.get(c)]
    if present:
        parts.append(", ".join(present))
    return "; ".join(parts) or "(no PRIMAD components)"


def header(text: str) -> str:
    """The ir_metadata block of a run file for YAML `text`: each line behind `# ` (`#` alone
    for an empty line), between the start and end lines; embedded() reads `text` back byte
    for byte when it ends with a line feed (else with one added)."""
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    body = "".join(f"# {line}\n" if line else "#\n" for line in lines)
    return f"{START}\n{body}{END}\n"
