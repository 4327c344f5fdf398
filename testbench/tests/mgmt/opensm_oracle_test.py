#!/usr/bin/env python3
"""OpenSM as the oracle for hcasim's LIDs and routes (docs/routing.md).

Runs Debian's OpenSM once per case against ibsim (libumad2sim.so preloaded,
local sockets only) on ibnetdiscover fabrics, and compares its dumps with the
ones `hcasim validate --dump` writes for the same fabric, SM port, engine and
LMC: opensm-lfts.dump byte for byte, and every port's LID from
opensm-subnet.lst; and that dor's tables are not minhop's. ftree on two fat
trees (one of three levels, once more with a root GUID file) and on the two
fabrics it refuses (a torus; LMC 1), where both fall back to minhop: that
OpenSM and hcasim agree on whether ftree routed. Every process the test
starts is ended by its PID.

usage: opensm_oracle_test.py HCASIM SOURCE_DIR
exit 0 all equal, 1 a difference, 77 OpenSM or ibsim missing (skipped).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

# (fabric file under configs/fabrics, the SM's HCA node id)
FABRICS = [
    ("small_cluster.ibnd", "H-e41d2d0300a1c000"),
    ("torus3x3_irregular.ibnd", None),
    ("fat_tree_k4_shuffled.ibnd", None),
    ("mesh4x4.ibnd", None),   # dimension-ordered cabling: ports 1/2 x, 3/4 y (for dor)
    ("torus4x4.ibnd", None),
]
CASES = [(engine, lmc) for engine in ("minhop", "updn", "dor") for lmc in (0, 1)]
# ftree: (fabric, LMC, GUID files, whether ftree routes). GUID files by OpenSM option:
# root_guid_file lists switches, cn_guid_file and io_guid_file CAs (all their ports), by
# description; "all but" before a list means every CA but those.
THREE_LEVEL = "fat_tree_3level_shuffled.ibnd"
FTREE_CASES = [
    ("fat_tree_k4_shuffled.ibnd", 0, {}, True),
    (THREE_LEVEL, 0, {}, True),
    (THREE_LEVEL, 0, {"root_guid_file": ("ft3 top3", "ft3 top1", "ft3 top0", "ft3 top2")}, True),
    # two of the four tops as roots: the mids and tops of the other half rank below the leaves
    (THREE_LEVEL, 0, {"root_guid_file": ("ft3 top0", "ft3 top1")}, True),
    # three CAs are not CNs (routed after the CNs), two of them I/O nodes
    (THREE_LEVEL, 0, {"cn_guid_file": ("all but", "ft3 node0 HCA-1", "ft3 node5 HCA-1", "ft3 dual HCA-1"),
                      "io_guid_file": ("ft3 node5 HCA-1", "ft3 dual HCA-1")}, True),
    ("torus4x4.ibnd", 0, {}, False),              # every switch has CAs: all rank as roots
    ("fat_tree_k4_shuffled.ibnd", 1, {}, False),  # LMC > 0
]


def first_ca(fabric_path):
    with open(fabric_path) as f:
        for line in f:
            m = re.match(r'^Ca\s+\d+\s+"([^"]+)"', line)
            if m:
                return m.group(1)
    raise SystemExit(fabric_path + ": no Ca node")


def guid_file(fabric_path, option, names):
    """A GUID file's lines for ftree's option: switches' NodeGUIDs (roots) or CAs' port GUIDs."""
    with open(fabric_path) as f:
        text = f.read()
    if option == "root_guid_file":
        guids = {m.group(2): [m.group(1)]
                 for m in re.finditer(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})"\s+# "([^"]+)"', text, re.M)}
    else:
        guids = {}
        for block in text.split("\n\n"):
            m = re.search(r'^Ca\s+\d+\s+"H-[0-9a-f]{16}"\s+# "([^"]+)"', block, re.M)
            if m:
                guids[m.group(1)] = re.findall(r'^\[\d+\]\(([0-9a-f]{16})\)', block, re.M)
    if names[0] == "all but":
        names = [n for n in guids if n not in names[1:]]
    return "".join("0x%s  # %s\n" % (g, n) for n in names for g in guids[n])


def run_opensm(fabric_path, sm_node, engine, lmc, work, options=()):
    os.makedirs(work)
    shutil.copy(fabric_path, os.path.join(work, "net"))
    # ibsim's sockets are abstract names shared by the whole machine: a name of this run's own
    # keeps two test runs at once (a developer's and a CI clone's) apart.
    sock = dict(os.environ, IBSIM_SOCKNAME="hcasim-oracle-%d" % os.getpid())
    ibsim = subprocess.Popen(["ibsim", "-s", "-n", "net"], cwd=work, env=sock, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        env = dict(sock, SIM_HOST=sm_node, OSM_TMP_DIR=work, OSM_CACHE_DIR=work, LD_PRELOAD=UMAD2SIM)
        # -o one sweep then exit; -r assign every LID afresh; -D 0x41 errors + routing dumps
        # -D 0x43: also INFO, where OpenSM names the engine that configured the tables
        osm = subprocess.Popen(["opensm", "-o", "-r", "-R", engine, "-l", str(lmc), "-F", "/dev/null",
                                "-f", os.path.join(work, "osm.log"), "-D", "0x43"] + list(options),
                               cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL)
        try:
            osm.wait(timeout=60)
        finally:
            if osm.poll() is None:
                os.kill(osm.pid, signal.SIGKILL)
                osm.wait()
    finally:
        os.kill(ibsim.pid, signal.SIGTERM)
        try:
            ibsim.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(ibsim.pid, signal.SIGKILL)
            ibsim.wait()
    for name in ("opensm-lfts.dump", "opensm-subnet.lst"):
        if not os.path.exists(os.path.join(work, name)):
            raise SystemExit("OpenSM wrote no " + name + " (see " + os.path.join(work, "osm.log") + ")")


def run_hcasim(hcasim, fabric_path, sm_node, engine, lmc, work, routing=None):
    """hcasim validate --dump; returns what it printed."""
    os.makedirs(work)
    scenario = {"name": "oracle", "topology": {"pattern": "ibnetdiscover", "file": fabric_path},
                "routing": dict({"algorithm": engine, "lmc": lmc}, **(routing or {})),
                "management": {"sm": sm_node + ".p1"}}
    path = os.path.join(work, "scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    # exit 1: the routes have a credit loop (a torus under min-hop); the dumps are written all the same
    run = subprocess.run([hcasim, "validate", path, "--dump", os.path.join(work, "dump")],
                         stdout=subprocess.PIPE, universal_newlines=True)
    if run.returncode not in (0, 1):
        raise SystemExit("hcasim validate failed (exit %d) on %s" % (run.returncode, path))
    return run.stdout


def compare(case, work):
    """Prints ok or FAIL with a diff; returns the number of failures (0 or 1 or 2)."""
    failures = 0
    theirs = open(os.path.join(work, "opensm", "opensm-lfts.dump")).read()
    ours = open(os.path.join(work, "hcasim", "dump", "opensm-lfts.dump")).read()
    lines = theirs.count("\n")
    if theirs != ours:
        failures += 1
        differ = sum(1 for a, b in zip(theirs.splitlines(), ours.splitlines()) if a != b)
        print("FAIL %s: opensm-lfts.dump differs in %d of %d lines" % (case, differ, lines))
        subprocess.run(["diff", os.path.join(work, "opensm", "opensm-lfts.dump"),
                        os.path.join(work, "hcasim", "dump", "opensm-lfts.dump")])
    their_lids = port_lids(os.path.join(work, "opensm", "opensm-subnet.lst"))
    our_lids = port_lids(os.path.join(work, "hcasim", "dump", "opensm-subnet.lst"))
    if their_lids != our_lids:
        failures += 1
        print("FAIL %s: LIDs differ: %s" % (case, sorted(set(their_lids.items()) ^ set(our_lids.items()))))
    if not failures:
        print("ok %s: %d LFT lines and %d port LIDs equal OpenSM's" % (case, lines, len(their_lids)))
    return failures


def port_lids(subnet_lst):
    """PortGUID -> LID of every port end named in opensm-subnet.lst."""
    lids = {}
    with open(subnet_lst) as f:
        for m in re.finditer(r"PortGUID:([0-9a-f]{16}) .*? LID:([0-9A-F]{4})", f.read()):
            lids[m.group(1)] = m.group(2)
    return lids


def main():
    hcasim, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not (shutil.which("opensm") and shutil.which("ibsim") and os.path.exists(UMAD2SIM)):
        print("skipped: OpenSM, ibsim or libumad2sim.so missing (scripts/setup.sh installs them)", file=sys.stderr)
        return 77
    failures = 0
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fabric, sm_node in FABRICS:
            fabric_path = os.path.join(source, "configs", "fabrics", fabric)
            sm_node = sm_node or first_ca(fabric_path)
            for engine, lmc in CASES:
                case = "%s %s lmc %d" % (fabric, engine, lmc)
                work = os.path.join(tmp, "%s-%s-%d" % (fabric, engine, lmc))
                run_opensm(fabric_path, sm_node, engine, lmc, os.path.join(work, "opensm"))
                run_hcasim(hcasim, fabric_path, sm_node, engine, lmc, os.path.join(work, "hcasim"))
                failures += compare(case, work)
                compared += 1
            # dor must not be min-hop under another name: its tables differ wherever a LID has
            # more than one dimension to go (every fabric here but small_cluster).
            ours = {e: open(os.path.join(tmp, "%s-%s-0" % (fabric, e), "hcasim", "dump", "opensm-lfts.dump")).read()
                    for e in ("minhop", "dor")}
            if (ours["minhop"] != ours["dor"]) != (fabric != "small_cluster.ibnd"):
                failures += 1
                print("FAIL %s: dor's tables %s minhop's" % (fabric, "equal" if ours["minhop"] == ours["dor"] else "differ from"))
        for number, (fabric, lmc, files, routes) in enumerate(FTREE_CASES):
            fabric_path = os.path.join(source, "configs", "fabrics", fabric)
            sm_node = first_ca(fabric_path)
            case = "%s ftree lmc %d%s" % (fabric, lmc, "".join(
                ", %s of %s" % (option, "all CAs but %d" % (len(names) - 1) if names[0] == "all but" else len(names))
                for option, names in files.items()))
            work = os.path.join(tmp, "ftree-%d" % number)
            options, routing = [], {}
            for option, names in files.items():
                path = os.path.join(tmp, "ftree-%d.%s" % (number, option))
                with open(path, "w") as f:
                    f.write(guid_file(fabric_path, option, names))
                options += ["--" + option, path]
                routing[option] = path
            run_opensm(fabric_path, sm_node, "ftree", lmc, os.path.join(work, "opensm"), options)
            printed = run_hcasim(hcasim, fabric_path, sm_node, "ftree", lmc, os.path.join(work, "hcasim"), routing)
            with open(os.path.join(work, "opensm", "osm.log")) as f:
                theirs = "ftree tables configured" in f.read()
            ours = "ftree refused the fabric" not in printed
            before = failures
            if (theirs, ours) != (routes, routes):
                failures += 1
                print("FAIL %s: ftree routed: OpenSM %s, hcasim %s, expected %s" % (case, theirs, ours, routes))
            failures += compare(case, work)
            compared += 1
            failures = min(failures, before + 1)  # one failed case counts once
    print("%d of %d cases equal OpenSM's" % (compared - failures, compared))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
