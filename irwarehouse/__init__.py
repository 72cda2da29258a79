"""irwarehouse: an SQL-backed warehouse for information-retrieval evaluation."""

__version__ = "0.1.0"

__all__ = ["EvalOptions", "Warehouse", "evaluate", "evaluate_files"]


def __getattr__(name):
    # Lazy, so that `irw --help` does not import duckdb/pyarrow.
    if name in ("Warehouse", "evaluate_files"):
        from . import api
        return getattr(api, name)
    if name == "evaluate":
        from .frames import evaluate
        return evaluate
    if name == "EvalOptions":
        from .engine.evaluate import EvalOptions
        return EvalOptions
    raise AttributeError(name)
