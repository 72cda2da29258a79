"""The report's section on the runs' ir_metadata (ir-metadata.org; Breuer et al., SIGIR 2022):
one row per run that has some, its summary (the tag and the PRIMAD components described), and
its whole YAML in a collapsed block."""

from __future__ import annotations

import html

from ..formats.ir_metadata import summary
from ..store.run_metadata import campaign_metadata
from . import html as parts


def metadata_section(con, campaign: str) -> str | None:
    """The section, or None when no run of the campaign has ir_metadata."""
    described = campaign_metadata(con, campaign)
    if not described:
        return None
    rows = [{"run": run, "ir_metadata": summary(text)} for (_, run), text in described.items()]
    blocks = [f"<details><summary>{html.escape(run)}</summary><pre>{html.escape(text)}</pre>"
              "</details>" for (_, run), text in described.items()]
    return parts.section(
        "Run metadata (ir_metadata)",
        "What the runs' ir_metadata (Breuer et al., SIGIR 2022) describes, by the PRIMAD "
        "components (platform, research goal, implementation, method, actor, data); the whole "
        "YAML of each run below (<code>irw export run RUN -C C --metadata</code> writes it "
        "back into the run file).",
        parts.table(rows, ["run", "ir_metadata"], left=("run", "ir_metadata")), *blocks)
