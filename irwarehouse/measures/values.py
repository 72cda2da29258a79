"""Parameter values as measure names and options write them: numbers, gain tables, cutoffs."""

from __future__ import annotations

import itertools
import math

from ..errors import MeasureError

_LEVEL_NAMES = {"S": 3, "A": 2, "B": 1}


def number(text: str, kind: str, measure: str, *, truncate: bool = True) -> float | int:
    """A finite number. INTEGER: trec_eval's atol truncates (`P.23.4` is P at 23); with
    `truncate=False` (ir_measures' and NTCIREVAL's @k, named parameters) a fraction is an
    error."""
    try:
        value = float(text)
    except ValueError:
        raise MeasureError(f"{measure}: parameter {text!r} is not a number") from None
    if not math.isfinite(value):
        raise MeasureError(f"{measure}: parameter {text!r} is not finite")
    if kind == "INTEGER":
        if not truncate and value != int(value):
            raise MeasureError(f"{measure}: {text!r} is not a whole number")
        return int(value)
    return value


def short(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _level(text: str) -> int:
    t = text.strip()
    if t in _LEVEL_NAMES:
        return _LEVEL_NAMES[t]
    if t[:1] in ("L", "l"):
        t = t[1:]
    if not t.isdigit():
        raise MeasureError(f"bad relevance level {text!r} (use 1, L1, or S/A/B)")
    return int(t)


def parse_gains(text: str, *, what: str = "gains", monotone: bool = True) -> dict[int, float]:
    """Gain values per level: ntcir_eval's `1:2:3` (the gains of L1, L2, L3), explicit pairs
    `1:1,2:3,3:7` (also in braces, as ir_measures writes them), `L1:1,L2:3`, `S:3,A:2,B:1` (S/A/B =
    L3/L2/L1), `1=1,2=3`, `exp:M` (2^level - 1 for L1..LM, = `1:3:7` for M = 3) or `level` (gain =
    level, the default). ntcir_eval refuses gains that decrease with the level (`monotone`); WRR
    penalties do decrease."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):         # ir_measures: {0:0,1:1,2:3}
        text = text[1:-1].strip()
    if not text or text == "level":                         # gain = level
        return {}
    if text.startswith("exp:"):                             # 2^level - 1 for L1..LM
        top = int(number(text[4:], "INTEGER", what))
        if not 1 <= top <= 30:
            raise MeasureError(f"{what}: exp:M needs 1 <= M <= 30")
        return {lv: float(2 ** lv - 1) for lv in range(1, top + 1)}
    if "," not in text and "=" not in text and not any(c.isalpha() for c in text):
        values = [float(number(v, "DOUBLE", "gains")) for v in text.split(":")]
        gains = {i: v for i, v in enumerate(values, start=1)}
    else:
        gains = {}
        for pair in filter(None, text.split(",")):
            level, sep, gain = pair.replace("=", ":").partition(":")
            if not sep:
                raise MeasureError(f"gains: expected level:gain pairs, got {pair!r}")
            gains[_level(level)] = float(number(gain, "DOUBLE", "gains"))
    if any(v < 0 for v in gains.values()):
        raise MeasureError(f"{what} must be >= 0")
    levels = sorted(gains)
    if monotone and any(gains[a] > gains[b] for a, b in itertools.pairwise(levels)):
        raise MeasureError("gain values must not decrease with the level (as ntcir_eval)")
    return gains


def parse_cutoffs(text: str) -> tuple[int, ...]:
    """ntcir_eval's `-cutoffs 1,10`."""
    values = tuple(int(number(t, "INTEGER", "cutoffs")) for t in text.split(",") if t.strip())
    if not values or any(v <= 0 for v in values):
        raise MeasureError("cutoffs must be positive integers")
    return values


def header_default(p) -> object:
    """A parameter's default as the header writes it: a number, a list, a gain table ({} or
    {1:4,2:3}), or None (NULL: the whole list)."""
    text = p.default.strip()
    if text == "NULL":
        return None
    if p.type == "MAP":
        return parse_gains(text.strip("{} "), what=p.name, monotone=p.name == "gains")
    if p.type.endswith("[]"):
        return [float(x) for x in text.strip("[]").split(",") if x.strip()]
    return number(text, p.type, p.name)


def canonical_gains(pairs) -> tuple[tuple[int, float], ...]:
    """Gains as the sorted (level, gain) pairs that differ from gain = level (the default for a
    level not listed), so that `-g 1:2` and no -g are one option set."""
    items = pairs.items() if isinstance(pairs, dict) else pairs
    return tuple(sorted((int(lv), float(g)) for lv, g in items if float(g) != float(lv)))
