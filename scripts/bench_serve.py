#!/usr/bin/env python3
"""OpenSM's first heavy sweep under `hcasim serve` and under real ibsim (docs/real-tools.md).

For each fat tree (k=4 with 2 levels: 16 hosts; k=10 with 3 levels: 1,000 hosts) it runs
`opensm -o -R updn` (one sweep, then exit) against `hcasim serve` and reports the wall time and
the simulated time the sweep took in the model; then serves the same fabric's ibnetdiscover
output to real ibsim and times the same OpenSM run there. Every process is ended by its PID.

usage: scripts/bench_serve.py [HCASIM]   (default build-release/hcasim, else build/hcasim)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
FABRICS = [("k=4, 2 levels (16 hosts, 8 switches)", 4, 2), ("k=10, 3 levels (1,000 hosts, 300 switches)", 10, 3)]


def stop(proc):
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def opensm_once(env, work):
    """Wall seconds of `opensm -o` (start to exit) and whether it wrote its LFT dump."""
    os.makedirs(work, exist_ok=True)
    env = dict(env, OSM_TMP_DIR=work, OSM_CACHE_DIR=work, LD_PRELOAD=UMAD2SIM)
    t0 = time.monotonic()
    osm = subprocess.Popen(["opensm", "-o", "-R", "updn", "-F", "/dev/null", "-f", os.path.join(work, "osm.log"),
                            "-D", "0x41"], env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL)
    try:
        osm.wait(timeout=1800)
    finally:
        stop(osm)
    return time.monotonic() - t0, os.path.exists(os.path.join(work, "opensm-lfts.dump"))


def serve(hcasim, scenario, base, out):
    proc = subprocess.Popen([hcasim, "serve", scenario, "--ibsim", base, "--out", out], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    if not proc.stdout.readline().startswith("hcasim serve:"):
        stop(proc)
        raise SystemExit("hcasim serve did not start on " + scenario)
    return proc


def discover(hcasim, scenario, name, work):
    """The fabric file for ibsim: ibnetdiscover of the served fabric, also written to WORK/net."""
    proc = serve(hcasim, scenario, name, os.path.join(work, "out-discover"))
    try:
        net = subprocess.run(["ibnetdiscover"], env=dict(os.environ, IBSIM_SOCKNAME=name, LD_PRELOAD=UMAD2SIM),
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=1800).stdout
    finally:
        stop(proc)
    with open(os.path.join(work, "net"), "w") as f:
        f.write(net)
    return net


def hcasim_and_tools():
    """The hcasim binary (argument 1, else build-release's, else build's); exits when a tool is missing."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hcasim = sys.argv[1] if len(sys.argv) > 1 else next(
        p for p in (os.path.join(here, "build-release/hcasim"), os.path.join(here, "build/hcasim")) if os.path.exists(p))
    for tool in ("opensm", "ibsim", "ibnetdiscover"):
        if not shutil.which(tool):
            raise SystemExit(tool + " missing: scripts/setup.sh installs it")
    return hcasim


def main():
    hcasim = hcasim_and_tools()
    print("| fabric | hcasim serve: wall | simulated time of the sweep | real ibsim: wall |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, k, levels in FABRICS:
            work = os.path.join(tmp, "k%d" % k)
            os.makedirs(work)
            scenario = os.path.join(work, "scenario.json")
            with open(scenario, "w") as f:
                json.dump({"name": "bench_serve", "topology": {"pattern": "fat_tree", "k": k, "levels": levels},
                           "management": {"mode": "external"}}, f)
            base = "hcasim-bench-%d-%d" % (os.getpid(), k)
            net = discover(hcasim, scenario, base + "d", work)
            proc = serve(hcasim, scenario, base, os.path.join(work, "out"))
            try:
                wall, ok = opensm_once(dict(os.environ, IBSIM_SOCKNAME=base, SIM_HOST="hca0"), os.path.join(work, "osm"))
            finally:
                stop(proc)
            with open(os.path.join(work, "out", "stats.json")) as f:
                sim_ps = json.load(f)["run"]["sim_time_ps"]
            ibsim = subprocess.Popen(["ibsim", "-s", "-n", "-N", "4096", "-S", "1024", "-P", "16384", "net"], cwd=work,
                                     env=dict(os.environ, IBSIM_SOCKNAME=base + "i"), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            try:
                time.sleep(1.0 if k > 4 else 0.5)
                ca = next(line.split('"')[1] for line in net.splitlines() if line.startswith("Ca"))
                iwall, iok = opensm_once(dict(os.environ, IBSIM_SOCKNAME=base + "i", SIM_HOST=ca),
                                         os.path.join(work, "osm-ibsim"))
            finally:
                stop(ibsim)
            print("| %s | %.2f s%s | %.2f ms | %.2f s%s |" % (label, wall, "" if ok else " (no LFT dump)", sim_ps / 1e9,
                                                          iwall, "" if iok else " (no LFT dump)"))


if __name__ == "__main__":
    main()
