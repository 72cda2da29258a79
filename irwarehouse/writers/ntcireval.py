"""NTCIREVAL's layouts: ntcir_eval's per-topic .nev (`irw eval --format ntcireval`) and the
diversity scripts' .Dnev / .DINnev / .nevIA files."""

from __future__ import annotations

import math
import re

from ..formats.intents import intent_key
from ..formats.ntcir import FACTS

_FIELD_WIDTH = 21  # len("RR=" + 18 spaces)


_CUT = re.compile(r"^(?P<stem>.*)@(?P<k>\d+)$")


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


# NTCIREVAL: the measures behind each layout, and the names its files print them under
NTCIR_KINDS = {
    "D": [("D-Q", "Q"), ("D-nDCG", "MSnDCG"), ("I-rec", "I-rec"), ("D#-Q", "D#-Q"),
          ("D#-nDCG", "D#-nDCG")],
    "DIN": [("DIN-Q", "Q"), ("DIN-nDCG", "MSnDCG"), ("I-rec", "I-rec"), ("DIN#-Q", "DIN#-Q"),
            ("DIN#-nDCG", "DIN#-nDCG")],
    "IA": [("IA-ERR", "IA-ERR"), ("IA-nERR", "IA-nERR"), ("IA-nDCG", "IA-MSnDCG")],
}


_NEV_ORDER = ["D-Q", "DIN-Q", "D-nDCG", "DIN-nDCG", "I-rec", "D#-Q", "DIN#-Q", "D#-nDCG",
              "DIN#-nDCG"]   # the order of the lines of a .Dnev / .DINnev block


# gcompute's lines (ntcir_eval.c eval_gcompute, 190111 set) and their ev_ntd_gcompute columns
_GCOMPUTE_PLAIN = (("RR", "rr"), ("O-measure", "o_measure"), ("P-measure", "p_measure"),
                   ("P-plus", "p_plus"), ("AP", "ap"), ("Q-measure", "q_measure"),
                   ("NCUrb,P", "ncurb_p"), ("NCUrb,BR", "ncurb_br"), ("RBP", "rbp"),
                   ("ERR", "err"), ("EBR", "ebr"))


_GCOMPUTE_AT = (("AP", "ap_at"), ("Q", "q_at"), ("nDCG", "ndcg_at"), ("MSnDCG", "msndcg_at"),
                ("P", "p_at"), ("RBP", "rbp_at"), ("ERR", "err_at"), ("nERR", "nerr_at"),
                ("EBR", "ebr_at"), ("Hit", "hit_at"))


_SHARP = {"D#-Q": ("D-Q", "I-rec"), "D#-nDCG": ("D-nDCG", "I-rec"),
          "DIN#-Q": ("DIN-Q", "I-rec"), "DIN#-nDCG": ("DIN-nDCG", "I-rec")}


def _nev_value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-nan"            # glibc's printf of 0.0/0.0
    return f"{value:.4f}"


def _gcompute_lines(prefix: str, row: dict, cutoff: int) -> list[str]:
    """One gcompute block as ntcir_eval prints it: `NAME=` then literal spaces up to column 21
    (assuming a 4-digit cutoff, as its printf strings do), the value %.4f."""
    tag = f"@{cutoff:04d}="
    lines = [f"{prefix} # syslen={row['syslen']} jrel={row['jrel']} jnonrel={row['jnonrel']}",
             f"{prefix} # r1={row['r1']} rp={row['rp']}"]
    lines += [f"{prefix} {name + '=':<21}{_nev_value(row[col])}" for name, col in _GCOMPUTE_PLAIN]
    lines += [f"{prefix} {name + tag}{' ' * (15 - len(name))}{_nev_value(row[col])}"
              for name, col in _GCOMPUTE_AT]
    return lines


def _prob_text(prob: float) -> str:
    """Pr(i|q) in a .nevIA prefix, where D-NTCIR-IAeval copies the Iprob field."""
    return f"{prob:.15g}"


