"""`--tie-rule ge|gt` wherever the CLI runs randomised Tukey HSD (issue 24): irw compare,
irw meta discpower, irw meta rankcorr --agreement, irw meta report, and irw report's Tukey
section. The counts themselves are tested in tests/stats/test_tukey_ties.py; here: the
option reaches the test, is recorded in every output, and is refused where it has no meaning."""

import json

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.meta.load import load_metrics
from irwarehouse.stats import compare_all
from tests.helpers.meta_campaign import campaign_warehouse


@pytest.fixture(scope="module")
def wh_path(tmp_path_factory):
    # 3 topics, P@5: ties everywhere
    return campaign_warehouse(tmp_path_factory.mktemp("ties"), stored=("P@5",))


def irw(wh_path, *args):
    return CliRunner().invoke(app, [*args, "-w", str(wh_path)])


def expected_asl(wh_path, tie_rule, seed=3, B=400):
    with Warehouse(wh_path, create=False) as wh:
        metrics = load_metrics(wh, "c", ["P@5"])
    comparison = compare_all(metrics["P@5"], metrics.runs, test="tukey", B=B, rng=seed,
                             tie_rule=tie_rule)
    return {(p.run_a, p.run_b): p.p for p in comparison.pairs}


def test_the_rules_differ_on_this_campaign(wh_path):
    ge, gt = expected_asl(wh_path, "ge"), expected_asl(wh_path, "gt")
    assert all(gt[k] <= ge[k] for k in ge) and any(gt[k] < ge[k] for k in ge)


def test_compare(wh_path):
    base = ["compare", "-C", "c", "-m", "P@5", "--test", "tukey", "-B", "400", "--seed", "3"]
    for rule in ("ge", "gt"):
        rows = json.loads(irw(wh_path, *base, "--tie-rule", rule, "-f", "json").output)
        assert all(r["tie_rule"] == rule for r in rows)
        assert {(r["run_a"], r["run_b"]): r["p"] for r in rows} == expected_asl(wh_path, rule)
    table = irw(wh_path, *base, "--tie-rule", "gt")
    assert table.exit_code == 0 and "tie rule gt (range > |difference|)" in table.output
    assert "tie rule" not in irw(wh_path, *base).output           # the default prints as before
    stored = irw(wh_path, *base, "--tie-rule", "gt", "--store")
    assert stored.exit_code == 0, stored.output
    con = duckdb.connect(str(wh_path), read_only=True)
    assert con.execute("SELECT DISTINCT tie_rule FROM significance").fetchall() == [("gt",)]
    con.close()
    refused = irw(wh_path, "compare", "-C", "c", "-m", "P@5", "--test", "bootstrap",
                  "--tie-rule", "gt")
    assert refused.exit_code == 1 and "tukey" in refused.output
    assert refused.output.count("\n") == 1


def test_meta_discpower(wh_path):
    base = ["meta", "discpower", "-C", "c", "-m", "P@5", "--test", "tukey", "-B", "400",
            "--seed", "3"]
    for rule in ("ge", "gt"):
        (row,) = json.loads(irw(wh_path, *base, "--tie-rule", rule, "-f", "json").output)
        assert row["tie_rule"] == rule
        pairs = json.loads(irw(wh_path, *base, "--tie-rule", rule, "--pairs", "-f",
                               "json").output)
        assert {(p["run_a"], p["run_b"]): p["asl"] for p in pairs} == expected_asl(wh_path, rule)
    boot = json.loads(irw(wh_path, "meta", "discpower", "-C", "c", "-m", "P@5", "-B", "100",
                          "--seed", "1", "-f", "json").output)
    assert "tie_rule" not in boot[0]
    refused = irw(wh_path, "meta", "discpower", "-C", "c", "-m", "P@5", "-B", "100",
                  "--tie-rule", "gt")
    assert refused.exit_code == 1 and "Tukey test only" in refused.output


def test_meta_rankcorr_agreement_and_report(wh_path, tmp_path):
    rows = json.loads(irw(wh_path, "meta", "rankcorr", "-C", "c", "-m", "P@5", "-m", "AP",
                          "--agreement", "-B", "200", "--seed", "1", "--tie-rule", "gt",
                          "-f", "json").output)
    assert rows[0]["tie_rule"] == "gt"
    out = tmp_path / "report"
    result = irw(wh_path, "meta", "report", "-C", "c", "-m", "P@5", "-m", "AP", "--out",
                 str(out), "--B-bootstrap", "100", "--B-tukey", "400", "--B-swap", "50",
                 "--seed", "3", "--tie-rule", "gt")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["settings"]["tie_rule"] == "gt"
    assert all(r["tie_rule"] == "gt" for r in report["discpower_tukey"])
    assert "tie rule gt: range > |difference|" in (out / "report.md").read_text()


def test_analyst_report_tukey_section():
    from irwarehouse.report.campaign import tukey_table

    def tukey_text(*args, **kw):            # the notes under the report's Tukey table
        return " ".join(tukey_table(*args, **kw)["notes"])
    rng = np.random.default_rng(2)
    rows = [{"run": f"r{j}", "topic": str(t), "value": float(v)}
            for t in range(6) for j, v in enumerate(np.round(rng.random(4) * 10) / 10)]
    assert "tie rule gt" in tukey_text(rows, "P@10", seed=1, B=200, tie_rule="gt")
    assert "tie rule" not in tukey_text(rows, "P@10", seed=1, B=200)
    help_text = CliRunner().invoke(app, ["report", "--help"]).output
    assert "--tie-rule" in help_text
