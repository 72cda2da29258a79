"""The rules every reader of a text file applies, whichever path reads it (DuckDB's fast path,
its regex path, the Python line reader that names the bad line), so that every path gives the
same answer:

- a line ends with \\n or \\r\\n; a carriage return anywhere else is refused (DuckDB's reader
  would end the line there, trec_eval would keep it in a field);
- a line holds at most LINE_LIMIT bytes (its end not counted); a longer one is refused,
  naming the limit;
- a UTF-8 byte-order mark at the start of the file is dropped (DuckDB's reader drops it);
  anywhere else it is refused, as are NUL and every other control character (C0 but tab,
  vertical tab and form feed; DEL; C1), so that no key holds an invisible byte;
- the text is UTF-8;
- fields (of runs, qrels and every whitespace-separated file) are separated by runs of space,
  tab, vertical tab and form feed, and leading and trailing ones are ignored: what C's
  isspace() finds within a line, as trec_eval reads its files. Other spaces (no-break space,
  em space) are part of a field.
"""

from __future__ import annotations

import mmap
import os
import re
import sys
from pathlib import Path

from ..errors import InputError

LINE_LIMIT = 1 << 20                 # bytes of one line, its end not counted (1 MiB)
SEPARATORS = " \t\v\f"
BOM = "\ufeff"
_SPLIT = re.compile("[ \t\v\f]+")
_REFUSED = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ufeff]")
# The same characters as UTF-8 bytes, for a scan of a whole file (refused_bytes).
_REFUSED_BYTES = [bytes([b]) for b in (*range(0x09), *range(0x0E, 0x20), 0x7F)]
_C1_BYTES = re.compile(rb"\xc2[\x80-\x9f]")
_BOM_BYTES = BOM.encode()


def _c1_or_bom(data, start: int = 0) -> bool:
    """Whether data[start:] (bytes or a mmap) holds a C1 control character or a byte-order mark
    as UTF-8. Their lead bytes (\xc2, \xef) are looked for first, one memchr each: the regex
    and the three-byte search alone cost 0.09 and 0.16 s CPU over bench's 100 run files of
    plain ASCII, the memchrs a few hundredths (issue 32, target 3)."""
    return ((data.find(b"\xc2", start) >= 0 and _C1_BYTES.search(data, start) is not None)
            or (data.find(b"\xef", start) >= 0 and data.find(_BOM_BYTES, start) >= 0))


def split_fields(text: str) -> list[str]:
    """The fields of a line, split as trec_eval splits them."""
    stripped = text.strip(SEPARATORS)
    return _SPLIT.split(stripped) if stripped else []


_TAB_SEPARATED_REFUSED = re.compile("[\x0b\x0c]")


def tab_fields(path, lineno: int, text: str) -> list[str]:
    """The tab-separated fields of a line (texts, nuggets, session logs): vertical tab and form
    feed, separators elsewhere, would stay inside a field there, so they are refused."""
    m = _TAB_SEPARATED_REFUSED.search(text)
    if m:
        raise InputError(path, lineno, f"control character U+{ord(m.group(0)):04X} in the line "
                         "(fields of this file are separated by tabs)")
    return text.split("\t")


def character_problem(text: str) -> str | None:
    """Why a line's text is refused for its characters, or None."""
    m = _REFUSED.search(text)
    if not m:
        return None
    ch = m.group(0)
    if ch == "\x00":
        return "NUL byte in the line"
    if ch == BOM:
        return "byte-order mark (U+FEFF) inside the file (only the first line may start " \
            "with one)"
    return f"control character U+{ord(ch):04X} in the line"


def check_characters(path, lineno: int | None, text: str) -> None:
    """Refuse a piece of text a structured reader took from a file (an XML element's text or
    attribute, which a character reference such as &#x85; puts there without the byte being
    in the file) by the characters a line may not hold."""
    problem = character_problem(text)
    if problem:
        raise InputError(path, lineno, problem)


def decode_line(path, lineno: int, raw: bytes) -> str:
    """The text of one raw line (its end removed), or the InputError of a line the rules
    refuse."""
    body = raw
    if body.endswith(b"\n"):           # a \r alone at the end of the file ends no line
        body = body[:-2] if body.endswith(b"\r\n") else body[:-1]
    if len(body) > LINE_LIMIT:
        raise InputError(path, lineno, f"line longer than {LINE_LIMIT:,} bytes (the limit)")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, lineno, "not valid UTF-8") from None
    if lineno == 1 and text.startswith(BOM):
        text = text[1:]
    if "\r" in text:
        raise InputError(path, lineno, "carriage return inside the line (lines must end with "
                         "\\n or \\r\\n)")
    problem = character_problem(text)
    if problem:
        raise InputError(path, lineno, problem)
    return text


