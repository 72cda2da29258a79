"""Paths the tests share: the bundled sample and the real data sets beside the repository."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
REALDATA = REPO.parent / "shared" / "realdata"
