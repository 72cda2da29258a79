"""Paths the tests share: the repository, its bundled sample (data/), the tests' own data files
(tests/data/) and the real data sets beside the repository ($IRW_REALDATA or ../shared/realdata,
present in CI)."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
TEST_DATA = REPO / "tests" / "data"
REALDATA = Path(os.environ.get("IRW_REALDATA") or REPO.parent / "shared" / "realdata")


def private_copy(template: Path, folder: Path, name: str = "w.duckdb") -> Path:
    """A copy of a warehouse built once per module or session, for a test that changes or
    damages it."""
    import shutil
    path = folder / name
    shutil.copy(template, path)
    return path
