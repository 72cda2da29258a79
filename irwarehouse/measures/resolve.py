"""What a measure name means: a name taken apart by the grammar (irwarehouse.measures.grammar)
is looked up among the names the catalog gives each measure (irwarehouse.measures.catalog),
dialect by dialect, then its parameters are bound.

Dialects are tried in this order: trec_eval (map, P.10), ndeval (alpha-nDCG@20), irw's own
(TBG, U, bpref-10), ir_measures (AP, nDCG@10, RR, ERR@20), ranx (ndcg_burges@10, hits@5),
Sakai's names (nDCG-IA), NTCIREVAL (Q@10, nERR@10, P+). So a word two tools use means the first
tool's: AP, RR, RBP, ERR@k and nDCG@k are ir_measures' (AP is trec_eval's map, ERR@k gdeval's),
and NTCIREVAL's with `ntcir:` in front or when NTCIREVAL's names are preferred (the .nev output,
NtcirSettings.prefer). A dialect that knows the word but not the form it is written in (`ERR`
without @k for ir_measures) passes it on to the next; the form error is reported only when no
dialect takes it. Within the call form, `rel=` and `judged_only=` are ir_measures' per-measure
evaluation options (-l and -J for that measure only).

Printed names: trec_eval's forms as trec_eval prints them (P_10, iprec_at_recall_0.10,
ndcg_1=3,2=7); NTCIREVAL's labels when they are preferred (Q@0010); the diversity measures by
their ndeval/NTCIREVAL names with the parameters that differ from the defaults; every other
name as typed, a cutoff list spelled out (Q@k -> Q@10).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import MeasureError
from .catalog import MeasureDef, Spelling, in_set, names, registry, set_names
from .grammar import GEOMETRIC_PREFIX, Name, parse, printed_form, split_list
from .values import canonical_gains, header_default, number, parse_cutoffs, parse_gains, short

DIALECT_ORDER = ("trec_eval", "ndeval", "irw", "ir_measures", "ranx", "sakai2014", "ntcireval")
TREC_SETS = ("all_trec", "official", "set")          # trec_eval's nicknames (measures.c)
# ir_measures' per-measure parameters that are evaluation options: -l and -J for that measure
OPTION_KWARGS = {"rel": ("threshold", "INTEGER"), "judged_only": ("judged_only", "BOOLEAN")}
NTCIR_DEFAULT_CUTOFFS = (1000,)


@dataclass(frozen=True)
class NtcirSettings:
    """ntcir_eval's options: `-g` (level -> gain; empty = gain is the level) and `-cutoffs`;
    `prefer`: resolve names as NTCIREVAL's first (the .nev output)."""
    gains: dict = field(default_factory=dict)
    cutoffs: tuple = NTCIR_DEFAULT_CUTOFFS
    prefer: bool = False


