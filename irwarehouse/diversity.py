"""Diversity evaluation support: what the SQL of sql/metrics/diversity_*.sql cannot do itself.

* measure names: ndeval's column names (`alpha-nDCG@20`, `ERR-IA@10`, `NRBP`, `MAP-IA`, `P-IA@5`,
  `strec@10`), ir_measures' (`alpha_nDCG@20`, `ERR_IA@10`, `AP_IA`, `P_IA@5`, `StRecall@10`),
  with parameters as `alpha-nDCG(alpha=0.3)@10` or `NRBP(alpha=0.5,beta=0.8)`;
* ndeval's CSV layout (`irw eval --format ndeval`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import duckdb

from .errors import MeasureError

if TYPE_CHECKING:
    import pyarrow as pa

# ndeval's columns, in its output order
NDEVAL_COLUMNS = (
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20",
    "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20",
    "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA",
    "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
)  # fmt: skip
NDEVAL_MEASURES = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP", "MAP-IA",
                   "P-IA", "strec")

def with_params(names: list[str], **params) -> list[str]:
    """Add `name=value` parameters (those not None) to the diversity measures among `names`
    that take them and have no explicit parameters (the CLI's --alpha/--beta)."""
    from .errors import MeasureError
    from .measures import resolve
    from .measures.grammar import parse
    given = {k: v for k, v in params.items() if v is not None}
    out = []
    for raw in names:
        for text in raw.split():
            try:
                name = parse(text)
                mdef = resolve(text)[0].mdef if given and name.kwargs is None else None
            except (MeasureError, IndexError):      # left for parse_measures to report
                mdef = None
            if mdef is None or not is_diversity(mdef):
                out.append(text)
                continue
            own = [f"{k}={v}" for k, v in given.items() if k in mdef.param_names]
            cut = f"@{name.cutoff}" if name.has_cutoff else ""
            out.append(f"{name.stem}({','.join(own)}){cut}" if own else text)
    return out


def cli_measures(names: list[str], fmt: str, *, kind: str | None = None,
                 cutoffs: str | None = None, **params) -> list[str]:
    """The measures `irw eval` asks for: with no -m, ndeval's columns for --format ndeval and
    NTCIREVAL's layout set for --diversity D|DIN|IA (at --cutoffs, default 10); --alpha,
    --beta and --gamma applied to the diversity measures that take them."""
    if not names and kind:
        try:
            cuts = [int(c) for c in (cutoffs or "10").split(",")]
        except ValueError:
            raise MeasureError(f"bad --cutoffs {cutoffs!r}: expected e.g. 10 or 10,20") from None
        if any(c <= 0 for c in cuts):
            raise MeasureError("cutoffs must be positive")
        names = ntcir_measures(kind, cuts)
        if fmt == "ntcireval":      # the # lines and IA sums of printed values, as its scripts
            names = with_params(names, printed=1)
    elif not names and fmt == "ndeval":
        names = list(NDEVAL_COLUMNS)
    elif fmt == "ntcireval":        # NTCIREVAL's # lines, whatever -m asks for
        names = [n for raw in names for text in raw.split() for n in
                 (with_params([text], printed=1) if text.split("(")[0].split("@")[0] in _SHARP
                  else [text])]
    return with_params(names, **params)


# ------------------------------------------------------------------------------ context


def is_diversity(mdef) -> bool:
    return mdef.is_diversity


def needed(requests) -> bool:
    return any(is_diversity(r.mdef) for r in requests)


def _intent_key(intent: str):
    """ndeval's subtopic order: subtopics are numbers (array indices), summed in ascending order."""
    return (0, int(intent), "") if intent.isdigit() else (1, 0, intent)


# ------------------------------------------------------------------------------ output


def _topic_key(topic: str):
    return (0, int(topic), "") if topic.isdigit() else (1, 0, topic)


def _ndeval_value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-nan"          # glibc's printf of ndeval's 0.0/0.0
    return f"{value:.6f}"


def ndeval_text(result) -> str:
    """ndeval's CSV (ndeval.c 4.4 outputMeasures): `runid,topic,<columns>`, one row per topic of
    the run in ascending topic number, then `runid,amean,...`; values `%.6f`. Columns are the
    requested measures, ndeval's in its order first. A run topic absent from the qrels gets a
    row of zeros (ndeval never evaluates it); a qrels topic absent from the run gets no row
    (with -c it counts as 0 in the amean). The amean divides the column sums by the number of
    topics in both run and qrels, or with -c by the number of qrels topics; when that number
    is 0, ndeval prints only `runid,amean` and `0.00` per column."""
    rank = {c: k for k, c in enumerate(NDEVAL_COLUMNS)}
    names = sorted((r.name for r in result.requests),
                   key=lambda n: (rank.get(n, len(rank)), n))
    lines = ["runid,topic," + ",".join(names)]
    topics = result.per_topic.to_pylist()
    summary = result.summary.to_pylist()
    listed = result.run_topics.to_pylist() if result.run_topics is not None else []
    run_names = {row["run_id"]: row["run"] for row in topics + summary + listed}
    values: dict[tuple, float] = {}
    for t in topics:
        if t["in_run"]:
            values[(t["run_id"], t["topic"], t["measure"])] = t["value"]
    run_topics: dict[int, set[str]] = {}
    for rid, topic in [(r["run_id"], r["topic"]) for r in listed] + list(
            {(rid, t) for (rid, t, _) in values}):
        run_topics.setdefault(rid, set()).add(topic)
    order = [row["run_id"] for row in summary] + [row["run_id"] for row in listed]
    for run_id in dict.fromkeys(order):
        run = run_names[run_id]
        means = {s["measure"]: s["value"] for s in summary if s["run_id"] == run_id}
        if not means:                        # no topic evaluated: ndeval's actualTopics == 0
            lines.append(",".join([run, "amean"] + ["0.00"] * len(names)))
            continue
        for topic in sorted(run_topics.get(run_id, ()), key=_topic_key):
            lines.append(",".join([run, topic] + [_ndeval_value(values.get((run_id, topic, n),
                                                                            0.0))
                                                  for n in names]))
        lines.append(",".join([run, "amean"] + [_ndeval_value(means.get(n)) for n in names]))
    return "\n".join(lines) + "\n"


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
_SHARP = {"D#-Q": ("D-Q", "I-rec"), "D#-nDCG": ("D-nDCG", "I-rec"),
          "DIN#-Q": ("DIN-Q", "I-rec"), "DIN#-nDCG": ("DIN-nDCG", "I-rec")}


def ntcir_measures(kind: str, cutoffs: list[int], **params) -> list[str]:
    """The measures of NTCIREVAL's .Dnev / .DINnev / .nevIA files at the given cutoffs."""
    names = [f"{m}@{c}" for c in cutoffs for m, _ in NTCIR_KINDS[kind]]
    if kind in ("D", "DIN"):
        names.append("I-rec@n")
    if kind == "IA":
        names.append("SUMp")
    return with_params(names, **params)


# The requested measures whose NTCIREVAL script prints a gcompute block: the list it evaluates
_BLOCK_KIND = {"D-Q": "D", "D-nDCG": "D", "D#-Q": "D", "D#-nDCG": "D",
               "DIN-Q": "DIN", "DIN-nDCG": "DIN", "DIN#-Q": "DIN", "DIN#-nDCG": "DIN",
               "IA-ERR": "I", "IA-nERR": "I", "IA-nDCG": "I", "IA-Q": "I", "IA-AP": "I"}
# gcompute's lines (ntcir_eval.c eval_gcompute, 190111 set) and their ev_ntd_gcompute columns
_GCOMPUTE_PLAIN = (("RR", "rr"), ("O-measure", "o_measure"), ("P-measure", "p_measure"),
                   ("P-plus", "p_plus"), ("AP", "ap"), ("Q-measure", "q_measure"),
                   ("NCUrb,P", "ncurb_p"), ("NCUrb,BR", "ncurb_br"), ("RBP", "rbp"),
                   ("ERR", "err"), ("EBR", "ebr"))
_GCOMPUTE_AT = (("AP", "ap_at"), ("Q", "q_at"), ("nDCG", "ndcg_at"), ("MSnDCG", "msndcg_at"),
                ("P", "p_at"), ("RBP", "rbp_at"), ("ERR", "err_at"), ("nERR", "nerr_at"),
                ("EBR", "ebr_at"), ("Hit", "hit_at"))
# gcompute's parameters in NTCIREVAL's diversity scripts (its defaults): NCU gamma, RBP p, logb
_GCOMPUTE_DEFAULTS = (0.95, 0.95, 2.0)


def gcompute_blocks(con: duckdb.DuckDBPyConnection, requests) -> pa.Table | None:
    """NTCIREVAL's gcompute block (SQL macro ev_ntd_gcompute, sql/metrics/diversity_gcompute.sql)
    of every list the requested D/DIN/IA measures evaluate, at their cutoffs: rows (cutoff,
    run_id, topic, key, ...); None when no such measure is requested."""
    wanted: dict[tuple[int, str], float] = {}
    for req in requests:
        kind = _BLOCK_KIND.get(req.mdef.name)
        if kind is None:
            continue
        params = dict(zip([p.name for p in req.mdef.params], req.args))
        if "beta" in params or (params["cutoff"], kind) not in wanted:
            wanted[(params["cutoff"], kind)] = float(params.get("beta", 1.0))
    if not wanted:
        return None
    parts, values = [], []
    for (cutoff, kind), beta in sorted(wanted.items()):
        where = "starts_with(key, 'I:')" if kind == "I" else "key = ?"
        parts.append(f"SELECT CAST(? AS BIGINT) AS cutoff, * "
                     f"FROM ev_ntd_gcompute(?, ?, ?, ?, ?) WHERE {where}")
        values += [cutoff, cutoff, beta, *_GCOMPUTE_DEFAULTS] + ([] if kind == "I" else [kind])
    return con.sql("\nUNION ALL\n".join(parts), params=values).to_arrow_table()


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
                                 key=lambda row: _intent_key(row["intent"]))
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


# ------------------------------------------------------------------------------ probabilities

SCHEMES = ("uniform", "seed001")


def scheme_probabilities(intents: list[str], scheme: str) -> dict[str, float]:
    """Pr(i|q) for a topic's intents (in NTCIREVAL's order: numbers ascending, then names):
    uniform 1/n, or seed 001's non-uniform 2^(n-j+1) / sum_{k=1..n} 2^k for the j-th intent."""
    ordered = sorted(intents, key=_intent_key)
    n = len(ordered)
    if scheme == "uniform":
        return {i: 1.0 / n for i in ordered}
    if scheme == "seed001":
        total = sum(2.0 ** k for k in range(1, n + 1))
        return {i: 2.0 ** (n - j + 1) / total for j, i in enumerate(ordered, start=1)}
    raise MeasureError(f"unknown probability scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
