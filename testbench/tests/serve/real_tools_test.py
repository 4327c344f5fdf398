#!/usr/bin/env python3
"""Debian's own management software against `hcasim serve` (docs/real-tools.md).

Starts `hcasim serve` on a fabric and runs the real binaries through
libumad2sim.so (ibsim's preload library), as an administrator would:

  1. ibstat: the client's node and port as the model's SMA gives them
     (port GUID = node GUID + 1, Initializing and no LID before an SM).
  2. ibnetdiscover on a fat tree, a torus and an imported ibnetdiscover file:
     every link the scenario has, and no other (against the opensm-subnet.lst
     of `hcasim validate --dump`); `hcasim import` of the output round-trips.
  3. The same file under real ibsim: ibnetdiscover's outputs equal apart from
     what ibsim invents (see IBSIM_INVENTS).
  4. Real OpenSM (minhop, updn) sweeps the fabric through the model:
     opensm-lfts.dump equals `hcasim validate --dump`'s for the same engine and
     SM port; ibroute from another client reads the same tables from the
     switches; saquery from a non-SM node is answered by OpenSM through the
     model's fabric.
  5. perfquery on a switch port equals the port's rows in results.db; -R clears.
  6. A link failure while OpenSM runs and traffic flows: Trap 128 reaches
     OpenSM, it re-sweeps, the traffic is rerouted.
  7. Workloads on the subnet OpenSM brought up (management.start_workloads):
     flows and a perftest on OpenSM's LIDs and tables, their data checked.
  8. The UDP transport (--udp; IBSIM_SERVER_NAME, IBSIM_SERVER_PORT).
  9. Clients that misbehave (raw ibsim protocol from this script): 10 clients
     at once, an 11th refused, an unknown SIM_HOST refused, a bad datagram
     ignored, a request lost in the fabric answered with status 110, an SM
     client whose process died; the server goes on and ibstat still works.

Every process the test starts is ended by its PID.

usage: real_tools_test.py HCASIM SOURCE_DIR
exit 0 all held, 1 a failure, 77 opensm, ibsim or libumad2sim.so missing (skipped).
"""
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

from tool_checks import FAILURES, check, stop

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"


class Server:
    """hcasim serve on a scenario; ended by its PID (SIGTERM), stats.json read back."""

    def __init__(self, hcasim, scenario, work, name, udp_port=None):
        self.base = "hcasim-serve-%d-%s" % (os.getpid(), name)
        self.out = os.path.join(work, "out-" + name)
        self.udp_port = udp_port
        udp = ["--udp", "127.0.0.1:%d" % udp_port] if udp_port else []
        self.proc = subprocess.Popen([hcasim, "serve", scenario, "--ibsim", self.base, "--out", self.out] + udp,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("hcasim serve:"):
            stop(self.proc)
            raise SystemExit("hcasim serve did not start: " + line + self.proc.stderr.read())
        self.stats = None
        self.lines = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stdout.readline, "")))
        self.reader.start()

    def wait_line(self, text, seconds):
        """The server's first stdout line containing text, waiting up to seconds; None if none came."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            for line in list(self.lines):
                if text in line:
                    return line
            time.sleep(0.1)
        return None

    def env(self, host, **extra):
        if self.udp_port:
            extra = dict(extra, IBSIM_SERVER_NAME="127.0.0.1", IBSIM_SERVER_PORT=str(self.udp_port))
        return dict(os.environ, IBSIM_SOCKNAME=self.base, SIM_HOST=host, LD_PRELOAD=UMAD2SIM, **extra)

    def tool(self, host, argv, timeout=60, cwd=None, **extra):
        return subprocess.run(argv, env=self.env(host, **extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=timeout, cwd=cwd)

    def close(self):
        stop(self.proc)
        self.reader.join()
        self.returncode = self.proc.returncode
        self.proc.stdout.close()
        self.proc.stderr.close()
        with open(os.path.join(self.out, "stats.json")) as f:
            self.stats = json.load(f)
        return self.stats


def write_scenario(path, name, topology, **extra):
    doc = {"name": name, "topology": topology, "management": {"mode": "external"}}
    doc.update(extra)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


# --- ibnetdiscover output -------------------------------------------------------------------------

def discovered_links(text):
    """{frozenset(((guid, port), (guid, port)))} from ibnetdiscover output (node GUIDs)."""
    links = set()
    node = None
    for line in text.splitlines():
        m = re.match(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            node = int(m.group(1), 16)
            continue
        m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
        if m and node is not None:
            links.add(frozenset(((node, int(m.group(1))), (int(m.group(2), 16), int(m.group(3))))))
    return links


def discovered_nodes(text):
    """{node GUID: (kind, ports, description)}."""
    nodes = {}
    for m in re.finditer(r'^(Switch|Ca)\s+(\d+)\s+"[SH]-([0-9a-f]+)"\s+# "([^"]*)"', text, re.M):
        nodes[int(m.group(3), 16)] = (m.group(1), int(m.group(2)), m.group(4))
    return nodes


def scenario_links(hcasim, scenario, work):
    """The links of a scenario, from `hcasim validate --dump`'s opensm-subnet.lst (node GUIDs)."""
    dump = os.path.join(work, "dump-" + os.path.basename(scenario))
    rc = subprocess.run([hcasim, "validate", scenario, "--dump", dump], stdout=subprocess.DEVNULL).returncode
    if rc not in (0, 1):
        raise SystemExit("hcasim validate failed on " + scenario)
    links = set()
    with open(os.path.join(dump, "opensm-subnet.lst")) as f:
        for line in f:
            ends = re.findall(r"NodeGUID:([0-9a-f]{16}) .*? PN:([0-9A-F]{2}) \}", line)
            if len(ends) == 2:
                links.add(frozenset((int(g, 16), int(p, 16)) for g, p in ends))
    return links


