# %% [markdown]
# # From DataFrames to a leaderboard, a significance table and a plot
#
# A notebook-style walk-through (open it in Jupyter or VS Code as a notebook: each `# %%` is a
# cell; or run it as a script: `python docs/walkthrough.py`). docs/walkthrough.md explains each
# step; tests/test_walkthrough.py runs it. It reads the bundled sample (data/: NIST's trec_eval
# test qrels and run) into pandas DataFrames, as a PyTerrier or ir_measures user holds them,
# and makes two more runs from it (the same documents, re-scored), so that there is something
# to compare. Set IRW_WALKTHROUGH_OUT to a folder to keep the warehouse and the figure there.

# %%
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import irwarehouse
from irwarehouse import Warehouse

DATA = Path(__file__).resolve().parent.parent / "data"
OUT = Path(os.environ.get("IRW_WALKTHROUGH_OUT") or tempfile.mkdtemp(prefix="irw-walk-"))
OUT.mkdir(parents=True, exist_ok=True)

qrels = pd.read_csv(DATA / "qrels.test", sep=r"\s+", header=None,
                    names=["query_id", "iteration", "doc_id", "relevance"],
                    dtype={"query_id": str, "doc_id": str})
baseline = pd.read_csv(DATA / "runs" / "STANDARD.results.test", sep=r"\s+", header=None,
                       names=["qid", "Q0", "docno", "rank", "score", "run"],
                       dtype={"qid": str, "docno": str})
print(qrels.head(3), baseline.head(3), sep="\n\n")

# %% [markdown]
# ## One run, evaluated in memory
# `irwarehouse.evaluate` takes the frames as they are (ir_measures' column names for the qrels,
# PyTerrier's for the run) and answers in long form, one row per topic and measure, as
# ir_measures' `iter_calc` does; `aggregate=True` gives one row per measure. The values are the
# bits `irw eval` prints for the same files.

# %%
per_topic = irwarehouse.evaluate(qrels, baseline, ["map", "P@10", "nDCG@10"])
print(per_topic.head(6))
print(irwarehouse.evaluate(qrels, baseline, ["map", "P@10", "nDCG@10"], aggregate=True))

# %% [markdown]
# ## Two more runs, and a warehouse
# Two variants of the baseline, as DataFrames: its scores with noise added (a fixed seed), and
# the baseline's ranking of each topic's documents reversed below the top 5. They go into a
# warehouse (a file here; `Warehouse(None)` keeps it in memory) with the qrels.

# %%
rng = np.random.default_rng(2005)
noisy = baseline.assign(score=baseline.score + rng.normal(0, 0.5, len(baseline)), run="noisy")
top = baseline.groupby("qid")["rank"].rank(method="first") <= 5
reordered = baseline.assign(score=np.where(top, baseline.score + 100, -baseline.score),
                            run="reordered")

warehouse = OUT / "walkthrough.duckdb"
warehouse.unlink(missing_ok=True)
wh = Warehouse(warehouse)
wh.ingest_qrels(qrels, "demo")
for frame in (baseline, noisy, reordered):
    wh.ingest_run(frame, "demo")            # named by the frame's `run` column
print(wh.con.sql("SELECT run, num_rows FROM run_info ORDER BY run"))

# %% [markdown]
# ## A leaderboard
# `Warehouse.metrics` gives each run's per-topic scores of several measures (a MetricSet; in
# Jupyter it shows as the leaderboard table itself); `run_means()` the values a leaderboard
# ranks by.

# %%
measures = ["map", "P@10", "nDCG@10"]
metrics = wh.metrics("demo", measures)
means = metrics.run_means()
leaderboard = pd.DataFrame({m: means[m] for m in measures}, index=metrics.runs)
leaderboard = leaderboard.sort_values("map", ascending=False)
print(leaderboard.round(4))

# %% [markdown]
# ## A significance table
# Every pair of runs under the randomised Tukey HSD test (Carterette, ACM TOIS 2012; Sakai,
# PROMISE 2014), which bounds the family-wise error over all pairs. `compare` returns a
# Comparison per measure (a table in Jupyter); `records()` the rows.

# %%
comparisons = wh.compare("demo", ["map"], test="tukey", B=2000, seed=7)
comparison, matrix = comparisons[0]
significance = pd.DataFrame(comparison.records())[
    ["run_a", "run_b", "delta", "p", "significant"]]
print(significance.round(4))

# %% [markdown]
# ## A plot
# Per-topic AP of each run, from the same matrix the test used (topics x runs), saved as PNG.

# %%
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(5, 3))
positions = np.arange(len(matrix.topics))
for j, run in enumerate(matrix.runs):
    ax.bar(positions + 0.25 * (j - 1), matrix.values[:, j], width=0.25, label=run)
ax.set_xticks(positions, matrix.topics)
ax.set_xlabel("topic")
ax.set_ylabel("AP")
ax.legend()
fig.tight_layout()
figure = OUT / "ap_per_topic.png"
fig.savefig(figure, dpi=100)
plt.close(fig)
wh.close()
print(f"figure: {figure}")
