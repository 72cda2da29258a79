"""One evaluation request, answered the same way behind every front door.

A request is: a campaign, measures (any spelling), evaluation settings (a flag, an API argument),
the qrels, the runs, and whether to store. `scope` resolves the campaign's part once (the given
settings over the campaign's profile over the defaults, the qrels chosen); `evaluate` computes
the measures (irw eval -C, Warehouse.evaluate); `scores` answers "the per-topic scores of these
measures for this campaign under these options, stored or evaluated, stored or not" (irw
compare, irw meta, irw report, the Python API). Stored scores are found by their key: the
measure's canonical name and the options it was computed with (score's option columns)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.settings import PROFILE
from ..errors import MeasureError, WarehouseError
from ..options import EvalOptions, EvalSettings


@dataclass(frozen=True)
class Scope:
    """A request resolved on one campaign: the qrels and options it is evaluated with."""
    campaign: str
    qrels: str
    qrels_id: int
    settings: EvalSettings          # the given settings over the profile
    options: EvalOptions            # resolved (a layout's presets, then the defaults)
    from_profile: str = ""          # the flags of what the profile gave (options, qrels)

    def describe(self) -> str:
        """What was used, as a note prints it: `www4: qrels 'official', options --gains 1:2
        --order file -c -M 1000 (from the campaign's profile: --gains 1:2 --order file ...)`."""
        flags = self.options.flags()
        if self.settings.gains and not self.options.gains:     # NTCIREVAL's -g (measures' own)
            flags = f"--gains {self.settings.gains} {flags}".strip()
        flags = flags or "trec_eval's defaults"
        source = f" (from {PROFILE}: {self.from_profile})" if self.from_profile else ""
        return f"{self.campaign}: qrels {self.qrels!r}, options {flags}{source}"

    def _repr_html_(self) -> str:
        from ..notebook import table
        return table([{"campaign": self.campaign, "qrels": self.qrels,
                       "options": self.options.flags() or "trec_eval's defaults",
                       "from the profile": self.from_profile or None}])

    @property
    def worth_naming(self) -> bool:
        """Whether a command should say which options it used unasked: any but trec_eval's
        defaults, or anything the profile gave."""
        return bool(self.from_profile) or self.options != EvalOptions()

    def ntcir(self, *, prefer: bool = False, diversity: bool = False):
        return self.settings.ntcir(prefer=prefer, diversity=diversity)


def scope(con, campaign: str, given: EvalSettings | None = None, *,
          presets: dict | None = None, measures: list[str] | None = None) -> Scope:
    """The campaign's part of a request: `given` over the campaign's profile over `presets`
    (a layout's defaults) over the defaults; the qrels named, the profile's, or the only one.
    `measures`: the names asked for, checked first (an unknown name is the grammar's error,
    whatever the qrels); when none is a ranked-list measure (text scores read as stored), the
    qrels need not be chosen."""
    from ..engine.settings import load_profile
    from ..store.lookup import qrels_id
    if not con.execute("SELECT count(*) FROM campaign WHERE name = ?", [campaign]).fetchone()[0]:
        raise WarehouseError(f"no campaign {campaign!r} in the warehouse")
    ranked = True if measures is None else _any_ranked(con, campaign, measures)
    settings = (given or EvalSettings()).over(load_profile(con, campaign))
    try:
        qid = qrels_id(con, campaign, settings.qrels)
    except WarehouseError:
        if ranked:
            raise
        qid = None
    name = con.execute("SELECT name FROM qrels WHERE qrels_id = ?", [qid]).fetchone()[0] \
        if qid is not None else None
    profile = EvalSettings(**{f: getattr(settings, f) for f in settings.from_source(PROFILE)})
    return Scope(campaign, name, qid, settings, settings.eval_options(**(presets or {})),
                 profile.flags())


def _any_ranked(con, campaign: str, labels: list[str]) -> bool:
    """Whether any name is a ranked-list measure; a name that is none (and is no score stored
    under that name) is the grammar's error."""
    from ..measures import split_list
    from .domains import domain_measure
    ranked = not labels                     # no names: the default set, trec_eval's
    for label in (t for raw in labels for t in split_list(raw)):
        if _is_ranked(label) or label == "runid":
            ranked = True
        elif domain_measure(label) is None:
            score_name(con, campaign, label)       # stored under its name, or the error
    return ranked


def _is_ranked(label: str) -> bool:
    from ..measures import parse_measures
    try:
        parse_measures([label])
    except MeasureError:
        return False
    return True


def run_ids(con, campaign: str, names: list[str] | None = None) -> list[int]:
    """The ids of the campaign's runs (those named, in that order; else every run by name)."""
    rows = con.execute("""
        SELECT r.run_id, r.name FROM run r JOIN campaign c USING (campaign_id)
        WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
    if names:
        by_name = {n: i for i, n in rows}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise WarehouseError(f"no run {missing[0]!r} in campaign {campaign!r}")
        return [by_name[n] for n in names]
    if not rows:
        raise WarehouseError(f"no runs in campaign {campaign!r}")
    return [i for i, _ in rows]


def evaluate(con, where: Scope, measures: list[str], *, runs: list[str] | None = None,
             store: bool = False, progress=None, gcompute: bool = False, prefer: bool = False,
             diversity: bool = False, ntcir=None):
    """Evaluate the measures on the campaign's stored runs under the scope's qrels and
    options (store: into `score`, replacing what the same key held). `prefer`, `diversity`:
    NTCIREVAL's names and gains (the .nev and diversity layouts); `ntcir`: NTCIREVAL's
    settings given outright (measures.NtcirSettings) instead of the request's -g/--cutoffs."""
    from ..engine.evaluate import evaluate as run_evaluation
    from ..measures import parse_measures, wants_runid
    from ..store.results import store_scores
    from .domains import evaluate_domain
    ranked, others = split_measures(measures)
    if ranked or not others:
        requests = parse_measures(ranked, version=where.options.version,
                                  ntcir=ntcir or where.ntcir(prefer=prefer,
                                                             diversity=diversity))
        ids = run_ids(con, where.campaign, runs or _ranked_runs(con, where.campaign, None))
        result = run_evaluation(con, ids, where.qrels_id, requests, where.options,
                                progress=progress, gcompute=gcompute)
        if store:
            store_scores(con, result, where.qrels_id)
    else:
        result = empty_result(where.options)
    result.runid = wants_runid(ranked) if ranked or not others else False
    result.scope = where
    if others:
        rows, warnings = evaluate_domain(con, where.campaign, others, runs=runs,
                                         qrels=where.settings.qrels, store=store)
        add_rows(con, result, where.campaign, rows, [m.label for m in others])
        result.warnings += warnings
    return result


def split_measures(names: list[str]):
    """The ranked-list measure names (the grammar's) and the other measures of the catalog
    (request.domains: session, click, nugget and ROUGE measures); a name that is neither is
    the grammar's error."""
    from ..measures import split_list
    from .domains import domain_measure
    ranked, others = [], []
    for raw in names:
        for text in split_list(raw):
            if _is_ranked(text) or text in ("runid",):
                ranked.append(text)
                continue
            other = domain_measure(text)
            if other is None:
                from ..measures import parse_measures
                parse_measures([text])          # the grammar's error, with its did-you-mean
            others.append(other)
    return ranked, others


def empty_result(options: EvalOptions):
    from ..engine.evaluate import EvalResult, Rows
    return EvalResult(
        Rows(names=["run_id", "run", "topic", "measure", "value", "text", "in_run"],
             types=["INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "VARCHAR",
                    "BOOLEAN"]),
        Rows(names=["run_id", "run", "measure", "value"],
             types=["INTEGER", "VARCHAR", "VARCHAR", "DOUBLE"]), [], options)


def add_rows(con, result, campaign: str, rows, order: list[str]) -> None:
    """A domain measure's (measure, run, topic, value) rows into an evaluation's per-topic rows
    and run values (the mean over its topics: sessions, or topics), in the order asked."""
    ids = dict(con.execute("SELECT r.name, r.run_id FROM run r JOIN campaign c "
                           "USING (campaign_id) WHERE c.name = ?", [campaign]).fetchall())
    rank = {m: i for i, m in enumerate(order)}
    rows = sorted(rows, key=lambda r: (ids[r[1]], rank[r[0]], r[2]))
    result.per_topic.rows += [(ids[run], run, topic, m, value, None, True)
                              for m, run, topic, value in rows]
    means: dict[tuple, list] = {}
    for m, run, _, value in rows:
        if value is not None:
            means.setdefault((ids[run], run, m), []).append(value)
    result.summary.rows += [(rid, run, m, sum(v) / len(v))
                            for (rid, run, m), v in sorted(means.items(),
                                                           key=lambda kv: (kv[0][0],
                                                                           rank[kv[0][2]]))]
    result.extra_measures += order


@dataclass
class MeasureScores:
    """The per-topic scores of one requested measure on one campaign."""
    label: str                      # as the user wrote it
    name: str                       # as stored (the canonical name; a text score's own)
    summary: str                    # how a run's value is formed (measure_catalog.summary)
    rows: list[tuple[str, str, float]] = field(default_factory=list)   # run, topic, value
    source: str = "stored"          # stored | evaluated | evaluated and stored | stored (text)


def scores(con, where: Scope, labels: list[str], *, runs: list[str] | None = None,
           store: bool = False, use_stored: bool = True) -> list[MeasureScores]:
    """The per-topic scores of each measure (one measure per label) for the campaign's runs
    (every run with ranked rows, or those named) under the scope: the stored ones, and for the
    runs that have none, evaluated with the same options (and stored with `store`);
    `use_stored=False` evaluates every run afresh. Online and text measures, which their own
    commands store under their own settings, are read as stored."""
    from ..measures import parse_measures
    ntcir = where.ntcir()
    out: list[MeasureScores] = []
    ranked = []
    for label in labels:
        try:
            requests = parse_measures([label], version=where.options.version, ntcir=ntcir)
        except MeasureError:
            out.append(_stored_text_scores(con, where, label, runs, store))
            continue
        if len(requests) != 1:
            raise MeasureError(f"{label!r} names {len(requests)} measures; give one per -m")
        req = requests[0]
        name = req.stored_name(dict(where.options.gains))
        out.append(MeasureScores(label, name, req.mdef.summary))   # gm: asks gmean
        ranked.append((out[-1], req))
    wanted = _ranked_runs(con, where.campaign, runs) if ranked else []
    missing: dict[str, list] = {}
    for ms, req in ranked:
        ms.rows = stored_rows(con, where, req, wanted) if use_stored else []
        have = {run for run, _, _ in ms.rows}
        for run in wanted:
            if run not in have:
                missing.setdefault(run, []).append((ms, req))
    if missing:
        todo = {id(ms): (ms, req) for pairs in missing.values() for ms, req in pairs}
        result = evaluate(con, where, [req.name for _, req in todo.values()],
                          runs=sorted(missing), store=store)
        by_name = {}
        for row in result.per_topic.to_pylist():
            by_name.setdefault(row["measure"], []).append(
                (row["run"], row["topic"], row["value"]))
        for ms, req in todo.values():
            ms.rows = [r for r in ms.rows if r[0] not in missing] + by_name.get(req.name, [])
            ms.source = "evaluated and stored" if store else "evaluated"
    return out


def stored_rows(con, where: Scope, req, runs: list[str]) -> list[tuple[str, str, float]]:
    """The stored (run, topic, value) rows of one measure request under the scope's options
    (the measure's own: AP(rel=2) is map at -l 2) for these runs."""
    opts = req.eval_options(where.options)
    key = opts.sql_values()
    columns = " AND ".join(f"s.{name} IS NOT DISTINCT FROM ${name}" for name in key)
    gains = key.pop("gains")
    return con.execute(f"""
        SELECT r.name, s.topic, s.value FROM score s JOIN run r USING (run_id)
        WHERE s.qrels_id = $qrels AND s.measure = $measure AND list_contains($runs, r.name)
          AND {columns.replace('$gains', 'map($gk::INTEGER[], $gv::DOUBLE[])')}
        ORDER BY r.name, s.topic""",
                       {"qrels": where.qrels_id, "runs": runs,
                        "measure": req.stored_name(dict(where.options.gains)), **key,
                        "gk": list(gains), "gv": list(gains.values())}).fetchall()


def _ranked_runs(con, campaign: str, runs: list[str] | None) -> list[str]:
    """The runs a ranked measure scores: those named, or every run with ranked rows (runs of
    text outputs have none)."""
    if runs:
        run_ids(con, campaign, runs)                 # each named run exists
        return list(runs)
    found = ranked_runs(con, campaign)
    if not found:
        raise WarehouseError(f"no runs with ranked lists in campaign {campaign!r}")
    return found


def ranked_runs(con, campaign: str) -> list[str]:
    """The runs of the campaign with ranked rows: runs of text outputs (irw ingest texts) and
    session logs have none, and get no ranked scores."""
    # run_list holds the list lengths of every stored run with rows (one row per list); only
    # a run it lacks (rows written by hand, or none) is looked for in run_row, by its id:
    # probing every run_row for every run costs 0.035 s over 5M rows
    runs = con.execute("""
        SELECT r.run_id, r.name, r.run_id IN (SELECT run_id FROM run_list)
        FROM run r JOIN campaign c USING (campaign_id)
        WHERE c.name = ? ORDER BY r.name""", [campaign]).fetchall()
    unlisted = [i for i, _, listed in runs if not listed]
    with_rows = {i for (i,) in con.execute(
        "SELECT DISTINCT run_id FROM run_row WHERE list_contains($ids, run_id)",
        {"ids": unlisted}).fetchall()} if unlisted else set()
    return [name for i, name, listed in runs if listed or i in with_rows]


def _stored_text_scores(con, where: Scope, label: str, runs, store: bool = False
                        ) -> MeasureScores:
    """A name the ranked-list grammar does not read: scores stored under that name (session,
    click and text measures: CTR, ROUGE-1-R, nuggetF, ...), read as stored whatever their
    settings; none stored: evaluated as `irw eval -C` does (request.domains)."""
    from ..engine.matrix import summary_of
    from .domains import domain_measure, evaluate_domain
    name = score_name(con, where.campaign, label)[0]
    rows = con.execute("""
        SELECT run, topic, value, family FROM topic_score
        WHERE campaign = ? AND measure = ? AND (? IS NULL OR list_contains(?, run))
        ORDER BY run, topic""", [where.campaign, name, runs, runs]).fetchall()
    if rows:
        return MeasureScores(label, name, summary_of(con, rows[0][3]),
                             [(r, t, v) for r, t, v, _ in rows], "stored (text)")
    found = domain_measure(label)
    got, _ = evaluate_domain(con, where.campaign, [found], runs=runs,
                             qrels=where.settings.qrels, store=store)
    return MeasureScores(label, found.name, "mean", [(r, t, v) for _, r, t, v in got],
                         "evaluated and stored" if store else "evaluated")


def score_name(con, campaign: str, label: str, version: int = 9, *,
               as_stored: bool = True) -> tuple[str, bool]:
    """The name `label`'s scores are stored under, and whether it was read as stored: the
    measure's canonical name; an online measure's canonical name; else (`as_stored`) the label
    itself when the campaign has scores stored under exactly that name (ROUGE and nugget scores:
    ROUGE-1-R, nuggetF, ...). The one lookup of irw meta, irw report and irw online."""
    from ..measures import parse_measures
    try:
        requests = parse_measures([label], version=version)
    except MeasureError:
        from ..online.measures import is_online, parse
        if is_online(label):
            return parse(label).name, False
        if not (as_stored and con.execute(
                "SELECT count(*) > 0 FROM topic_score WHERE campaign = ? AND measure = ?",
                [campaign, label]).fetchone()[0]):
            raise
        return label, True
    if len(requests) != 1:
        raise MeasureError(f"{label!r} names {len(requests)} measures; give one per -m")
    return requests[0].stored_name(), False
