"""The measure registry (built from the headers of sql/metrics/*.sql) and measure names.

Accepted names:
  trec_eval:   map, P.10, P.5,10,20, P (its default cutoffs), ndcg_cut.10, iprec_at_recall..10,
               Rprec_mult.0.2, ndcg.1=3,2=7, utility.2,-1,0,0, 11pt_avg..25,.5, set_F.0.5,
               rbp.p=0.8, and the sets all_trec and official;
  ir_measures: AP, AP@10, P@10, nDCG, nDCG@10, RR, R@100, Rprec, Bpref, infAP, SetP, SetR,
               SetF(beta=1), SetAP, NumQ, NumRet, NumRel, NumRelRet, IPrec@0.1, Success@10,
               RBP(p=0.8), Judged@10.
  NTCIREVAL:   the names ntcir_eval prints (RR, O-measure, P-measure, P-plus, AP, Q-measure,
               NCUrb,P, NCUrb,BR, NCUrb,IE, RBP, ERR, EBR, iRBU; at a cutoff AP@k, Q@k, NCUrb,*@k,
               nDCG@k, MSnDCG@k, Prec@k, RBP@k, nRBP@k, ERR@k, nERR@k, EBR@k, nEBR@k, iRBU@k,
               niRBU@k, Hit@k, with `@10` or `@0010`), aliases Q, O, P+, P@k, and R-measure, WRR,
               NWRR; parameters as `Q(beta=0.5)`, `nDCG(logb=10)@10`, `RBP(p=0.8)`. Names that
               ir_measures also has (AP, RR, RBP, nDCG@k, P@k) mean NTCIREVAL's only with
               `ntcir:` in front (`ntcir:nDCG@10`) or with NTCIREVAL preferred (--format ntcireval).
  named:       measures whose header says `syntax: named` (TBG, U): `TBG`, `TBG(half_life=100)`.
  condensed:   any of the above as `M'` or `condensed:M`: M on the condensed list (seed 000 eq
               21), printed `M'`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
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
    """One measure to compute: a definition, the macro arguments, and the printed name.
    `condensed`: computed on the condensed list (unjudged documents dropped first, as -J),
    whatever -J says: the M' of seed 000 eq 21, asked for as `M'` or `condensed:M`."""
    mdef: MeasureDef
    args: tuple
    name: str
    condensed: bool = False

    @property
    def order_key(self):
        if self.mdef.ntcir:
            return (len(TREC_EVAL_ORDER), "\x7f", ntcir_position(self), self.name)
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
            if lvl < 0 and mdef.family != "gain":
                # trec_eval gives -1=g to retrieved documents outside the qrels and -2=g to
                # in-pool unjudged ones; ndcg.sql reads judged documents only (gain.sql's G,
                # ndcg_rel and Rndcg do handle them).
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


def parse_measures(names: list[str], *, version: int = 9,
                   ntcir: NtcirSettings | None = None) -> list[MeasureRequest]:
    """Measure requests for the given names, in trec_eval's output order, without duplicates.
    As in trec_eval, a family given with explicit parameters (`-m relstring.20`) replaces the
    default-parameter version that a set such as all_trec brings; `runid` is accepted and
    computes nothing (see `wants_runid`). `ntcir` gives the gains and cutoffs of NTCIREVAL's
    measures; with `ntcir.prefer` (the .nev output) NTCIREVAL's names win, its facts are always
    included, and no names means NTCIREVAL's full per-topic set."""
    ntcir = ntcir or NtcirSettings()
    default = NTCIR_DEFAULT_SET if ntcir.prefer else ["official"]
    texts = (NTCIR_FACTS if ntcir.prefer else []) + [t for raw in (names or default)
                                                     for t in _split_list(raw)]
    from_sets: dict[str, MeasureRequest] = {}
    explicit: dict[str, MeasureRequest] = {}
    for text in texts:
        if text == "runid":
            continue
        target = from_sets if text in ("all_trec", "official") else explicit
        for req in _parse_one(text, version, ntcir):
            target.setdefault(req.name, req)
    overridden = {r.mdef.name for r in explicit.values()
                  if r.name != r.mdef.name and not r.condensed}
    out = {n: r for n, r in from_sets.items() if r.mdef.name not in overridden}
    for name, req in explicit.items():
        out.setdefault(name, req)
    return sorted(out.values(), key=lambda r: r.order_key)


def _split_list(raw: str) -> list[str]:
    """`-m map -m P.10` and the ir_measures habit of one space-separated string."""
    return [t for t in raw.split() if t]


CONDENSED_PREFIX = "condensed:"
CONDENSED_SUFFIX = "'"


def condensed_base(text: str) -> str | None:
    """The measure inside a condensed-list name: `AP'` or `condensed:AP` -> `AP`; None when
    `text` names no condensed measure."""
    if text.startswith(CONDENSED_PREFIX):
        return text[len(CONDENSED_PREFIX):]
    if text.endswith(CONDENSED_SUFFIX) and len(text) > 1:
        return text[:-len(CONDENSED_SUFFIX)]
    return None


def _parse_one(text: str, version: int, ntcir: NtcirSettings) -> list[MeasureRequest]:
    base = condensed_base(text)
    if base is not None:              # M' (seed 000 eq 21): M on the condensed list
        if not base or condensed_base(base) is not None:
            raise MeasureError(f"{text}: expected one measure name after condensed: or "
                               "before '")
        return [MeasureRequest(r.mdef, r.args, r.name + CONDENSED_SUFFIX, condensed=True)
                for r in _parse_one(base, version, ntcir)]
    named = _named_measure(text)       # TBG(half_life=100), U(f=0.1), ...
    if named is not None:
        return named
    if text in NTCIR_SETS:                   # ntcir_eval compute's set, without or with -j
        return [req for name in NTCIR_SETS[text] for req in _ntcir_measure(name, ntcir)]
    if text.startswith("ntcir:") or ntcir.prefer:
        found = _ntcir_measure(text, ntcir)
        if found is not None:
            return found
        if text.startswith("ntcir:"):
            raise MeasureError(f"unknown NTCIREVAL measure {text[6:]!r}")
    if text in ("all_trec", "official"):
        names = TREC_EVAL_ORDER if text == "all_trec" else OFFICIAL
        reqs = []
        for name in names:
            mdef = registry().get(name)
            if mdef and mdef.since <= version:
                reqs += _trec_eval_measure(name, None)
        return reqs
    from .diversity import parse_diversity
    div = parse_diversity(text)                # alpha-nDCG@20, ERR-IA(alpha=0.3)@10, NRBP, ...
    if div is not None:
        return div
    irm = _ir_measures_measure(text)
    if irm is not None:
        return irm
    if text.partition(".")[0] not in registry():     # trec_eval's names keep their meaning
        found = _ntcir_measure(text, ntcir)
        if found is not None:
            return found
    name, dot, params = text.partition(".")
    # The printed form: P_10, ndcg_cut_10, iprec_at_recall_0.10, Rprec_mult_0.20. Split before
    # the partition at '.', or iprec_at_recall_0.10 would read as iprec_at_recall.0 (0.00).
    printed = re.fullmatch(r"(\w+?)_([0-9][0-9.]*)", text)
    if printed and text not in registry() and printed.group(1) in registry():
        name, dot, params = printed.group(1), ".", printed.group(2)
    if dot and not params:
        raise MeasureError(f"{text}: empty parameter list")
    return _trec_eval_measure(name, params if dot else None)


_NAMED_RE = re.compile(r"^([A-Za-z][\w#+-]*)(?:\((.*)\))?(?:@(\d+))?$")


def _short(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _named_measure(text: str) -> list[MeasureRequest] | None:
    """Requests for a measure whose header says `syntax: named` (TBG, U): `Name`, or
    `Name(param=value,...)` with the header's parameters, and `@k` when it has a `cutoff`
    parameter. The printed name lists the parameters that differ from their defaults."""
    m = _NAMED_RE.match(text)
    mdef = registry().get(m.group(1)) if m else None
    if mdef is None or mdef.syntax != "named":
        return None
    kwargs: dict[str, str] = {}
    for part in filter(None, (m.group(2) or "").split(",")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise MeasureError(f"{text}: expected name=value parameters")
        kwargs[key.strip()] = value.strip()
    names = [p.name for p in mdef.params]
    unknown = sorted(set(kwargs) - set(names) | ({"cutoff"} & set(kwargs)))
    if unknown:
        raise MeasureError(f"{text}: unknown parameter(s) {unknown}; {mdef.name} takes "
                           f"{', '.join(n for n in names if n != 'cutoff')}")
    if m.group(3) and "cutoff" not in names:
        raise MeasureError(f"{text}: {mdef.name} takes no @cutoff")
    args, shown = [], []
    for p in mdef.params:
        if p.name == "cutoff":
            value = _number(m.group(3) or p.default, p.type, text)
            if value <= 0:
                raise MeasureError(f"{text}: cutoffs must be positive")
            args.append(value)
            continue
        value = _number(kwargs.get(p.name, p.default), p.type, text)
        if p.name in mdef.positive and value <= 0:
            raise MeasureError(f"{text}: {p.name} must be > 0")
        args.append(value)
        if value != _number(p.default, p.type, text):
            shown.append(f"{p.name}={_short(value)}")
    printed = mdef.name + (f"({','.join(shown)})" if shown else "")
    if "cutoff" in names:
        printed += f"@{args[names.index('cutoff')]}"
    return [MeasureRequest(mdef, tuple(args), printed)]


# ---------------------------------------------------------------------------------------------
# NTCIREVAL names. The table is read from the `-- ntcir:` headers of sql/metrics/ntcir_*.sql
# (`Q-measure`, `Q@k`); these are the names ntcir_eval prints, in the order it prints them.

NTCIR_FACTS = ["syslen", "jrel", "jnonrel", "r1", "rp"]
NTCIR_PLAIN_ORDER = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUrb,P",
                     "NCUrb,BR", "NCUrb,IE", "RBP", "ERR", "EBR", "iRBU"]
NTCIR_CUTOFF_ORDER = ["AP", "Q", "NCUrb,P", "NCUrb,BR", "NCUrb,IE", "nDCG", "MSnDCG", "Prec",
                      "RBP", "nRBP", "ERR", "nERR", "EBR", "nEBR", "iRBU", "niRBU", "Hit"]
NTCIR_EXTRA_ORDER = ["R-measure", "WRR", "NWRR", "NCUgu,P", "NCUgu,BR"]
# `compute -j` (condensed lists) prints these after the cutoff blocks.
NTCIR_BPREF_ORDER = ["bpref", "bpref_R", "bpref_N", "bpref_relative", "rpref_N",
                     "rpref_relative", "rpref_relative2"]
# ntcir_eval compute's output without -j: the facts, 13 values, 17 per cutoff.
NTCIR_DEFAULT_SET = NTCIR_PLAIN_ORDER + [f"{stem}@k" for stem in NTCIR_CUTOFF_ORDER]
NTCIR_SETS = {"ntcireval": NTCIR_FACTS + NTCIR_DEFAULT_SET,
              "ntcireval-j": NTCIR_FACTS + NTCIR_DEFAULT_SET + NTCIR_BPREF_ORDER}
NTCIR_ALIASES = {"Q": "Q-measure", "O": "O-measure", "P": "P-measure", "P+": "P-plus",
                 "Pplus": "P-plus", "P-plus": "P-plus", "R": "R-measure"}
NTCIR_CUTOFF_ALIASES = {"P": "Prec", "Q-measure": "Q"}
NTCIR_DEFAULT_CUTOFFS = (1000,)
_NTCIR_RE = re.compile(r"^(?:ntcir:)?([A-Za-z][A-Za-z0-9_,+\-]*?)(?:\((.*)\))?(?:@(\d+|k))?$")


@dataclass(frozen=True)
class NtcirSettings:
    """ntcir_eval's options: `-g` (level -> gain; empty = gain is the level) and `-cutoffs`;
    `prefer`: resolve names as NTCIREVAL's first (the .nev output)."""
    gains: dict = field(default_factory=dict)
    cutoffs: tuple = NTCIR_DEFAULT_CUTOFFS
    prefer: bool = False


