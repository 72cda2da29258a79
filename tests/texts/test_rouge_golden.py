"""`irw rouge` against ROUGE-1.5.5.pl's own output on ../shared/realdata/rouge155_synthetic:
six option sets, every per-evaluation and average line (R, P, F to 5 decimals, and the
bootstrap intervals, which are seeded as ROUGE seeds them)."""

import io
import re

import pytest

from irwarehouse.cli.rouge import run
from tests.helpers.paths import TEST_DATA

# (expected file, the options of its PROVENANCE.md; every run also used -a -d)
OPTION_SETS = [
    ("n2_su4_w12", "-n 2 -2 4 -u -w 1.2 -c 95 -r 1 -f A -p 0.5 -t 0"),
    ("n2_su4_w12_stem", "-n 2 -2 4 -u -w 1.2 -c 95 -r 1 -f A -p 0.5 -t 0 -m"),
    ("n2_su4_stem_stop", "-n 2 -2 4 -u -m -s -c 95 -r 1 -f A -p 0.5 -t 0"),
    ("n3_sstar_U", "-n 3 -2 -1 -U -c 95 -r 1 -f A -p 0.5 -t 0"),
    ("n2_formulaB", "-n 2 -2 4 -u -c 95 -r 1 -f B -p 0.5 -t 0"),
    ("n1_l15_alpha08", "-n 1 -l 15 -p 0.8 -c 95 -r 1 -f A -t 0"),
]
_NUMBER = re.compile(r"\d+\.\d{5}")


@pytest.fixture
def rouge_dir(realdata, monkeypatch):
    folder = realdata / "rouge155_synthetic"
    monkeypatch.chdir(folder)          # ROUGE opens the config's paths from the working dir
    return folder


@pytest.mark.realdata
@pytest.mark.parametrize("name,options", OPTION_SETS, ids=[n for n, _ in OPTION_SETS])
def test_every_value_matches_rouge_155(rouge_dir, name, options):
    expected = (rouge_dir / "expected" / f"{name}.rouge155.txt").read_text().splitlines()
    out = io.StringIO()
    assert run(options.split() + ["-a", "-d", "config.xml"], out) == 0
    got = out.getvalue().splitlines()
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected):
        assert mine == theirs
    values = [float(x) for line in expected for x in _NUMBER.findall(line)]
    assert len(values) > 100 and any(v > 0 for v in values)


@pytest.mark.realdata
def test_config_paths_resolve_beside_the_config_from_another_directory(realdata, tmp_path,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    config = realdata / "rouge155_synthetic" / "config.xml"
    assert run(["-n", "1", "-x", "-r", "1", "-a", str(config)], out) == 0
    assert "A ROUGE-1 Average_R: 0.33965" in out.getvalue()


# ROUGE-1.5.5.pl's own output with bootstrap resampling and the options above lack (-r N > 1,
# -c, -b, -t 1, -t 2, -w 1.5): tests/data/rouge155_bootstrap/README.md
BOOTSTRAP_SETS = [
    ("r1000_n2_su4", "-a -n 2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0"),
    ("r200_c90_b75", "-a -d -n 1 -b 75 -c 90 -r 200 -f A -p 0.5 -t 0"),
    ("r50_t1", "-a -n 2 -x -t 1 -r 50"),
    ("t2_counts", "-a -n 1 -x -t 2"),
    ("r100_c99_sstar_stem_stop_B", "-a -d -n 2 -2 -1 -U -m -s -f B -r 100 -c 99"),
    ("r10_w15_l30_p03", "-a -d -n 1 -w 1.5 -l 30 -p 0.3 -r 10"),
]


@pytest.mark.realdata
@pytest.mark.parametrize("name,options", BOOTSTRAP_SETS, ids=[n for n, _ in BOOTSTRAP_SETS])
def test_bootstrap_intervals_and_other_options_match_rouge_155(rouge_dir, name, options):
    expected = (TEST_DATA / "rouge155_bootstrap" / f"{name}.txt").read_text()
    out = io.StringIO()
    assert run(options.split() + ["config.xml"], out) == 0
    assert out.getvalue() == expected
    assert "conf.int." in expected or "H_count" in expected


def test_see_format_matches_rouge_155(monkeypatch):
    """ROUGE's SEE (HTML) input format: tests/data/rouge155_see/README.md."""
    folder = TEST_DATA / "rouge155_see"
    monkeypatch.chdir(folder)
    out = io.StringIO()
    options = "-a -d -n 2 -2 4 -u -m -r 100"
    assert run([*options.split(), "see.xml"], out) == 0
    expected = (folder / "expected.txt").read_text()
    assert out.getvalue() == expected and "ROUGE-SU4 Eval t02.B" in expected
