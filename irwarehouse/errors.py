"""The exceptions of irwarehouse. The CLI prints any IrwError as one line and exits with its
`exit_code` (1, or 3 for a StorageError; docs/reliability.md lists the codes)."""


class IrwError(Exception):
    """Base class of every error a user can cause."""

    exit_code = 1


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


class StorageError(IrwError):
    """The warehouse file or the system failed: disk full, an I/O error, a damaged file, a
    lock still held after the wait (exit code 3)."""

    exit_code = 3


class WarehouseBusy(StorageError):
    """Another process still holds the warehouse file after the wait (--wait)."""