# --- ibsim's protocol by hand (for the misbehaving clients) ----------------------------------------

CTL = struct.Struct("<IIII64s")
SIM_MAGIC = 0xdeadbeef
CONNECT, DISCONNECT, ERROR = 1, 2, 0


class RawClient:
    """One ibsim client spoken by hand; pid is a made-up process id."""

    def __init__(self, base, pid):
        self.base, self.pid = base, pid
        self.ctl = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.ctl.bind(b"\0%s:ctl%d\0" % (base.encode(), pid))
        self.ctl.settimeout(10)
        self.mad = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.mad.bind(b"\0%s:in%d\0" % (base.encode(), pid))
        self.mad.settimeout(10)
        self.client = None

    def control(self, kind, client, data):
        self.ctl.sendto(CTL.pack(SIM_MAGIC, client, kind, len(data), data.ljust(64, b"\0")),
                        b"\0%s:ctl\0" % self.base.encode())
        return CTL.unpack(self.ctl.recv(1024))

    def connect(self, node, issm=False):
        info = struct.pack("<III32s", self.pid, 0, 1 if issm else 0, node.encode())
        _, client, kind, _, data = self.control(CONNECT, 0, info)
        if kind == ERROR:
            return False
        self.client = struct.unpack("<I", data[:4])[0]
        self.mad.connect(b"\0%s:out%d\0" % (self.base.encode(), self.client))
        return True

    def disconnect(self):
        if self.client is not None:
            self.control(DISCONNECT, self.client, b"")
            self.client = None

    def send_dr_get(self, path, attr=0x11, tid=0x1234):
        """A directed-route SubnGet(attr) along path (port numbers after the first hop)."""
        mad = bytearray(256)
        mad[0:4] = bytes([1, 0x81, 1, 0x01])
        mad[7] = len(path)
        mad[8:16] = struct.pack(">Q", tid)
        mad[16:18] = struct.pack(">H", attr)
        mad[32:36] = b"\xff\xff\xff\xff"
        for i, port in enumerate(path):
            mad[128 + 1 + i] = port
        req = struct.pack(">HxxHxxIIIxxxxQ", 0xffff, 0xffff, 0, 0, 0, 256) + bytes(mad)
        self.mad.send(req)

    def receive(self):
        r = self.mad.recv(1024)
        status = struct.unpack(">I", r[16:20])[0]
        return status, r[32:]

    def close(self):
        self.ctl.close()
        self.mad.close()


# --- the cases ---------------------------------------------------------------------------------------

def case_ibstat_and_discovery(hcasim, source, work):
    fabrics = [
        ("fat_tree", {"pattern": "fat_tree", "k": 4, "levels": 2}),
        ("torus", {"pattern": "torus", "x": 3, "y": 3, "hosts_per_switch": 1}),
        ("imported", {"pattern": "ibnetdiscover", "file": os.path.join(source, "configs/fabrics/small_cluster.ibnd")}),
    ]
    for name, topology in fabrics:
        scenario = write_scenario(os.path.join(work, name + ".json"), "serve_" + name, topology)
        want = scenario_links(hcasim, scenario, work)
        server = Server(hcasim, scenario, work, name)
        try:
            r = server.tool("", ["ibstat"])
            node = re.search(r"Node GUID: 0x([0-9a-f]+)", r.stdout)
            port = re.search(r"Port GUID: 0x([0-9a-f]+)", r.stdout)
            check(r.returncode == 0 and node and port and int(port.group(1), 16) == int(node.group(1), 16) + 1
                  and "State: Initializing" in r.stdout and "Base lid: 0" in r.stdout,
                  "%s: ibstat shows the default HCA in Init without a LID, port GUID = node GUID + 1" % name)
            r = server.tool("", ["ibnetdiscover"])
            got = discovered_links(r.stdout)
            check(r.returncode == 0 and got == want,
                  "%s: ibnetdiscover finds the scenario's %d links and no other (found %d, %d missing, %d extra)"
                  % (name, len(want), len(got), len(want - got), len(got - want)))
            if name == "imported":
                discovered = os.path.join(work, "discovered.ibnd")
                with open(discovered, "w") as f:
                    f.write(r.stdout)
                round_trip(hcasim, work, discovered, r.stdout)
        finally:
            server.close()


