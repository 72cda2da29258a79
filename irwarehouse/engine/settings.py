"""Evaluation settings: the qrels and options a command evaluates or reads stored scores with.

Three sources, in this order: what the command line gives, the campaign's profile
(`irw campaign set`, table campaign_profile), the defaults. Stored scores are filed under their
option set (score.options = EvalOptions.describe()); `option_set` picks the set a command
reads, and says which one it used and why, so that `irw report` or `irw compare` never mixes
sets or re-evaluates with other options than `irw eval` stored."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..errors import IrwError, WarehouseError
from .evaluate import EvalOptions
from ..store import digests
from ..store.ingest import campaign_id, transaction

# the option fields of a profile (qrels apart), in the order their flags are printed
OPTION_FIELDS = ("gains", "order", "complete", "depth", "judged_only", "level", "version",
                 "cutoffs")


@dataclass(frozen=True)
class EvalSettings:
    """What a command line or a profile sets; None = not set (the next source decides)."""
    qrels: str | None = None
    gains: str | None = None          # -g as written: 1:2, 1:1,2:3, exp:3
    order: str | None = None          # score | rank | file
    complete: bool | None = None      # -c
    depth: int | None = None          # -M
    judged_only: bool | None = None   # -J
    level: int | None = None          # -l
    version: int | None = None        # --trec-eval-version
    cutoffs: str | None = None        # NTCIREVAL's --cutoffs (default measure sets)

    def over(self, base: EvalSettings) -> EvalSettings:
        """These settings, with `base`'s where these are not set."""
        return EvalSettings(**{f.name: getattr(self, f.name) if getattr(self, f.name)
                               is not None else getattr(base, f.name) for f in fields(self)})

    @property
    def sets_options(self) -> bool:
        """Whether any evaluation option (not only the qrels) is set."""
        return any(getattr(self, name) is not None for name in OPTION_FIELDS)

    @property
    def empty(self) -> bool:
        return self.qrels is None and not self.sets_options

    def eval_options(self, **defaults) -> EvalOptions:
        """The evaluation options (EvalOptions) these settings give, `defaults` for the rest
        (e.g. ntcireval's depth=1000, complete=True)."""
        from ..measures import parse_gains
        base = EvalOptions(**defaults)
        gains = tuple(sorted(parse_gains(self.gains, monotone=False).items())) \
            if self.gains else base.gains
        return replace(base, **{k: v for k, v in (
            ("threshold", self.level), ("judged_only", self.judged_only),
            ("depth", self.depth), ("complete", self.complete), ("order", self.order),
            ("version", self.version)) if v is not None}, gains=gains)

    def flags(self) -> str:
        """The command-line flags that give these settings (`irw campaign set C ...`)."""
        words = []
        for name, flag in (("gains", "--gains"), ("order", "--order"), ("complete", None),
                           ("depth", "-M"), ("judged_only", None), ("level", "-l"),
                           ("version", "--trec-eval-version"), ("cutoffs", "--cutoffs"),
                           ("qrels", "--qrels")):
            value = getattr(self, name)
            if value is None:
                continue
            if name == "complete":
                words.append("-c" if value else "--no-complete")
            elif name == "judged_only":
                words.append("-J" if value else "--no-judged-only")
            else:
                words += [flag, str(value)]
        return " ".join(words)


def option_flags(opts: EvalOptions) -> str:
    """The flags of `irw eval` that give the option set `opts` (its non-default options);
    '--order score (the defaults)' when there are none."""
    default = EvalOptions()
    words = []
    if opts.gains:
        words += ["-g", ",".join(f"{lv}:{g:g}" for lv, g in opts.gains)]
    if opts.order != default.order:
        words += ["--order", opts.order]
    if opts.complete:
        words.append("-c")
    if opts.depth is not None:
        words += ["-M", str(opts.depth)]
    if opts.judged_only:
        words.append("-J")
    if opts.threshold != default.threshold:
        words += ["-l", str(opts.threshold)]
    if opts.version != default.version:
        words += ["--trec-eval-version", str(opts.version)]
    return " ".join(words) or "--order score (the defaults)"


def parse_option_set(text: str) -> EvalOptions:
    """EvalOptions.describe() read back: `l=1;J=0;M=1000;c=1;order=file;v=9;g=1:1,2:2`."""
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
        raise WarehouseError(f"stored option set {text!r} cannot be read ({exc})") from None


# -- the campaign profile (table campaign_profile) ----------------------------------------------
_COLUMNS = ("gains", "rank_order", "complete", "depth", "judged_only", "level",
            "trec_eval_version", "cutoffs")


def load_profile(con, campaign: str) -> EvalSettings:
    """The campaign's profile (empty settings when none is set or the campaign is unknown)."""
    row = con.execute(f"""
        SELECT q.name, {', '.join('p.' + c for c in _COLUMNS)}
        FROM campaign_profile p JOIN campaign c USING (campaign_id)
        LEFT JOIN qrels q ON q.qrels_id = p.qrels_id
        WHERE c.name = ?""", [campaign]).fetchall()
    row = row[0] if row else None
    if row is None:
        return EvalSettings()
    return EvalSettings(row[0], *row[1:])