@dataclass(frozen=True)
class MeasureRequest:
    """One measure to compute: a definition, the macro arguments, and the printed name.
    `condensed`: computed on the condensed list (unjudged documents dropped first, as -J),
    whatever -J says: the M' of Sakai (SIGIR 2007), asked for as `M'` or `condensed:M`."""
    mdef: MeasureDef
    args: tuple
    name: str
    condensed: bool = False
    overrides: tuple[tuple[str, object], ...] = ()    # EvalOptions fields for this measure

    def eval_options(self, opts):
        """The evaluation options this measure is computed with: the run's, with its own
        overrides (ir_measures' rel=, judged_only=) and -J for a condensed M'."""
        changed = dict(self.overrides)
        if self.condensed:
            changed["judged_only"] = True
        return replace(opts, **changed) if changed else opts

    @property
    def cutoff(self):
        names = self.mdef.param_names
        return self.args[names.index("cutoff")] if "cutoff" in names else None

    @property
    def order_key(self):
        """trec_eval's print order (the catalog's `order`), then NTCIREVAL's (its labels'
        positions, per cutoff)."""
        if self.mdef.ntcir:
            return (1000, "\x7f", ntcir_position(self), self.name)
        pos = self.mdef.order if self.mdef.order is not None else 100
        arg = self.args[0] if self.args and isinstance(self.args[0], (int, float)) else 0
        return (pos, self.mdef.name, arg, self.name)

    @property
    def params_text(self) -> str:
        return ",".join(f"{p.name}={a}" for p, a in zip(self.mdef.params, self.args))

    def stored_name(self, gains: dict | None = None) -> str:
        """The canonical name this measure's scores are stored under, whatever spelling asked
        for it (AP, map, MAP -> map; nDCG@10, ndcg_cut.10, ndcg_cut_10 -> ndcg_cut_10): a
        trec_eval measure as trec_eval prints it; any other as `name(param=value,...)@cutoff`
        with only the parameters that differ from their defaults. `gains`: the evaluation's -g
        (a measure's `gains` equal to it is the option's, not the name's). Per-measure options
        (ir_measures' rel=, judged_only=, the condensed M') are options of the stored row, not
        parts of its name."""
        own = registry().get(self.mdef.name)
        if own is not None and self.mdef.summary == "gmean" and own.summary != "gmean":
            # gm:NAME, the geometric mean of NAME: the same per-topic values under their own
            # name, so that run_score forms the run's value as gm: asks
            base = replace(self, mdef=own).stored_name(gains)
            return GEOMETRIC_PREFIX + base
        params = self.mdef.params
        cut = next((i for i, p in enumerate(params) if p.name in ("cutoff", "depth")), None)
        if cut is None and params and params[0].is_list_default:
            cut = 0
        named = [(p, a) for i, (p, a) in enumerate(zip(params, self.args))
                 if i != cut and not self._default_arg(p, a, gains)]
        if self.mdef.dialect == "trec_eval" and not named:
            if cut is not None and self.args[cut] is not None:
                value = self.args[cut]
                return f"{self.mdef.name}_{value}" if params[cut].type == "INTEGER" \
                    else f"{self.mdef.name}_{value:3.2f}"
            return self.mdef.name
        if self.mdef.dialect == "trec_eval" and len(params) == 1 and cut is None:
            return f"{self.mdef.name}_{_trec_value(params[0], self.args[0])}"
        inner = ",".join(f"{p.name}={_trec_value(p, a)}" for p, a in named)
        # a cutoff of 0 (or none) is the whole list: no @k
        at = f"@{self.args[cut]}" if cut is not None and self.args[cut] else ""
        return self.mdef.name + (f"({inner})" if inner else "") + at

    @staticmethod
    def _default_arg(p, value, gains) -> bool:
        if p.name == "gains" and p.type == "MAP" and gains is not None:
            if canonical_gains(value or {}) == canonical_gains(gains):
                return True
        default = header_default(p)
        if p.type == "MAP":
            return p.name == "gains" and canonical_gains(value or {}) == \
                canonical_gains(default or {}) or value == default
        return value == default

    @property
    def cutoff_value(self):
        """The value an @k (or trec_eval's _k) gives this measure: its cutoff (or depth), else a
        first list-default parameter; None when it has none."""
        params = self.mdef.params
        for i, p in enumerate(params):
            if p.name in ("cutoff", "depth"):
                return self.args[i]
        if params and params[0].is_list_default:
            return self.args[0]
        return None

    def definition_hash(self) -> str:
        """A hash of the SQL that defines the measure, stored with its scores (`score`): its
        family's file, the files of the building blocks it calls and sql/context.sql (which
        ranks the lists and builds every relation it reads), so that equal hashes mean the same
        definition and, values being bit-reproducible, the same bits (README, "Bit-reproducible
        scores")."""
        import hashlib

        from ..sqlfiles import macro_closure, metric_files, sql_dir
        families = {self.mdef.family} | {m.file for m in macro_closure([self.mdef.kernel])}
        paths = [sql_dir() / "context.sql"] + [p for p in metric_files() if p.stem in families]
        digest = hashlib.sha256()
        for path in paths:
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]


def ntcir_label(mdef: MeasureDef, args: tuple) -> str:
    """The name ntcir_eval prints: `Q-measure`, `Q@0010`."""
    cutoff = dict(zip(mdef.param_names, args)).get("cutoff")
    label = mdef.ntcir_label(cutoff is not None)
    if label is None:
        return mdef.name
    return f"{label[0][:-2]}@{cutoff:04d}" if cutoff is not None else label[0]