def round_trip(hcasim, work, discovered, text):
    imported = os.path.join(work, "round_trip_topology.json")
    rc = subprocess.run([hcasim, "import", discovered, "--out", imported], stdout=subprocess.DEVNULL).returncode
    if not check(rc == 0, "imported: hcasim import reads ibnetdiscover's output of the served fabric"):
        return
    scenario = write_scenario(os.path.join(work, "round_trip.json"), "round_trip",
                              {"pattern": "explicit", "file": imported})
    server = Server(hcasim, scenario, work, "round_trip")
    try:
        again = server.tool("", ["ibnetdiscover"]).stdout
    finally:
        server.close()
    check(discovered_links(again) == discovered_links(text) and discovered_nodes(again) == discovered_nodes(text),
          "imported: served again from hcasim import's topology, ibnetdiscover finds the same %d nodes and %d links"
          % (len(discovered_nodes(text)), len(discovered_links(text))))


# What ibsim invents that the model does not, in ibnetdiscover's output: the header's date line;
# "enhanced port 0" (ibsim's switches all claim it); the LID column of the first run; the speed
# (ibsim reports every port at its netfile's speed or 4xSDR).
IBSIM_INVENTS = [
    (re.compile(r"^# Topology file: generated on .*$", re.M), "# Topology file: generated on DATE"),
    (re.compile(r" enhanced port 0"), " base port 0"),
    (re.compile(r" lid \d+"), " lid L"),
    (re.compile(r"\s\d+x[A-Z?]+"), " WIDTHxSPEED"),
    (re.compile(r"^(vendid|devid)=.*$", re.M), r"\1=ID"),
]


def normalized(text):
    for pattern, repl in IBSIM_INVENTS:
        text = pattern.sub(repl, text)
    return text


