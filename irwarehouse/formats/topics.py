"""Topic files: the statements of a campaign's topics (`irw ingest topics`), for the `topic`
table that reports and analyst queries join to show titles rather than bare ids.

Formats, told apart by the first non-blank line (or given with --format):

* trec: TREC's SGML-like files, `<top> <num> Number: 401 <title> ... <desc> Description: ...
  <narr> Narrative: ... </top>`; a field runs until the next tag.
* xml: XML whose root holds one element per topic, `topic` or `query`: NTCIR's `<topics><topic>
  <number>..</number><query>..</query>`, WWW's `<queries><query><qid>..</qid><content>..`,
  the TREC Web track's `<topic number=".." type=".."><query>..</query><description>..`.
* tsv: `id<TAB>title` lines (or `id:title`, as the TREC Web track's queries files).

Every error names the file and line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.parsers import expat

from ..errors import InputError
from .lines import check_characters
from .trec import text_lines

FORMATS = ("trec", "xml", "tsv")


@dataclass
class Topic:
    topic: str
    title: str | None
    description: str | None = None
    topic_type: str | None = None
    line: int = 0


def read_topics(path: str | Path, fmt: str | None = None) -> list[Topic]:
    """The topics of `path` in `fmt` (None: told from the first non-blank line). Duplicate
    ids and a file without topics are errors."""
    path = Path(path)
    lines = list(text_lines(path))
    first = next((t.strip() for _, t in lines if t.strip()), "")
    if fmt is None:
        fmt = "trec" if first.lower().startswith("<top>") else \
            "xml" if first.startswith("<") else "tsv"
    if fmt not in FORMATS:
        raise InputError(path, None, f"unknown topic format {fmt!r}; use one of "
                         f"{', '.join(FORMATS)}")
    topics = {"trec": _trec, "xml": _xml, "tsv": _tsv}[fmt](path, lines)
    if not topics:
        raise InputError(path, None, f"no topics found (read as {fmt})")
    seen: dict[str, int] = {}
    for t in topics:
        if t.topic in seen:
            raise InputError(path, t.line, f"topic {t.topic!r} again (first at line "
                             f"{seen[t.topic]})")
        seen[t.topic] = t.line
    return topics


def _clean(text: str | None) -> str | None:
    text = " ".join((text or "").split())
    return text or None


# -- TREC <top> files ------------------------------------------------------------------------
_TAG = re.compile(r"<(/?)(top|num|title|desc|narr|smry|con|fac|def|dom|head)>", re.IGNORECASE)
_LABELS = {"num": r"number\s*:", "title": r"topic\s*:", "desc": r"description\s*:",
           "narr": r"narrative\s*:"}


def _trec(path: Path, lines) -> list[Topic]:
    topics: list[Topic] = []
    fields: dict[str, list[str]] | None = None
    field, start = None, 0
    for lineno, text in lines:
        pos = 0
        for m in _TAG.finditer(text):
            if fields is not None and field:
                fields[field].append(text[pos:m.start()])
            closing, tag = m.group(1), m.group(2).lower()
            pos = m.end()
            if tag == "top" and not closing:
                if fields is not None:
                    raise InputError(path, lineno, f"<top> inside the <top> of line {start}")
                fields, field, start = {}, None, lineno
            elif tag == "top":
                if fields is None:
                    raise InputError(path, lineno, "</top> without <top>")
                topics.append(_trec_topic(path, fields, start))
                fields, field = None, None
            elif fields is None:
                raise InputError(path, lineno, f"<{tag}> outside <top> ... </top>")
            elif not closing:
                field = tag
                fields.setdefault(tag, [])
            else:
                field = None
        if fields is not None and field:
            fields[field].append(text[pos:])
        elif fields is None and text[pos:].strip() and not _TAG.search(text):
            raise InputError(path, lineno, "text outside <top> ... </top>")
    if fields is not None:
        raise InputError(path, start, "<top> without </top>")
    return topics


def _trec_topic(path: Path, fields: dict[str, list[str]], line: int) -> Topic:
    def value(tag):
        text = _clean(" ".join(fields.get(tag, [])))
        if text and tag in _LABELS:
            text = _clean(re.sub(f"^{_LABELS[tag]}", "", text, flags=re.IGNORECASE))
        return text
    number = value("num")
    if not number or len(number.split()) != 1:
        raise InputError(path, line, f"topic without a number (<num> Number: 401), got "
                         f"{number!r}")
    return Topic(number, value("title"), value("desc"), None, line)


# -- XML -------------------------------------------------------------------------------------
@dataclass
class _Element:
    tag: str
    attrs: dict
    line: int
    text: str = ""
    children: list = None


_TOPIC_TAGS = ("topic", "query")
_ID = ("number", "qid", "num", "id", "topic_id", "topicid")
_TITLE = ("title", "query", "content", "querytext", "text")
_DESC = ("description", "desc")


def _xml(path: Path, lines) -> list[Topic]:
    root = _parse_xml(path, "\n".join(text for _, text in lines))
    topics = []
    for el in root.children:
        if el.tag.lower() not in _TOPIC_TAGS:
            continue
        child = {c.tag.lower(): c for c in reversed(el.children)}
        attrs = {k.lower(): v for k, v in el.attrs.items()}
        number = next((_clean(attrs[k]) for k in _ID if k in attrs), None) or \
            next((_clean(child[k].text) for k in _ID if k in child), None)
        if not number:
            raise InputError(path, el.line, f"<{el.tag}> without a topic id (one of "
                             f"{', '.join(_ID)}, as an element or attribute)")
        title = next((_clean(child[k].text) for k in _TITLE if k in child and k != el.tag.lower()),
                     None)
        desc = next((_clean(child[k].text) for k in _DESC if k in child), None)
        topics.append(Topic(number, title, desc, _clean(attrs.get("type")), el.line))
    if not topics:
        raise InputError(path, root.line, f"no <topic> or <query> elements under <{root.tag}>")
    return topics


def _parse_xml(path: Path, text: str) -> _Element:
    """A small tree with line numbers (ElementTree keeps none). Entity declarations are
    refused: a topic file needs none, and they can expand without bound."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Element] = []
    top: list[_Element] = []

    def start(tag, attrs):
        for value in (tag, *attrs.keys(), *attrs.values()):
            check_characters(path, parser.CurrentLineNumber, value)
        el = _Element(tag, attrs, parser.CurrentLineNumber, "", [])
        (stack[-1].children if stack else top).append(el)
        stack.append(el)

    def end(tag):
        stack.pop()

    def data(chunk):
        # a character reference (&#x85;) puts what the line reader refuses as a byte
        check_characters(path, parser.CurrentLineNumber, chunk)
        if stack:
            stack[-1].text += chunk

    def entity(*args):
        raise InputError(path, parser.CurrentLineNumber, "entity declarations are not read "
                         "in a topic file")
    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler, parser.EntityDeclHandler = data, entity
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise InputError(path, exc.lineno, f"not well-formed XML: "
                         f"{expat.ErrorString(exc.code)}") from None
    return top[0]


# -- id<TAB>title ----------------------------------------------------------------------------
def _tsv(path: Path, lines) -> list[Topic]:
    topics = []
    for lineno, text in lines:
        if not text.strip() or text.startswith("#"):
            continue
        sep = "\t" if "\t" in text else ":" if ":" in text else None
        if sep is None:
            raise InputError(path, lineno, "expected id<TAB>title (or id:title), <top> "
                             "topics or XML")
        number, _, title = text.partition(sep)
        if not number.strip() or len(number.split()) != 1:
            raise InputError(path, lineno, f"bad topic id {number.strip()!r}")
        topics.append(Topic(number.strip(), _clean(title), None, None, lineno))
    return topics
