"""Files a command writes for the user (`--out`, `--plot`): written under a temporary name
beside the file and moved into its place when complete, so that a full disk, a timeout or a
Ctrl-C leaves the earlier file (or none), never a truncated one; errors name the file asked
for, never the temporary one."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import IrwError


def check_out(out: Path) -> Path:
    """Refuse an output that cannot be written, before any work is done."""
    out = Path(out)
    if out.is_dir():
        raise IrwError(f"--out {out} is a folder; give a file name")
    if not out.parent.is_dir():
        raise IrwError(f"--out {out}: no folder {out.parent}")
    return out


@contextmanager
def written(out: str | Path) -> Iterator[Path]:
    """A temporary path beside `out` for the block to write (`.NAME.PID.partial`: hidden, one
    per process); moved onto `out` when the block ends well, removed when it fails. An OSError
    of the block (a full disk) names `out`."""
    out = check_out(Path(out))
    tmp = out.with_name(f".{out.name}.{os.getpid()}.partial")
    try:
        yield tmp
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise named(exc, out) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def named(exc: OSError, out: Path) -> OSError:
    """`exc` about `out` (a full disk while writing a temporary file is the output's)."""
    # pyarrow's errors carry no errno, only its words
    code = exc.errno or (errno.ENOSPC if "No space left on device" in str(exc) else None)
    return OSError(code, exc.strerror or str(exc).splitlines()[0], str(out))