def case_same_as_ibsim(hcasim, source, work):
    fabric = os.path.join(source, "configs/fabrics/small_cluster.ibnd")
    ibsim_dir = os.path.join(work, "ibsim")
    os.makedirs(ibsim_dir)
    shutil.copy(fabric, os.path.join(ibsim_dir, "net"))
    base = "hcasim-serve-ibsim-%d" % os.getpid()
    ibsim = subprocess.Popen(["ibsim", "-s", "-n", "net"], cwd=ibsim_dir, env=dict(os.environ, IBSIM_SOCKNAME=base),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        theirs = subprocess.run(["ibnetdiscover"], env=dict(os.environ, IBSIM_SOCKNAME=base, LD_PRELOAD=UMAD2SIM),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    finally:
        stop(ibsim)
    scenario = write_scenario(os.path.join(work, "same.json"), "serve_same", {"pattern": "ibnetdiscover", "file": fabric})
    server = Server(hcasim, scenario, work, "same")
    try:
        ours = server.tool("", ["ibnetdiscover"]).stdout
    finally:
        server.close()
    # ibnetdiscover lists nodes in the order their answers came: compared as a set of node blocks
    a = sorted(normalized(theirs).split("\n\n")[1:])
    b = sorted(normalized(ours).split("\n\n")[1:])
    if not check(a == b and discovered_links(theirs),
                 "small_cluster.ibnd: ibnetdiscover under ibsim and under hcasim serve equal (apart from what "
                 "ibsim invents: date, enhanced port 0, LIDs, speeds, IDs)"):
        for x, y in zip(a, b):
            if x != y:
                print("  ibsim: " + x.replace("\n", "\n         ") + "\n  serve: " + y.replace("\n", "\n         "))


def lft_entries(text):
    """{(switch GUID, LID): port} from opensm-lfts.dump or ibroute output."""
    out = {}
    guid = None
    for line in text.splitlines():
        m = re.match(r"^0x([0-9a-fA-F]+) (\d+) ", line)
        if m and guid is not None:
            out[(guid, int(m.group(1), 16))] = int(m.group(2))
            continue
        m = re.search(r"of switch .*guid 0x([0-9a-f]+)", line)
        if m:
            guid = int(m.group(1), 16)
    return out


def case_opensm(hcasim, source, work):
    fabrics = [
        ("fat_tree", {"pattern": "fat_tree", "k": 4, "levels": 2}, "hca0"),
        ("irregular", {"pattern": "ibnetdiscover", "file": os.path.join(source, "configs/fabrics/torus3x3_irregular.ibnd")},
         first_ca(os.path.join(source, "configs/fabrics/torus3x3_irregular.ibnd"))),
    ]
    for name, topology, sm in fabrics:
        for engine in ("minhop", "updn"):
            label = "%s %s" % (name, engine)
            perf = None
            case_dir = os.path.join(work, "osm-%s-%s" % (name, engine))
            os.makedirs(case_dir)
            scenario = write_scenario(os.path.join(case_dir, "scenario.json"), "serve_osm", topology)
            server = Server(hcasim, scenario, case_dir, "osm")
            try:
                nodes = discovered_nodes(server.tool(sm, ["ibnetdiscover"]).stdout)
                other = "H-%016x" % max(g for g, (kind, _, _) in nodes.items() if kind == "Ca")
                sm_host = sm
                env = {"OSM_TMP_DIR": case_dir, "OSM_CACHE_DIR": case_dir}
                osm = subprocess.Popen(["opensm", "-R", engine, "-F", "/dev/null", "-f",
                                        os.path.join(case_dir, "osm.log"), "-D", "0x41"],
                                       env=server.env(sm_host, **env), cwd=case_dir, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
                try:
                    dump = os.path.join(case_dir, "opensm-lfts.dump")
                    wait_for_file(dump, 60)
                    theirs = open(dump).read() if os.path.exists(dump) else ""
                    ours_dir = os.path.join(case_dir, "validate")
                    with open(scenario) as f:
                        doc = json.load(f)
                    doc["management"] = {"sm": sm + ".p1"}
                    doc["routing"] = {"algorithm": engine}
                    vscenario = os.path.join(case_dir, "validate.json")
                    with open(vscenario, "w") as f:
                        json.dump(doc, f)
                    subprocess.run([hcasim, "validate", vscenario, "--dump", ours_dir], stdout=subprocess.DEVNULL)
                    ours = open(os.path.join(ours_dir, "opensm-lfts.dump")).read()
                    check(theirs != "" and theirs == ours,
                          "%s: real OpenSM's opensm-lfts.dump through the model equals hcasim's own routing (%d lines)"
                          % (label, theirs.count("\n")))
                    # ibroute from another client reads the tables the switches now hold
                    table = lft_entries(ours)
                    read = {}
                    for lid in re.findall(r"of switch Lid (\d+) guid", ours)[:3]:
                        r = server.tool(host_name(other, name), ["ibroute", lid])
                        read.update(lft_entries(r.stdout))
                    want = {k: v for k, v in table.items() if k[0] in {g for (g, _) in read}}
                    check(read and read == want,
                          "%s: ibroute from another client reads %d LFT entries of 3 switches, all equal OpenSM's"
                          % (label, len(read)))
                    if name == "fat_tree" and engine == "updn":
                        r = server.tool("hca7", ["ibstat"])
                        check("State: Active" in r.stdout and re.search(r"Base lid: [1-9]", r.stdout)
                              and "SM lid: 1" in r.stdout,
                              "%s: after OpenSM's sweep ibstat on hca7 shows the port Active with a LID, SM lid 1"
                              % label)
                        sa_answers(server, host_name(other, name))
                        perf = perfquery_switch_port(server, ours)
                finally:
                    stop(osm)
            finally:
                stats = server.close()
            if name == "fat_tree" and engine == "updn" and perf:
                compare_perfquery(perf, server.out)
            ext = stats["management"]["external"]
            check(ext["answered"] > 0 and ext["mads_in"].get("0x81", 0) > 0,
                  "%s: stats.json management.external counts the sweep's MADs (%d answered, %s in)"
                  % (label, ext["answered"], ext["mads_in"]))


def first_ca(fabric_path):
    with open(fabric_path) as f:
        m = re.search(r'^Ca\s+\d+\s+"([^"]+)"', f.read(), re.M)
    return m.group(1)


def host_name(node_id, fabric):
    """SIM_HOST of a CA: the pattern fabric's node name (hca<i>), the imported fabric's node id."""
    if fabric != "fat_tree":
        return node_id
    return "hca%d" % (((int(node_id[2:], 16) & 0xFFFFFF) >> 8) - 1)


def wait_for_file(path, seconds):
    """Until path exists and its size held for half a second (OpenSM has written it)."""
    deadline, size, since = time.time() + seconds, -1, time.time()
    while time.time() < deadline:
        now = os.path.getsize(path) if os.path.exists(path) else -1
        if now != size:
            size, since = now, time.time()
        elif size > 0 and time.time() - since >= 0.5:
            return
        time.sleep(0.1)


def sa_answers(server, host):
    r = server.tool(host, ["saquery", "1"])
    check(r.returncode == 0 and "NodeRecord dump" in r.stdout and re.search(r"lid\.+1\b", r.stdout),
          "saquery from %s (not the SM's node) gets the NodeRecord of LID 1 from OpenSM through the model" % host)
    r = server.tool(host, ["saquery", "-p", "--src-to-dst", "1:2"])
    check(r.returncode == 0 and re.search(r"dlid\.+2\b", r.stdout) and re.search(r"slid\.+1\b", r.stdout),
          "saquery -p 1:2 from %s gets a PathRecord from LID 1 to LID 2" % host)


def perf_fields(text):
    return {k: int(v) for k, v in re.findall(r"^(\w+):\.+(\d+)$", text, re.M)}


def perfquery_switch_port(server, lfts):
    """perfquery, perfquery -x and perfquery -R on sw1_0's port 2 (hca1's link, off every path the tools use)."""
    lid = re.search(r"of switch Lid (\d+) guid \S+ \('sw1_0'\)", lfts).group(1)
    basic = server.tool("hca7", ["perfquery", lid, "2"])
    extended = server.tool("hca7", ["perfquery", "-x", lid, "2"])
    ok = check(basic.returncode == 0 and extended.returncode == 0,
               "perfquery and perfquery -x on sw1_0 port 2 (LID %s) from hca7 are answered by the switch's PMA" % lid)
    reset = server.tool("hca7", ["perfquery", "-R", lid, "2"])
    after = server.tool("hca7", ["perfquery", lid, "2"])
    a = perf_fields(after.stdout)
    check(reset.returncode == 0 and a.get("PortXmitData") == 0 and a.get("PortRcvPkts") == 0,
          "perfquery -R clears sw1_0 port 2's counters (then %s words, %s packets)"
          % (a.get("PortXmitData"), a.get("PortRcvPkts")))
    return (perf_fields(basic.stdout), perf_fields(extended.stdout)) if ok else None


def compare_perfquery(perf, out_dir):
    """perfquery's counters of sw1_0 port 2 against that port's rows in the run's results.db (before the reset,
    which only the PMA sees)."""
    basic, extended = perf
    db = sqlite3.connect(os.path.join(out_dir, "results.db"))
    rows = db.execute("SELECT tx_packets, tx_bytes, rx_packets, rx_bytes FROM port_vls WHERE port LIKE '%sw1_0.p2'").fetchall()
    db.close()
    tx_pkts, tx_bytes = sum(r[0] for r in rows), sum(r[1] for r in rows)
    rx_pkts, rx_bytes = sum(r[2] for r in rows), sum(r[3] for r in rows)
    want = {"PortXmitData": (tx_bytes - 2 * tx_pkts) // 4, "PortRcvData": (rx_bytes - 2 * rx_pkts) // 4,
            "PortXmitPkts": tx_pkts, "PortRcvPkts": rx_pkts}
    got = {k: basic.get(k) for k in want}
    check(got == want and all(v > 0 for v in want.values()),
          "perfquery on sw1_0 port 2 equals results.db's counts of that port (4-byte words up to the VCRC): %s" % got)
    got_x = {k: extended.get(k) for k in want}
    check(got_x == want, "perfquery -x gives the same 64-bit counts: %s" % got_x)


def case_link_failure(hcasim, work):
    """A link_events failure while OpenSM runs and traffic flows: Trap 128 reaches OpenSM, it sweeps again and
    routes around the link, and the traffic that crossed it is rerouted.

    Sixteen flows of 5,000 packets at 1 Gb/s (about 165 ms each) start when the subnet is up: from the four hosts
    under sw1_0 to twelve hosts under the other leaves, and from four of those back to them; sw1_0's uplink on
    port 5 fails at 50 ms. Packets sent on the failed link between the failure and OpenSM's new tables are lost;
    without the new tables every flow that used it would lose everything after 50 ms (over two thirds)."""
    case_dir = os.path.join(work, "trap")
    os.makedirs(case_dir)
    count = 5000
    flows = [("hca%d" % (i % 4), "hca%d" % (4 + i)) for i in range(12)] + [("hca%d" % (4 + 3 * i), "hca%d" % i)
                                                                         for i in range(4)]
    workload = {"flows": [{"name": "f%d" % i, "src": a + ".p1", "dst": b + ".p1", "payload": "4KiB",
                           "rate": "1Gb/s", "count": count} for i, (a, b) in enumerate(flows)]}
    scenario = write_scenario(os.path.join(case_dir, "scenario.json"), "serve_trap",
                              {"pattern": "fat_tree", "k": 4, "levels": 2},
                              link_events=[{"link": "sw1_0.p5", "down": "50ms"}], workload=workload)
    server = Server(hcasim, scenario, case_dir, "trap")
    try:
        env = {"OSM_TMP_DIR": case_dir, "OSM_CACHE_DIR": case_dir}
        osm = subprocess.Popen(["opensm", "-R", "updn", "-F", "/dev/null", "-f", os.path.join(case_dir, "osm.log"),
                                "-D", "0x43"], env=server.env("hca0", **env), cwd=case_dir, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            dump = os.path.join(case_dir, "opensm-lfts.dump")
            wait_for_file(dump, 60)
            before = lft_entries(open(dump).read()) if os.path.exists(dump) else {}
            first = os.path.getmtime(dump) if os.path.exists(dump) else 0
            deadline = time.time() + 30
            while time.time() < deadline and (not os.path.exists(dump) or os.path.getmtime(dump) == first):
                time.sleep(0.2)
            wait_for_file(dump, 10)
            after = lft_entries(open(dump).read()) if os.path.exists(dump) else {}
            done = server.wait_line("workloads finished", 120)
            # the failed port's transmit discard details, read from a host through the fabric
            sw_lid = re.search(r"of switch Lid (\d+) guid \S+ \('sw1_0'\)", open(dump).read()).group(1)
            details = perf_fields(server.tool("hca7", ["perfquery", "-D", sw_lid, "5"]).stdout)
            errors = perf_fields(server.tool("hca7", ["perfquery", "-E", sw_lid, "5"]).stdout)
        finally:
            stop(osm)
    finally:
        stats = server.close()
    log = open(os.path.join(case_dir, "osm.log")).read()
    db = sqlite3.connect(os.path.join(server.out, "results.db"))
    delivered = dict(db.execute("SELECT name, packets_delivered FROM flows").fetchall())
    discards = db.execute("SELECT SUM(drops_link_down) FROM port_vls").fetchone()[0]
    at_port = db.execute("SELECT SUM(drops_link_down) FROM port_vls WHERE port LIKE '%sw1_0.p5'").fetchone()[0]
    db.close()
    check(details.get("PortInactiveDiscards") == at_port and at_port > 0
          and "PortSwHOQLifetimeLimitDiscards" in details and errors.get("PortLocalPhysicalErrors") == 0
          and "PortLoopingErrors" in errors,
          "perfquery -D on sw1_0 port 5: PortInactiveDiscards %s, the port's link-down drops in results.db %s; "
          "perfquery -E answers PortRcvErrorDetails" % (details.get("PortInactiveDiscards"), at_port))
    lost = {f: count - n for f, n in delivered.items() if n < count}
    check(done is not None and len(delivered) == len(flows),
          "the %d flows ran to their end across the failure (%s)" % (len(flows), (done or "not finished").strip()))
    check(lost and all(n >= 0.9 * count for n in delivered.values()),
          "traffic on the failed link is rerouted: %d flows lost packets (%s), every flow delivered at least 90%% "
          "of its %d (fewest %d); %s packets were dropped at a port whose link was down"
          % (len(lost), ", ".join("%s %d" % kv for kv in sorted(lost.items())), count,
             min(delivered.values()) if delivered else 0, discards))
    sw = 0x0002c90300001100  # sw1_0
    used_before = sum(1 for (g, _), port in before.items() if g == sw and port == 5)
    used_after = sum(1 for (g, _), port in after.items() if g == sw and port == 5)
    check(stats["management"]["external"]["traps_forwarded"] >= 1 and re.search(r"\b128\b", log) is not None,
          "the link failure's Trap 128 reaches OpenSM (%d traps forwarded)"
          % stats["management"]["external"]["traps_forwarded"])
    routed_before = sum(1 for (g, _) in before if g == sw)
    routed_after = sum(1 for (g, _) in after if g == sw)
    check(used_before > 0 and used_after == 0 and routed_after == routed_before,
          "OpenSM sweeps again and routes around sw1_0 port 5: %d of sw1_0's LFT entries used it, %d do after, "
          "all %d LIDs still routed from sw1_0" % (used_before, used_after, routed_before))


def case_traffic_after_subnet_up(hcasim, work):
    """management.start_workloads subnet_up: flows, a permutation pattern and a perftest run on the LIDs and
    tables real OpenSM wrote.

    OpenSM runs on hca7, not on the scenario's SM port (hca0.p1), so the LIDs it assigns differ from the
    ones `hcasim validate` derives: the workloads only deliver if they took the LIDs at subnet up."""
    flows = [("a", "hca1", "hca14", "4KiB", "50%"), ("b", "hca5", "hca10", "2KiB", "saturate"),
             ("c", "hca14", "hca2", "4KiB", "30%"), ("d", "hca13", "hca10", "2KiB", "saturate")]
    count = 300
    for name, topology, engine in (("fat_tree", {"pattern": "fat_tree", "k": 4, "levels": 2}, "updn"),
                                   ("torus", {"pattern": "torus", "x": 3, "y": 3, "hosts_per_switch": 2}, "updn")):
        case_dir = os.path.join(work, "traffic-" + name)
        os.makedirs(case_dir)
        hosts = 16 if name == "fat_tree" else 18
        workload = {
            "flows": [{"name": f, "src": src + ".p1", "dst": dst + ".p1", "payload": size, "rate": rate,
                       "count": count} for f, src, dst, size, rate in flows],
            "patterns": [{"name": "perm", "kind": "permutation", "payload": "1KiB", "rate": "20%", "count": 200,
                          "hosts": ["hca%d.p1" % h for h in (4, 6, 8, 9, 11, 15)]}],
            "perftest": [{"test": "write_bw", "client": "hca3.p1", "server": "hca12.p1",
                          "sizes": ["4KiB", "64KiB"], "iterations": 200}]}
        scenario = write_scenario(os.path.join(case_dir, "scenario.json"), "serve_traffic_" + name, topology,
                                  workload=workload)
        dump = os.path.join(case_dir, "validate")
        subprocess.run([hcasim, "validate", scenario, "--dump", dump], stdout=subprocess.DEVNULL)
        scenario_lids = {m.group(1): int(m.group(2), 16) for m in re.finditer(
            r"\{(hca\d+)\} LID:([0-9A-Fa-f]+)", open(os.path.join(dump, "opensm-subnet.lst")).read())}
        server = Server(hcasim, scenario, case_dir, "traffic")
        quiet = {}
        try:
            before = server.tool("hca7", ["ibstat"]).stdout
            check("Base lid: 0" in before, "%s: before an SM, hca7 has no LID (ports Init, workloads held)" % name)
            env = {"OSM_TMP_DIR": case_dir, "OSM_CACHE_DIR": case_dir}
            osm = subprocess.Popen(["opensm", "-R", engine, "-F", "/dev/null", "-f", os.path.join(case_dir, "osm.log"),
                                    "-D", "0x41"], env=server.env("hca7", **env), cwd=case_dir,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            try:
                up = server.wait_line("subnet up", 60)
                done = server.wait_line("workloads finished", 60)
                check(up is not None and done is not None,
                      "%s: OpenSM %s brings the subnet up, then the workloads run to their end (%s; %s)"
                      % (name, engine, (up or "no subnet up").strip(), (done or "not finished").strip()))
                lid7 = re.search(r"Base lid: (\d+)", server.tool("hca7", ["ibstat"]).stdout)
                check(lid7 is not None and int(lid7.group(1)) != scenario_lids.get("hca7"),
                      "%s: OpenSM on hca7 gave it LID %s, not the scenario's %s: the workloads use OpenSM's LIDs"
                      % (name, lid7.group(1) if lid7 else "?", scenario_lids.get("hca7")))
                for host in sorted({dst for _, _, dst, _, _ in flows} | {"hca12", "hca0"}):
                    quiet[host] = perf_fields(server.tool(host, ["perfquery"]).stdout).get("PortRcvPkts", -1)
                # b and d both saturate hca10's link: hca5's port waits for credits
                wait = perf_fields(server.tool("hca5", ["perfquery"]).stdout).get("PortXmitWait")
            finally:
                stop(osm)
        finally:
            stats = server.close()
        check(server.returncode == 0, "%s: hcasim serve ends with exit code 0 (every check held)" % name)
        db = sqlite3.connect(os.path.join(server.out, "results.db"))
        got = dict(db.execute("SELECT name, packets_delivered FROM flows").fetchall())
        wait_ps, rate = db.execute("SELECT xmit_wait_ps, data_rate_bps FROM ports WHERE name = 'hca5.p1'").fetchone()
        stalls = [r[0] for r in db.execute("SELECT credit_stall_ps FROM port_vls WHERE port = 'hca5.p1' AND vl < 15")]
        db.close()
        tick_ps = round(8 * 8e12 / rate)  # 8 byte times of the port
        check(wait is not None and wait > 0 and wait == wait_ps // tick_ps
              and max(stalls) <= wait_ps <= sum(stalls),
              "%s: perfquery's PortXmitWait on hca5 (incast with d) is its credit-stall time in 8-byte ticks: "
              "%s = %d ps / %d ps, between the largest and the sum of its VLs' stalls" % (name, wait, wait_ps, tick_ps))
        want = {f: count for f, _, _, _, _ in flows}
        want.update({"perm.hca%d.p1" % h: 200 for h in (4, 6, 8, 9, 11, 15)})
        check(got == want, "%s: every flow delivered its packets (%d flows, a permutation pattern's six among them): %s"
              % (name, len(want), got))
        test = stats["perftest"][0]
        check(test["ok"] and not test["failures"] and all(z["done"] for z in test["sizes"]),
              "%s: the write_bw test ran every size with its data checked (%s)"
              % (name, ", ".join("%s B %.1f Gb/s" % (z["bytes"], z["bw_Gbps"]) for z in test["sizes"])))
        check(stats["checker"]["ok"] and stats["checker"]["packets_checked"] > 0,
              "%s: the link checker watched %d packets, no violation" % (name, stats["checker"]["packets_checked"]))
        # perfquery at the destinations: each flow's packets reached the port its destination names
        check(all(quiet[dst] >= count for _, _, dst, _, _ in flows) and quiet["hca12"] >= 400,
              "%s: perfquery at each flow's destination counts its packets there: %s" % (name, quiet))
        check(0 <= quiet["hca0"] < 100, "%s: a port no workload sends to received only MADs (%d packets)"
              % (name, quiet["hca0"]))
        check(stats["management"]["subnet_up_us"] > 0, "%s: stats.json says when the subnet came up (%.1f us)"
              % (name, stats["management"]["subnet_up_us"]))


def free_udp_ports(count):
    """A port p with p .. p + count - 1 free for UDP on 127.0.0.1 (checked by binding them)."""
    for _ in range(200):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        base = probe.getsockname()[1]
        probe.close()
        if base + count > 65535:
            continue
        held = []
        try:
            for p in range(base, base + count):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                held.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise SystemExit("no 12 free UDP ports in a row on 127.0.0.1")


def case_udp(hcasim, work):
    """The UDP transport (IBSIM_SERVER_NAME, IBSIM_SERVER_PORT; hcasim serve --udp): ibstat and ibnetdiscover."""
    case_dir = os.path.join(work, "udp")
    os.makedirs(case_dir)
    scenario = write_scenario(os.path.join(case_dir, "scenario.json"), "serve_udp",
                              {"pattern": "fat_tree", "k": 4, "levels": 2})
    port = free_udp_ports(12)
    server = Server(hcasim, scenario, case_dir, "udp", udp_port=port)
    try:
        r = server.tool("hca3", ["ibstat"])
        check(r.returncode == 0 and "Port GUID: 0x0002c90300000401" in r.stdout,
              "over UDP (port %d): ibstat on hca3 reads its port GUID" % port)
        r = server.tool("hca3", ["ibnetdiscover"])
        want = scenario_links(hcasim, scenario, case_dir)
        got = discovered_links(r.stdout)
        check(r.returncode == 0 and got == want,
              "over UDP: ibnetdiscover finds the scenario's %d links and no other (%d found)" % (len(want), len(got)))
    finally:
        stats = server.close()
    check(stats["management"]["external"]["answered"] > 0 and stats["management"]["external"]["connects"] >= 2,
          "over UDP: stats.json counts the clients and their MADs (%d answered)"
          % stats["management"]["external"]["answered"])


def case_bad_clients(hcasim, work):
    scenario = write_scenario(os.path.join(work, "bad.json"), "serve_bad", {"pattern": "fat_tree", "k": 4, "levels": 2})
    server = Server(hcasim, scenario, work, "bad")
    clients = []
    try:
        base = server.base
        pid = 4_000_000
        for i in range(10):
            c = RawClient(base, pid + i)
            clients.append(c)
            check(c.connect("hca%d" % i) and c.client == i, "raw client %d attaches (ten at once)" % i)
        extra = RawClient(base, pid + 10)
        check(not extra.connect("hca10"), "an 11th client is refused with an ERROR reply")
        extra.close()
        clients[0].disconnect()
        unknown = RawClient(base, pid + 11)
        check(not unknown.connect("no_such_node"), "a client naming an unknown node is refused with an ERROR reply")
        unknown.close()
        # a bad datagram on the control socket: no answer, the server goes on
        junk = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        junk.sendto(b"junk", b"\0%s:ctl\0" % base.encode())
        junk.close()
        # a request lost in the fabric (a switch port that does not exist): status 110
        c = clients[1]
        c.send_dr_get([1, 9])
        status, _ = c.receive()
        check(status == 110, "a directed-route SMP to port 9 of an 8-port switch comes back with status 110")
        c.send_dr_get([1])
        status, mad = c.receive()
        check(status == 0 and mad[3] == 0x81 and mad[64 + 2] == 2,
              "a directed-route NodeInfo one hop out is answered by the switch's SMA (NodeType 2)")
        # an SM client whose process died: the SMInfo Get meant for it finds its socket gone; it is
        # disconnected and the asker gets status 110
        dying = RawClient(base, pid + 12)
        clients.append(dying)
        check(dying.connect("hca0", issm=True), "a raw client attaches to hca0 as its SM")
        dying.mad.close()
        c.send_dr_get([1, 1], attr=0x20)  # hca1 -> sw1_0 -> its port 1: hca0
        status, _ = c.receive()
        check(status == 110, "an SMInfo Get for an SM whose process died comes back to its sender with status 110")
        for c in clients[3:]:
            c.disconnect()
        r = server.tool("hca12", ["ibstat"])
        check(r.returncode == 0 and "Port GUID" in r.stdout, "after all that the server still answers ibstat")
    finally:
        for c in clients:
            try:
                c.close()
            except OSError:
                pass
        stats = server.close()
    ext = stats["management"]["external"]
    check(ext["clients_attached_peak"] == 10 and ext["control_errors"] >= 2 and ext["discarded"] >= 1
          and ext["status_110"] >= 1 and ext["dead_clients"] >= 1,
          "stats.json counts it: peak 10 clients, %d control errors, %d discarded, %d status 110, %d dead clients"
          % (ext["control_errors"], ext["discarded"], ext["status_110"], ext["dead_clients"]))


def main():
    hcasim, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    missing = [t for t in ("opensm", "ibsim", "ibnetdiscover", "ibstat", "ibroute", "saquery") if not shutil.which(t)]
    if missing or not os.path.exists(UMAD2SIM):
        print("skipped: %s missing (scripts/setup.sh installs opensm, ibsim-utils and infiniband-diags)"
              % ", ".join(missing or [UMAD2SIM]), file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as work:
        case_ibstat_and_discovery(hcasim, source, work)
        case_same_as_ibsim(hcasim, source, work)
        case_opensm(hcasim, source, work)
        case_link_failure(hcasim, work)
        case_traffic_after_subnet_up(hcasim, work)
        case_udp(hcasim, work)
        case_bad_clients(hcasim, work)
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
