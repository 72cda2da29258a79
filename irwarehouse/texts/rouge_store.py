"""ROUGE over the warehouse: ROUGE-N and -S/-SU from the SQL macro irw_rouge (group-bys over
text_token), ROUGE-L and -W from the Python port fed by irw_rouge_tokens, and the per-topic
R, P and F stored in `score` (measure `<ROUGE tag>-R|P|F`, e.g. ROUGE-SU4-F, family rouge)."""

from __future__ import annotations

import hashlib
import sys

from ..errors import WarehouseError
from ..sqlfiles import sql_dir
from .rouge import EvalScore, PairScore, combine, lcs_pair, wlcs_pair
from .rouge_eval import MethodResult, RougeOptions, methods


def options_text(options: RougeOptions) -> str:
    """The evaluation options a stored ROUGE score depends on, in ROUGE's spelling."""
    parts = [f"-f {options.formula}", f"-p {options.alpha:g}"]
    parts += ["-m"] if options.stem else []
    parts += ["-s"] if options.stopwords else []
    parts += [f"-l {options.word_limit}"] if options.word_limit else []
    parts += [f"-b {options.byte_limit}"] if options.byte_limit else []
    return " ".join(parts)


def _macro_args(campaign: str, refs: str, options: RougeOptions) -> dict:
    return {"campaign": campaign, "refs": refs, "stem_tokens": options.stem,
            "remove_stopwords": options.stopwords, "word_limit": options.word_limit}


def sql_rouge(con, campaign: str, refs: str, options: RougeOptions, kind: str, n: int = 1,
              unigrams: bool = False) -> dict[tuple[str, str], EvalScore]:
    """{(topic, run): EvalScore} of ROUGE-N (kind 'N') or -S/-SU (kind 'S') from irw_rouge,
    with ROUGE's 5-decimal rounding applied to the SQL counts."""
    args = _macro_args(campaign, refs, options) | {
        "kind": kind, "n": n, "max_gap": float(options.skip) if options.skip else -1.0,
        "unigrams": unigrams, "formula": options.formula, "alpha": options.alpha}
    names = ", ".join(f"{k} := ${k}" for k in args)
    rows = con.execute(f"SELECT topic, run, hit, model_count, peer_count FROM irw_rouge({names})",
                       args).fetchall()
    return {(t, r): combine([PairScore(h, m, p, 0.0)], "A", options.alpha)
            for t, r, h, m, p in rows}


def stored_sentences(con, campaign: str, refs: str, options: RougeOptions):
    """({(topic, run): sentences of counted tokens}, {topic: [each reference's sentences,
    in reference order]}) for one token setting."""
    args = _macro_args(campaign, refs, options)
    names = ", ".join(f"{k} := ${k}" for k in args)
    rows = con.execute(f"""
        SELECT t.source, t.owner_id, t.topic, t.ref_id, t.sentence, list(t.term ORDER BY t.pos)
        FROM irw_rouge_tokens({names}) t
        GROUP BY ALL""", args).fetchall()
    tokens = {(s, o, t, ref, k): terms for s, o, t, ref, k, terms in rows}
    outputs = con.execute("""
        SELECT DISTINCT o.run_id, r.name, o.topic, o.sentence
        FROM text_output o JOIN run r USING (run_id) JOIN campaign c USING (campaign_id)
        WHERE c.name = ? ORDER BY o.run_id, o.topic, o.sentence""", [campaign]).fetchall()
    references = con.execute("""
        SELECT DISTINCT q.qrels_id, t.topic, t.ref_id, t.ref_no, t.sentence
        FROM text_reference t JOIN qrels q USING (qrels_id) JOIN campaign c USING (campaign_id)
        WHERE c.name = ? AND q.name = ?
        ORDER BY t.topic, t.ref_no, t.sentence""", [campaign, refs]).fetchall()
    out: dict = {}
    for run_id, name, topic, k in outputs:
        out.setdefault((topic, name), []).append(tokens.get(("run", run_id, topic, "", k), []))
    by_ref: dict = {}
    for qid, topic, ref_id, ref_no, k in references:
        by_ref.setdefault(topic, {}).setdefault(ref_no, []).append(
            tokens.get(("ref", qid, topic, ref_id, k), []))
    models = {topic: [refs_[no] for no in sorted(refs_)] for topic, refs_ in by_ref.items()}
    return out, models


def warehouse_results(con, campaign: str, refs: str, options: RougeOptions,
                      warn=None) -> list[MethodResult]:
    """Every ROUGE method of `options` for every run with text outputs in the campaign,
    against the reference set `refs` (what `irw rouge -a` gives on the same texts)."""
    from .store import install_text_macros
    if options.byte_limit:
        raise WarehouseError("-b applies when texts are ingested: "
                             "irw ingest texts --byte-limit N")
    install_text_macros(con)
    warn = warn or (lambda msg: print(msg, file=sys.stderr))
    outputs, models = stored_sentences(con, campaign, refs, options)
    if not outputs:
        raise WarehouseError(f"campaign {campaign!r} has no text outputs")
    missing = sorted({t for t, _ in outputs if t not in models})
    if missing:
        warn(f"irw rouge: warning: no reference for topic(s) {', '.join(missing[:5])}"
             f"{' ...' if len(missing) > 5 else ''}; their outputs are not scored")
    runs = sorted({r for _, r in outputs})
    per_method: list[tuple[str, dict]] = []
    for tag, _ in methods(options):
        per_method.append((tag, _method_scores(con, campaign, refs, options, tag, outputs,
                                               models)))
    results = []
    for run in runs:
        for tag, scores in per_method:
            result = MethodResult(run, tag)
            for (topic, r), score in sorted(scores.items()):
                if r == run:
                    result.scores[f"{topic}.{run}"] = _record(score, options)
            results.append(result)
    return results


