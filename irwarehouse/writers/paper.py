"""Paper-ready tables: LaTeX (booktabs) and Markdown, for `irw eval -C`, `irw compare` and
`irw meta report` (docs/paper_tables.md).

One table model (PaperTable: a caption, columns, rows of cells with bold and superscript marks)
and two writers. The conventions are ranx's `Report.to_latex` (Bassani, ECIR 2022): a `#`
column gives each run a letter a, b, c, ...; a value carries as superscripts the letters of the
runs it is significantly better than, and a phantom of the other letters keeps the column
aligned; the best value of each measure is in bold. Unlike ranx, every value tied for best (at
the printed precision) is bold, names are escaped (not only `_`), and the caption names the
test, the correction, alpha and B. With a baseline, daggers replace the letters."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# what the caption calls each test of irwarehouse.stats.compare_all
TEST_NAMES = {
    "bootstrap": "paired bootstrap test (Sakai, IPSJ TOD 2007)",
    "tukey": "randomised Tukey HSD test (Carterette, ACM TOIS 2012)",
    "randomisation": "paired randomisation test (Smucker et al., CIKM 2007)",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
}
CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm", "bh": "Benjamini-Hochberg"}
BETTER, WORSE = "dagger", "ddagger"       # marks against a baseline
_LATEX_MARK = {BETTER: r"\dagger", WORSE: r"\ddagger"}
_MARKDOWN_MARK = {BETTER: "†", WORSE: "‡"}
# LaTeX's special characters in text (and <, >, | which OT1 fonts print as other glyphs)
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}
_MARKDOWN_SPECIAL = set("\\|*_`<>[]")


@dataclass(frozen=True)
class Style:
    """How numbers print: `digits` decimals (default 4, or 2 with `percent`); `percent`
    multiplies by 100 (ranx's show_percentages)."""
    digits: int | None = None
    percent: bool = False

    @property
    def places(self) -> int:
        return self.digits if self.digits is not None else (2 if self.percent else 4)

    def number(self, value: float | None, *, integer: bool = False, percent: bool = True,
               digits: int | None = None) -> str | None:
        """The printed value; None for a missing or undefined one."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return None
        if integer:
            return f"{value:.0f}"
        scale = 100 if self.percent and percent else 1
        return f"{value * scale:.{self.places if digits is None else digits}f}"

    def cell(self, cell: Cell) -> str | None:
        if cell.text is not None:
            return cell.text
        return self.number(cell.value, integer=cell.integer, percent=cell.percent,
                           digits=cell.digits)


@dataclass
class Cell:
    value: float | None
    integer: bool = False             # counts (num_q, num_ret, ...): never bold nor percent
    percent: bool = True              # Style.percent applies (not to meta report's shares)
    digits: int | None = None         # decimals of this cell, whatever Style.digits says
    text: str | None = None           # a cell that is not a number (a name, yes/no)
    marks: list[str] = field(default_factory=list)   # run letters, or BETTER / WORSE
    phantom: list[str] = field(default_factory=list)  # letters not earned (LaTeX alignment)
    bold: bool = False
    interval: tuple[float, float] | None = None     # `irw eval --ci`: beside the value


@dataclass
class PaperTable:
    caption: str
    columns: list[str]
    rows: list[tuple[str, list[Cell]]]            # (row label, a cell per column)
    letters: list[str] | None = None              # the `#` column (runs' letters)
    label_header: str = "Run"
    label: str = "tab:results"

    def mark_best(self, style: Style, lower_is_better: frozenset[int] | set[int] = frozenset()
                  ) -> None:
        """Bold every value equal to the best of its column at the printed precision."""
        for j in range(len(self.columns)):
            cells = [row[1][j] for row in self.rows]
            shown = {id(c): style.cell(c) for c in cells if not c.integer and c.text is None}
            numbers = [float(s) for s in shown.values() if s is not None]
            if not numbers:
                continue
            best = min(numbers) if j in lower_is_better else max(numbers)
            for c in cells:
                text = shown.get(id(c))
                c.bold = text is not None and float(text) == best


def letter(i: int) -> str:
    """a, b, ..., z, aa, ab, ... (ranx stops at z)."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(text))


def markdown_escape(text: str) -> str:
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in str(text))


def _marks_text(marks: list[str], table: PaperTable) -> str:
    joiner = "," if table.letters and any(len(x) > 1 for x in table.letters) else ""
    return joiner.join(marks)