def save_profile(con, campaign: str, settings: EvalSettings) -> EvalSettings:
    """Set the given fields of the campaign's profile (the others are kept); validated first
    (the qrels exist, the gains parse, the options make an EvalOptions). Returns the profile."""
    from ..measures import parse_cutoffs
    cid = campaign_id(con, campaign)
    merged = settings.over(load_profile(con, campaign))
    qrels_id = None
    if merged.qrels is not None:
        row = con.execute("SELECT qrels_id FROM qrels WHERE campaign_id = ? AND name = ?",
                          [cid, merged.qrels]).fetchall()
        row = row[0] if row else None
        if row is None:
            names = [n for (n,) in con.execute(
                "SELECT name FROM qrels WHERE campaign_id = ? ORDER BY name", [cid]).fetchall()]
            raise WarehouseError(f"no qrels {merged.qrels!r} in campaign {campaign!r} "
                                 f"(it has: {', '.join(names) or 'none'})")
        qrels_id = row[0]
    merged.eval_options()                   # refuses bad gains, order, depth, version
    if merged.cutoffs is not None:
        parse_cutoffs(merged.cutoffs)
    values = [merged.gains, merged.order, merged.complete, merged.depth, merged.judged_only,
              merged.level, merged.version, merged.cutoffs]
    with transaction(con, f"the profile of campaign {campaign}"):
        digests.delete(con, "campaign_profile", "campaign_id = ?", [cid])
        con.execute(f"INSERT INTO campaign_profile (campaign_id, qrels_id, {', '.join(_COLUMNS)})"
                    f" VALUES (?, ?, {', '.join('?' * len(_COLUMNS))})", [cid, qrels_id, *values])
        digests.touch(con, "campaign_profile", "campaign_id = ?", [cid])
    return merged


def clear_profile(con, campaign: str) -> bool:
    """Remove the campaign's profile; whether there was one."""
    cid = campaign_id(con, campaign)
    had = con.execute("SELECT count(*) FROM campaign_profile WHERE campaign_id = ?",
                      [cid]).fetchall()[0][0]
    with transaction(con, f"the clearing of the profile of campaign {campaign}"):
        digests.delete(con, "campaign_profile", "campaign_id = ?", [cid])
    return bool(had)


def effective(con, campaign: str, given: EvalSettings | None) -> tuple[EvalSettings, bool]:
    """The settings a command uses on `campaign`: the given ones over the profile; and whether
    the profile contributed."""
    given = given or EvalSettings()
    profile = load_profile(con, campaign)
    return given.over(profile), not profile.empty and (
        (profile.qrels is not None and given.qrels is None)
        or any(getattr(profile, n) is not None and getattr(given, n) is None
               for n in OPTION_FIELDS))


# -- which stored option set a command reads ----------------------------------------------------
@dataclass(frozen=True)
class OptionSet:
    """The qrels and options a command reads (and, where missing, evaluates and stores) the
    scores of a campaign with, and where they came from."""
    campaign: str
    qrels: str | None
    options: EvalOptions
    source: str                # "given", "the campaign's profile", "stored", "defaults"

    def describe(self) -> str:
        qrels = f"qrels {self.qrels!r}, " if self.qrels else ""
        return (f"{self.campaign}: {qrels}options {option_flags(self.options)} "
                f"[{self.options.describe()}] ({self.source})")

    @property
    def worth_naming(self) -> bool:
        """Whether a command should say which set it used: any but trec_eval's defaults read
        without a profile (the commands name the set then on stderr)."""
        return self.options != EvalOptions() or "profile" in self.source

    def ntcir(self):
        """NTCIREVAL's gains for the Q-measure family from the set's -g."""
        from ..measures import NtcirSettings
        return NtcirSettings(gains=dict(self.options.gains))


def option_set(con, campaign: str, measures: list[str], given: EvalSettings | None = None
               ) -> OptionSet:
    """The option set a command reads `measures`' stored scores of `campaign` with: the given
    settings over the campaign's profile when they set any option; else the one set the
    scores are stored with; else the defaults. Several stored sets and nothing to choose:
    an error listing them with the flags that pick each."""
    settings, from_profile = effective(con, campaign, given)
    qrels = settings.qrels
    if settings.sets_options:
        return OptionSet(campaign, qrels, settings.eval_options(),
                         "the campaign's profile" if from_profile else "given")
    from .matrix import stored_spellings
    names = [n for m in measures for n in stored_spellings(con, [campaign], m)]
    sets = [o for (o,) in con.execute("""
        SELECT DISTINCT options FROM topic_score
        WHERE campaign = ? AND list_contains(?, measure) AND (? IS NULL OR qrels = ?)
          AND options LIKE 'l=%'
        ORDER BY options""", [campaign, names, qrels, qrels]).fetchall()]
    if len(sets) > 1:
        listed = "; ".join(f"{option_flags(parse_option_set(s))} [{s}]" for s in sets)
        raise IrwError(f"scores of {', '.join(measures)} in {campaign} are stored with "
                       f"{len(sets)} option sets: {listed}; choose one with the evaluation "
                       f"options (-g/--gains, --order, -c, -M, -J, -l), or give the campaign "
                       f"a profile: irw campaign set {campaign} ...")
    if sets:
        return OptionSet(campaign, qrels, parse_option_set(sets[0]), "stored")
    return OptionSet(campaign, qrels, EvalOptions(), "defaults")
