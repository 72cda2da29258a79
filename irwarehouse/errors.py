"""The exceptions of irwarehouse. The CLI prints any IrwError as one line and exits 1."""


class IrwError(Exception):
    """Base class of every error a user can cause."""


class InputError(IrwError):
    """A bad input file, with the file and, when known, the line."""

    def __init__(self, path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class MeasureError(IrwError):
    """An unknown measure name or bad measure parameters."""


class SqlAssetError(IrwError):
    """A problem in one of the project's SQL files (a bug, not a user error)."""


class WarehouseError(IrwError):
    """A request the warehouse cannot satisfy (unknown campaign, run stored twice, ...)."""
