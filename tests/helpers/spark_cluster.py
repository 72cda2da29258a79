"""A Spark standalone cluster on 127.0.0.1 for the tests: a master and two workers, each its own
JVM started with pyspark's own `bin/spark-class` (org.apache.spark.deploy.master.Master and
...worker.Worker, what Spark's sbin/start-master.sh and start-worker.sh run), stopped when the
block ends. The ports are free ones the kernel gives; nothing listens beyond the loopback."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path


def spark_class() -> Path:
    import pyspark
    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: Path, pattern: str, count: int, proc: subprocess.Popen, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if len(re.findall(pattern, text)) >= count:
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[1]} stopped ({proc.returncode}): {text[-2000:]}")
        time.sleep(0.5)
    raise RuntimeError(f"no {pattern!r} in {log} after {timeout:g} s")


@contextmanager
def standalone_cluster(folder: Path, *, workers: int = 2, cores: int = 1,
                       memory: str = "1g", timeout: float = 180.0):
    """Yields the master URL spark://127.0.0.1:PORT once `workers` workers (each `cores`
    cores and `memory`) have registered with it; stops every process it started."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = folder / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([str(spark_class()), *args], stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, start_new_session=True)
        procs.append(proc)
        return proc, log

    try:
        master, master_log = start("master", "org.apache.spark.deploy.master.Master",
                                   "--host", "127.0.0.1", "--port", str(port),
                                   "--webui-port", str(free_port()))
        _wait_for(master_log, r"I have been elected leader", 1, master, timeout)
        for i in range(workers):
            start(f"worker{i + 1}", "org.apache.spark.deploy.worker.Worker",
                  "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
                  "--webui-port", str(free_port()), "--work-dir", str(folder / f"work{i + 1}"),
                  url)
        _wait_for(master_log, r"Registering worker", workers, master, timeout)
        yield url
    finally:
        for proc in reversed(procs):          # the processes this block started, by their id
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
