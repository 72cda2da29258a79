"""Read/write NTCIREVAL per-topic .nev output (``ntcir_eval compute -out <topic>``).

Line layout (printf in ntcir_eval.c ``eval_compute``):
    "%s # syslen=%ld jrel=%ld jnonrel=%ld"      (outstr = topic, may be "")
    "%s # r1=%ld rp=%ld"
    "%s <NAME>=<spaces>%.4f"  the value starts at column len(outstr)+1+21,
                              i.e. "NAME=" is padded with spaces to 21 chars,
                              where a cutoff is always counted as 4 digits
                              (``%04ld``: a 5-digit cutoff pushes the value
                              one column right; the padding is literal).
Blank lines are ignored on reading (some old fixtures end with one).
"""

from __future__ import annotations

import re
from pathlib import Path

_FIELD_WIDTH = 21  # len("RR=" + 18 spaces)
_CUT = re.compile(r"^(?P<stem>.*)@(?P<k>\d+)$")
_FACTS1 = re.compile(r"^# syslen=(-?\d+) jrel=(-?\d+) jnonrel=(-?\d+)$")
_FACTS2 = re.compile(r"^# r1=(-?\d+) rp=(-?\d+)$")


def _split(line: str) -> tuple[str, str]:
    # outstr is everything before the first space (topic IDs have no spaces)
    i = line.index(" ")
    return line[:i], line[i + 1:]


def parse_nev_text(text: str) -> dict[str, dict[str, float | int]]:
    """{topic: {name: value}} in file order; facts become int keys
    syslen, jrel, jnonrel, r1, rp.  Values are floats as printed."""
    out: dict[str, dict[str, float | int]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        topic, rest = _split(line)
        d = out.setdefault(topic, {})
        m = _FACTS1.match(rest)
        if m:
            d["syslen"], d["jrel"], d["jnonrel"] = (int(x) for x in m.groups())
            continue
        m = _FACTS2.match(rest)
        if m:
            d["r1"], d["rp"] = (int(x) for x in m.groups())
            continue
        name, _, val = rest.partition("=")
        if not _ or name in d:
            raise ValueError(f"bad or duplicate .nev line: {line!r}")
        d[name] = float(val)
    return out


def parse_nev(path: str | Path) -> dict[str, dict[str, float | int]]:
    return parse_nev_text(Path(path).read_text())


def format_value(x: float) -> str:
    """C printf %.4f (Python's formatting is also correctly rounded; C prints
    'nan'/'-nan'/'inf' for the non-finite cases)."""
    return "%.4f" % x


def metric_line(topic: str, name: str, value: float) -> str:
    m = _CUT.match(name)
    if m:  # padding computed as if the cutoff had 4 digits
        width = len(m.group("stem")) + 1 + 4 + 1
        label = "%s@%04d=" % (m.group("stem"), int(m.group("k")))
    else:
        label = name + "="
        width = len(label)
    return "%s %s%s%s" % (topic, label, " " * max(_FIELD_WIDTH - width, 0), format_value(value))


def format_topic(topic: str, metrics: dict[str, float | int], names=None) -> list[str]:
    """Lines for one topic; ``names`` restricts/reorders the metrics (facts are
    always written where 'syslen' and 'r1' occur in the order)."""
    keys = list(metrics) if names is None else list(names)
    lines = []
    for k in keys:
        if k == "syslen":
            lines.append("%s # syslen=%d jrel=%d jnonrel=%d"
                         % (topic, metrics["syslen"], metrics["jrel"], metrics["jnonrel"]))
        elif k == "r1":
            lines.append("%s # r1=%d rp=%d" % (topic, metrics["r1"], metrics["rp"]))
        elif k in ("jrel", "jnonrel", "rp"):
            continue
        else:
            lines.append(metric_line(topic, k, metrics[k]))
    return lines


def format_nev(data: dict[str, dict[str, float | int]]) -> str:
    return "".join(line + "\n" for t, d in data.items() for line in format_topic(t, d))
