"""What `irw measures NAME` says of an online or text measure (sql/online, sql/texts): its
measure_catalog row (irwarehouse/store/macros.py's domain_catalog_rows), read from the
`-- measure:` headers, since the ranked-measure grammar does not know these names."""

from __future__ import annotations


def domain_rows() -> list[tuple]:
    from ..store.macros import domain_catalog_rows
    return domain_catalog_rows()


def explain_domain(text: str) -> str | None:
    """The lines describing the online or text measure `text` (its name or name@k / name(..)
    spelling), or None when no such measure exists."""
    stem = text.split("(")[0].split("@")[0].strip().lower()
    for measure, macro, params, _, _, _, doc, source, sql_file, *_ in domain_rows():
        if measure.lower() != stem:
            continue
        bound = ", ".join(f"{p['name']} {p['type'] or ''} = {p['default']}".replace("  ", " ")
                          for p in params)
        return "\n".join([f"{text} -> {measure}: {sql_file.split('/')[0]} measure "
                          f"(sql/{sql_file}.sql, macro {macro})",
                          f"  parameters: {bound}", f"  definition: {doc}",
                          f"  source: {source}"])
    return None


def domain_listing() -> list[str]:
    """One line per online or text measure, as `irw measures` lists the ranked ones."""
    return [f"{measure:<24} {sql_file + '.sql':<24} "
            + ", ".join(f"{p['name']} = {p['default']}" for p in params)
            for measure, _, params, _, _, _, _, _, sql_file, *_ in domain_rows()]
