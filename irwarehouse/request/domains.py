"""The measures of the catalog that are not ranked-list measures, reached through the same
request as the others (`irw eval -C C -m NAME`, `irw measures NAME`): session, click and
user-oriented measures over session logs and runs (sql/online; irwarehouse.online.measures),
nugget and iUnit measures over stored nugget sets (sql/texts; irwarehouse.texts.nuggets), and
ROUGE over stored texts (irwarehouse.texts.rouge_store). Each is evaluated by the code its own
command uses (`irw online eval`, `irw nuggets`, `irw rouge --campaign`), so the values are the
same whichever door asks."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import MeasureError, WarehouseError

# ROUGE's printed measures: ROUGE-1-R, ROUGE-L-F, ROUGE-W-1.2-P, ROUGE-SU4-F, ROUGE-S*-R
_ROUGE = re.compile(r"^ROUGE-(?:(?P<n>[1-9])|(?P<l>L)|W-(?P<w>[0-9.]+)|(?P<s>SU?)(?P<gap>[0-9]+|\*))"
                    r"-(?P<part>[RPF])$")
# what a campaign lacks when a domain's measure has no data, and the command that provides it
INGEST_HINT = {
    "sessions": "session logs: irw ingest sessions FILE -C {campaign}",
    "clicks": "click logs: irw ingest sessions FILE -C {campaign}",
    "user": "ranked runs and qrels: irw ingest runs / irw ingest qrels ... -C {campaign}",
    "nuggets": "a nugget or iUnit set: irw ingest nuggets -C {campaign} --name SET ...",
    "refs": "text outputs and reference texts: irw ingest texts ... -C {campaign}",
    "pyramid": "a pyramid of SCUs: irw ingest pyramid -C {campaign} --name P ...",
    "rouge": "text outputs and reference texts: irw ingest texts ... -C {campaign}",
}


@dataclass(frozen=True)
class DomainMeasure:
    """A non-ranked measure as asked for: its domain and name."""
    domain: str          # online | nuggets | rouge
    label: str           # as written
    name: str            # as stored
    family: str          # sessions | clicks | user | nuggets | rouge


def domain_measure(label: str) -> DomainMeasure | None:
    """What a name means outside the ranked-list grammar; None when it is no such measure."""
    from ..online.measures import is_online, parse
    from ..texts.nuggets import MEASURES
    if is_online(label):
        req = parse(label)
        return DomainMeasure("online", label, req.name, req.mdef.family)
    if label in MEASURES:
        from ..texts.nuggets import SET_PARAMETER
        kind = SET_PARAMETER.get(MEASURES[label][0], "nuggets")    # nuggets, refs, pyramid
        return DomainMeasure("nuggets", label, label, kind)
    if _ROUGE.match(label):
        return DomainMeasure("rouge", label, label, "rouge")
    return None


def evaluate_domain(con, campaign: str, measures: list[DomainMeasure], *,
                    runs: list[str] | None = None, qrels: str | None = None,
                    store: bool = False) -> tuple[list[tuple[str, str, str, float]], list[str]]:
    """(measure, run, topic, value) rows of the measures, with warnings; stored as their own
    commands store them with `store`. A campaign lacking a measure's data: one line naming the
    ingest command that provides it."""
    rows, warnings = [], []
    for domain in ("online", "nuggets", "rouge"):
        mine = [m for m in measures if m.domain == domain]
        if not mine:
            continue
        got, warned = _EVALUATORS[domain](con, campaign, mine, qrels, store)
        if runs:
            got = [r for r in got if r[1] in runs]
        if not got:
            hint = INGEST_HINT[mine[0].family].format(campaign=campaign)
            raise WarehouseError(f"{', '.join(m.label for m in mine)}: campaign {campaign!r} "
                                 f"has no data for it; it needs {hint}")
        rows += got
        warnings += warned
    return rows, warnings


def _online(con, campaign, measures, qrels, store):
    from ..online import measures as om
    requests, got, warnings = om.evaluate(con, campaign, [m.label for m in measures],
                                          qrels=qrels)
    if store and got:
        om.store(con, campaign, requests, got, qrels=qrels, level="session")
    names = {r.name: m.label for r, m in zip(requests, measures)}
    return [(names[m], run, topic, value) for m, run, topic, value in got], warnings


def _one_set(con, campaign: str, qrels: str | None, kind: str, what: str) -> str | None:
    """The campaign's nugget set or reference-text set: the one named, or its only one."""
    sets = [n for (n,) in con.execute("""
        SELECT q.name FROM qrels q JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND q.format = ? ORDER BY q.name""", [campaign, kind]).fetchall()]
    if qrels is not None:
        if qrels not in sets:
            raise WarehouseError(f"no {what} {qrels!r} in campaign {campaign!r} "
                                 f"(it has: {', '.join(sets) or 'none'})")
        return qrels
    if len(sets) > 1:
        raise WarehouseError(f"campaign {campaign!r} has several {what}s ({', '.join(sets)}); "
                             "choose one with --qrels")
    return sets[0] if sets else None