def to_latex(table: PaperTable, style: Style) -> str:
    """A `table` environment with a booktabs tabular (needs \\usepackage{booktabs})."""
    spec = ("c" if table.letters else "") + "l" + "c" * len(table.columns)
    head = ([r"\textbf{\#}"] if table.letters else []) + \
        [rf"\textbf{{{latex_escape(table.label_header)}}}"] + \
        [rf"\textbf{{{latex_escape(c)}}}" for c in table.columns]
    lines = ["% needs \\usepackage{booktabs} in the preamble",
             r"\begin{table}[t]", r"\centering",
             *([rf"\caption{{{latex_escape(table.caption)}}}"] if table.caption else []),
             rf"\label{{{table.label}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\",
             r"\midrule"]
    for i, (name, cells) in enumerate(table.rows):
        row = ([table.letters[i]] if table.letters else []) + [latex_escape(name)]
        row += [_latex_cell(c, style, table) for c in cells]
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _latex_cell(cell: Cell, style: Style, table: PaperTable) -> str:
    if cell.text is not None:
        return latex_escape(cell.text)
    text = style.cell(cell)
    if text is None:
        return "--"
    if cell.bold:
        text = rf"\textbf{{{text}}}"
    marks = [_LATEX_MARK.get(m, m) for m in cell.marks]
    if marks:
        joined = _marks_text(marks, table) if table.letters else r"".join(marks)
        text += f"$^{{{joined}}}$"
    if cell.phantom:
        text += rf"\hphantom{{$^{{{_marks_text(cell.phantom, table)}}}$}}"
    if cell.interval is not None:
        text += rf" {{\scriptsize[{_interval_text(cell, style)}]}}"
    return text


def _interval_text(cell: Cell, style: Style) -> str:
    return ", ".join(style.number(v, percent=cell.percent, digits=cell.digits)
                     for v in cell.interval)


def to_markdown(table: PaperTable, style: Style) -> str:
    """A pipe table (GitHub, pandoc); bold as **x**, superscripts as <sup>; the caption
    follows the table as a paragraph."""
    head = (["#"] if table.letters else []) + [table.label_header] + table.columns
    align = ([":-:"] if table.letters else []) + [":--"] + ["--:"] * len(table.columns)
    lines = ["| " + " | ".join(markdown_escape(h) for h in head) + " |",
             "|" + "|".join(align) + "|"]
    for i, (name, cells) in enumerate(table.rows):
        row = ([table.letters[i]] if table.letters else []) + [markdown_escape(name)]
        row += [_markdown_cell(c, style, table) for c in cells]
        lines.append("| " + " | ".join(row) + " |")
    caption = "\n" + markdown_escape(table.caption) + "\n" if table.caption else ""
    return "\n".join(lines) + "\n" + caption


def _markdown_cell(cell: Cell, style: Style, table: PaperTable) -> str:
    if cell.text is not None:
        return markdown_escape(cell.text)
    text = style.cell(cell)
    if text is None:
        return "–"
    if cell.bold:
        text = f"**{text}**"
    if cell.marks:
        marks = [_MARKDOWN_MARK.get(m, m) for m in cell.marks]
        text += f"<sup>{_marks_text(marks, table)}</sup>"
    if cell.interval is not None:
        text += f" \\[{_interval_text(cell, style)}\\]"
    return text


def render(table: PaperTable, fmt: str, style: Style) -> str:
    if fmt == "latex":
        return to_latex(table, style)
    if fmt == "markdown":
        return to_markdown(table, style)
    raise ValueError(f"paper tables are latex or markdown, not {fmt!r}")


# -- the tables of the commands -------------------------------------------------------------

def comparison_table(results, *, baseline: str | None = None, style: Style = Style(),
                     campaign: str | None = None) -> PaperTable:
    """`irw compare`: runs x measures (each run's value by the measure's summary kind), the
    best of each measure in bold; superscript letters of the runs a run is significantly better
    than (its adjusted p < alpha under the comparison's test), or, with a baseline, a dagger
    (significantly better than the baseline) or a double dagger (significantly worse)."""
    runs = list(dict.fromkeys(r for _, matrix in results for r in matrix.runs))
    letters = None if baseline else [letter(i) for i in range(len(runs))]
    code = dict(zip(runs, letters or []))
    columns = [matrix.measure for _, matrix in results]
    grid = {run: [Cell(None) for _ in results] for run in runs}
    for j, (comparison, matrix) in enumerate(results):
        beaten: dict[str, set[str]] = {run: set() for run in matrix.runs}
        for pair in comparison.pairs:
            if not pair.significant or pair.delta == 0:
                continue
            winner, loser = (pair.run_a, pair.run_b) if pair.delta > 0 else \
                (pair.run_b, pair.run_a)
            beaten[winner].add(loser)
        for run, value in zip(matrix.runs, matrix.run_values()):
            cell = grid[run][j]
            cell.value = float(value)
            if baseline is None:
                cell.marks = [code[r] for r in runs if r in beaten[run]]
                cell.phantom = [code[r] for r in runs if r != run and r not in beaten[run]]
            elif run != baseline:
                if baseline in beaten[run]:
                    cell.marks = [BETTER]
                elif run in beaten.get(baseline, ()):
                    cell.marks = [WORSE]
    table = PaperTable(caption=_comparison_caption(results, baseline, style, campaign),
                       columns=columns, rows=[(run, grid[run]) for run in runs],
                       letters=letters)
    table.mark_best(style)
    return table


