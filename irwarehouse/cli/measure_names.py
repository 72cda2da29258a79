"""Which measures `irw eval` asks for when its options say (irwarehouse.cli.eval): ndeval's
columns for --format ndeval, NTCIREVAL's layout sets for --diversity, and --alpha/--beta/--gamma
applied to the diversity measures that take them."""

from __future__ import annotations

from ..errors import MeasureError
from ..measures import resolve
from ..measures.grammar import parse
from ..writers.ndeval import NDEVAL_COLUMNS
from ..writers.ntcireval import _SHARP, NTCIR_KINDS


def with_params(names: list[str], **params) -> list[str]:
    """Add `name=value` parameters (those not None) to the diversity measures among `names`
    that take them and have no explicit parameters (the CLI's --alpha/--beta)."""
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


def ntcir_measures(kind: str, cutoffs: list[int], **params) -> list[str]:
    """The measures of NTCIREVAL's .Dnev / .DINnev / .nevIA files at the given cutoffs."""
    names = [f"{m}@{c}" for c in cutoffs for m, _ in NTCIR_KINDS[kind]]
    if kind in ("D", "DIN"):
        names.append("I-rec@n")
    if kind == "IA":
        names.append("SUMp")
    return with_params(names, **params)
