"""Shared helpers for the benchmark scripts: running commands, parsing `Label: value` lines,
medians, and locating the tiergraph binary and datasets."""
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tiergraph_bin():
    return os.environ.get("TG_BIN", str(ROOT / "build" / "release" / "tiergraph"))


def datasets_dir():
    for d in (os.environ.get("TG_DATASETS_DIR"), ROOT.parent / "shared" / "datasets", "/work/shared/datasets"):
        if d and Path(d).is_dir():
            return Path(d)
    sys.exit("no datasets folder found (set TG_DATASETS_DIR)")


def run(cmd, env=None, timeout=3600):
    """Runs cmd, returns (stdout+stderr text, wall seconds, peak RSS in bytes of the child)."""
    start = time.perf_counter()
    # In its own process group, so that a timeout takes the command's children too (time, sh).
    proc = subprocess.Popen(["/usr/bin/time", "-f", "MAXRSS_KB %M"] + [str(c) for c in cmd],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})}, start_new_session=True)
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{stdout[-3000:]}")
    m = re.search(r"MAXRSS_KB (\d+)", stdout)
    return stdout, wall, int(m.group(1)) * 1024 if m else 0


def values(text, label):
    return [float(x) for x in re.findall(rf"^{re.escape(label)}\s*:?\s*([0-9.eE+-]+)", text, re.M)]


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def ensure_time_tool():
    if not Path("/usr/bin/time").exists():
        subprocess.run(["apt-get", "install", "-y", "-qq", "time"], check=True, stdout=subprocess.DEVNULL)