def ntcir_position(req: MeasureRequest) -> int:
    """Sort key in ntcir_eval's print order: facts (0-4), the 13 values (100-), extras (200-),
    per cutoff the cutoff measures (300-), the `compute -j` lines (900-) last."""
    cutoff = req.cutoff
    label = req.mdef.ntcir_label(cutoff is not None)
    pos = label[1] if label else 999
    if cutoff is not None:
        return 1000 + cutoff * 100 + (pos - 300)
    return 10**9 + pos - 900 if pos >= 900 else pos


def wants_runid(names_: list[str] | None) -> bool:
    """Whether trec_eval would print the `runid` row: it is a measure of the official and
    all_trec sets (and the default), not printed when only other measures are asked for
    (trec_eval's test out.test.meas_params has no runid row)."""
    return any(t in ("runid", *TREC_SETS) for raw in (names_ or ["official"])
               for t in split_list(raw))


def _ntcir_set(set_name: str) -> list[str]:
    """The NTCIREVAL labels of a set's measures in ntcir_eval's print order (`Q@k` for every
    cutoff)."""
    labels = sorted((pos, label) for m in in_set(set_name) for label, pos in m.ntcir)
    return [label for _, label in labels]


def parse_measures(names_: list[str], *, version: int = 9,
                   ntcir: NtcirSettings | None = None) -> list[MeasureRequest]:
    """Measure requests for the given names, in trec_eval's output order, without duplicates.
    As in trec_eval, a family given with explicit parameters (`-m relstring.20`) replaces the
    default-parameter version that a set such as all_trec brings; `runid` is accepted and
    computes nothing (see `wants_runid`). `ntcir` gives the gains and cutoffs of NTCIREVAL's
    measures; with `ntcir.prefer` (the .nev output) NTCIREVAL's names win, its facts are always
    included, and no names means NTCIREVAL's full per-topic set."""
    ntcir = ntcir or NtcirSettings()
    facts = _ntcir_set("ntcir-facts")
    default = [n for n in _ntcir_set("ntcireval") if n not in facts] if ntcir.prefer \
        else ["official"]
    texts = (facts if ntcir.prefer else []) + [t for raw in (names_ or default)
                                               for t in split_list(raw)]
    from_sets: dict[str, MeasureRequest] = {}
    explicit: dict[str, MeasureRequest] = {}
    overridden: set[str] = set()
    for text in texts:
        if text == "runid":
            continue
        # a set, or a trec_eval family named bare (`-m P`: its default cutoffs), gives way to
        # the same family written with trec_eval parameters (`-m P -m P.7` is P_7 only, as in
        # trec_eval); other tools' names of the family (`AP(rel=2)`) do not replace it
        bare = text in registry() and registry()[text].dialect == "trec_eval"
        target = from_sets if text in TREC_SETS or bare else explicit
        requests = resolve(text, version, ntcir)
        for req in requests:
            target.setdefault(req.name, req)
        if target is explicit and _trec_parameters(text):
            overridden |= {r.mdef.name for r in requests if not r.condensed}
    out = {n: r for n, r in from_sets.items() if r.mdef.name not in overridden}
    for name, req in explicit.items():
        out.setdefault(name, req)
    return sorted(out.values(), key=lambda r: r.order_key)


def _trec_parameters(text: str) -> bool:
    """Whether a name gives a trec_eval family its parameters (`P.7`, `relstring.20`, `P_10`)."""
    try:
        name = parse(text)
    except MeasureError:
        return False
    return name.form == "trec" and (name.dotted is not None or printed_form(name) is not None)


