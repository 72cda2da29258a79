"""`irw rouge` against ROUGE-1.5.5.pl's own output on ../shared/realdata/rouge155_synthetic:
six option sets, every per-evaluation and average line (R, P, F to 5 decimals, and the
bootstrap intervals, which are seeded as ROUGE seeds them)."""

import io
import re

import pytest

from irwarehouse.cli.rouge import run

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
