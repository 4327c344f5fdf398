#!/usr/bin/env python3
"""Route time of each engine in hcasim and in OpenSM itself, on the same fabrics (docs/routing.md).

For a 3-level fat tree of 1,331 hosts (k=11) and a dragonfly of 1,056 hosts (a=8, p=4, h=4):
the fabric's ibnetdiscover file is taken from `hcasim serve` (as scripts/bench_serve.py does),
served by real ibsim, and `opensm -o -R ENGINE` routes it once; OpenSM's route time is the time
between its log's "building routing with 'ENGINE'" and "ENGINE tables configured on all
switches" lines (the engine and the LFTs it hands to the switches). hcasim's is `hcasim
validate --timings`'s routing time, with the whole validate's peak memory (/usr/bin/time).
Engines OpenSM refuses on a fabric are shown as refused. The last column compares the tables:
OpenSM's opensm-lfts.dump against `hcasim validate --dump` on the same ibnetdiscover file with the
SM on the same port. Every process is ended by its PID.

usage: scripts/bench_routing.py [HCASIM]   (default build-release/hcasim, else build/hcasim)
"""
import datetime
import json
import os
import re
import subprocess
import tempfile
import time

from bench_serve import UMAD2SIM, discover, hcasim_and_tools, stop  # the same fabric to ibsim, processes ended by PID

VLS = 8  # data VLs of every port: what lash and dfsssp spread their layers over
FABRICS = [
    ("3-level fat tree k=11 (1,331 hosts, 363 switches)", {"pattern": "fat_tree", "k": 11, "levels": 3},
     ["minhop", "updn", "ftree", "dfsssp", "lash", "nue"]),
    ("dragonfly a=8 p=4 h=4 (1,056 hosts, 264 switches)", {"pattern": "dragonfly", "a": 8, "p": 4, "h": 4},
     ["minhop", "updn", "dfsssp", "lash", "nue"]),  # updn finds no root: hcasim and OpenSM refuse it
]
STAMP = re.compile(r"^(\w{3} \d\d \d\d:\d\d:\d\d) (\d{6}) ")


def stamp(line):
    m = STAMP.match(line)
    t = datetime.datetime.strptime(m.group(1), "%b %d %H:%M:%S")
    return t.timestamp() + int(m.group(2)) / 1e6


def opensm_route_seconds(env, work, engine):
    """OpenSM's route time from its log, or None when the engine did not route the fabric."""
    os.makedirs(work)
    env = dict(env, OSM_TMP_DIR=work, OSM_CACHE_DIR=work, LD_PRELOAD=UMAD2SIM)
    log = os.path.join(work, "osm.log")
    osm = subprocess.Popen(["opensm", "-o", "-r", "-R", engine + ",no_fallback", "-F", "/dev/null", "-f", log,
                            "-D", "0x47"], env=env, cwd=work, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        osm.wait(timeout=600)
    except subprocess.TimeoutExpired:
        pass  # an engine that refuses leaves OpenSM sweeping again and again: it did not route
    finally:
        stop(osm)
    start = end = None
    if not os.path.exists(log):
        return None
    with open(log, errors="replace") as f:
        for line in f:
            if "building routing with '%s'" % engine in line:
                start = stamp(line)
            elif "%s tables configured on all switches" % engine in line and start is not None:
                end = stamp(line)
    return None if end is None else end - start


def hcasim_route(hcasim, scenario, engine):
    """hcasim validate's routing seconds and the whole run's peak memory (MB), or None when refused."""
    r = subprocess.run(["/usr/bin/time", "-f", "peak %M", hcasim, "validate", scenario, "--timings", "--set",
                        "routing.algorithm=[\"%s\", \"no_fallback\"]" % engine], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    routing = re.search(r"timings: routing ([0-9.e-]+) s", r.stdout)
    peak = re.search(r"peak (\d+)", r.stderr)
    if not routing:  # refused (exit 2); a credit loop (exit 1) still routes
        return None
    return float(routing.group(1)), int(peak.group(1)) / 1024


def lfts_compared(hcasim, net, ca, engine, work):
    """Whether hcasim's opensm-lfts.dump for the ibnetdiscover file `net`, SM on `ca`, equals
    OpenSM's in `work`: "equal", "N of M lines differ", or "" when either has none."""
    theirs_path = os.path.join(work, "opensm-lfts.dump")
    if not os.path.exists(theirs_path):
        return ""
    scenario = os.path.join(work, "ibnd.json")
    with open(scenario, "w") as f:
        json.dump({"name": "bench_routing_lfts", "topology": {"pattern": "ibnetdiscover", "file": net},
                   "port": {"data_vls": VLS}, "routing": {"algorithm": [engine, "no_fallback"]},
                   "management": {"sm": ca + ".p1"}}, f)
    dump = os.path.join(work, "hcasim-dump")
    subprocess.run([hcasim, "validate", scenario, "--dump", dump], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    ours_path = os.path.join(dump, "opensm-lfts.dump")
    if not os.path.exists(ours_path):
        return ""
    theirs, ours = open(theirs_path).read().splitlines(), open(ours_path).read().splitlines()
    if theirs == ours:
        return "equal"
    differ = sum(1 for a, b in zip(theirs, ours) if a != b) + abs(len(theirs) - len(ours))
    return "%d of %d lines differ" % (differ, len(theirs))


def main():
    hcasim = hcasim_and_tools()
    print("| fabric | engine | hcasim: route time | hcasim: peak memory | OpenSM 3.3.23 on ibsim: route time "
          "| LFTs against OpenSM's |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n, (label, topology, engines) in enumerate(FABRICS):
            work = os.path.join(tmp, "f%d" % n)
            os.makedirs(work)
            scenario = os.path.join(work, "scenario.json")
            with open(scenario, "w") as f:
                json.dump({"name": "bench_routing", "topology": topology, "port": {"data_vls": VLS},
                           "management": {"mode": "external"}}, f)
            base = "hcasim-bench-routing-%d-%d" % (os.getpid(), n)
            net = discover(hcasim, scenario, base + "d", work)
            ibsim = subprocess.Popen(["ibsim", "-s", "-n", "-N", "4096", "-S", "1024", "-P", "16384", "net"], cwd=work,
                                     env=dict(os.environ, IBSIM_SOCKNAME=base + "i"), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            try:
                time.sleep(2.0)
                ca = next(line.split('"')[1] for line in net.splitlines() if line.startswith("Ca"))
                for engine in engines:
                    ours = hcasim_route(hcasim, scenario, engine)
                    osm_work = os.path.join(work, "osm-" + engine)
                    theirs = opensm_route_seconds(dict(os.environ, IBSIM_SOCKNAME=base + "i", SIM_HOST=ca),
                                                  osm_work, engine)
                    same = lfts_compared(hcasim, os.path.join(work, "net"), ca, engine, osm_work) if theirs else ""
                    print("| %s | %s | %s | %s | %s | %s |" % (
                        label, engine, "refused" if ours is None else "%.2f s" % ours[0],
                        "" if ours is None else "%.0f MB" % ours[1],
                        "refused" if theirs is None else "%.2f s" % theirs, same), flush=True)
            finally:
                stop(ibsim)


if __name__ == "__main__":
    main()