def raw_lines(stream):
    """(line number, raw line) of a binary stream, reading at most LINE_LIMIT + 3 bytes at a
    time (a line of a gigabyte is refused without being held whole)."""
    lineno = 0
    while True:
        raw = stream.readline(LINE_LIMIT + 3)
        if not raw:
            return
        lineno += 1
        if not raw.endswith(b"\n") and len(raw) == LINE_LIMIT + 3:
            yield lineno, raw                   # decode_line refuses it for its length
            return
        yield lineno, raw


class ByteScan:
    """Whether the bytes of a file (fed block by block) break a rule that DuckDB's reader
    would not see: a refused character, a byte-order mark after the start, a lone carriage
    return, a line over LINE_LIMIT bytes (DuckDB's CSV reader drops a line longer than its
    32 MB buffer, or fails on it; issue 31). A file that breaks none needs no line-by-line
    reading; one that does is read by the Python line reader, which names the line."""

    def __init__(self):
        self.clean, self.single_spaced = True, True
        self._carry, self._start = b"", True
        self._lengths = LineLengths()

    def feed(self, block: bytes) -> None:
        if not self._lengths.feed(block):
            self.clean = False
        data = self._carry + block if self._carry else block
        keep = min(2, len(data))        # a BOM, \xc2 x or \r\n across two blocks
        self._check(data, final=False)
        self._carry = data[-keep:] if keep else b""

    def finish(self) -> None:
        if not self._lengths.finish():
            self.clean = False
        self._check(self._carry, final=True)

    def _check(self, data: bytes, final: bool) -> None:
        if not self.clean or not data:
            return
        offset = 0
        if self._start:
            if data.startswith(_BOM_BYTES):
                offset = 3
            elif len(data) < 3 and _BOM_BYTES.startswith(data) and not final:
                return                              # wait for the rest of a possible BOM
            self._start = False
        body = data[offset:]
        if any(body.find(b) >= 0 for b in _REFUSED_BYTES) or _c1_or_bom(body):
            self.clean = False
        cr = body.count(b"\r")
        if cr:
            # a carriage return must be followed by \n; one at the very end of a block is
            # judged with the next block (the carry)
            pending = body.endswith(b"\r") and not final
            if body.count(b"\r\n") != cr - pending:
                self.clean = False
        if any(body.find(c) >= 0 for c in (b"\t", b"\x0b", b"\x0c")):
            self.single_spaced = False


def _body_length(data, start: int, end: int) -> int:
    """Bytes of the line data[start:end] (`end` at its line feed or the end of data), its
    \r\n or \n not counted, as decode_line counts them."""
    crlf = end < len(data) and end > start and data[end - 1:end] == b"\r"
    return end - start - crlf


