"""`irw measures`: every measure of the catalog listed, and what a name means."""

from __future__ import annotations


def listing() -> str:
    """One line per measure of the catalog: name, SQL file, parameters; the ranked-list
    measures, then the online and text measures."""
    from ..measures import registry
    from .domains import catalog_rows
    lines = []
    for mdef in registry().values():
        params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
        lines.append(f"{mdef.name:<24} {mdef.family + '.sql':<24} {params}")
    for row in catalog_rows():
        params = ", ".join(f"{p['name']} {p['type'] or ''} = {p['default']}".replace("  ", " ")
                           for p in row[2] if p["name"] not in ("campaign", "run", "qrels"))
        lines.append(f"{row[0]:<24} {row[8] + '.sql':<24} {params}")
    return "\n".join(lines)


def explain(text: str) -> str:
    """What `text` means: every request it stands for, with definition and source (a session,
    click or text measure of the catalog likewise)."""
    from ..errors import MeasureError
    from ..measures import parse_measures
    from .domains import explain as explain_domain
    from ..measures import registry
    try:
        requests = parse_measures([text])
    except MeasureError:
        other = explain_domain(text)
        if other is not None:
            return other
        if text in registry():          # a measure that needs its parameter (@k) to be named
            return _unbound(registry()[text])
        raise
    lines = []
    for req in requests:
        mdef = req.mdef
        bound = ", ".join(f"{p.name}={a}" for p, a in zip(mdef.params, req.args))
        own = ", ".join(f"{k}={v}" for k, v in req.overrides)
        lines += [(f"{text} -> {req.name}: measure {mdef.name} ({mdef.dialect}; "
                  f"sql/metrics/{mdef.family}.sql, macro {mdef.macro})"),
                  f"  stored as: {req.stored_name()}",
                  *([f"  parameters: {bound}"] if bound else []),
                  *([f"  evaluated with: {own}"] if own else []),
                  *(["  on the condensed list (unjudged documents dropped first)"]
                    if req.condensed else []),
                  f"  definition: {mdef.doc}",
                  f"  source: {mdef.source}"]
    return "\n".join(lines)


def _unbound(mdef) -> str:
    """A measure named without the parameter it needs (`textbook_iprec_at_recall`: give @x)."""
    params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
    return "\n".join([f"{mdef.name}: measure {mdef.name} ({mdef.dialect}; "
                      f"sql/metrics/{mdef.family}.sql, macro {mdef.macro}); name it with its "
                      "parameter, e.g. @k",
                      f"  parameters: {params}", f"  definition: {mdef.doc}",
                      f"  source: {mdef.source}"])
