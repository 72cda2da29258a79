"""NTCIREVAL's files: NTCIR qrels (`topic doc Lx`, read by formats.trec.stage_qrels with
fmt_name='ntcir_qrels'), per-topic `.rel` files, and the per-topic `.nev` output of
`ntcir_eval compute -out <topic>` (docs/ntcireval_semantics.md section 4).

.nev line layout (printf in ntcir_eval.c `eval_compute`):
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

import math
import re
from pathlib import Path

_FIELD_WIDTH = 21  # len("RR=" + 18 spaces)
_CUT = re.compile(r"^(?P<stem>.*)@(?P<k>\d+)$")
_FACTS1 = re.compile(r"^# syslen=(-?\d+) jrel=(-?\d+) jnonrel=(-?\d+)$")
_FACTS2 = re.compile(r"^# r1=(-?\d+) rp=(-?\d+)$")
FACTS = ("syslen", "jrel", "jnonrel", "r1", "rp")


def read_rel(path: str | Path) -> dict[str, int]:
    """A per-topic `.rel` file (`doc Lx`, NTCIRsplitqrels output) -> {doc: level}."""
    out = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            doc, label = line.split()[:2]
            out[doc] = int(label[1:] if label[:1] == "L" else label)
    return out


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


def format_value(x: float | None) -> str:
    """C printf %.4f (Python's formatting is also correctly rounded); C prints 'nan' and
    'inf' for the non-finite cases (a value SQL leaves NULL is a 0/0: nan)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
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


def nev_text(result) -> str:
    """An EvalResult as ntcir_eval's .nev: per run, per topic (byte order, as NTCIR-eval's
    sorted topic list), one block in ntcir_eval's line order. NTCIREVAL's measures print under
    their ntcir_eval name (`Q@0010`); others under the requested name. Several runs are written
    one after the other; topics without a value (R = 0) print nothing, as ntcir_eval."""
    from ..measures import ntcir_label
    labels = {r.name: (ntcir_label(r.mdef, r.args) + ("'" if r.condensed else "")
                       if r.mdef.ntcir else r.name)
              for r in result.requests}
    order = [r.name for r in result.requests]          # parse_measures' ntcir_eval order
    blocks: dict[tuple, dict[str, dict]] = {}
    for row in result.per_topic.to_pylist():
        if row["value"] is None and labels[row["measure"]] in FACTS:
            continue
        run = blocks.setdefault((row["run_id"], row["run"]), {})
        run.setdefault(row["topic"], {})[row["measure"]] = row["value"]
    out = []
    for topics in blocks.values():
        for topic in sorted(topics, key=lambda t: t.encode()):
            values = topics[topic]
            data = {labels[m]: values[m] for m in order if m in values}
            for fact in FACTS:
                if fact in data:
                    data[fact] = round(data[fact])
            if "syslen" in data and not all(f in data for f in FACTS):
                raise ValueError("the .nev facts need syslen, jrel, jnonrel, r1 and rp")
            out += format_topic(topic, data)
    return "".join(line + "\n" for line in out)


def read_res(path: str | Path) -> list[str]:
    """A per-topic `.res` file (TRECsplitruns output): one document per line, in rank order."""
    return [line.strip() for line in Path(path).read_text().splitlines() if line.strip()]


def evaluate_rel_res(rel: str | Path, res: str | Path, *, gains: dict | None = None,
                     cutoffs: tuple = (1000,), topic: str = "", judged_only: bool = False,
                     measures: list[str] | None = None) -> str:
    """`ntcir_eval label [-j] -r REL < RES | ntcir_eval compute -r REL -g ... -cutoffs ...
    -out TOPIC` on NTCIREVAL's per-topic files: the .nev block of one topic (nothing when the
    topic has no relevant document). `measures` defaults to ntcir_eval's full set
    (`ntcireval-j` adds the `compute -j` lines). A document listed twice in the .res file is
    kept once (ntcir_eval would count it twice)."""
    import pyarrow as pa

    from ..evaluate import EvalOptions, evaluate
    from ..measures import NtcirSettings, parse_measures
    from ..warehouse import connect
    judged = read_rel(rel)
    docs = list(dict.fromkeys(read_res(res)))
    settings = NtcirSettings(gains=dict(gains or {}), cutoffs=tuple(cutoffs), prefer=True)
    requests = parse_measures(measures or [], ntcir=settings)
    con = connect(None)
    try:
        cid = con.execute("INSERT INTO campaign (name) VALUES ('rel-res') "
                          "RETURNING campaign_id").fetchone()[0]
        qid = con.execute("INSERT INTO qrels (campaign_id, name, format) VALUES (?, ?, 'rel') "
                          "RETURNING qrels_id", [cid, str(rel)]).fetchone()[0]
        rid = con.execute("INSERT INTO run (campaign_id, name) VALUES (?, ?) "
                          "RETURNING run_id", [cid, Path(res).name]).fetchone()[0]
        rel_rows = pa.table({"doc": list(judged), "rel": pa.array(list(judged.values()),
                                                                  pa.int32())})
        con.register("rel_rows", rel_rows)
        con.execute("INSERT INTO judgment (qrels_id, topic, intent, doc, rel) "
                    "SELECT ?, ?, '', doc, rel FROM rel_rows", [qid, topic])
        res_rows = pa.table({"doc": docs, "pos": pa.array(range(1, len(docs) + 1), pa.int64())})
        con.register("res_rows", res_rows)
        con.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order) "
                    "SELECT ?, ?, doc, -pos, pos, pos FROM res_rows",
                    [rid, topic])
        result = evaluate(con, [rid], qid, requests,
                          EvalOptions(order="file", judged_only=judged_only, complete=True))
        return nev_text(result)
    finally:
        con.close()