def resolve(text: str, version: int = 9, ntcir: NtcirSettings | None = None, *,
            dialects: tuple[str, ...] | None = None) -> list[MeasureRequest]:
    """The requests one name stands for (a set stands for several); `dialects`: look the
    name up in these only."""
    ntcir = ntcir or NtcirSettings()
    if text in TREC_SETS:
        return [req for m in in_set(text) if m.since <= version
                for req in _bind_trec(m, Name(m.name, m.name, "trec"))]
    if text in set_names():                                   # NTCIREVAL's sets
        return [req for label in _ntcir_set(text)
                for req in resolve(label, version, ntcir, dialects=("ntcireval",))]
    if text.startswith(GEOMETRIC_PREFIX):
        # any measure's geometric mean over topics (irw_summarise's gmean floors at 1e-5)
        return [replace(r, mdef=replace(r.mdef, summary="gmean"), name=GEOMETRIC_PREFIX + r.name)
                for r in resolve(text.removeprefix(GEOMETRIC_PREFIX), version, ntcir,
                                 dialects=dialects)]
    name = parse(text)
    if name.condensed:
        base = text.removeprefix("condensed:").removesuffix("'")
        return [MeasureRequest(r.mdef, r.args, r.name + "'", condensed=True)
                for r in resolve(base, version, ntcir)]
    exact = registry().get(name.text)           # a canonical name the grammar splits: I-rec@n
    if exact is not None and name.form == "call" and name.kwargs is None and name.has_cutoff:
        return [MeasureRequest(exact, (), exact.name)]
    prefix = "ntcir:" if name.ntcir else ""
    if dialects is None:
        dialects = ("ntcireval",) if name.ntcir else DIALECT_ORDER
    trec_form = name.form == "trec" and name.dotted is not None
    if trec_form:                               # P.10, ndcg.1=3,2=7: trec_eval's own syntax
        dialects = tuple(d for d in dialects if d == "trec_eval")
    if name.cutoff == "k":                      # @k: every cutoff of -cutoffs, NTCIREVAL's
        dialects = tuple(d for d in dialects if d == "ntcireval")
    if ntcir.prefer and "ntcireval" in dialects and not name.ntcir and not trec_form:
        # NTCIREVAL's names first; a form it does not take falls through (R@100 is recall@100)
        found = _lookup(name, "ntcireval")
        if isinstance(found, Spelling):
            return _bind(found, name, prefix, ntcir)
    mismatch = None
    for dialect in dialects:
        found = _lookup(name, dialect)
        if found is None:
            continue
        if isinstance(found, str):              # the dialect knows the stem, not this form
            mismatch = mismatch or f"{text}: {name.stem} {found}"
            continue
        return _bind(found, name, prefix, ntcir)
    alt = printed_form(name)                    # trec_eval's printed names: P_10
    if alt is not None and ("trec_eval", alt.stem) in names() and "trec_eval" in dialects:
        return _bind_trec(names()[("trec_eval", alt.stem)][0].mdef, alt)
    # any measure's canonical name in trec_eval's forms (recip_rank_cut.5, recip_rank_cut_5)
    for form in (name if trec_form else None, alt):
        own = registry().get(form.stem) if form is not None else None
        if own is not None and own.params and not name.ntcir:
            return _bind_trec(own, form)
    if mismatch:
        raise MeasureError(mismatch)
    folded = _case_folded(text, name, version, ntcir, dialects)
    if folded is not None:
        return folded
    raise MeasureError(f"unknown measure {text!r}{_suggestion(name.stem, text)} "
                       "(see `irw measures`)")


def _case_folded(text: str, name: Name, version: int, ntcir: NtcirSettings | None,
                 dialects) -> list[MeasureRequest] | None:
    """A name that differs from the catalog's names only in case (MAP, NDCG@10), when every
    name it could be means the same measure; None otherwise."""
    stems = sorted({n for d, n in names() if d in dialects and n.lower() == name.stem.lower()
                    and n != name.stem})
    found = []
    for stem in stems:
        try:
            found.append(resolve(text.replace(name.stem, stem, 1), version, ntcir,
                                 dialects=dialects))
        except MeasureError:
            continue
    meanings = {tuple(r.stored_name() for r in reqs) for reqs in found}
    if len(meanings) != 1:
        return None
    return [replace(r, name=text if len(found[0]) == 1 else r.name) for r in found[0]]


