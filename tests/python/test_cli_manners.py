"""The command line as a new user meets it (issue 12, part 6): the graph argument given one way or
the other, binary garbage named as such, PageRank converging by default, progress on a terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="module")
def graph(tg, datasets_dir, tmp_path_factory):
    path = tmp_path_factory.mktemp("manners") / "eu.tg"
    tg.convert(datasets_dir / "email-Eu-core.txt.xz", path, "--blocks", "4")
    return path


@pytest.mark.parametrize("command", ["run", "info", "reblock", "convert"])
def test_help_does_not_mark_the_graph_required_twice(tg, command):
    text = tg.run(command, "--help", check=True).stdout
    graph_lines = [line for line in text.splitlines()
                   if line.strip().startswith(("-f,--file", "graph ", "input "))]
    assert len(graph_lines) == 2, text  # the positional and -f, each once
    assert not any("REQUIRED" in line for line in graph_lines), text
    assert any("-f" in line for line in graph_lines)


def test_the_graph_is_given_once(tg, graph, tmp):
    both = tg.run("run", "bfs", graph, "-f", graph)
    assert both.returncode == 1 and "GRAPH given twice" in both.stderr, both
    assert "At Most" not in both.stderr
    neither = tg.run("info")
    assert neither.returncode == 1 and "GRAPH is required" in neither.stderr, neither
    assert tg.run("info", "-f", graph, "--json", check=True).json()["vertices"] > 0
    out = tmp / "re.tg"
    tg.run("reblock", "-f", graph, "-o", out, "--blocks", "2", check=True)  # reblock takes -f too
    assert tg.info(out)["blocks"]["per_side"] == 2


def test_binary_garbage_is_named_as_not_text(tg, tmp):
    garbage = tmp / "edges.txt"
    garbage.write_bytes(b"1 2\n" + bytes(range(256)) * 8)
    out = tmp / "out.tg"
    r = tg.convert(garbage, out, check=False)
    assert r.returncode == 1
    assert "not a text edge list" in r.stderr and "byte 4 is 0x00" in r.stderr, r
    assert not out.exists()


def test_pagerank_converges_by_default(tg, graph, tmp):
    def ranks(*options):
        out = tmp / f"pr{len(list(tmp.iterdir()))}.npy"
        tg.run("run", "pr", graph, *options, "-o", out, check=True)
        return np.load(out)["value"]
    converged = ranks("--tolerance", "1e-14")
    default = ranks()
    few = ranks("-i", "5")
    capped = ranks("-i", "5", "--tolerance", "1e-14")  # -i caps a tolerance
    assert np.abs(default - converged).sum() < 1e-6
    assert np.abs(few - converged).sum() > 1e-4  # so the check above can tell
    assert np.array_equal(capped, few)


def run_on_a_terminal(binary, *args, timeout=120):
    """Runs tiergraph with stderr on a pseudo-terminal; returns (exit status, what stderr showed)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([str(binary), *map(str, args)], stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], timeout)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return proc.wait(), shown.decode("utf-8", "replace")


def test_a_long_run_shows_its_passes_on_a_terminal(tg_bin, graph):
    # 16 blocks a pass, 4 in flight, 60 ms each: about 0.25 s a pass, 2 s in all.
    slow = ["run", "pr", graph, "-i", "8", "--store", "copying", "--store-delay", "0.06"]
    status, shown = run_on_a_terminal(tg_bin, *slow)
    assert status == 0
    assert "pr: pass " in shown and "vertices activated" in shown, shown
    piped = subprocess.run([str(tg_bin), *map(str, slow)], capture_output=True, text=True, check=True)
    assert "pass " not in piped.stderr  # never into a pipe or a log
    quiet_status, quiet = run_on_a_terminal(tg_bin, "-q", *slow)
    assert quiet_status == 0 and "pass " not in quiet