_LEVEL_NAMES = {"S": 3, "A": 2, "B": 1}


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
    `1:1,2:3,3:7`, `L1:1,L2:3`, `S:3,A:2,B:1` (S/A/B = L3/L2/L1), `1=1,2=3`, `exp:M`
    (2^level - 1 for L1..LM, = `1:3:7` for M = 3) or `level` (gain = level, the default). ntcir_eval refuses
    gains that decrease with the level (`monotone`); WRR penalties do decrease."""
    text = text.strip()
    if not text or text == "level":                         # gain = level
        return {}
    if text.startswith("exp:"):                             # 2^level - 1 for L1..LM
        top = int(_number(text[4:], "INTEGER", what))
        if not 1 <= top <= 30:
            raise MeasureError(f"{what}: exp:M needs 1 <= M <= 30")
        return {lv: float(2 ** lv - 1) for lv in range(1, top + 1)}
    if "," not in text and "=" not in text and not any(c.isalpha() for c in text):
        values = [float(_number(v, "DOUBLE", "gains")) for v in text.split(":")]
        gains = {i: v for i, v in enumerate(values, start=1)}
    else:
        gains = {}
        for pair in filter(None, text.split(",")):
            level, sep, gain = pair.replace("=", ":").partition(":")
            if not sep:
                raise MeasureError(f"gains: expected level:gain pairs, got {pair!r}")
            gains[_level(level)] = float(_number(gain, "DOUBLE", "gains"))
    if any(v < 0 for v in gains.values()):
        raise MeasureError(f"{what} must be >= 0")
    levels = sorted(gains)
    if monotone and any(gains[a] > gains[b] for a, b in zip(levels, levels[1:])):
        raise MeasureError("gain values must not decrease with the level (as ntcir_eval)")
    return gains


def parse_cutoffs(text: str) -> tuple[int, ...]:
    """ntcir_eval's `-cutoffs 1,10`."""
    values = tuple(int(_number(t, "INTEGER", "cutoffs")) for t in text.split(",") if t.strip())
    if not values or any(v <= 0 for v in values):
        raise MeasureError("cutoffs must be positive integers")
    return values


