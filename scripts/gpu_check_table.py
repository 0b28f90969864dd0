#!/usr/bin/env python3
"""The table gpu_check.sh prints last, and its JSON: every step's result from results.jsonl, with
the commit (TG_COMMIT, since the device machine's copy has no .git), the date and the device."""
import datetime
import json
import os
import sys

steps = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
device = next((s["report"]["device"] for s in steps if s["step"] == "probe"), None)
summary = {
    "commit": os.environ.get("TG_COMMIT", "unknown"),
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "device": device,
    "steps": steps,
}
json.dump(summary, open(sys.argv[2], "w"), indent=1)

if device:
    print(f"device: {device.get('name')}, {device.get('memory_bytes', 0) / 2**30:.1f} GiB, driver {device.get('driver_version')}")
for s in steps:
    if s["step"] == "probe":
        b = s["report"].get("bandwidth", {})
        print(f"copies: device-device {b.get('device_to_device_gb_s', 0):.0f} GB/s, pinned host->device "
              f"{b.get('pinned_host_to_device_gb_s', 0):.1f} GB/s, device->pinned host {b.get('device_to_pinned_host_gb_s', 0):.1f} GB/s")
    if s["step"] == "cuda_tests":
        print(f"CUDA tests: {'passed' if s['rc'] == 0 else 'FAILED (rc %d)' % s['rc']}")
    if s["step"] == "build_here":
        print(f"nvcc build on this machine: {'ok' if s['rc'] == 0 else 'FAILED'} in {s['seconds']} s")
sanitizer = [s for s in steps if s["step"] == "sanitizer"]
if sanitizer:
    bad = [f"{s['tool']} {s['kernel']}" for s in sanitizer if s["rc"] != 0]
    print(f"compute-sanitizer: {len(sanitizer) - len(bad)} of {len(sanitizer)} runs clean" + (f"; not: {', '.join(bad)}" if bad else ""))

print(f"\n{'graph':<8}{'kernel':<8}{'device ms':>11}{'cpu ms':>10}{'speedup':>9}{'GTEPS':>8}{'same':>6}{'verified':>10}")
failed = False
for s in steps:
    if s["step"] == "generate":
        print(f"k{s['scale']:<7}{'(gen)':<8}{s['seconds'] * 1e3:>11.0f}")
    if s["step"] == "skipped":
        print(f"k{s['scale']:<7}skipped: the time budget was spent")
    if s["step"] != "run":
        continue
    r = s["report"]
    graph, kernel = s["label"].split()
    if not r:
        print(f"{graph:<8}{kernel:<8}  FAILED (rc {s['rc']}; see gpu_check.log)")
        failed = True
        continue
    dev = r["median_seconds"] * 1e3
    cpu = r.get("against_cpu", {}).get("cpu_seconds")
    same = r.get("against_cpu", {}).get("same")
    verified = [t.get("verified") for t in r["trials"] if "verified" in t]
    gteps = [t["gteps"] for t in r["trials"] if "gteps" in t]
    gteps_text = f"{sorted(gteps)[len(gteps) // 2]:.1f}" if gteps else "-"
    ok = "yes" if same else "NO"
    failed |= not same or (verified and not all(verified)) or s["rc"] != 0
    print(f"{graph:<8}{kernel:<8}{dev:>11.2f}{cpu * 1e3 if cpu else 0:>10.1f}{(cpu * 1e3 / dev) if cpu and dev else 0:>9.1f}"
          f"{gteps_text:>8}{ok:>6}{('all' if all(verified) else 'NO') if verified else '-':>10}")
print("\ndevice ms: median of the trials; cpu ms: trial 0 on the CPU engine; same: trial 0's answer equals the CPU engine's")
sys.exit(1 if failed else 0)
