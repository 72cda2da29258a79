"""One rule for numbers in every file kind (runs, qrels, intents, document lengths, session
logs, nuggets): an integer is `[+-]digits`; a decimal number is `[+-]digits[.digits]`,
`[+-].digits` or either with an exponent (`1e-3`); both finite. Digit separators (`1_000`,
`0.2_5`), hexadecimal (`0x10`), `nan`, `inf` and surrounding spaces are refused everywhere.
(Python's float() and int() accept several of these, and DuckDB's casts others: both are used
only on text that matched the patterns.) The one exception is a run's rank column, which
trec_eval does not read: a decimal with an integral value (`3.0`) is the rank 3.
"""

from __future__ import annotations

import math
import re

from ..errors import InputError
from ..failures import shown

INT_PATTERN = r"[+-]?[0-9]+"
NUM_PATTERN = r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?"
_INT = re.compile(INT_PATTERN)
_NUM = re.compile(NUM_PATTERN)


def number_problem(value: str, what: str, *, integer: bool = False,
                   bits: int = 64) -> str | None:
    """Why `value` is not a number of the kind asked for (None when it is one); integers must
    fit in `bits` bits."""
    if not (_INT if integer else _NUM).fullmatch(value):
        try:
            number = float(value)
        except ValueError:
            return f"{what} {shown(value)} is not a number"
        if not math.isfinite(number):
            return f"{what} {shown(value)} is not finite"
        return f"{what} {shown(value)} is not an integer" if integer else \
            f"{what} {shown(value)} is not a decimal number"
    if not math.isfinite(float(value)):
        return f"{what} {shown(value)} is not finite"
    if integer and not -(2 ** (bits - 1)) <= int(value) < 2 ** (bits - 1):
        return f"{what} {shown(value)} is out of range"
    return None


def read_number(path, lineno: int, value: str, what: str, *, integer: bool = False,
                low: float | None = None, high: float | None = None,
                low_open: bool = False) -> int | float:
    """`value` as an int (integer) or float, or the InputError naming file, line and why;
    `low`/`high` bound it (`low_open`: strictly above low)."""
    problem = number_problem(value, what, integer=integer)
    if problem:
        raise InputError(path, lineno, problem)
    number = int(value) if integer else float(value)
    if low is not None and (number <= low if low_open else number < low):
        raise InputError(path, lineno, f"{what} {shown(value)} must be "
                         f"{'above' if low_open else 'at least'} {low:g}")
    if high is not None and number > high:
        raise InputError(path, lineno, f"{what} {shown(value)} must be at most {high:g}")
    return number
