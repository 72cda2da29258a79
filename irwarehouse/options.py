"""The evaluation options, each declared once (as trec_eval declares its options once in `EPI`).

An option is one row of OPTIONS: its field (EvalOptions / EvalSettings, and the CLI parameter),
its flags, its metric-macro parameter (also its column in `score`), its SQL type, its column in
`campaign_profile`, its default and its help text. Every front door reads these rows: the typer
options of every evaluating command and the fast parser of `irw eval` (irwarehouse.cli.options),
the campaign profile (irwarehouse.engine.settings), the key of stored scores (score's option
columns, irwarehouse.store.results), the defaults of the `irw_*` macros (irwarehouse.store.macros)
and the values Spark binds (irwarehouse.spark.engine).

Three sources give an option its value, in this order: what the request says (a flag, an API
argument, a macro argument), the campaign's profile (`irw campaign set`), the default here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .errors import MeasureError
from .measures.values import canonical_gains

ORDERS = ("score", "rank", "file")
VERSIONS = (9, 10)


@dataclass(frozen=True)
class Option:
    """One evaluation option."""
    field: str                      # EvalOptions / EvalSettings field and CLI parameter name
    flags: tuple[str, ...]          # the command-line spellings (typer's param_decls)
    kind: str                       # int | bool | choice | gains | text | name
    default: object                 # EvalOptions' default (None: not set / the whole list)
    help: str
    profile: str                    # its column in campaign_profile
    sql: str | None = None          # metric-macro parameter and column of `score`; None: no SQL
    sql_type: str | None = None
    choices: tuple[str, ...] = ()
    short: str = ""                 # its key in the stored option text (EvalOptions.describe)

    @property
    def long_flag(self) -> str:
        """The flag that names the option in messages and printed flags (`--gains`, `-M`)."""
        first = self.flags[0].split("/")[0]
        return first

    def flag_words(self, value) -> list[str]:
        """The command-line words that give this option `value` (what `irw campaign show` and
        the notes print): `-c`, `--no-complete`, `-M 1000`, `--order file`."""
        if self.kind == "bool":
            on, _, off = self.flags[0].partition("/")
            short = next((f for f in self.flags[1:] if len(f) == 2), on)
            return [short] if value else [off or f"--no-{on.lstrip('-')}"]
        flag = next((f for f in self.flags if len(f) == 2 and self.field != "gains"),
                    self.long_flag)
        return [flag, _text(value)]


def _text(value) -> str:
    if isinstance(value, tuple):                    # gains as (level, gain) pairs
        return ",".join(f"{lv}:{g:g}" for lv, g in value)
    return str(value)


OPTIONS: tuple[Option, ...] = (
    Option("qrels", ("--qrels",), "name", None,
           "Which stored qrels, when a campaign has several (default: the campaign's profile).",
           profile="qrels_id"),
    Option("gains", ("--gains", "-g"), "gains", (),
           "NTCIREVAL gain per level: 1:2 (L1=1, L2=2, as ntcir_eval -g) or pairs 1:1,2:3,3:7 / "
           "S:3,A:2,B:1, or exp:3 (2^level-1). Default: gain = level.",
           profile="gains", sql="gains", sql_type="MAP(INTEGER, DOUBLE)", short="g"),
    Option("order", ("--order",), "choice", "score",
           "Ranking: score (trec_eval: score desc, docno desc; the default), rank (the rank "
           "column), file (file order, NTCIREVAL).",
           profile="rank_order", sql="sort_order", sql_type="VARCHAR", choices=ORDERS,
           short="order"),
    Option("complete", ("--complete/--no-complete", "-c"), "bool", False,
           "Average over every judged topic (absent topics score 0), as trec_eval -c.",
           profile="complete", sql="complete", sql_type="BOOLEAN", short="c"),
    Option("depth", ("-M",), "int", None, "Evaluate the top M documents only.",
           profile="depth", sql="max_docs", sql_type="BIGINT", short="M"),
    Option("judged_only", ("--judged-only/--no-judged-only", "-J"), "bool", False,
           "Judged documents only (condensed lists), as trec_eval -J.",
           profile="judged_only", sql="judged_only", sql_type="BOOLEAN", short="J"),
    Option("threshold", ("-l",), "int", 1,
           "Relevance threshold: level >= l is relevant (default 1).",
           profile="level", sql="relevance_level", sql_type="INTEGER", short="l"),
    Option("version", ("--trec-eval-version",), "int", 9,
           "9 (9.0.8, as pytrec_eval; the default) or 10 semantics.",
           profile="trec_eval_version", sql="trec_eval_version", sql_type="INTEGER", short="v"),
    Option("cutoffs", ("--cutoffs",), "text", None,
           "NTCIREVAL cutoffs for the @k measures, e.g. 1,10 (default 1000; 10 for --diversity).",
           profile="cutoffs"),
)
BY_FIELD = {o.field: o for o in OPTIONS}
# the options of EvalOptions: those with an SQL parameter (the qrels and NTCIREVAL's cutoffs
# choose what is evaluated, not how)
SQL_OPTIONS = tuple(o for o in OPTIONS if o.sql is not None)
# the options of `score`'s key, in the order of the stored option text
_STORED_ORDER = ("threshold", "judged_only", "depth", "complete", "order", "version", "gains")


@dataclass(frozen=True)
class EvalOptions:
    """The resolved evaluation options of an evaluation (every field has its value)."""
    threshold: int = 1                 # -l: a level >= threshold is relevant
    judged_only: bool = False          # -J: drop unjudged documents first (condensed list)
    depth: int | None = None           # -M: evaluate only the top `depth` documents
    complete: bool = False             # -c: average over every judged topic
    order: str = "score"               # score (trec_eval) | rank (rank column) | file (NTCIREVAL)
    version: int = 9                   # trec_eval semantics: 9 (9.0.8, pytrec_eval) or 10
    # NTCIREVAL gains (-g): (level, gain) pairs; a level not listed has gain = level
    gains: tuple = ()

    def __post_init__(self):
        if self.order not in ORDERS:
            raise MeasureError(f"unknown order {self.order!r}; use one of {', '.join(ORDERS)}")
        if self.version not in VERSIONS:
            raise MeasureError("trec_eval version must be 9 or 10")
        if self.depth is not None and self.depth < 0:
            raise MeasureError("depth (-M) must be >= 0")
        object.__setattr__(self, "gains", canonical_gains(self.gains))

    def describe(self) -> str:
        """The option set as stored text (score.options, the key of earlier versions):
        `l=1;J=0;M=;c=0;order=score;v=9[;g=...]`."""
        gains = _text(self.gains)
        return (f"l={self.threshold};J={int(self.judged_only)};M={self.depth or ''};"
                f"c={int(self.complete)};order={self.order};v={self.version}"
                + (f";g={gains}" if gains else ""))

    def flags(self) -> str:
        """The flags of `irw eval` that give these options (the non-default ones); '' for the
        defaults."""
        default = EvalOptions()
        words = []
        for option in OPTIONS:
            if option.sql is None:
                continue
            value = getattr(self, option.field)
            if value != getattr(default, option.field):
                words += option.flag_words(value)
        return " ".join(words)

    def as_settings(self) -> EvalSettings:
        """Every option of these as EvalSettings (a request that sets them all)."""
        return EvalSettings(gains=_text(self.gains) or None, order=self.order,
                            complete=self.complete, depth=self.depth,
                            judged_only=self.judged_only, threshold=self.threshold,
                            version=self.version).given("given")

    def sql_values(self) -> dict:
        """The options as metric-macro arguments (and `score` columns): name -> value (gains as
        a dict level -> gain)."""
        return {o.sql: dict(self.gains) if o.field == "gains" else getattr(self, o.field)
                for o in SQL_OPTIONS}


def parse_described(text: str) -> EvalOptions:
    """EvalOptions.describe() read back (scores stored by an earlier version)."""
    items = dict(part.split("=", 1) for part in text.split(";") if "=" in part)
    try:
        gains = tuple((int(lv), float(g)) for lv, g in
                      (pair.split(":") for pair in items["g"].split(","))) \
            if items.get("g") else ()
        return EvalOptions(threshold=int(items["l"]), judged_only=items["J"] == "1",
                           depth=int(items["M"]) if items["M"] else None,
                           complete=items["c"] == "1", order=items["order"],
                           version=int(items["v"]), gains=gains)
    except (KeyError, ValueError) as exc:
        from .errors import WarehouseError
        raise WarehouseError(f"stored option set {text!r} cannot be read ({exc})") from None


@dataclass(frozen=True)
class EvalSettings:
    """What a request or a profile sets; None = not set (the next source decides). Fields are
    those of OPTIONS; gains and cutoffs as written (`1:2`, `1,10`)."""
    qrels: str | None = None
    gains: str | None = None
    order: str | None = None
    complete: bool | None = None
    depth: int | None = None
    judged_only: bool | None = None
    threshold: int | None = None
    version: int | None = None
    cutoffs: str | None = None
    source: dict = field(default_factory=dict, compare=False, repr=False)

    def over(self, base: EvalSettings) -> EvalSettings:
        """These settings, with `base`'s where these are not set (`source` says which field
        came from `base`)."""
        values, source = {}, dict(self.source)
        for f in OPTIONS:
            mine = getattr(self, f.field)
            values[f.field] = mine if mine is not None else getattr(base, f.field)
            if mine is None and values[f.field] is not None:
                source[f.field] = base.source.get(f.field, "base")
        return EvalSettings(**values, source=source)

    def given(self, name: str) -> EvalSettings:
        """These settings, each set field marked as coming from `name` (a profile, a flag)."""
        return replace(self, source={f.field: name for f in OPTIONS
                                     if getattr(self, f.field) is not None})

    def from_source(self, name: str) -> list[str]:
        return [f for f, s in self.source.items() if s == name]

    @property
    def empty(self) -> bool:
        return all(getattr(self, o.field) is None for o in OPTIONS)

    def eval_options(self, **defaults) -> EvalOptions:
        """The evaluation options these settings give, `defaults` (a layout's presets, e.g.
        NTCIREVAL's depth=1000, complete=True) then EvalOptions' defaults for the rest."""
        from .measures import parse_gains
        values = dict(defaults)
        for option in SQL_OPTIONS:
            value = getattr(self, option.field)
            if value is None:
                continue
            if option.field == "gains":
                value = tuple(parse_gains(value, monotone=False).items())
            values[option.field] = value
        return EvalOptions(**values)

    def flags(self) -> str:
        """The command-line flags that give these settings (`irw campaign show`)."""
        words = []
        for option in OPTIONS[1:] + OPTIONS[:1]:            # qrels last
            value = getattr(self, option.field)
            if value is not None:
                words += option.flag_words(value)
        return " ".join(words)

    def ntcir(self, *, prefer: bool = False, diversity: bool = False):
        """NTCIREVAL's settings for the measures' own parameters: -g as the Q family's gains
        (for the diversity measures: DIN-splitqrels' table, which need not increase with the
        level), --cutoffs as the cutoffs of `@k` names (none for the diversity layouts, whose
        cutoffs choose the measures instead)."""
        from .measures import NtcirSettings, parse_cutoffs, parse_gains
        gains = parse_gains(self.gains, monotone=not diversity) if self.gains else {}
        cutoffs = parse_cutoffs(self.cutoffs) if self.cutoffs and not diversity else (1000,)
        return NtcirSettings(gains=gains, cutoffs=cutoffs, prefer=prefer)


def settings_of(**values) -> EvalSettings:
    """EvalSettings from the values of the CLI parameters (choices given as their Enum)."""
    known = {o.field for o in OPTIONS}
    unknown = set(values) - known
    if unknown:
        from .argcheck import ArgumentError
        raise ArgumentError(f"not evaluation options: {sorted(unknown)} (the options are "
                            f"{', '.join(sorted(known))})")
    return EvalSettings(**{k: getattr(v, "value", v) for k, v in values.items()}).given("given")