def ntcireval_text(result) -> str:
    """NTCIREVAL's diversity layouts for the requested measures, one block per topic (topics
    in byte order, runs one after another): `TID NAME=<pad>%.4f` lines as in .Dnev/.DINnev
    (Q@l, MSnDCG@l, I-rec@n, I-rec@l, then the # combinations, which, as NTCIREVAL's scripts do, are
    formed from the %.4f-printed components), and `TID SUMp= x IA-ERR@l= y` lines as in
    .nevIA. Measures of no layout are printed as `TID NAME= value` lines after them.
    With the gcompute blocks (EvalResult.gcompute), the whole files are written instead
    (ntcireval_files_text)."""
    if getattr(result, "gcompute", None) is not None:
        return ntcireval_files_text(result)
    by_req = {r.name: r for r in result.requests}
    values: dict[tuple, float] = {}
    for t in result.per_topic.to_pylist():
        values[(t["run_id"], t["topic"], t["measure"])] = t["value"]
    layout = {m: shown for pairs in NTCIR_KINDS.values() for m, shown in pairs}
    lines: list[str] = []
    run_ids = list(dict.fromkeys(t[0] for t in values))
    for run_id in run_ids:
        topics = sorted({t for (rid, t, _) in values if rid == run_id}, key=str.encode)
        for topic in topics:
            got = {r.name: values[(run_id, topic, r.name)] for r in result.requests
                   if (run_id, topic, r.name) in values}
            cutoffs = sorted({r.args[0] for r in result.requests if r.mdef.params
                              and r.mdef.params[0].name == "cutoff"})
            done = set()
            for cutoff in cutoffs:
                tag = f"@{cutoff:04d}"
                at = {by_req[n].mdef.name: (n, v) for n, v in got.items()
                      if by_req[n].mdef.params and by_req[n].args[0] == cutoff}
                for measure in _NEV_ORDER:
                    shown = layout[measure]
                    if measure == "I-rec" and "I-rec@n" in got and "I-rec@n" not in done:
                        lines.append(f"{topic} {'I-rec@n=':<21}{got['I-rec@n']:.4f}")
                        done.add("I-rec@n")
                    if measure not in at or (measure, cutoff) in done:
                        continue
                    name, value = at[measure]
                    lines.append(f"{topic} {shown + tag + '=':<21}{value:.4f}")
                    done.add((measure, cutoff))
                    done.add(name)
                sump = got.get("SUMp")
                for measure, shown in NTCIR_KINDS["IA"]:
                    if measure in at:
                        name, value = at[measure]
                        lines.append(f"{topic} SUMp= {sump if sump is not None else 0:.4f} "
                                     f"{shown + tag}= {value:.4f}")
                        done.add(name)
            for name, value in got.items():
                if name not in done and name != "SUMp" and by_req[name].mdef.name not in layout:
                    lines.append(f"{topic} {name + '=':<21}{value:.4f}")
    return "\n".join(lines) + ("\n" if lines else "")


def _irec_lines(topic: str, irec_l, irec_n, cutoff: int, n: int, length: int) -> list[str]:
    """`ntcir_eval irec -cutoffs l` on the whole list (its length `length`): `#intent_num=n`,
    then I-rec@l and I-rec@n in the order its loop reaches them (I-rec@n first only when the
    list reaches rank n and n < l; a value the list does not reach is printed after the loop,
    I-rec@l first)."""
    lines = [f"{topic} #intent_num={n}"]
    at_l = f"{topic} {'I-rec' + f'@{cutoff:04d}=':<21}{_nev_value(irec_l)}" \
        if irec_l is not None else None
    at_n = f"{topic} {'I-rec@n=':<21}{_nev_value(irec_n)}" if irec_n is not None else None
    order = [at_n, at_l] if n <= length and n < cutoff else [at_l, at_n]
    return lines + [line for line in order if line is not None]