@lru_cache(maxsize=1)
def _ntcir_tables() -> tuple[dict[str, MeasureDef], dict[str, MeasureDef]]:
    plain, cut = {}, {}
    for mdef in registry().values():
        if mdef.ntcir.endswith("@k"):
            cut[mdef.ntcir[:-2]] = mdef
        elif mdef.ntcir:
            plain[mdef.ntcir] = mdef
    return plain, cut


def ntcir_label(mdef: MeasureDef, args: tuple) -> str:
    """The name ntcir_eval prints: `Q-measure`, `Q@0010`."""
    if mdef.ntcir.endswith("@k"):
        return "%s@%04d" % (mdef.ntcir[:-2], args[[p.name for p in mdef.params].index("cutoff")])
    return mdef.ntcir


def ntcir_position(req: MeasureRequest) -> int:
    """Sort key in ntcir_eval's print order: facts, the 13 values, extras, then per cutoff."""
    label = req.mdef.ntcir
    if label.endswith("@k"):
        stem = label[:-2]
        cutoff = req.args[[p.name for p in req.mdef.params].index("cutoff")]
        idx = NTCIR_CUTOFF_ORDER.index(stem) if stem in NTCIR_CUTOFF_ORDER else 99
        return 1000 + cutoff * 100 + idx
    if label in NTCIR_BPREF_ORDER:
        return 10**9 + NTCIR_BPREF_ORDER.index(label)
    for i, names in enumerate((NTCIR_FACTS, NTCIR_PLAIN_ORDER, NTCIR_EXTRA_ORDER)):
        if label in names:
            return i * 100 + names.index(label)
    return 999


