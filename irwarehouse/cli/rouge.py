"""`irw rouge [options] CONFIG.xml [systemID]`: a drop-in for ROUGE-1.5.5.pl.

Options are read as ROUGE reads them (Perl's Getopt::Std: bundled flags `-ad`, values attached
or separate, `-2 -1` is the value -1), plus long options for the warehouse:
`--store --campaign C [--warehouse W] [--references NAME]` ingests the configuration's texts
and stores the per-evaluation R, P and F in the `score` table; `--campaign C --references NAME`
without a CONFIG scores texts already in the warehouse.
"""

from __future__ import annotations

import getopt
import sys
from pathlib import Path

from ..errors import IrwError
from ..texts.rouge_eval import RougeOptions

SHORT = "ahHb:c:de:f:l:mMn:p:st:r:2:3:w:uUvxz:"
LONG = ["store", "campaign=", "warehouse=", "references=", "wait=", "help"]

USAGE = """\
usage: irw rouge [options] CONFIG.xml [systemID]     (a drop-in for ROUGE-1.5.5.pl)
  -a            evaluate all systems (else give a systemID)
  -c CF         CF% confidence interval (default 95)
  -d            print per-evaluation scores
  -e DIR        accepted and ignored (ROUGE's data ships with irwarehouse)
  -b N | -l N   use only the first N bytes | words of each summary (peers and models)
  -m            stem with ROUGE's Porter stemmer (WordNet 2.0 exceptions first)
  -n N          compute ROUGE-1 .. ROUGE-N
  -s            remove ROUGE's stopwords (smart_common_words)
  -r N          bootstrap resamples (default 1000; seeded as ROUGE-1.5.5 seeds them)
  -2 G          skip bigrams with at most G words between them (G < 0: no limit)
  -u / -U       -2 with unigrams (ROUGE-SU) / both ROUGE-S and ROUGE-SU
  -w W          ROUGE-W with weight W
  -x            do not compute ROUGE-L
  -f A|B        formula A (sum over models, default) or B (best model)
  -p ALPHA      F = PR / ((1 - ALPHA) P + ALPHA R) (default 0.5)
  -t 0|1|2      average per evaluation (0), over tokens (1), raw counts (2)
  -z FORMAT     CONFIG is a file list: peer model1 ... modelN per line (SPL, SEE, ISI)
  -v            accepted and ignored
warehouse (long options):
  --store --campaign C [--warehouse FILE] [--references NAME]
                ingest CONFIG's texts into campaign C and store R, P, F per evaluation
  --campaign C --references NAME [--warehouse FILE]
                score texts already ingested with `irw ingest texts` (no CONFIG)
  --wait SECONDS
                wait this long for a warehouse another process holds (default 30)
"""


class UsageError(IrwError):
    """A bad command line (printed as one line, exit code 1)."""


def _number(flag: str, value: str, kind=float):
    try:
        return kind(value)
    except ValueError:
        raise UsageError(f"option {flag} needs a number, got {value!r}") from None


def parse_options(opts: dict[str, str]) -> RougeOptions:
    """ROUGE-1.5.5's checks and defaults, from getopt's flags and values."""
    if "-l" in opts and "-b" in opts:
        raise UsageError("specify a length limit in words (-l) or bytes (-b), not both")
    for flag, why in (("-3", "Basic Element scoring (-3) is not supported"),
                      ("-M", "stemming only the models (-M) is not supported")):
        if flag in opts:
            raise UsageError(why)
    confidence = opts.get("-c", "95")
    if not 0 <= _number("-c", confidence) <= 100:
        raise UsageError("the confidence level -c must be within 0 and 100")
    if "-w" in opts and _number("-w", opts["-w"]) <= 0:
        raise UsageError("the ROUGE-W weight -w must be greater than 0")
    alpha = _number("-p", opts.get("-p", "0.5"))
    if not 0 <= alpha <= 1:
        raise UsageError("alpha (-p) must be between 0 and 1")
    resamples = _number("-r", opts.get("-r", "1000"), int)
    if resamples < 1:
        raise UsageError("the number of resamples -r must be at least 1")
    if "-2" in opts:
        _number("-2", opts["-2"])
    average = _number("-t", opts.get("-t", "0"), int)
    max_n = _number("-n", opts["-n"], int) if "-n" in opts else None
    return RougeOptions(
        max_n=max_n, lcs="-x" not in opts, wlcs_weight=opts.get("-w"), skip=opts.get("-2"),
        unigrams="-u" in opts, both_skip="-U" in opts,
        formula="B" if opts.get("-f") == "B" else "A", alpha=alpha,
        word_limit=_number("-l", opts.get("-l", "0"), int),
        byte_limit=_number("-b", opts.get("-b", "0"), int),
        stem="-m" in opts, stopwords="-s" in opts,
        average=average if average in (1, 2) else 0,   # ROUGE: any other -t means 0
        confidence=confidence, resamples=resamples, per_eval="-d" in opts)


def run(argv: list[str], out=None) -> int:
    """The command; returns the exit code. Errors a user causes become one line on stderr
    here; every other failure reaches the guard of `irw` (cli/common.py), which does the
    same."""
    out = out or sys.stdout
    try:
        pairs, args = getopt.gnu_getopt(argv, SHORT, LONG)
    except getopt.GetoptError as exc:
        print(f"irw rouge: error: {exc}", file=sys.stderr)
        return 1
    opts = dict(pairs)
    if "-h" in opts or "-H" in opts or "--help" in opts:
        out.write(USAGE)
        return 0
    try:
        if "--wait" in opts:
            from ..store.locking import set_default_wait
            set_default_wait(_number("--wait", opts["--wait"]))
        options = parse_options(opts)
        if "--references" in opts and not args:
            from ..texts.rouge_store import rouge_from_warehouse
            text = rouge_from_warehouse(opts, options)
        else:
            text = _from_config(opts, args, options)
    except IrwError as exc:
        from ..failures import clean
        print(f"irw: error: {clean(str(exc))}", file=sys.stderr)
        return exc.exit_code
    out.write(text)
    return 0


def _from_config(opts: dict[str, str], args: list[str], options: RougeOptions) -> str:
    from ..texts.rouge_config import read_config, read_file_list
    from ..texts.rouge_eval import evaluate, format_result
    if not args:
        raise UsageError("give the ROUGE configuration file (irw rouge -h for the options)")
    if "-z" in opts:
        system_id = args[1] if len(args) > 1 else "X"
        config = read_file_list(args[0], opts["-z"].upper(), system_id)
        peer_ids = [system_id]
    else:
        config = read_config(args[0])
        if "-a" in opts:
            peer_ids = sorted(config.peer_ids)
        elif len(args) > 1:
            peer_ids = [args[1]]
        else:
            raise UsageError("give a system ID to evaluate, or -a for all systems")
    results = evaluate(config, options, peer_ids)
    if "--store" in opts:
        from ..texts.rouge_store import store_rouge_config
        store_rouge_config(opts, Path(args[0]), config, options, results)
    return "".join(format_result(r, options) for r in results)


def main(argv: list[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv)