def _record(score: EvalScore, options: RougeOptions) -> tuple:
    if options.average == 0:
        return (score.recall, score.precision, score.f)
    return (score.model_count, score.peer_count, score.hit)


def _method_scores(con, campaign, refs, options, tag, outputs, models) -> dict:
    if tag == "ROUGE-L" or tag.startswith("ROUGE-W-"):
        weight = float(options.wlcs_weight) if tag.startswith("ROUGE-W-") else None
        scores = {}
        for (topic, run), peer in outputs.items():
            if topic not in models:
                continue
            if weight is None:
                pairs = [lcs_pair(m, peer) for m in models[topic]]
            else:
                pairs = [wlcs_pair(m, peer, weight) for m in models[topic]]
            scores[(topic, run)] = combine(pairs, options.formula, options.alpha, root=weight)
        return scores
    if tag.startswith("ROUGE-S"):
        return sql_rouge(con, campaign, refs, options, "S", unigrams=tag.startswith("ROUGE-SU"))
    return sql_rouge(con, campaign, refs, options, "N", n=int(tag.split("-")[1]))


def definition_hash(options: RougeOptions) -> str:
    text = (sql_dir() / "texts" / "rouge.sql").read_text(encoding="utf-8")
    return hashlib.sha256((text + options_text(options)).encode("utf-8")).hexdigest()[:16]


def store_scores(con, campaign: str, refs: str, results: list[MethodResult],
                 options: RougeOptions) -> int:
    """Write R, P and F of every evaluation into `score` (one transaction; earlier scores of
    the same measures, runs, references and options are replaced)."""
    from ..store import digests
    from ..store.ingest import transaction
    if options.average != 0:
        raise WarehouseError("--store keeps per-evaluation R, P and F: use -t 0")
    ids = dict(con.execute("SELECT r.name, r.run_id FROM run r JOIN campaign c "
                           "USING (campaign_id) WHERE c.name = ?", [campaign]).fetchall())
    qrow = con.execute("SELECT q.qrels_id FROM qrels q JOIN campaign c USING (campaign_id) "
                       "WHERE c.name = ? AND q.name = ?", [campaign, refs]).fetchone()
    if not qrow:
        raise WarehouseError(f"no reference texts {refs!r} in campaign {campaign!r}")
    opts, digest = options_text(options), definition_hash(options)
    rows = []
    for result in results:
        run_id = ids[result.peer]
        for key, values in result.scores.items():
            topic = key[:-len(result.peer) - 1]
            for suffix, value in zip(("R", "P", "F"), values):
                rows.append((run_id, qrow[0], topic, f"{result.tag}-{suffix}", "rouge",
                             result.tag, opts, float(value), digest))
    with transaction(con):
        for result in results:
            for suffix in ("R", "P", "F"):
                digests.delete(con, "score", "run_id = ? AND qrels_id = ? AND measure = ? AND "
                               "options = ?",
                               [ids[result.peer], qrow[0], f"{result.tag}-{suffix}", opts])
        con.executemany("INSERT INTO score (run_id, qrels_id, topic, measure, family, params, "
                        "options, value, definition_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        rows)
        digests.touch(con, "score", "qrels_id = ?", [qrow[0]])
    return len(rows)


def rouge_from_warehouse(opts: dict[str, str], options: RougeOptions) -> str:
    """`irw rouge --campaign C --references NAME [options]`: score stored texts, store the
    per-topic R, P, F, and print ROUGE's layout (every run, as with -a)."""
    from ..store.connection import default_path, opened
    from .rouge_eval import format_result
    campaign, refs = _campaign(opts), opts["--references"]
    with opened(opts.get("--warehouse") or default_path(), create=False, macros=False) as con:
        results = warehouse_results(con, campaign, refs, options)
        if options.average == 0:
            store_scores(con, campaign, refs, results, options)
    return "".join(format_result(r, options) for r in results)


def store_rouge_config(opts: dict[str, str], config_path, config, options: RougeOptions,
                       results: list[MethodResult]) -> None:
    """`irw rouge --store --campaign C CONFIG.xml`: ingest the configuration's texts (runs =
    peer IDs, the reference set named by --references or after the file) and store the
    per-evaluation R, P and F that were printed."""
    from ..store.connection import default_path, opened
    from ..store.ingest import transaction
    from .store import _sha256, config_texts, store_outputs, store_references
    campaign = _campaign(opts)
    refs = opts.get("--references", config_path.name)
    outputs, references = config_texts(config)
    with opened(opts.get("--warehouse") or default_path(), macros=False) as con:
        source, digest = str(config_path.resolve()), _sha256(config_path)
        with transaction(con, f"the texts of {config_path.name} in campaign {campaign}"):
            store_outputs(con, campaign, outputs, source, digest, replace=True,
                          byte_limit=options.byte_limit)
            store_references(con, campaign, refs, references, source, digest, replace=True,
                             byte_limit=options.byte_limit)
        store_scores(con, campaign, refs, results, options)


def _campaign(opts: dict[str, str]) -> str:
    if not opts.get("--campaign"):
        raise WarehouseError("give the campaign with --campaign")
    return opts["--campaign"]
