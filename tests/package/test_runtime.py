"""How a run behaves as a Python call: the GIL is released, Ctrl-C interrupts it cleanly.
(Its DataFrame and plot are tested in test_graph_api.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tiergraph as tg

LONG_RUN = textwrap.dedent("""
    import faulthandler, signal, sys, time, tiergraph as tg
    # Python maps SIGINT to KeyboardInterrupt only when it starts with SIGINT not ignored, and a
    # shell without job control starts background commands (a CI job, `cmd &` in a script) with
    # it ignored: such a child never sees Ctrl-C. The test is of the engine's answer to it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    faulthandler.dump_traceback_later(50, exit=True)  # a hang shows where, before the test gives up
    g = tg.generate("kronecker", 16)
    print("ready", flush=True)
    start = time.monotonic()
    try:
        tg.pagerank(g, iterations=1000000, threads=1)
    except KeyboardInterrupt:
        print(f"interrupted after {time.monotonic() - start:.2f}", flush=True)
        r = tg.bfs(g)  # the engine is usable after an interrupted run
        print("after", int(r.reached().sum()), flush=True)
        sys.exit(0)
    print("finished", flush=True)
    sys.exit(3)
""")


def test_ctrl_c_interrupts_a_run_cleanly():
    proc = subprocess.Popen([sys.executable, "-c", LONG_RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, f"exit {proc.returncode}; stdout: {out!r}; stderr: {err[-4000:]}"
    lines = out.splitlines()
    assert lines[0].startswith("interrupted after") and float(lines[0].split()[-1]) < 30
    assert lines[1].startswith("after ") and int(lines[1].split()[1]) > 1


def test_the_gil_is_released_while_the_engine_runs():
    g = tg.generate("kronecker", 15)
    inside = threading.Event()
    done = threading.Event()
    ticks = []

    def work():
        inside.set()
        tg.pagerank(g, iterations=300, threads=1)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    inside.wait()
    while not done.is_set():  # Python keeps running beside the engine
        ticks.append(time.monotonic())
        time.sleep(0.001)
    t.join()
    assert len(ticks) > 20, "the main thread did not run while the engine ran"