def _lookup(name: Name, dialect: str) -> Spelling | str | None:
    """The spelling of `dialect` that fits the name (None: the dialect does not know the stem;
    a string: it knows the stem but not written this way)."""
    spellings = names().get((dialect, name.stem))
    if spellings is None:
        return None
    # a canonical name (cutoff None) takes @k only when its measure has a cutoff parameter
    fitting = [s for s in spellings if s.cutoff == name.has_cutoff or (
        s.cutoff is None and (not name.has_cutoff or _cutoff_param(s.mdef) is not None))]
    if not fitting:
        return "takes no @cutoff" if name.has_cutoff else "needs an @cutoff"
    given = dict(name.kwargs or ())
    # the most specific spelling whose selectors and required parameters the name carries;
    # a name that fits none (an unknown parameter) goes to the plainest, which reports it
    for s in fitting:
        if all(given.get(k) == v for k, v in s.selectors.items()) and s.required <= set(given):
            return s
    plain = [s for s in fitting if not s.selectors and not s.required]
    return plain[0] if plain else fitting[-1]


def _suggestion(stem: str, text: str = "") -> str:
    """'; did you mean X?' with the catalog's names (every tool's spelling and alias) closest
    to `stem`, compared without case (alpha-ndcg -> alpha-nDCG), each with the rest of the
    text as given (its @cutoff or parameters); '' when none is close."""
    import difflib  # (only here, for a name the catalog lacks: 1-2 ms in every process)
    by_lower: dict[str, str] = {}
    for _, n in sorted(names()):
        by_lower.setdefault(n.lower(), n)
    close = difflib.get_close_matches(stem.lower(), by_lower, n=3, cutoff=0.75)
    rest = text[len(stem):] if text.startswith(stem) else ""
    return f"; did you mean {' or '.join(by_lower[c] + rest for c in close)}?" if close else ""


# ---------------------------------------------------------------------------------- binding


def _bind(spelling: Spelling, name: Name, prefix: str,
          ntcir: NtcirSettings) -> list[MeasureRequest]:
    mdef = spelling.mdef
    alias = mdef.name != name.stem
    if mdef.dialect == "ntcireval" and mdef.ntcir:
        return _bind_ntcir(mdef, name, prefix, ntcir)
    if name.form == "trec" and (name.dotted is not None or name.printed is not None
                                or (mdef.dialect == "trec_eval" and not alias)):
        return _bind_trec(mdef, name)
    return _bind_call(mdef, name, prefix, spelling)


def _bind_trec(mdef: MeasureDef, name: Name) -> list[MeasureRequest]:
    """trec_eval's forms: `map`, `P` (its default cutoffs), `P.5,10`, `P_10`, `ndcg.1=3,2=7`,
    `utility.2,-1,0,0`, `rbp.p=0.8`; printed as trec_eval prints them."""
    params = name.dotted if name.dotted is not None else name.printed
    if not mdef.params:
        if params:
            raise MeasureError(f"{mdef.name} takes no parameters")
        return [MeasureRequest(mdef, (), mdef.name)]
    p = mdef.params[0]
    if p.is_list_default:                               # cutoff families: P, ndcg_cut, ...
        texts = params.split(",") if params else p.default.split(",")
        values = [number(t, p.type, name.text) for t in texts]
        if p.type == "INTEGER" and any(v <= 0 for v in values):
            raise MeasureError(f"{name.text}: cutoffs must be positive")
        if len(set(values)) != len(values):
            raise MeasureError(f"{name.text}: duplicate cutoffs")
        return [MeasureRequest(mdef, (v,), f"{mdef.name}_{v}" if p.type == "INTEGER"
                               else f"{mdef.name}_{v:3.2f}") for v in sorted(values)]
    if params is None:
        return [MeasureRequest(mdef, (header_default(p),), mdef.name)]
    printed = f"{mdef.name}_{params}"
    if p.type == "MAP":                                 # ndcg.1=3,2=9: level=gain pairs
        gains = {}
        for pair in params.split(","):
            level, sep, gain = pair.partition("=")
            if not sep:
                raise MeasureError(f"{mdef.name}: expected level=gain pairs, got {pair!r}")
            lvl = int(number(level, "INTEGER", mdef.name))
            if lvl < 0 and mdef.family != "gain":
                # trec_eval gives -1=g to retrieved documents outside the qrels and -2=g to
                # in-pool unjudged ones; ndcg.sql reads judged documents only (gain.sql's G,
                # ndcg_rel and Rndcg do handle them).
                raise MeasureError(f"{mdef.name}: a gain for level {lvl} (documents outside "
                                   "the qrels or unjudged) is not supported")
            gains[lvl] = float(number(gain, "DOUBLE", mdef.name))
        return [MeasureRequest(mdef, (gains,), printed)]
    if p.type.endswith("[]"):
        values = [float(number(t, "DOUBLE", mdef.name)) for t in params.split(",")]
        if mdef.name == "utility" and len(values) != 4:
            raise MeasureError("utility needs 4 coefficients")
        return [MeasureRequest(mdef, (values,), printed)]
    text = params.split("=", 1)[1] if "=" in params else params     # rbp.p=0.8
    return [MeasureRequest(mdef, (number(text, p.type, mdef.name),), printed)]


