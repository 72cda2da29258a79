"""Every failure as one line and an exit code (docs/reliability.md lists the promises).

`describe(exc)` turns any exception into (exit code, message): the errors a user causes
(IrwError, ValueError) keep their message; the system's (disk full, I/O errors, a damaged or
busy warehouse, DuckDB's own errors) are named in words; anything else is an internal error
whose traceback `--debug` shows. `clean` makes any message one printable line, so that no
input can move or colour the terminal; `shown` quotes a value from a file, cut short.
"""

from __future__ import annotations

import errno
import unicodedata

from .errors import IrwError

EXIT_ERROR = 1          # the input or the request is wrong
EXIT_USAGE = 2          # the command line (typer/click)
EXIT_STORAGE = 3        # the warehouse or the system failed (disk, I/O, damage, lock)
EXIT_INTERNAL = 4       # a bug: an error irw did not expect
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

MESSAGE_LIMIT = 500
COMPACT_HINT = "`irw compact` gives back the space a failed write left in the file"


def unsafe(ch: str) -> bool:
    """A character that must not reach a terminal, an HTML page or a plot as it is: control
    characters (C0, DEL, C1), format characters (right-to-left overrides, zero-width spaces
    and joiners, U+FEFF), line and paragraph separators, surrogates, private-use and
    unassigned code points: each can move, hide, reorder or recolour what is printed."""
    return unicodedata.category(ch) in _UNSAFE


_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def escaped(text: str, keep: str = "") -> str:
    """`text` with every unsafe character but those in `keep` written as an escape (\\x1b,
    \\u202e)."""
    if text.isprintable():
        return text
    return "".join((f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else
                    f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
                   if unsafe(ch) and ch not in keep else ch for ch in text)


def clean(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text` as one printable line: line breaks and tabs become spaces, other unsafe
    characters (C0, DEL, C1 such as the CSI of terminal escapes, right-to-left overrides,
    zero-width characters) are escaped, and the line is cut at `limit` characters."""
    line = escaped(text.translate(_SPACES))
    return line if len(line) <= limit else line[:limit - 1] + "…"


_SPACES = str.maketrans("\n\r\t\v\f", "     ")


def plain(value: str, limit: int = 40) -> str:
    """A name for a table or a message, unquoted: unsafe characters escaped, cut at `limit`
    characters with its length given."""
    text = escaped(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(value)} characters)"


def shown(value: str, limit: int = 40) -> str:
    """A value read from a file, quoted for a message: repr (control characters escaped), cut
    at `limit` characters with its length given."""
    if len(value) <= limit:
        return repr(value)          # repr escapes every unsafe character (isprintable)
    return f"{value[:limit]!r}… ({len(value)} characters)"


def first_line(text: str) -> str:
    """The first line of a message: up to its first line feed only (str.splitlines would also
    cut at U+2028, U+0085 or a form feed that a user's SQL or file carried into it)."""
    return text.split("\n", 1)[0]


def describe(exc: BaseException) -> tuple[int, str]:
    """(exit code, one-line message) of an exception that ends a command."""
    if isinstance(exc, IrwError):
        return exc.exit_code, clean(str(exc))
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "interrupted"
    if isinstance(exc, OSError):
        return _os_error(exc)
    if isinstance(exc, MemoryError):
        return EXIT_STORAGE, "out of memory"
    if isinstance(exc, RecursionError):
        return EXIT_ERROR, "the input is nested too deeply to be read"
    duckdb_error = _duckdb_error(exc)
    if duckdb_error is not None:
        return duckdb_error
    if isinstance(exc, ValueError):
        return EXIT_ERROR, clean(str(exc) or type(exc).__name__)
    first = first_line(str(exc))
    return EXIT_INTERNAL, clean(f"internal error: {type(exc).__name__}: {first} (run with "
                                "--debug for the traceback, and please report it)")


def _os_error(exc: OSError) -> tuple[int, str]:
    what = exc.strerror or str(exc) or type(exc).__name__
    where = f"{exc.filename}: " if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        return EXIT_STORAGE, clean(f"disk full: {where}{what}")
    if exc.errno in (errno.EIO, errno.EROFS, errno.EDQUOT):
        return EXIT_STORAGE, clean(f"{where}{what}")
    return EXIT_ERROR, clean(f"{where}{what}")


# Words of DuckDB's messages and what they mean for the user.
_NO_SPACE = "No space left on device"
_DAMAGE = ("Corrupt database file", "checksum", "Failed to read", "Could not read enough bytes",
           "not a valid DuckDB database file", "INTERNAL Error: Failed to load metadata",
           "Corrupted ")        # "Corrupted DICT_FSST segment: ..." (a segment's header)


def _duckdb_error(exc: BaseException) -> tuple[int, str] | None:
    """DuckDB's errors, when `exc` is one (duckdb is imported only when it is loaded)."""
    import sys
    duckdb = sys.modules.get("duckdb")
    if duckdb is None or not isinstance(exc, duckdb.Error):
        return None
    message = first_line(str(exc)) or type(exc).__name__
    if isinstance(exc, duckdb.InterruptException):
        return EXIT_INTERRUPTED, "interrupted"
    if _NO_SPACE in message:
        return EXIT_STORAGE, clean(f"disk full: {message}; {COMPACT_HINT} once space is free")
    if any(word in message for word in _DAMAGE) or isinstance(exc, duckdb.SerializationException):
        return EXIT_STORAGE, clean(f"the warehouse file is damaged: {message} (`irw check` "
                                   "tells what is affected)")
    if isinstance(exc, duckdb.IOException):
        return EXIT_STORAGE, clean(message)
    if isinstance(exc, duckdb.OutOfMemoryException):
        return EXIT_STORAGE, clean(f"out of memory: {message}")
    if isinstance(exc, duckdb.CatalogException):
        return EXIT_STORAGE, clean(f"{message} (is this an irw warehouse? `irw check` tells)")
    if isinstance(exc, duckdb.InvalidInputException):
        # the metric SQL's checks of a measure's parameters (ev_require: `p must be between 0
        # and 1`, `GAP: g ... must sum to 1`): a user error
        return EXIT_ERROR, clean(message.removeprefix("Invalid Input Error: "))
    return EXIT_INTERNAL, clean(f"internal error: {message} (run with --debug for the "
                                "traceback, and please report it)")