# the qrels format of the set each kind of text measure reads, and what it is called
_SETS = {"nuggets": ("nuggets", "nugget set"), "refs": ("text_references", "reference set"),
         "pyramid": ("pyramid", "pyramid")}


def _nuggets(con, campaign, measures, qrels, store):
    """Nugget, iUnit, BLEU and pyramid measures (irw nuggets), each against the campaign's
    set of its kind (a nugget set, reference texts, a pyramid)."""
    from ..texts.nuggets import evaluate_nuggets, store_nugget_scores
    rows = []
    for kind in dict.fromkeys(m.family for m in measures):
        chosen = _one_set(con, campaign, qrels, *_SETS[kind])
        if chosen is None:
            continue
        got = evaluate_nuggets(con, campaign, chosen,
                               [m.label for m in measures if m.family == kind], {})
        if store and got:
            store_nugget_scores(con, campaign, chosen, got)
        rows += [(m, run, topic, value) for m, run, topic, value, _ in got]
    return rows, []


def _rouge(con, campaign, measures, qrels, store):
    """ROUGE with ROUGE-1.5.5's defaults (-f A -p 0.5, no stemming), each method once."""
    from ..texts import rouge_store
    from ..texts.rouge_eval import RougeOptions
    refs = _one_set(con, campaign, qrels, "text_references", "reference set")
    if refs is None:
        return [], []
    rows, warnings = [], []
    for m in measures:
        match = _ROUGE.match(m.label)
        if match["n"]:
            options = RougeOptions(max_n=int(match["n"]), lcs=False)
        elif match["l"]:
            options = RougeOptions()
        elif match["w"]:
            options = RougeOptions(lcs=False, wlcs_weight=match["w"])
        else:
            gap = "-1" if match["gap"] == "*" else match["gap"]
            options = RougeOptions(lcs=False, skip=gap, unigrams=match["s"] == "SU")
        results = rouge_store.warehouse_results(con, campaign, refs, options,
                                                warn=warnings.append)
        tag = m.label.rsplit("-", 1)[0]
        part = "RPF".index(match["part"])
        for result in results:
            if result.tag != tag:
                continue
            for key, values in result.scores.items():
                rows.append((m.label, result.peer, key[:-len(result.peer) - 1],
                             float(values[part])))
        if store:
            rouge_store.store_scores(con, campaign, refs,
                                     [r for r in results if r.tag == tag], options)
    return rows, warnings


_EVALUATORS = {"online": _online, "nuggets": _nuggets, "rouge": _rouge}


def catalog_rows() -> list[tuple]:
    """The catalog's rows of the online and text measures (store.macros.domain_catalog_rows)."""
    from ..store.macros import domain_catalog_rows
    return domain_catalog_rows()


def explain(label: str) -> str | None:
    """What a non-ranked name means, from its catalog row; None when it is none."""
    found = domain_measure(label)
    rows = {r[0]: r for r in catalog_rows()}
    if found is None:
        row = rows.get(label)
        if row is None:
            return None
    else:
        row = rows.get(_catalog_name(found)) or rows.get(found.name.split("(")[0].split("@")[0])
        if row is None:
            raise MeasureError(f"{label}: no catalog row for it")
    params = ", ".join(f"{p['name']}={p['default']}" for p in row[2]
                       if p["name"] not in ("campaign",))
    needs = INGEST_HINT[found.family if found else _family_of(row)].split(":")[0]
    head = (f"{label} -> {found.name if found else row[0]}: measure {row[0]} ({row[11]}; "
            f"sql/{row[8]}.sql, macro {row[1]})")
    return "\n".join([head, f"  parameters: {params}",
                      f"  evaluated by: irw eval -C CAMPAIGN -m {label} (needs {needs})",
                      f"  definition: {row[6]}", f"  source: {row[7]}"])


def _catalog_name(found: DomainMeasure) -> str:
    if found.domain == "rouge":
        return "ROUGE"
    if found.domain == "nuggets":
        from ..texts.nuggets import MEASURES
        macro = MEASURES[found.label][0]
        return next((r[0] for r in catalog_rows() if r[1] == macro), found.label)
    return found.name.split("(")[0].split("@")[0]


def _family_of(row) -> str:
    """The kind of data a catalog row's measure needs (INGEST_HINT's key)."""
    if row[0] == "ROUGE":
        return "rouge"
    if row[11] == "texts":
        from ..texts.nuggets import SET_PARAMETER
        return SET_PARAMETER.get(row[1], "nuggets")
    return row[8].split("/")[-1]
