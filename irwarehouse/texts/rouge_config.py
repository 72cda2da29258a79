"""ROUGE-1.5.5's evaluation configuration: the `<ROUGE_EVAL>` XML file, or with -z a file list
(`peer model1 model2 ...` per line). Errors name the file and line."""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..formats.lines import WHOLE_FILE_LIMIT, check_characters, check_path, read_whole


@dataclass
class Evaluation:
    """One <EVAL>: the peers (system id -> file) and models (model id -> file) to compare."""
    eval_id: str
    line: int
    input_format: str | None = None
    peer_root: str | None = None
    model_root: str | None = None
    peers: dict[str, str] = field(default_factory=dict)
    peer_lines: dict[str, int] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    model_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class Config:
    path: Path
    evaluations: list[Evaluation]
    peer_ids: list[str]              # in order of first appearance

    def peer_path(self, ev: Evaluation, peer_id: str) -> Path:
        return self._resolve(f"{ev.peer_root}/{ev.peers[peer_id]}" if ev.peer_root is not None
                             else ev.peers[peer_id], ev.peer_lines[peer_id])

    def model_paths(self, ev: Evaluation) -> list[Path]:
        root = ev.model_root
        return [self._resolve(f"{root}/{name}" if root is not None else name, ev.model_lines[mid])
                for mid, name in ev.models.items()]

    def _resolve(self, name: str, line: int) -> Path:
        """ROUGE opens paths relative to the working directory; a path that is not there is
        also looked for beside the configuration file."""
        path = Path(name)
        if path.exists() or path.is_absolute():
            found = path
        else:
            found = self.path.parent / path
        if not found.exists():
            raise InputError(self.path, line, f"summary file not found: {name}")
        try:            # a device, a pipe, a folder or a huge file: named before any is read
            check_path(found, WHOLE_FILE_LIMIT, "summary")
        except InputError as exc:
            raise InputError(self.path, line, f"summary file {name}: {exc.message}") from None
        return found


_STRIP = re.compile(r"^[\n\s]+|[\n\s]+$")


class _Reader:
    """Walks the XML with expat (for line numbers) the way ROUGE's readEvals walks the DOM:
    element names are matched case-insensitively, attributes ID and TYPE exactly."""

    def __init__(self, path: Path):
        self.path = path
        self.evals: dict[str, Evaluation] = {}
        self.peer_ids: list[str] = []
        self.stack: list[tuple[str, dict, int]] = []
        self.text: list[str] = []
        self.current: Evaluation | None = None

    def start(self, name: str, attrs: dict) -> None:
        line = self.parser.CurrentLineNumber
        for value in (name, *attrs.keys(), *attrs.values()):
            check_characters(self.path, line, value)
        tag = name.upper()
        self.stack.append((tag, attrs, line))
        self.text = []
        if tag == "EVAL":
            eval_id = self._attr(attrs, "ID", line, tag)
            self.current = self.evals.setdefault(eval_id, Evaluation(eval_id, line))
        elif tag == "INPUT-FORMAT":
            fmt = self._attr(attrs, "TYPE", line, tag)
            if not re.fullmatch(r"(?i)SEE|ISI|SPL|SIMPLE", fmt):
                raise InputError(self.path, line, f"unknown input type: {fmt}")
            self._eval(line, tag).input_format = fmt
        elif tag in ("P", "M"):
            self._attr(attrs, "ID", line, tag)

    def end(self, name: str) -> None:
        tag, attrs, line = self.stack.pop()
        value = _STRIP.sub("", "".join(self.text))
        parent = self.stack[-1][0] if self.stack else ""
        if tag == "PEER-ROOT":
            self._eval(line, tag).peer_root = value
        elif tag == "MODEL-ROOT":
            self._eval(line, tag).model_root = value
        elif tag == "P" and parent == "PEERS":
            ev, pid = self._eval(line, tag), attrs["ID"]
            ev.peers[pid], ev.peer_lines[pid] = value, line
            if pid not in self.peer_ids:
                self.peer_ids.append(pid)
        elif tag == "M" and parent == "MODELS":
            ev, mid = self._eval(line, tag), attrs["ID"]
            ev.models[mid], ev.model_lines[mid] = value, line
        self.text = []

    def chars(self, data: str) -> None:
        check_characters(self.path, self.parser.CurrentLineNumber, data)
        self.text.append(data)

    def entity(self, *args) -> None:
        raise InputError(self.path, self.parser.CurrentLineNumber, "entity declarations are "
                         "not read in a ROUGE configuration")

    def _attr(self, attrs: dict, key: str, line: int, tag: str) -> str:
        if key not in attrs:
            raise InputError(self.path, line, f"<{tag}> has no {key} attribute")
        return attrs[key]

    def _eval(self, line: int, tag: str) -> Evaluation:
        if self.current is None:
            raise InputError(self.path, line, f"<{tag}> outside an <EVAL>")
        return self.current

    def read(self) -> Config:
        self.parser = xml.parsers.expat.ParserCreate()
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        # entity declarations can expand without bound, and no configuration needs one (the
        # topic reader refuses them too, formats.topics)
        self.parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser.EntityDeclHandler = self.entity
        data = read_whole(self.path, "ROUGE configuration")
        try:
            self.parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise InputError(self.path, exc.lineno, f"malformed XML: "
                             f"{xml.parsers.expat.ErrorString(exc.code)}") from None
        if not self.evals:
            raise InputError(self.path, None, "no <EVAL> in the configuration")
        return Config(self.path, list(self.evals.values()), self.peer_ids)


def read_config(path: Path | str) -> Config:
    return _Reader(Path(path)).read()


def read_file_list(path: Path | str, fmt: str, system_id: str) -> Config:
    """-z: one evaluation per line, `peer model1 ... modelN`, numbered from 1 ('#' comments
    and blank lines skipped); the peer is called system_id (ROUGE: X by default)."""
    path = Path(path)
    lines = read_whole(path, "ROUGE file list").decode("latin-1").split("\n")
    evals = []
    for number, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        check_characters(path, number, _as_utf8(line))
        files = line.split()
        if len(files) < 2:
            raise InputError(path, number, "a file list line needs a peer and at least one "
                             "model (peer model1 model2 ... modelN)")
        ev = Evaluation(str(len(evals) + 1), number, fmt, None, None)
        ev.peers[system_id], ev.peer_lines[system_id] = files[0], number
        for k, name in enumerate(files[1:], 1):
            ev.models[f"M.{k}"], ev.model_lines[f"M.{k}"] = name, number
        evals.append(ev)
    if not evals:
        raise InputError(path, None, "the file list names no evaluation")
    return Config(path, evals, [system_id])


def _as_utf8(text: str) -> str:
    """A line read as Latin-1 (ROUGE's bytes) as UTF-8 text when it is UTF-8, so that the bytes
    of a UTF-8 character are not mistaken for C1 control characters."""
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return text
