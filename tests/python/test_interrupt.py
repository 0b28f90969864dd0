"""An interrupted command leaves nothing behind: SIGINT, SIGTERM or SIGHUP while `convert` writes
its output removes the temporary OUT.tmp-XXXXXX and ends the process with the signal's own
status."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest


@pytest.fixture(scope="module")
def edge_list(tg, tmp_path_factory):
    path = tmp_path_factory.mktemp("interrupt") / "kron18.el"
    tg.run("generate", "-g", "18", "-k", "16", "-o", path, check=True)
    return path


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupted_convert_removes_its_temporary_output(tg, edge_list, tmp_path, sig):
    out = tmp_path / "out.tg"
    proc = subprocess.Popen([str(tg.binary), "-q", "convert", str(edge_list), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("out.tg.tmp-*")):  # interrupt while the output is being written
        assert proc.poll() is None, "convert ended before its temporary output was seen"
        assert time.monotonic() < deadline
        time.sleep(0.002)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode == -sig  # the signal's own status, as without the handler
    assert list(tmp_path.iterdir()) == []  # no temporary, no partial output
