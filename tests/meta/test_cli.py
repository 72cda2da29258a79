import json

import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from tests.helpers.meta_campaign import campaign_warehouse


@pytest.fixture
def wh_path(tmp_path):
    return campaign_warehouse(tmp_path, stored=("AP",))   # AP stored, the others on the fly


def irw(*args):
    result = CliRunner().invoke(app, [*args])
    return result


def test_discpower_formats_and_plot(wh_path, tmp_path):
    base = ["meta", "discpower", "-w", str(wh_path), "-C", "c", "-m", "AP", "-m", "P@5",
            "--seed", "3", "-B", "200"]
    table = irw(*base, "--plot", str(tmp_path / "asl.svg"))
    assert table.exit_code == 0, table.output
    assert "measure" in table.output and "AP" in table.output
    assert (tmp_path / "asl.svg").read_text().startswith("<?xml")
    rows = json.loads(irw(*base, "--format", "json", "--test", "tukey").output)
    assert {r["measure"] for r in rows} == {"AP", "P@5"} and rows[0]["seed"] == 3
    assert rows[0]["test"] == "tukey" and rows[0]["n_pairs"] == 10
    csv = irw(*base, "--format", "csv", "--pairs").output.splitlines()
    assert csv[0].startswith("measure,run_a,run_b") and len(csv) == 1 + 2 * 10
    # reproducible with the seed
    assert irw(*base, "-f", "json").output == irw(*base, "-f", "json").output


def test_swap_sensitivity_rankcorr_concordance(wh_path):
    common = ["-w", str(wh_path), "-C", "c", "-m", "AP", "-m", "nDCG@10", "--seed", "1"]
    swap = irw("meta", "swap", *common, "-B", "100", "-f", "json")
    assert swap.exit_code == 0, swap.output
    assert len(json.loads(swap.output)) == 2
    bins = irw("meta", "swap", *common, "-B", "100", "--bins", "--variant", "halves", "-f",
               "csv")
    assert bins.exit_code == 0 and len(bins.output.splitlines()) == 1 + 2 * 21
    sens = irw("meta", "sensitivity", *common, "-B", "100")
    assert sens.exit_code == 0 and "/10=" in sens.output
    corr = json.loads(irw("meta", "rankcorr", *common[:-2], "--stat", "kendall", "--stat",
                          "spearman", "-f", "json").output)
    assert corr["n_runs"] == 5 and {"kendall", "spearman"} <= set(corr["rows"][0])
    agree = irw("meta", "rankcorr", *common, "--agreement", "-B", "100")
    assert agree.exit_code == 0 and "cell" in agree.output
    conc = irw("meta", "concordance", *common[:-2], "-m", "P@5", "--gold", "RR", "-f", "json")
    assert conc.exit_code == 0, conc.output
    assert len(json.loads(conc.output)) == 3


def test_pool_and_loo(wh_path):
    pool = irw("meta", "pool", "-w", str(wh_path), "-C", "c", "--depth", "3",
               "--team-pattern", "^(alpha|beta|gamma)")
    assert pool.exit_code == 0, pool.output
    assert "unique_docs" in pool.output and "gamma" in pool.output
    loo = irw("meta", "loo", "-w", str(wh_path), "-C", "c", "--pool", "depth3", "-m", "AP",
              "-f", "json")
    assert loo.exit_code == 0, loo.output
    summary = json.loads(loo.output)[0]
    assert summary["measure"] == "AP" and "max_rank_change" in summary
    # the stored depth3 pool is reused only for the same request (issue 24): same team pattern
    per_run = json.loads(irw("meta", "loo", "-w", str(wh_path), "-C", "c", "--depth", "3",
                             "--team-pattern", "^(alpha|beta|gamma)", "-m", "AP", "--per-run",
                             "-f", "json").output)
    assert len(per_run) == 5


def test_report(wh_path, tmp_path):
    out = tmp_path / "report"
    args = ["meta", "report", "-w", str(wh_path), "-C", "c", "-m", "AP", "-m", "P@5", "-m",
            "nDCG@10", "--out", str(out), "--B-bootstrap", "200", "--B-tukey", "200",
            "--B-swap", "100", "--loo-depth", "3", "--team-pattern", "^[a-z]+",
            "--gold", "RR"]
    result = irw(*args)
    assert result.exit_code == 0, result.output
    text = (out / "report.md").read_text()
    for heading in ("Discriminative power", "Swap method", "Rank correlation",
                    "pairs in common", "Leave-one-team-out", "Concordance test against RR"):
        assert heading in text
    for name in ("asl_bootstrap.png", "asl_tukey.svg", "swap.png", "pairs.csv", "report.json"):
        assert (out / name).stat().st_size > 0
    first = (out / "report.json").read_text()
    svg = (out / "asl_tukey.svg").read_text()
    assert irw(*args).exit_code == 0
    assert (out / "report.json").read_text() == first          # same seed, same numbers
    assert (out / "asl_tukey.svg").read_text() == svg
    assert json.loads(first)["loo"]["depth"] == 3
    assert len(json.loads(first)["concordance"]) == 3       # AP, P@5, nDCG@10 against RR


@pytest.mark.parametrize("args,message", [
    (["-m", "nope"], "unknown measure"),
    (["-m", "AP", "--plot", "x.pdf"], ".png or .svg"),
    (["-m", "AP", "-C", "missing"], "missing"),
    (["-m", "AP", "--alpha", "0.001"], "B*alpha"),
])
def test_errors_are_one_line(wh_path, args, message):
    base = ["meta", "discpower", "-w", str(wh_path)]
    if "-C" not in args:
        base += ["-C", "c"]
    result = irw(*base, *args, "-B", "50")
    assert result.exit_code == 1
    assert message in result.output and result.output.count("\n") == 1
