"""The report's section on the runs' ir_metadata (ir-metadata.org; Breuer et al., SIGIR 2022):
one row per run that has some, its summary (the tag and the PRIMAD components described), and
its whole YAML in a collapsed block (as data: the workspace renders it, report/sections.py)."""

from __future__ import annotations

from ..formats.ir_metadata import summary
from ..store.run_metadata import campaign_metadata
from .sections import Section, table, text


def metadata_section(con, campaign: str) -> Section | None:
    """The section, or None when no run of the campaign has ir_metadata."""
    described = campaign_metadata(con, campaign)
    if not described:
        return None
    rows = [{"run": run, "ir_metadata": summary(yaml)} for (_, run), yaml in described.items()]
    return Section(
        "Run metadata (ir_metadata)",
        "What the runs' ir_metadata (Breuer et al., SIGIR 2022) describes, by the PRIMAD "
        "components (platform, research goal, implementation, method, actor, data); the whole "
        "YAML of each run below (irw export run RUN -C C --metadata writes it back into the run "
        "file).",
        [table("ir_metadata", rows, ["run", "ir_metadata"], links=("run",)),
         *(text(run, yaml) for (_, run), yaml in described.items())])