def _value(mdef: MeasureDef, p, text: str, where: str):
    if p.type == "MAP":
        # ntcir_eval refuses gains that decrease with the level; trec_eval's and ir_measures'
        # nDCG(gains=...) take any gains
        return parse_gains(text, what=p.name,
                           monotone=p.name == "gains" and mdef.dialect == "ntcireval")
    if p.type.endswith("[]"):
        return [float(number(t, "DOUBLE", where)) for t in text.strip("[]").split(",")
                if t.strip()]
    value = number(text, p.type, where, truncate=False)
    if p.name in mdef.positive and value <= 0:
        raise MeasureError(f"{where}: {p.name} must be > 0")
    return value


def _cutoff_param(mdef: MeasureDef):
    """The parameter an `@k` sets: `cutoff` (or trectools' `depth`), else a first list-default
    parameter (ir_measures' IPrec@0.1 is iprec_at_recall's recall level)."""
    for p in mdef.params:
        if p.name in ("cutoff", "depth"):
            return p
    if mdef.params and mdef.params[0].is_list_default:
        return mdef.params[0]
    return None


def _bind_call(mdef: MeasureDef, name: Name, prefix: str,
               spelling: Spelling | None = None) -> list[MeasureRequest]:
    """`Name`, `Name(param=value,...)`, `Name@k`: ir_measures' and ranx's names, irw's own
    (TBG, U) and the diversity measures'; a list-default cutoff (ndeval's 5,10,20) is spelled
    out. The alias's presets give its tool's defaults; `rel=` and `judged_only=` become this
    measure's evaluation options."""
    kwargs = dict(name.kwargs or ())
    for key in (spelling.selectors if spelling else {}):
        kwargs.pop(key)
    defaults = spelling.defaults if spelling else {}
    overrides = []
    for key, (option, sql_type) in OPTION_KWARGS.items():
        if key in kwargs and key not in mdef.param_names:
            overrides.append((option, _option_value(kwargs.pop(key), sql_type, name.text)))
    cut = _cutoff_param(mdef)
    allowed = {p.name for p in mdef.params} - ({cut.name} if cut else set())
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed)) or "no parameters"
        raise MeasureError(f"{name.text}: unknown parameter(s) {unknown}; {mdef.name} takes "
                           f"{takes}" + (" (give a cutoff as @k)" if cut else ""))
    if name.has_cutoff and cut is None:
        raise MeasureError(f"{name.text}: {mdef.name} takes no @cutoff")
    if cut is not None and name.has_cutoff:
        cutoffs = [number(name.cutoff, cut.type, name.text, truncate=False)]
    elif cut is not None and cut.is_list_default:
        if not mdef.is_diversity:
            raise MeasureError(f"{name.text}: {name.stem} needs an @cutoff")
        cutoffs = [number(t, cut.type, name.text) for t in cut.default.split(",")]
    elif cut is not None:
        cutoffs = [_default(cut, defaults)]
    else:
        cutoffs = [None]
    # a cutoff given must be positive; a default of 0 means the whole list (judged, hits, ...)
    if cut is not None and cut.type == "INTEGER" and name.has_cutoff and cutoffs[0] <= 0:
        raise MeasureError(f"{name.text}: cutoffs must be positive")
    out = []
    for cutoff in cutoffs:
        args, shown = [], []
        for p in mdef.params:
            if cut is not None and p.name == cut.name:
                args.append(cutoff)
                continue
            value = _value(mdef, p, kwargs[p.name], name.text) if p.name in kwargs \
                else _default(p, defaults)
            args.append(value)
            if value != header_default(p):
                shown.append(f"{p.name}={short(value)}")
        if mdef.is_diversity:                # ndeval's / NTCIREVAL's names, as their layouts
            printed = mdef.name + (f"({','.join(shown)})" if shown else "") + \
                (f"@{cutoff}" if cutoff is not None else "")
        else:
            printed = prefix + name.text
        out.append(MeasureRequest(mdef, tuple(args), printed, overrides=tuple(overrides)))
    return out


