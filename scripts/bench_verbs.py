#!/usr/bin/env python3
"""Wall time per message of Debian's ib_write_bw through libhcasim-rdmav34.so against the same
test as hcasim's own workload.perftest (docs/verbs-apps.md, "Speed").

Runs `ib_write_bw -s 64 -n N` (default 100,000) between hcasim0 and hcasim1 of a back-to-back
FDR pair under `hcasim serve --verbs`, timing the active side from start to exit (its setup and
the passive side's grace time included, as a user sees it), then `hcasim run` of the same
write_bw as workload.perftest; prints both per message, their ratio, and both simulated-time
bandwidths. Every process is ended by its PID. Needs what verbs_apps_test.py needs
(scripts/verbs_devices.sh run as root once).

usage: scripts/bench_verbs.py [HCASIM] [N]   (default build-release/hcasim, else build/hcasim; 100000)
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

SCENARIO = {
    "name": "bench_verbs",
    "topology": {"pattern": "back_to_back"},
    "link": {"speed": "FDR", "width": "4x", "propagation": "2m"},
    "management": {"mode": "in_band", "sm": "hca0.p1"},
    "run": {"seed": 1},
}


def stop(proc):
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hcasim = sys.argv[1] if len(sys.argv) > 1 else next(
        p for p in (os.path.join(root, "build-release", "hcasim"), os.path.join(root, "build", "hcasim"))
        if os.path.exists(p))
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    work = tempfile.mkdtemp(prefix="hcasim-bench-verbs-")
    scenario = os.path.join(work, "pair.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    log = open(os.path.join(work, "serve.log"), "w+")
    server = subprocess.Popen([hcasim, "serve", scenario, "--verbs", "--ibsim", "bench", "--out",
                               os.path.join(work, "served")], stdout=log, stderr=subprocess.STDOUT)
    try:
        env = None
        for _ in range(600):
            log.seek(0)
            m = re.search(r"SYSFS_PATH=(\S+) RDMAV_DRIVERS=(\S+)", log.read())
            if m:
                env = dict(os.environ, SYSFS_PATH=m.group(1), RDMAV_DRIVERS=m.group(2))
                break
            time.sleep(0.1)
        cmd = ["ib_write_bw", "-s", "64", "-n", str(n), "-p", "18999"]
        passive = subprocess.Popen(cmd + ["-d", "hcasim1"], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        start = time.monotonic()
        subprocess.run(cmd + ["-d", "hcasim0", "localhost"], env=env, check=True, capture_output=True)
        served_s = time.monotonic() - start
        passive.wait(timeout=60)
    finally:
        stop(server)
    with open(os.path.join(work, "served", "stats.json")) as f:
        clients = json.load(f)["verbs_programs"]["clients"]
    served_gbps = [q["bandwidth_gbps"] for c in clients if c["device"] == "hcasim0" for q in c["qps"]][0]

    builtin = dict(SCENARIO, name="bench_verbs_builtin")
    builtin["workload"] = {"perftest": [{"test": "write_bw", "client": "hca0.p1", "server": "hca1.p1",
                                         "sizes": ["64B"], "iterations": n}]}
    path = os.path.join(work, "builtin.json")
    with open(path, "w") as f:
        json.dump(builtin, f)
    start = time.monotonic()
    subprocess.run([hcasim, "run", path, "--out", os.path.join(work, "builtin"), "--quiet"], check=True,
                   capture_output=True)
    builtin_s = time.monotonic() - start
    with open(os.path.join(work, "builtin", "stats.json")) as f:
        builtin_gbps = json.load(f)["perftest"][0]["sizes"][0]["bw_Gbps"]

    print(f"ib_write_bw -s 64 -n {n}")
    print(f"  through the provider: {served_s:.2f} s wall, {served_s / n * 1e6:.1f} us per message, "
          f"{served_gbps:.4f} Gb/s simulated")
    print(f"  workload.perftest:    {builtin_s:.2f} s wall, {builtin_s / n * 1e6:.1f} us per message, "
          f"{builtin_gbps:.4f} Gb/s simulated")
    print(f"  provider / built-in per message: {served_s / builtin_s:.1f}x")


if __name__ == "__main__":
    main()
