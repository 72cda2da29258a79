"""The measure registry (built from the headers of sql/metrics/*.sql) and measure names.

Accepted names:
  trec_eval:   map, P.10, P.5,10,20, P (its default cutoffs), ndcg_cut.10, iprec_at_recall..10,
               Rprec_mult.0.2, ndcg.1=3,2=7, utility.2,-1,0,0, 11pt_avg..25,.5, set_F.0.5,
               rbp.p=0.8, and the sets all_trec and official;
  ir_measures: AP, AP@10, P@10, nDCG, nDCG@10, RR, R@100, Rprec, Bpref, infAP, SetP, SetR,
               SetF(beta=1), SetAP, NumQ, NumRet, NumRel, NumRelRet, IPrec@0.1, Success@10,
               RBP(p=0.8), Judged@10.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from .errors import MeasureError, SqlAssetError
from .sqlassets import MeasureDef, measure_defs_in, metric_files

# trec_eval's internal measure table order (the order of its output), 9.0.8 then 10.0's additions.
TREC_EVAL_ORDER = [
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
]
OFFICIAL = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P"]


@lru_cache(maxsize=1)
def registry() -> dict[str, MeasureDef]:
    """Every measure defined in sql/metrics, by name; a name defined twice is an error."""
    out: dict[str, MeasureDef] = {}
    for path in metric_files():
        for mdef in measure_defs_in(path):
            if mdef.name in out:
                raise SqlAssetError(f"measure {mdef.name!r} defined in both "
                                    f"{out[mdef.name].family}.sql and {path.name}")
            out[mdef.name] = mdef
    return out


@dataclass(frozen=True)
class MeasureRequest:
    """One measure to compute: a definition, the macro arguments, and the printed name."""
    mdef: MeasureDef
    args: tuple
    name: str

    @property
    def order_key(self):
        base = self.mdef.name
        pos = TREC_EVAL_ORDER.index(base) if base in TREC_EVAL_ORDER else len(TREC_EVAL_ORDER)
        arg = self.args[0] if self.args and isinstance(self.args[0], (int, float)) else 0
        return (pos, base, arg, self.name)

    @property
    def params_text(self) -> str:
        return ",".join(f"{p.name}={a}" for p, a in zip(self.mdef.params, self.args))


def _number(text: str, kind: str, measure: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise MeasureError(f"{measure}: parameter {text!r} is not a number") from None
    if not math.isfinite(value):
        raise MeasureError(f"{measure}: parameter {text!r} is not finite")
    if kind == "INTEGER":
        return int(value)           # trec_eval's atol: 23.4 -> 23
    return value


def _cutoff_name(mdef: MeasureDef, value) -> str:
    if mdef.params[0].type == "INTEGER":
        return f"{mdef.name}_{value}"
    return f"{mdef.name}_{value:3.2f}"


def _default_values(mdef: MeasureDef):
    p = mdef.params[0]
    if p.type == "MAP":
        return {}
    if p.type.endswith("[]"):
        return [float(x) for x in p.default.strip("[]").split(",")]
    return _number(p.default, p.type, mdef.name)


def _expand_cutoffs(mdef: MeasureDef, texts: list[str], measure: str) -> list[MeasureRequest]:
    values = [_number(t, mdef.params[0].type, measure) for t in texts]
    if any(v <= 0 for v in values) and mdef.params[0].type == "INTEGER":
        raise MeasureError(f"{measure}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise MeasureError(f"{measure}: duplicate cutoffs")
    return [MeasureRequest(mdef, (v,), _cutoff_name(mdef, v)) for v in sorted(values)]


def _trec_eval_measure(name: str, params: str | None) -> list[MeasureRequest]:
    mdef = registry().get(name)
    if mdef is None:
        raise MeasureError(f"unknown measure {name!r} (see `irw measures`)")
    if not mdef.params:
        if params:
            raise MeasureError(f"{name} takes no parameters")
        return [MeasureRequest(mdef, (), name)]
    p = mdef.params[0]
    if p.is_list_default:                               # cutoff families: P, ndcg_cut, ...
        texts = params.split(",") if params else p.default.split(",")
        return _expand_cutoffs(mdef, texts, f"{name}.{params}" if params else name)
    if params is None:
        return [MeasureRequest(mdef, (_default_values(mdef),), name)]
    printed = f"{name}_{params}"
    if p.type == "MAP":                                 # ndcg.1=3,2=9: level=gain pairs
        gains = {}
        for pair in params.split(","):
            level, _, gain = pair.partition("=")
            if not _:
                raise MeasureError(f"{name}: expected level=gain pairs, got {pair!r}")
            lvl = int(_number(level, "INTEGER", name))
            if lvl < 0:
                # trec_eval gives -1=g to retrieved documents outside the qrels and -2=g to
                # in-pool unjudged ones; the evaluation context keeps judged documents only.
                raise MeasureError(f"{name}: a gain for level {lvl} (documents outside the "
                                   "qrels or unjudged) is not supported")
            gains[lvl] = float(_number(gain, "DOUBLE", name))
        return [MeasureRequest(mdef, (gains,), printed)]
    if p.type.endswith("[]"):
        values = [float(_number(t, "DOUBLE", name)) for t in params.split(",")]
        if name == "utility" and len(values) != 4:
            raise MeasureError("utility needs 4 coefficients")
        return [MeasureRequest(mdef, (values,), printed)]
    # single scalar parameter, possibly written as key=value (rbp.p=0.8)
    text = params.split("=", 1)[1] if "=" in params else params
    return [MeasureRequest(mdef, (_number(text, p.type, name),), printed)]


# ir_measures names -> (trec_eval measure, how its @cutoff maps).
_IR_MEASURES = {
    "AP": ("map", "map_cut"), "P": (None, "P"), "nDCG": ("ndcg", "ndcg_cut"),
    "RR": ("recip_rank", None), "R": (None, "recall"), "Rprec": ("Rprec", None),
    "Bpref": ("bpref", None), "infAP": ("infAP", None), "SetP": ("set_P", None),
    "SetR": ("set_recall", None), "SetF": ("set_F", None), "SetAP": ("set_map", None),
    "SetRelP": ("set_relative_P", None), "NumQ": ("num_q", None), "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None), "NumRelRet": ("num_rel_ret", None),
    "IPrec": (None, "iprec_at_recall"), "Success": (None, "success"), "RBP": ("rbp", None),
    "Judged": (None, "unj"), "GMAP": ("gm_map", None), "RelP": (None, "relative_P"),
}
_IRM_RE = re.compile(r"^(\w+)(?:\((.*)\))?(?:@([0-9.]+))?$")


def _ir_measures_measure(text: str) -> list[MeasureRequest] | None:
    m = _IRM_RE.match(text)
    if not m or m.group(1) not in _IR_MEASURES:
        return None
    base, args, cutoff = m.groups()
    plain, cut_family = _IR_MEASURES[base]
    kwargs = {}
    for part in filter(None, (args or "").split(",")):
        key, sep, value = part.partition("=")
        if not sep:
            raise MeasureError(f"{text}: expected name=value parameters")
        kwargs[key.strip()] = value.strip()
    if cutoff is not None:
        if cut_family is None:
            raise MeasureError(f"{text}: {base} takes no @cutoff")
        if kwargs:
            raise MeasureError(f"{text}: parameters {sorted(kwargs)} are not supported here")
        if base == "Judged":
            raise MeasureError("Judged@k is 1 - unj.k; ask for unj.k")
        req = _trec_eval_measure(cut_family, cutoff)[0]
        return [MeasureRequest(req.mdef, req.args, text)]
    if plain is None:
        raise MeasureError(f"{text}: {base} needs an @cutoff")
    mdef = registry()[plain]
    if kwargs:
        allowed = {p.name for p in mdef.params} | {"p"} & {p.name for p in mdef.params}
        unknown = set(kwargs) - allowed
        if unknown:
            raise MeasureError(f"{text}: unknown parameter(s) {sorted(unknown)}")
        value = _number(kwargs[mdef.params[0].name], mdef.params[0].type, text)
        return [MeasureRequest(mdef, (value,), text)]
    req = _trec_eval_measure(plain, None)[0]
    return [MeasureRequest(req.mdef, req.args, text)]


def wants_runid(names: list[str] | None) -> bool:
    """Whether trec_eval would print the `runid` row: it is a measure of the official and
    all_trec sets (and the default), not printed when only other measures are asked for
    (trec_eval's test out.test.meas_params has no runid row)."""
    return any(t in ("runid", "official", "all_trec")
               for raw in (names or ["official"]) for t in _split_list(raw))


def parse_measures(names: list[str], *, version: int = 9) -> list[MeasureRequest]:
    """Measure requests for the given names, in trec_eval's output order, without duplicates.
    `runid` is accepted and computes nothing (see `wants_runid`)."""
    out: dict[str, MeasureRequest] = {}
    for raw in names or ["official"]:
        for text in _split_list(raw):
            if text == "runid":
                continue
            for req in _parse_one(text, version):
                out.setdefault(req.name, req)
    return sorted(out.values(), key=lambda r: r.order_key)


def _split_list(raw: str) -> list[str]:
    """`-m map -m P.10` and the ir_measures habit of one space-separated string."""
    return [t for t in raw.split() if t]


def _parse_one(text: str, version: int) -> list[MeasureRequest]:
    if text in ("all_trec", "official"):
        names = TREC_EVAL_ORDER if text == "all_trec" else OFFICIAL
        reqs = []
        for name in names:
            mdef = registry().get(name)
            if mdef and mdef.since <= version:
                reqs += _trec_eval_measure(name, None)
        return reqs
    irm = _ir_measures_measure(text)
    if irm is not None:
        return irm
    name, dot, params = text.partition(".")
    # The printed form: P_10, ndcg_cut_10, iprec_at_recall_0.10, Rprec_mult_0.20. Split before
    # the partition at '.', or iprec_at_recall_0.10 would read as iprec_at_recall.0 (0.00).
    printed = re.fullmatch(r"(\w+?)_([0-9][0-9.]*)", text)
    if printed and text not in registry() and printed.group(1) in registry():
        name, dot, params = printed.group(1), ".", printed.group(2)
    if dot and not params:
        raise MeasureError(f"{text}: empty parameter list")
    return _trec_eval_measure(name, params if dot else None)
