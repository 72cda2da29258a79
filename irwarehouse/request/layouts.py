"""Output layouts, declared in one place with their presets: what each layout of `irw eval -f`
prints and what it implies about the request (NTCIREVAL's .nev: its depth, -c, its default set
and names; ndeval's CSV: its columns, diversity qrels, rows even for runs the qrels lack).
Nothing else special-cases a layout: the command asks its Layout.

The paper layouts (latex, markdown: writers.paper) are also `irw compare`'s. The plain layouts
(tsv, csv, json) are those every evaluating command prints
(irwarehouse.meta.render for tables of records)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import MeasureError

DIVERSITY_KINDS = ("D", "DIN", "IA")


@dataclass(frozen=True)
class Layout:
    name: str
    # option defaults of the layout (under the request and the profile): NTCIREVAL's -M 1000 -c
    presets: dict = field(default_factory=dict)
    ntcir_names: bool = False       # NTCIREVAL's names first, its facts lines, its default set
    gcompute: bool = False          # NTCIREVAL's gcompute blocks behind D/DIN/IA measures
    diversity_qrels: bool = False   # a 4-field qrels file is read as diversity qrels
    rows_when_empty: bool = False   # the reference prints rows when no topic is in common
    exact: bool = False             # byte for byte as a reference tool prints it

    def default_measures(self) -> list[str]:
        if self.name == "ndeval":
            from ..writers.ndeval import NDEVAL_COLUMNS
            return list(NDEVAL_COLUMNS)
        return []                    # parse_measures' default: official, NTCIREVAL's set

    def render(self, result, *, per_topic: bool, style=None, ci: str | None = None) -> str:
        """`style` (writers.paper.Style: --digits, --percent) is for the paper layouts. `ci`
        (t or bootstrap): intervals beside the run means; an exact layout prints the
        reference's bytes, so none (`irw eval --ci` says so: ci_note)."""
        from ..writers import render
        return render(result, self.name, per_topic=per_topic, style=style,
                      ci=None if self.exact else ci)

    def ci_note(self, ci: str | None) -> str | None:
        """What `irw eval --ci` says on stderr: where the intervals are, or why there are none."""
        if ci is None:
            return None
        if self.exact:
            return (f"--ci: no intervals in --format {self.name}, which prints "
                    f"{_REFERENCE[self.name]}'s bytes exactly; use -f tsv, csv, json, latex or "
                    "markdown")
        from ..stats.intervals import describe
        return describe(ci)


LAYOUTS = {layout.name: layout for layout in (
    Layout("trec_eval", exact=True),
    Layout("tsv"),
    Layout("csv"),
    Layout("json"),
    Layout("ndeval", diversity_qrels=True, rows_when_empty=True, exact=True),
    Layout("ntcireval", presets={"depth": 1000, "complete": True}, ntcir_names=True,
           gcompute=True, exact=True),
    # paper-ready runs x measures tables (writers.paper; `irw compare` prints the same ones)
    Layout("latex"),
    Layout("markdown"),
)}
# the layouts of a paper's table, whose numbers --digits and --percent shape
PAPER = ("latex", "markdown")
_REFERENCE = {"trec_eval": "trec_eval", "ndeval": "ndeval", "ntcireval": "NTCIREVAL"}
# the layouts every evaluating command prints (irw eval, compare, online eval, meta, ...)
PLAIN = ("tsv", "csv", "json")


def layout_for(name: str, diversity: str | None = None) -> Layout:
    """The layout `-f name` asks for; NTCIREVAL's diversity files (--diversity D|DIN|IA) keep
    the whole lists and their own names (only the gcompute blocks of the .nev layout)."""
    layout = LAYOUTS[name]
    if name == "ntcireval" and diversity is not None:
        return Layout("ntcireval", gcompute=True, exact=True)
    return layout


def measure_names(layout: Layout, names: list[str], *, kind: str | None = None,
                  cutoffs: str | None = None, **params) -> list[str]:
    """The measures a request asks for in a layout: with no -m, the layout's default (ndeval's
    columns; NTCIREVAL's layout set for --diversity D|DIN|IA at --cutoffs, default 10);
    NTCIREVAL's printed # lines in its layout; --alpha, --beta and --gamma applied to the
    diversity measures that take them."""
    if not names and kind:
        try:
            cuts = [int(c) for c in (cutoffs or "10").split(",")]
        except ValueError:
            raise MeasureError(f"bad --cutoffs {cutoffs!r}: expected e.g. 10 or 10,20") from None
        if any(c <= 0 for c in cuts):
            raise MeasureError("cutoffs must be positive")
        names = ntcir_measures(kind, cuts)
        if layout.name == "ntcireval":  # the # lines and IA sums of printed values
            names = with_params(names, printed=1)
    elif not names:
        names = layout.default_measures()
    elif layout.name == "ntcireval":     # NTCIREVAL's # lines, whatever -m asks for
        from ..writers.ntcireval import _SHARP
        names = [n for raw in names for text in raw.split() for n in
                 (with_params([text], printed=1) if text.split("(")[0].split("@")[0] in _SHARP
                  else [text])]
    return with_params(names, **params)


def with_params(names: list[str], **params) -> list[str]:
    """Add `name=value` parameters (those not None) to the diversity measures among `names`
    that take them and have no explicit parameters (the CLI's --alpha/--beta)."""
    from ..measures import resolve
    from ..measures.grammar import parse
    given = {k: v for k, v in params.items() if v is not None}
    out = []
    for raw in names:
        for text in raw.split():
            try:
                name = parse(text)
                mdef = resolve(text)[0].mdef if given and name.kwargs is None else None
            except (MeasureError, IndexError):      # left for parse_measures to report
                mdef = None
            if mdef is None or not mdef.is_diversity:
                out.append(text)
                continue
            own = [f"{k}={v}" for k, v in given.items() if k in mdef.param_names]
            cut = f"@{name.cutoff}" if name.has_cutoff else ""
            out.append(f"{name.stem}({','.join(own)}){cut}" if own else text)
    return out


def ntcir_measures(kind: str, cutoffs: list[int], **params) -> list[str]:
    """The measures of NTCIREVAL's .Dnev / .DINnev / .nevIA files at the given cutoffs."""
    from ..writers.ntcireval import NTCIR_KINDS
    names = [f"{m}@{c}" for c in cutoffs for m, _ in NTCIR_KINDS[kind]]
    if kind in ("D", "DIN"):
        names.append("I-rec@n")
    if kind == "IA":
        names.append("SUMp")
    return with_params(names, **params)


def wants_diversity(layout: Layout, names: list[str], kind: str | None) -> bool:
    """Whether the evaluation asks for diversity qrels: ndeval's layout, --diversity, or a
    diversity measure among the names (a name that does not parse is left for the evaluation
    to report)."""
    if layout.diversity_qrels or kind is not None:
        return True
    from ..errors import IrwError
    from ..measures import parse_measures
    try:
        return any(req.mdef.is_diversity for req in parse_measures(names))
    except IrwError:
        return False
