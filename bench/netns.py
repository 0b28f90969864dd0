"""Two "hosts" on this one machine for MPI runs over TCP (issue 13's network-bound figures): two
network namespaces joined by a veth pair, optionally capped with a token bucket (`tc ... tbf`) on
both ends, and the mpirun arguments that run a job across them.

mpirun starts in the first namespace; the second is reached through a launch agent (Open MPI's
plm_rsh_agent: it is called as `AGENT HOST COMMAND`, as ssh would be) that runs the command under
`ip netns exec`. The ranks then talk over UCX's TCP transport on the veth, and only there
(UCX_NET_DEVICES): two ranks in different namespaces cross the capped link, two in the same one
go through that namespace's own stack. `--map-by node` alternates ranks between the hosts.

PLATFORM.md: veth pairs give ~4 us ping and ~14 Gbit/s; tbf works, netem does not exist in this
kernel (no added latency). Needs root and iproute2 (`ip`, `tc`).
"""
import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

NAMESPACES = ("tgbench0", "tgbench1")
ADDRESSES = ("10.77.0.1", "10.77.0.2")
DEVICE = "tgnet"  # the veth's name at both ends (each end lives in its own namespace)


def _ip(*args):
    subprocess.run(["ip", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _teardown():
    for ns in NAMESPACES:  # deleting a namespace deletes its end of the veth, and so the pair
        subprocess.run(["ip", "netns", "delete", ns], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def refusal():
    """Why two namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if not shutil.which("ip") or not shutil.which("tc"):
        return "ip and tc (iproute2) are not installed"
    return None


def _wait_until_up(seconds=10):
    """Both ends report carrier (a veth end can read NO-CARRIER for a moment after `link set up`;
    UCX then finds no usable device and the job fails to start)."""
    deadline = time.monotonic() + seconds
    while True:
        states = [subprocess.run(["ip", "-n", ns, "-br", "link", "show", DEVICE], stdout=subprocess.PIPE, text=True).stdout
                  for ns in NAMESPACES]
        if all("LOWER_UP" in s and "NO-CARRIER" not in s for s in states):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the veth pair did not come up: {states}")
        time.sleep(0.1)


@contextlib.contextmanager
def two_hosts(rate, workdir):
    """Yields (prefix, flags): run `prefix + mpirun ... + flags -np N PROGRAM` to place ranks on
    both namespaces. `rate`: a tc rate such as 1gbit, or None for an uncapped link."""
    why = refusal()
    if why:
        raise RuntimeError(why)
    _teardown()  # what an interrupted run left
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    try:
        for ns in NAMESPACES:
            _ip("netns", "add", ns)
        _ip("link", "add", DEVICE, "netns", NAMESPACES[0], "type", "veth", "peer", "name", DEVICE, "netns", NAMESPACES[1])
        for ns, address in zip(NAMESPACES, ADDRESSES):
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", DEVICE)
            _ip("-n", ns, "link", "set", DEVICE, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            if rate:
                subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", DEVICE, "root", "tbf", "rate", rate,
                                "burst", "256kb", "latency", "50ms"], check=True)
        _wait_until_up()
        agent = work / "netns-agent.sh"
        cases = " ".join(f"{a}) ns={n} ;;" for a, n in zip(ADDRESSES, NAMESPACES))
        agent.write_text("#!/bin/sh\n# mpirun's launch agent: `AGENT HOST COMMAND` runs COMMAND in HOST's namespace.\n"
                         f'host=$1; shift\ncase "$host" in {cases} *) echo "no namespace for $host" >&2; exit 1 ;; esac\n'
                         'exec ip netns exec "$ns" /bin/sh -c "$*"\n')
        agent.chmod(0o755)
        hostfile = work / "netns-hosts"
        hostfile.write_text("".join(f"{a} slots=64\n" for a in ADDRESSES))
        prefix = ["ip", "netns", "exec", NAMESPACES[0]]
        flags = ["--hostfile", str(hostfile), "--map-by", "node", "--mca", "plm_rsh_agent", str(agent),
                 "--mca", "oob_tcp_if_include", DEVICE, "--mca", "pml", "ucx", "--mca", "osc", "ucx",
                 "--mca", "opal_common_ucx_tls", "any", "--mca", "opal_common_ucx_devices", "any",
                 "-x", "UCX_TLS=tcp", "-x", f"UCX_NET_DEVICES={DEVICE}",
                 # UCX logs to stdout, where rank 0's report goes: its "Endpoint timeout" at
                 # MPI_Finalize (a peer that exited first; the run's exit and results are unaffected)
                 # would break the report. Its logs go to files here instead.
                 "-x", f"UCX_LOG_FILE={work / 'ucx-%h-%p.log'}"]
        yield prefix, flags
    finally:
        _teardown()


def bytes_sent():
    """Bytes the first namespace's end of the link has sent (to show traffic crossed it)."""
    out = subprocess.run(["ip", "netns", "exec", NAMESPACES[0], "cat", f"/sys/class/net/{DEVICE}/statistics/tx_bytes"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return int(out)