def _ntcir_value(p, text: str, measure: str):
    if p.type == "MAP":
        return parse_gains(text, what=p.name, monotone=p.name == "gains")
    return _number(text, p.type, measure)


def _ntcir_default(p):
    if p.type == "MAP":
        return parse_gains(p.default.strip("{} "), what=p.name, monotone=p.name == "gains")
    return _number(p.default, p.type, p.name)


def _ntcir_measure(text: str, settings: NtcirSettings) -> list[MeasureRequest] | None:
    """Requests for an NTCIREVAL name, or None when `text` is not one."""
    plain, cut = _ntcir_tables()
    mdef_by_macro = registry().get(text.removeprefix("ntcir:"))
    if mdef_by_macro is not None and mdef_by_macro.ntcir:      # the macro name itself: ntcir_q
        mdef, kwargs_text, cutoff_text = mdef_by_macro, None, None
    else:
        m = _NTCIR_RE.match(text)
        if not m:
            return None
        stem, kwargs_text, cutoff_text = m.groups()
        if cutoff_text is not None:
            if settings.prefer or text.startswith("ntcir:"):
                stem = NTCIR_CUTOFF_ALIASES.get(stem, stem)
            elif stem == "Q-measure":
                stem = "Q"
            mdef = cut.get(stem)
        else:
            name = NTCIR_ALIASES.get(stem, stem)
            if stem in ("P", "R") and not (settings.prefer or text.startswith("ntcir:")):
                return None                      # trec_eval's P and ir_measures' R
            mdef = plain.get(name) or cut.get(stem)
        if mdef is None:
            return None
    kwargs = {}
    for part in filter(None, (kwargs_text or "").split(";" if ";" in (kwargs_text or "")
                                                       else ",")):
        key, sep, value = part.partition("=")
        if not sep:
            raise MeasureError(f"{text}: expected name=value parameters")
        kwargs[key.strip()] = value.strip()
    names = {p.name for p in mdef.params}
    unknown = set(kwargs) - names - {"cutoff"}
    if unknown:
        raise MeasureError(f"{text}: unknown parameter(s) {sorted(unknown)}; "
                           f"{mdef.ntcir} takes {', '.join(sorted(names - {'cutoff'}))}")
    is_cut = mdef.ntcir.endswith("@k")
    if is_cut:
        if cutoff_text not in (None, "k"):
            cutoffs = (int(cutoff_text),)
        elif "cutoff" in kwargs:
            cutoffs = parse_cutoffs(kwargs.pop("cutoff"))
        else:
            cutoffs = tuple(settings.cutoffs)
        if any(k <= 0 for k in cutoffs):
            raise MeasureError(f"{text}: cutoffs must be positive")
    elif cutoff_text is not None:
        raise MeasureError(f"{text}: {mdef.ntcir} takes no @cutoff")
    else:
        cutoffs = (None,)
    out = []
    for k in cutoffs:
        args = []
        for p in mdef.params:
            if p.name == "cutoff":
                args.append(k)
            elif p.name in kwargs:
                args.append(_ntcir_value(p, kwargs[p.name], text))
            elif p.name == "gains":
                args.append(dict(settings.gains))
            else:
                args.append(_ntcir_default(p))
        if settings.prefer and not kwargs:
            name = ntcir_label(mdef, tuple(args))
        elif is_cut and cutoff_text in (None, "k"):           # expanded over the cutoffs
            name = f"{text.removesuffix('@k')}@{k}"
        else:
            name = text
        out.append(MeasureRequest(mdef, tuple(args), name))
    return out