def ntcireval_files_text(result) -> str:
    """NTCIREVAL's whole .Dnev / .DINnev / .nevIA files for the requested D/DIN/IA measures,
    from the gcompute blocks (EvalResult.gcompute) and the measure values. Per run and topic
    (byte order), per cutoff: the D block (`TID # syslen=...`, the 21 gcompute lines over global
    gains, `TID #intent_num=n`, I-rec@n / I-rec@l, D#-Q@l, D#-nDCG@l), the same for DIN, then
    the IA blocks (`TID INTENT PROB ...` per intent with a relevant document, intents in
    number order) and the `TID SUMp= x IA-ERR@l= y` lines. As D-NTCIR-eval and
    DIN-NTCIR-eval compute them with awk, the # lines combine the %.4f-printed I-rec and
    Q@l / MSnDCG@l (the exact values are the D#-* / DIN#-* measures). Other measures follow as
    `TID NAME= value` lines."""
    by_req = {r.name: r for r in result.requests}
    values: dict[tuple, float] = {}
    for t in result.per_topic.to_pylist():
        values[(t["run_id"], t["topic"], t["measure"])] = t["value"]
    blocks: dict[tuple, dict] = {}
    for row in result.gcompute.to_pylist():
        blocks[(row["run_id"], row["topic"], row["cutoff"], row["key"])] = row
    cutoffs = sorted({c for (_, _, c, _) in blocks})
    shown = set()
    lines: list[str] = []
    run_ids = list(dict.fromkeys([t[0] for t in values] + [b[0] for b in blocks]))
    for run_id in run_ids:
        topics = sorted({t for (rid, t, _) in values if rid == run_id}
                        | {t for (rid, t, _, _) in blocks if rid == run_id}, key=str.encode)
        for topic in topics:
            got = {name: values[(run_id, topic, name)] for name in by_req
                   if (run_id, topic, name) in values}

            def measure(name: str, cutoff: int):
                for req_name, req in by_req.items():
                    if req.mdef.name == name and req.mdef.params and req.args[0] == cutoff:
                        return req_name, req
                return None, None

            for cutoff in cutoffs:
                tag = f"@{cutoff:04d}="
                irec_name, _ = measure("I-rec", cutoff)
                for kind in ("D", "DIN"):
                    row = blocks.get((run_id, topic, cutoff, kind))
                    if row is None:
                        continue
                    lines += _gcompute_lines(topic, row, cutoff)
                    irec = got.get(irec_name)
                    lines += _irec_lines(topic, irec, got.get("I-rec@n"), cutoff,
                                         row["intent_num"], row["num_ret"])
                    shown.update({irec_name, "I-rec@n", measure(f"{kind}-Q", cutoff)[0],
                                  measure(f"{kind}-nDCG", cutoff)[0]})
                    for sharp in (f"{kind}#-Q", f"{kind}#-nDCG"):
                        name, _ = measure(sharp, cutoff)
                        if name in got:
                            lines.append(f"{topic} {sharp + tag:<21}{_nev_value(got[name])}")
                            shown.add(name)
                intents = sorted((row for (rid, t, c, key), row in blocks.items()
                                  if rid == run_id and t == topic and c == cutoff
                                  and key.startswith("I:")),
                                 key=lambda row: intent_key(row["intent"]))
                for row in intents:
                    prefix = f"{topic} {row['intent']} {_prob_text(row['prob'])}"
                    lines += _gcompute_lines(prefix, row, cutoff)
                sump = got.get("SUMp")
                for ia, printed in NTCIR_KINDS["IA"]:
                    name, _ = measure(ia, cutoff)
                    if name in got:
                        lines.append(f"{topic} SUMp= {sump if sump is not None else 0:.4f} "
                                     f"{printed}@{cutoff:04d}= {_nev_value(got[name])}")
                        shown.update({name, "SUMp"})
            for name, value in got.items():
                if name not in shown:
                    lines.append(f"{topic} {name + '=':<21}{_nev_value(value)}")
    return "\n".join(lines) + ("\n" if lines else "")