def _option_value(text: str, sql_type: str, where: str):
    if sql_type == "BOOLEAN":
        value = {"true": True, "false": False, "1": True, "0": False}.get(text.strip().lower())
        if value is None:
            raise MeasureError(f"{where}: expected True or False, got {text!r}")
        return value
    return number(text, sql_type, where, truncate=False)


def _default(p, defaults: dict[str, str]):
    """A parameter's default: the alias's (its tool's) when it gives one, else the header's."""
    if p.name in defaults:
        return header_default(p.__class__(p.name, p.type, defaults[p.name]))
    return header_default(p)


def _bind_ntcir(mdef: MeasureDef, name: Name, prefix: str,
                settings: NtcirSettings) -> list[MeasureRequest]:
    """NTCIREVAL's names: `Q-measure`, `Q`, `Q@10`, `Q@0010`, `Q@k` (every cutoff of
    -cutoffs), `Q(beta=0.5)`, `nDCG(logb=10)@10`, `NCUrb,P(cutoff=1,10)`; `gains` from -g
    unless given."""
    kwargs = dict(name.kwargs or ())
    allowed = set(mdef.param_names)
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        takes = ", ".join(sorted(allowed - {"cutoff"}))
        label = mdef.ntcir[0][0]
        raise MeasureError(f"{prefix}{name.text}: unknown parameter(s) {unknown}; {label} "
                           f"takes {takes}")
    has_cut = "cutoff" in allowed
    plain_label = mdef.ntcir_label(False)
    expand = name.cutoff == "k" or (not name.has_cutoff and plain_label is None)
    if name.has_cutoff and not has_cut:
        raise MeasureError(f"{prefix}{name.text}: {plain_label[0]} takes no @cutoff")
    if name.has_cutoff and name.cutoff != "k":
        cutoffs = (number(name.cutoff, "INTEGER", name.text, truncate=False),)
    elif expand and "cutoff" in kwargs:
        cutoffs = parse_cutoffs(kwargs.pop("cutoff"))
    elif expand:
        cutoffs = tuple(settings.cutoffs)
    else:
        cutoffs = (header_default(mdef.params[mdef.param_names.index("cutoff")]),) \
            if has_cut and "cutoff" not in kwargs else (None,)
        if "cutoff" in kwargs:
            cutoffs = parse_cutoffs(kwargs.pop("cutoff"))
    if any(k is not None and k <= 0 for k in cutoffs):
        raise MeasureError(f"{prefix}{name.text}: cutoffs must be positive")
    out = []
    for k in cutoffs:
        args = []
        for p in mdef.params:
            if p.name == "cutoff":
                args.append(k)
            elif p.name in kwargs:
                args.append(_value(mdef, p, kwargs[p.name], name.text))
            elif p.name == "gains":
                args.append(dict(settings.gains))
            else:
                args.append(header_default(p))
        if settings.prefer and not kwargs:
            printed = ntcir_label(mdef, tuple(args))
        elif expand:
            printed = f"{prefix}{name.text.removesuffix('@k')}@{k}"
        else:
            printed = prefix + name.text
        out.append(MeasureRequest(mdef, tuple(args), printed))
    return out


def _trec_value(p, value) -> str:
    """A parameter value as trec_eval prints it in a measure name (`ndcg_1=3,2=7`, `P_10`)."""
    if isinstance(value, dict):
        return ",".join(f"{lv}={short(g)}" for lv, g in value.items())
    if isinstance(value, list):
        return ",".join(short(v) for v in value)
    return short(value)