def _comparison_caption(results, baseline, style, campaign) -> str:
    first_matrix = results[0][1]
    where = f" of {campaign}" if campaign else ""
    text = (f"Each run's {_summary_words(results)} over the {len(first_matrix.topics)} "
            f"topics{where}{_percent_words(style)}; the best value of each measure is in bold. ")
    if baseline:
        text += (f"A dagger (double dagger) marks a run significantly better (worse) than the "
                 f"baseline {baseline}: ")
    else:
        text += "Superscript letters mark the runs a run is significantly better than: "
    tests = list(dict.fromkeys(test_words(c) for c, _ in results))
    if len(tests) == 1:
        return text + tests[0] + "."
    return text + "; ".join(f"{m.measure}: {test_words(c)}" for c, m in results) + "."


def test_words(comparison) -> str:
    """The test, correction, alpha, B (and seed) of a comparison, as a caption says them."""
    words = TEST_NAMES.get(comparison.test, comparison.test)
    if comparison.test == "tukey":
        words += ", which controls the family-wise error itself"
    elif comparison.correction:
        words += f", {CORRECTION_NAMES.get(comparison.correction, comparison.correction)} " \
                 "correction"
    else:
        words += ", no correction for multiple comparisons"
    words += f", alpha = {comparison.alpha:g}"
    if comparison.B:
        words += f", B = {comparison.B}, seed {comparison.seed}"
    return words


def _summary_words(results) -> str:
    kinds = {getattr(m, "summary", "mean") for _, m in results}
    return "mean" if kinds == {"mean"} else "value (" + ", ".join(sorted(kinds)) + ")"


def _percent_words(style: Style) -> str:
    return " (in percent)" if style.percent else ""


def evaluation_table(result, *, style: Style = Style(), ci: str | None = None) -> PaperTable:
    """`irw eval`: runs x measures of an evaluation's summary rows (trec_eval's `all` values),
    the best of each measure in bold (counts such as num_ret are printed as integers, never
    bold). No significance test: `irw compare` adds one. `ci` (t or bootstrap, `irw eval
    --ci`): each mean's interval beside it, in brackets (trec_eval.run_intervals, the one
    computation of the tsv, csv and json columns)."""
    from .trec_eval import _kinds, _same, run_intervals
    kinds = _kinds(result)
    summary = result.summary.to_pylist()
    runs = list(dict.fromkeys(row["run"] for row in summary))
    measures = list(dict.fromkeys(row["measure"] for row in summary))
    value = {(row["run"], row["measure"]): row["value"] for row in summary}
    intervals = run_intervals(result, ci) if ci else {}
    bounds = {}
    for row in summary:
        low_high = intervals.get((row["run_id"], row["measure"]))
        if low_high is not None and _same(low_high[2], row["value"]):
            bounds[row["run"], row["measure"]] = low_high[:2]
    rows = [(run, [Cell(value.get((run, m)), integer=kinds[m].integer if m in kinds else False,
                        interval=bounds.get((run, m)))
                   for m in measures]) for run in runs]
    scope = getattr(result, "scope", None)
    where = (f" of {scope.campaign} (qrels {scope.qrels})"
             if scope is not None and getattr(scope, "qrels", None) else "")
    caption = (f"Each run's value of each measure over the topics{where}, as trec_eval's "
               f"summary{_percent_words(style)}; the best value of each measure is in bold. "
               "No significance test (irw compare adds one)." +
               (f" In brackets: {_interval_words(ci)}." if bounds else ""))
    table = PaperTable(caption=caption, columns=measures, rows=rows)
    table.mark_best(style)
    return table


def _interval_words(method: str) -> str:
    from ..stats.intervals import BOOTSTRAP_B, BOOTSTRAP_SEED, LEVEL
    if method == "t":
        return f"the {LEVEL:.0%} t confidence interval of the mean over the topics"
    return (f"the {LEVEL:.0%} percentile bootstrap interval of the mean over the topics "
            f"(B = {BOOTSTRAP_B}, seed {BOOTSTRAP_SEED})")


def records_table(records: list[dict], columns: list[str] | None = None,
                  meta: dict | None = None) -> PaperTable:
    """Any command's records (meta.render: `irw meta ...`, `irw campaigns`, ...) as a table:
    the first column labels the rows, numbers print with Style's digits, nothing is bold (which
    way is better is the command's to say); `meta` (the JSON layout's header) is the caption."""
    columns = columns or list(records[0])

    def cell(value) -> Cell:
        if isinstance(value, bool):
            return Cell(None, text="yes" if value else "no")
        if isinstance(value, int):
            return Cell(float(value), integer=True)
        if isinstance(value, float):
            return Cell(value)
        return Cell(None, text="-" if value is None else str(value))
    rows = [(str(r.get(columns[0], "")), [cell(r.get(c)) for c in columns[1:]])
            for r in records]
    caption = "; ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                        for k, v in (meta or {}).items())
    return PaperTable(caption=caption, columns=columns[1:], rows=rows,
                      label_header=columns[0], label="tab:irw")
