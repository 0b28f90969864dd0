"""bench/python.py's shared parts: timing, the rotation of contenders, waiting for a quiet
machine, the graphs it generates, and one CLI run."""
import json
import os
import subprocess
import time

import numpy as np

from common import tiergraph_bin


SEED = 27491095  # the default sampling seed of `tiergraph run` and of the package


# The part of each answer that must agree between the CLI and Python (deterministic for a
# given source or seed; SSSP's round count varies run to run, its delta does not).
SUMMARY_KEY = {"bfs": "levels", "sssp": "delta", "wcc": "components", "pr": "iterations", "radii": "diameter_estimate"}


def timed(call):
    """(call's result, its wall seconds)."""
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def rotated(items, trial):
    """`items` starting at position trial % len: who goes first changes every trial."""
    k = trial % len(items)
    return items[k:] + items[:k]


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


class OtherWork:
    """How much of the machine's CPU time other processes took while a part ran: the machine's
    busy time (/proc/stat) less this process's and its children's. tiergraph runs every pass
    on all the cores it is given, and a thread that loses its core to another process holds up
    the pass's barrier, so its times mean little when this share is high."""

    def __init__(self):
        self.start = self._sample()

    @staticmethod
    def _sample():
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
        own = os.times()
        hz = os.sysconf("SC_CLK_TCK")
        busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait
        return busy / hz, sum(ticks) / hz, own.user + own.system + own.children_user + own.children_system

    def share(self):
        busy, total, own = (b - a for a, b in zip(self.start, self._sample()))
        return max(0.0, (busy - own) / total) if total > 0 else 0.0


def settle(args):
    """With --wait-quiet: waits (up to that long) for a 5-second window in which other processes
    take under 10% of the CPU time, adding the wait to args.waited. Returns an OtherWork started
    once the wait is over, for the group of trials that follows."""
    start = time.perf_counter()
    while time.perf_counter() - start < args.wait_quiet:
        window = OtherWork()
        time.sleep(5)
        if window.share() < 0.10:
            break
        print(f"other processes are busy ({100 * window.share():.0f}% of the CPU time): waiting", flush=True)
    args.waited += time.perf_counter() - start
    return OtherWork()


def read_edge_list(path):
    """A text edge list (two ids per line) as two int64 arrays."""
    try:
        import pandas as pd
        frame = pd.read_csv(path, sep=" ", header=None, names=["u", "v"], dtype=np.int64, engine="c")
        return frame["u"].to_numpy(), frame["v"].to_numpy()
    except ImportError:
        pairs = np.fromfile(path, sep=" ", dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0].copy(), pairs[:, 1].copy()


def undirected_pairs(u, v, n):
    """Each undirected edge once as (lo, hi), lo < hi: self-loops and duplicates dropped. (Sorted
    keys rather than np.unique, which takes 20 s here on 16 M keys with numpy 2.4.)"""
    keep = u != v
    key = np.sort(np.minimum(u[keep], v[keep]) * n + np.maximum(u[keep], v[keep]))
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    return key // n, key % n


def generate(args, work, name, *flags):
    """bench/work/python/NAME made once by `tiergraph generate`."""
    path = work / name
    if not path.exists():
        subprocess.run([tiergraph_bin(), "-q", "generate", *map(str, flags), "-o", str(path), "-t", str(args.threads)],
                       check=True)
    return path


# ---- 1. Python against the CLI ------------------------------------------------------------------
def cli_run(algorithm, graph, threads, extra=()):
    """One `tiergraph run` process: (its JSON report, the process's wall seconds)."""
    cmd = [tiergraph_bin(), "-q", "run", algorithm, str(graph), "-n", "1", "-t", str(threads), "--json", *map(str, extra)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), wall
