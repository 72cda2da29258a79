"""Whether the process running irw is one command's: the `irw` console script (entry.py) runs
one command and ends with os._exit, which gives all of the process's memory back at once; any
other process (a notebook, a test, a program using the API) is a host that goes on after the
call. Set by entry.py only; read where a one-command process may leave work to its exit
(store.connection.leave_to_exit)."""

from __future__ import annotations

ONE_COMMAND = {"on": False}