def long_line_in(data, limit: int = LINE_LIMIT) -> bool:
    """Whether a line of `data` (bytes or a mmap) holds more than `limit` bytes. Lines are
    measured in windows of half the limit: a longer line covers at least one whole window
    without a line feed, and only there is a line measured, so a file of short lines costs
    one memchr a window (440 for 220 MB)."""
    size, step = len(data), max(1, limit // 2)
    window = 0
    while window < size:
        stop = min(window + step, size)
        if data.find(b"\n", window, stop) >= 0:
            window = stop
            continue
        begin = data.rfind(b"\n", 0, window) + 1
        end = data.find(b"\n", stop)
        end = size if end < 0 else end
        if _body_length(data, begin, end) > limit:
            return True
        window = end + 1
    return False


class LineLengths:
    """long_line_in over a stream of blocks: `feed` and `finish` say whether every line so far
    holds at most `limit` bytes."""

    def __init__(self, limit: int = LINE_LIMIT):
        self.limit = limit
        self._open = 0                  # bytes of the unfinished line before this block
        self._last = b""                # the last byte fed

    def feed(self, block: bytes) -> bool:
        if not block:
            return True
        first = block.find(b"\n")
        if first < 0:
            self._open += len(block)
            self._last = block[-1:]
            return self._open <= self.limit + 1        # + 1: a \r before the coming \n
        before = block[first - 1:first] if first else self._last
        ok = self._open + first - (before == b"\r") <= self.limit
        last = block.rfind(b"\n")
        ok = ok and not long_line_in(block[first + 1:last + 1], self.limit)
        self._open, self._last = len(block) - last - 1, block[-1:]
        return ok

    def finish(self) -> bool:
        return self._open <= self.limit


def scan_mapped(buffer) -> tuple[bool, bool] | None:
    """ByteScan's (clean, single_spaced) of a whole uncompressed file mapped in memory: memchr
    scans, no copy (0.3 s for 220 MB), or one numpy pass when the file is printable ASCII
    (_printable_ascii). None when it has a carriage return (a mmap cannot count them: the file
    is then scanned block by block)."""
    if (len(buffer) >= NUMPY_SCAN_BYTES or "numpy" in sys.modules) and \
            _printable_ascii(buffer):
        return not long_line_in(buffer), True
    if buffer.find(b"\r") >= 0:
        return None
    start = 3 if buffer[:3] == _BOM_BYTES else 0
    clean = not (any(buffer.find(b, start) >= 0 for b in _REFUSED_BYTES)
                 or _c1_or_bom(buffer, start) or long_line_in(buffer))
    single = not any(buffer.find(c) >= 0 for c in (b"\t", b"\x0b", b"\x0c"))
    return clean, single


# A file of printable ASCII, spaces and line feeds only (what most systems write) breaks no
# rule but maybe the line length: one numpy pass over it, its largest byte and its bytes below
# 0x20 counted against its line feeds, costs a fifth of the 35 memchr scans above (0.05 s CPU
# instead of 0.29 for bench_campaign.py's 100 runs, 220 MB; issue 32). Taken when numpy is
# loaded already (a folder of runs: store/ranks.py needs it) or the file pays for its import.
NUMPY_SCAN_BYTES = 64 << 20
_SCAN_CHUNK = 1 << 20               # bytes per numpy step: its temporaries stay in the cache


def _printable_ascii(buffer) -> bool:
    """Whether every byte of `buffer` (bytes or a mmap) is a line feed or in 0x20-0x7E."""
    import numpy as np
    data = np.frombuffer(buffer, np.uint8)
    chunk = data[:0]
    try:
        test = np.empty(min(len(data), _SCAN_CHUNK), bool)
        for start in range(0, len(data), _SCAN_CHUNK):
            chunk = data[start:start + _SCAN_CHUNK]
            if chunk.max() >= 0x7F:
                return False
            below = np.count_nonzero(np.less(chunk, 0x20, out=test[:len(chunk)]))
            if below != np.count_nonzero(np.equal(chunk, 0x0A, out=test[:len(chunk)])):
                return False
        return True
    finally:
        del data, chunk             # a mmap cannot close while an array holds its buffer


# Bytes of a file that a reader holds whole (a ROUGE configuration or file list, a summary a
# configuration names): far above any real one (a DUC configuration of 10,000 evaluations is
# 5 MB, a summary a few kB), and low enough that memory stays bounded.
WHOLE_FILE_LIMIT = 64 << 20


def check_path(path: Path, limit: int | None = None, what: str = "file") -> None:
    """Refuse a path that is not a regular file, before any reader opens it: a device
    (/dev/zero never ends), a named pipe (reading it waits for a writer), a folder, a dangling
    symbolic link; and with `limit`, a file of more bytes (the limit of a `what`)."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "no such file" + (" (a symbolic link to nothing)"
                                                       if path.is_symlink() else ""))
    if not path.is_file():
        raise InputError(path, None, f"not a file ({_file_kind(path)})")
    if limit is not None and path.stat().st_size > limit:
        raise over_limit(path, limit, what)


def over_limit(path, limit: int, what: str) -> InputError:
    return InputError(path, None, f"larger than {limit:,} bytes (the limit of a {what})")


def _file_kind(path: Path) -> str:
    import stat
    mode = path.stat().st_mode
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def read_whole(path: Path, what: str, limit: int = WHOLE_FILE_LIMIT) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (check_path), read with a bound
    (a file that grows while it is read is refused too)."""
    path = Path(path)
    check_path(path, limit, what)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise over_limit(path, limit, what)
    return data


GZIP_MAGIC = b"\x1f\x8b"


def duckdb_compression(paths) -> str:
    """The compression option of DuckDB's read_csv for `paths`: 'gzip' when every file starts
    with gzip's magic bytes, whatever its name ('auto' goes by the name's suffix, so a gzipped
    run named RUN read as garbage), else 'auto'. The readers in Python (trec._open_text) look
    at the same bytes."""
    try:
        heads = []
        for path in paths:
            with open(path, "rb") as f:
                heads.append(f.read(2))
    except OSError:
        return "auto"                   # the reader names the problem
    return "gzip" if heads and all(h == GZIP_MAGIC for h in heads) else "auto"


def absent_bytes(paths: list[str], needles: tuple[bytes, ...]) -> list[bool]:
    """For each of `needles` (single bytes), whether no (uncompressed) file of `paths` holds
    it: one memchr scan of each file per needle still unseen (0.01 s for 220 MB). A gzipped
    file is not scanned, nor one that cannot be mapped: every needle may be in it (the read
    then checks every row, and reports what is wrong with the file)."""
    absent = [True] * len(needles)
    for path in paths:
        try:
            with open(path, "rb") as f:
                if f.read(2) == b"\x1f\x8b":
                    return [False] * len(needles)
                if os.fstat(f.fileno()).st_size == 0:
                    continue
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                    absent = [a and m.find(n) < 0 for a, n in zip(absent, needles)]
        except (OSError, ValueError):
            return [False] * len(needles)
        if not any(absent):
            break
    return absent
