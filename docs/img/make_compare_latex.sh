#!/usr/bin/env bash
# Regenerates docs/img/compare_latex.png: `irw compare --format latex` on the bundled sample
# (data/: NIST's trec_eval test files), compiled with pdflatex and rendered with pdftoppm.
# Needs texlive-latex-base, texlive-latex-recommended and poppler-utils (Debian).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
irw="$repo/.venv/bin/irw"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$irw" ingest qrels "$repo/data/qrels.test" -C sample -w s.duckdb >/dev/null
"$irw" ingest runs "$repo/data/runs" -C sample --names file -w s.duckdb >/dev/null
"$irw" compare -C sample -m map -m P.10 -m ndcg_cut.10 -m recip_rank --missing zero \
    --seed 1 -f latex -w s.duckdb 2>/dev/null > table.tex
{
    printf '%s\n' '\documentclass{article}' '\usepackage[T1]{fontenc}' '\usepackage{booktabs}' \
        '\usepackage[paperwidth=15cm,paperheight=20cm,margin=0.4cm]{geometry}' \
        '\pagestyle{empty}' '\begin{document}'
    cat table.tex
    printf '%s\n' '\end{document}'
} > page.tex
pdflatex -interaction=nonstopmode -halt-on-error page.tex >/dev/null
pdftoppm -png -r 110 -singlefile page.pdf page
# crop the empty page below and around the table
"$repo/.venv/bin/python" - <<'PY'
from PIL import Image, ImageOps
page = Image.open("page.png").convert("L")
box = ImageOps.invert(page).getbbox()
pad = 12
page.crop((max(box[0] - pad, 0), max(box[1] - pad, 0), box[2] + pad, box[3] + pad)).save(
    "page.png", optimize=True)
PY
cp page.png "$repo/docs/img/compare_latex.png"
echo "wrote docs/img/compare_latex.png ($(stat -c %s page.png) bytes)"
