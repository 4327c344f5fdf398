#!/usr/bin/env python3
"""Debian's verbs binaries against `hcasim serve --verbs` (docs/verbs-apps.md).

Starts `hcasim serve --verbs` on a two-level fat tree (in-band SM) and runs
unmodified binaries through libhcasim-rdmav34.so, as a user would:

  1. ibv_devices and ibv_devinfo -v list the simulated HCAs with the GUIDs
     and LIDs `hcasim validate --dump` gives for the fabric (the SM's), the
     ports Active at 4096-byte MTU, 4X width and the scenario's FDR speed.
  2. ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong between hcasim0 and
     hcasim7 (across the spine) exit 0 with their buffer checks (-c); the
     pcap holds their SEND packets (tshark) and the server's report counts
     every message.
  3. Debian's perftest binaries (ib_write_bw, ib_read_bw, ib_send_bw,
     ib_write_lat, ib_send_lat, ib_read_lat) between two processes exit 0; each
     one's figure in simulated time equals workload.perftest's for the same
     sizes, iterations, depths and inline size within 2 %: bandwidth first post
     to last completion against bw_Gbps, the typical post-to-post interval
     (halved for write_lat and send_lat, as perftest halves) against t_typical.
     perftest turns inline off for a device it does not know (it says
     "Max inline data : 0[B]"), so workload.perftest's latency tests run with
     inline_size 0.
  4. Event mode: ibv_rc_pingpong -e and ib_send_bw -e (the provider preloaded;
     perftest 4.5 itself refuses -e for WRITE).
  5. Errors (verbs_errors): a post to a QP in INIT is EINVAL, one past
     max_send_wr ENOMEM; a WRITE with a wrong R_Key completes with
     IBV_WC_REM_ACCESS_ERR and its QP is in Error; a pingpong killed mid-run
     leaves the server serving (a new pair runs) and its QPs destroyed; a
     libibverbs without the private ABI IBVERBS_PRIVATE_34 gets one line.
  6. Determinism: two servers, each running the same pingpong pair, report
     the same simulated-time figures.
  7. Bad input: --verbs without management in band, with --udp, or a grace
     of 0 is refused in one line, exit 2.

Every process the test starts is ended by its PID.

usage: verbs_apps_test.py HCASIM SOURCE_DIR
exit 0 all held, 1 a failure, 77 skipped (ibverbs-utils, perftest or the
provider missing, or /dev/infiniband/uverbsN cannot be made: not root).
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

from tool_checks import FAILURES, check, stop

PORT = 18700

SCENARIO = {
    "name": "verbs_apps",
    "topology": {"pattern": "fat_tree", "k": 4, "levels": 2},
    "routing": {"algorithm": "minhop"},
    "link": {"speed": "FDR", "width": "4x", "propagation": "2m"},
    "management": {"mode": "in_band", "sm": "hca0.p1"},
    "run": {"seed": 1},
    "outputs": {"pcap": True, "sample_interval": "100us"},
}


class Server:
    """hcasim serve --verbs in its own folder; env() is what programs need."""

    def __init__(self, hcasim, work, name, base, grace=None):
        self.out = os.path.join(work, name)
        self.base = base
        scenario = os.path.join(work, "verbs_apps.json")
        with open(scenario, "w") as f:
            json.dump(SCENARIO, f)
        self.log = open(os.path.join(work, name + ".log"), "w+")
        cmd = [hcasim, "serve", scenario, "--verbs", "--ibsim", base, "--out", self.out]
        if grace:
            cmd += ["--grace", str(grace)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.sysfs = self.drivers = None
        deadline = time.time() + 60
        while time.time() < deadline and self.proc.poll() is None:
            self.log.seek(0)
            m = re.search(r"SYSFS_PATH=(\S+) RDMAV_DRIVERS=(\S+)", self.log.read())
            if m:
                self.sysfs, self.drivers = m.group(1), m.group(2)
                break
            time.sleep(0.1)

    def env(self, preload=False):
        e = dict(os.environ, SYSFS_PATH=self.sysfs, RDMAV_DRIVERS=self.drivers)
        if preload:
            e["LD_PRELOAD"] = self.drivers + "-rdmav34.so"
        return e

    def stop(self):
        code = stop(self.proc, signal.SIGINT, timeout=30)
        self.log.seek(0)
        text = self.log.read()
        with open(os.path.join(self.out, "stats.json")) as f:
            return code, text, json.load(f)


def run(cmd, env, timeout=60):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


def pair(server, server_cmd, client_cmd, preload=False, timeout=120):
    """Starts the passive side, then the active side; both exit codes and outputs."""
    global PORT
    PORT += 1
    env = server.env(preload)
    passive = subprocess.Popen(server_cmd + ["-p", str(PORT)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    time.sleep(0.5)
    try:
        active = subprocess.run(client_cmd + ["-p", str(PORT), "localhost"], env=env, capture_output=True, text=True,
                                timeout=timeout)
        out, _ = passive.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(passive, signal.SIGKILL)
        return 124, 124, "timeout", ""
    return passive.returncode, active.returncode, out, active.stdout + active.stderr


def sm_ports(hcasim, work):
    """(NodeGUID, LID) of each HCA by name, from hcasim validate --dump."""
    scenario = os.path.join(work, "verbs_apps.json")
    dump = os.path.join(work, "dump")
    subprocess.run([hcasim, "validate", scenario, "--dump", dump], check=True, capture_output=True)
    ports = {}
    with open(os.path.join(dump, "opensm-subnet.lst")) as f:
        for line in f:
            m = re.match(r"\{ CA\S* .*?NodeGUID:(\w+) .*?\{(\w+)\} LID:(\w+)", line)
            if m:
                ports[m.group(2)] = (int(m.group(1), 16), int(m.group(3), 16))
    return ports


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    hcasim, source = os.path.abspath(sys.argv[1]), sys.argv[2]
    provider = os.path.join(os.path.dirname(hcasim), "libhcasim-rdmav34.so")
    rkey_program = os.path.join(os.path.dirname(hcasim), "verbs_errors")
    for tool in ["ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ib_write_bw", "tshark"]:
        if shutil.which(tool) is None:
            print(f"skipped: {tool} is not installed (scripts/setup.sh installs it)")
            return 77
    if not os.path.exists(provider) or not os.path.exists(rkey_program):
        print("skipped: libhcasim-rdmav34.so was not built (no libibverbs-dev)")
        return 77
    made = subprocess.run([os.path.join(source, "scripts", "verbs_devices.sh"), "8"], capture_output=True, text=True)
    if made.returncode != 0:
        print("skipped: " + made.stderr.strip())
        return 77

    work = tempfile.mkdtemp(prefix="hcasim-verbs-")
    # Bad input: one line naming what is wrong, exit 2.
    preconfigured = os.path.join(work, "preconfigured.json")
    with open(preconfigured, "w") as f:
        json.dump(dict(SCENARIO, management={"mode": "preconfigured"}), f)
    for args, says in ((["--verbs"], "management.mode"), (["--verbs", "--udp", "4000"], "--udp"),
                       (["--verbs", "--grace", "0"], "--grace")):
        scenario = preconfigured if says == "management.mode" else os.path.join(source, "configs",
                                                                                 "inband_fat_tree.json")
        r = subprocess.run([hcasim, "serve", scenario] + args + ["--out", os.path.join(work, "refused")],
                           capture_output=True, text=True)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and says in r.stderr,
              f"serve {' '.join(args)} refused in one line naming {says} (exit {r.returncode})")
    # ib_write_lat spins on memory between its verbs: each half round trip waits out the grace time.
    server = Server(hcasim, work, "a", f"verbs-test-{os.getpid()}-a", grace=50)
    if not check(server.sysfs is not None, "hcasim serve --verbs says where programs find it"):
        print(server.stop()[1])
        return 1
    try:
        ports = sm_ports(hcasim, work)
        env = server.env()

        # 1. ibv_devices, ibv_devinfo -v
        r = run(["ibv_devices"], env)
        listed = dict(re.findall(r"(hcasim\d+)\s+([0-9a-f]{16})", r.stdout))
        check(r.returncode == 0 and len(listed) == 8, f"ibv_devices lists the 8 HCAs ({len(listed)})")
        check(all(int(listed.get(f"hcasim{i}", "0"), 16) == ports[f"hca{i}"][0] for i in range(8)),
              "their node GUIDs are the fabric's")
        r = run(["ibv_devices"], dict(env, HCASIM_DEVICE="hca5"))
        check(re.findall(r"hcasim\d+", r.stdout) == ["hcasim5"], "HCASIM_DEVICE=hca5 shows that device only")
        for i in (0, 7):
            r = run(["ibv_devinfo", "-v", "-d", f"hcasim{i}"], env)
            lid = re.search(r"port_lid:\s+(\d+)", r.stdout)
            check(r.returncode == 0 and lid is not None and int(lid.group(1)) == ports[f"hca{i}"][1],
                  f"ibv_devinfo hcasim{i}: LID {lid.group(1) if lid else None} is the SM's ({ports[f'hca{i}'][1]})")
            check("PORT_ACTIVE" in r.stdout and re.search(r"active_mtu:\s+4096", r.stdout) is not None and
                  re.search(r"active_width:\s+4X", r.stdout) is not None and
                  re.search(r"active_speed:\s+14.0 Gbps", r.stdout) is not None,
                  f"ibv_devinfo hcasim{i}: Active, MTU 4096, 4X FDR")

        # 2. pingpongs across the spine
        for kind in ("rc", "uc", "ud"):
            tool = f"ibv_{kind}_pingpong"
            size = "2048" if kind == "ud" else "4096"
            a, b, out_a, out_b = pair(server, [tool, "-d", "hcasim7", "-n", "200", "-s", size, "-c"],
                                      [tool, "-d", "hcasim0", "-n", "200", "-s", size, "-c"])
            check(a == 0 and b == 0 and "200 iters" in out_a and "200 iters" in out_b,
                  f"{tool} -c between hcasim0 and hcasim7 exits 0 ({a}, {b})")
            if a != 0 or b != 0:
                print(out_a, out_b)

        # 3. perftest binaries
        for tool in ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat", "ib_send_lat", "ib_read_lat"):
            cmd = [tool, "-s", "64", "-n", "1000" if tool.endswith("bw") else "50"]
            a, b, out_a, out_b = pair(server, cmd + ["-d", "hcasim7"], cmd + ["-d", "hcasim0"])
            check(a == 0 and b == 0, f"{tool} exits 0 ({a}, {b})")
            if a != 0 or b != 0:
                print(out_a, out_b)
            if tool in ("ib_write_lat", "ib_send_lat"):  # READs carry no inline data
                check(re.search(r"Max inline data\s*:\s*0\[B\]", out_b) is not None,
                      f"{tool} runs without inline data on a device it does not know")

        # 4. event mode
        a, b, out_a, out_b = pair(server, ["ibv_rc_pingpong", "-e", "-d", "hcasim7", "-n", "100", "-c"],
                                  ["ibv_rc_pingpong", "-e", "-d", "hcasim0", "-n", "100", "-c"], preload=True)
        check(a == 0 and b == 0 and "100 iters" in out_b, f"ibv_rc_pingpong -e exits 0 ({a}, {b})")
        # perftest 4.5 refuses -e for WRITE itself ("Events feature not available on WRITE verb").
        a, b, out_a, out_b = pair(server, ["ib_send_bw", "-e", "-s", "4096", "-n", "200", "-d", "hcasim7"],
                                  ["ib_send_bw", "-e", "-s", "4096", "-n", "200", "-d", "hcasim0"], preload=True)
        check(a == 0 and b == 0, f"ib_send_bw -e exits 0 ({a}, {b})")
        if a != 0 or b != 0:
            print(out_a, out_b)
        r = run(["ibv_rc_pingpong", "-e", "-d", "hcasim0", "-n", "5", "-p", "1", "localhost"], env, timeout=30)
        check(r.returncode != 0 and "LD_PRELOAD" in r.stderr, "event mode without the preload: one line says why")

        # 5. errors
        r = run([rkey_program, "hcasim0", "hcasim7"], env)
        check(r.returncode == 0 and "status remote access error state 6" in r.stdout,
              "a WRITE with a wrong R_Key: IBV_WC_REM_ACCESS_ERR, the QP in Error")
        check(r.returncode == 0 and "INIT: EINVAL" in r.stdout and "4 taken, the fifth ENOMEM" in r.stdout,
              "ibv_post_send's errors: EINVAL before RTR, ENOMEM past max_send_wr with bad_wr at it")
        if r.returncode != 0:
            print(r.stdout, r.stderr)
        global PORT
        PORT += 1
        passive = subprocess.Popen(["ibv_rc_pingpong", "-d", "hcasim7", "-n", "100000000", "-p", str(PORT)],
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        active = subprocess.Popen(["ibv_rc_pingpong", "-d", "hcasim0", "-n", "100000000", "-p", str(PORT),
                                   "localhost"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        killed_pid = active.pid
        stop(active, signal.SIGKILL)
        stop(passive, signal.SIGKILL)
        a, b, _, _ = pair(server, ["ibv_rc_pingpong", "-d", "hcasim7", "-n", "50", "-c"],
                          ["ibv_rc_pingpong", "-d", "hcasim0", "-n", "50", "-c"])
        check(a == 0 and b == 0 and server.proc.poll() is None, "after a pingpong was killed the server serves a new pair")
        fake = os.path.join(work, "fake")
        os.makedirs(fake)
        with open(os.path.join(fake, "fake.c"), "w") as f:
            f.write("void ibv_get_device_list(void) {}\nvoid verbs_register_driver_99(void) {}\n")
        with open(os.path.join(fake, "fake.map"), "w") as f:
            f.write("IBVERBS_1.1 { global: ibv_get_device_list; };\n"
                    "IBVERBS_PRIVATE_99 { global: verbs_register_driver_99; local: *; };\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", os.path.join(fake, "libibverbs.so.1"),
                        os.path.join(fake, "fake.c"), "-Wl,--version-script=" + os.path.join(fake, "fake.map")],
                       check=True)
        probe = ("import ctypes, sys; ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL); "
                 "ctypes.CDLL(sys.argv[2])")
        r = subprocess.run([sys.executable, "-c", probe, os.path.join(fake, "libibverbs.so.1"), provider],
                           capture_output=True, text=True)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(len(lines) == 1 and "IBVERBS_PRIVATE_34" in lines[0],
              "a libibverbs of another private ABI: the provider refuses in one line")
    finally:
        code, log, stats = server.stop()
    check(code == 0, f"the server stops on SIGINT with exit 0 ({code})")
    clients = stats.get("verbs_programs", {}).get("clients", [])
    killed = [c for c in clients if c["pid"] == killed_pid]
    check(len(killed) == 1 and not killed[0]["connected"], "the killed program's client is disconnected")
    rc = [c for c in clients if c["program"] == "ibv_rc_pingpong" and c["device"] == "hcasim0"]
    check(bool(rc) and rc[0]["qps"][0]["sends_posted"] == 200 and rc[0]["qps"][0]["receives"] == 200 and
          rc[0]["qps"][0]["bytes_posted"] == 200 * 4096,
          "the report counts the rc pingpong's 200 sends and receives of 4096 bytes")
    pcap = os.path.join(server.out, "packets.pcap")
    sends = subprocess.run(["tshark", "-r", pcap, "-Y", "infiniband.bth.opcode == 4 || infiniband.bth.opcode == 100",
                            "-T", "fields", "-e", "infiniband.bth.opcode"], capture_output=True, text=True).stdout.split()
    check(len(sends) >= 2 * 3 * 200, f"the pcap holds the pingpongs' SEND packets ({len(sends)})")
    with open(os.path.join(server.out, "timeseries.csv")) as f:
        rows = sum(1 for line in f if ",hca7.p1," in line and ",bytes_sent," in line)
    check(rows > 0, f"the time series samples the ports as in any run ({rows} rows of hca7.p1's bytes_sent)")

    # 3b. each perftest binary's figure in simulated time against workload.perftest's on the same
    # fabric, sizes, iterations and depths (perftest's defaults: bandwidth tx_depth 128 and
    # cq_moderation 100; latency one WR at a time, rx_depth 512 cut to the iterations) and inline
    # size (none: perftest's choice for a device it does not know).
    builtin = dict(SCENARIO, name="verbs_apps_builtin", outputs={})
    builtin["workload"] = {"perftest": [
        {"test": t, "client": "hca0.p1", "server": "hca7.p1", "sizes": ["64B"],
         "iterations": 1000 if t.endswith("bw") else 50, "inline_size": "0B"}
        for t in ("write_bw", "read_bw", "send_bw", "write_lat", "send_lat", "read_lat")]}
    path = os.path.join(work, "builtin.json")
    with open(path, "w") as f:
        json.dump(builtin, f)
    subprocess.run([hcasim, "run", path, "--out", os.path.join(work, "builtin"), "--quiet"], check=True,
                   capture_output=True)
    with open(os.path.join(work, "builtin", "stats.json")) as f:
        tests = json.load(f)["perftest"]
    for t in tests:
        test, size = t["test"], t["sizes"][0]
        qps = [q for c in clients if c["program"] == "ib_" + test and c["device"] == "hcasim0" for q in c["qps"]
               if q["sends_posted"] == (1000 if test.endswith("bw") else 50)]
        if test.endswith("bw"):
            want, unit = size["bw_Gbps"], "Gb/s"
            mine = [q["bandwidth_gbps"] for q in qps]
        else:
            want, unit = size["latency"]["t_typical_ns"] / 1000, "us"
            halved = size["latency"]["reported"] == "half_round_trip"
            mine = [q["post_interval_us"]["p50"] / (2 if halved else 1) for q in qps]
        check(len(mine) == 1 and abs(mine[0] - want) <= 0.02 * want,
              f"ib_{test} through the provider: {mine[0] if mine else None} {unit} against workload.perftest's "
              f"{want:.4f} (2 %)")

    # 6. determinism: a fresh server each, the same pair
    figures = []
    for name in ("b", "c"):
        s = Server(hcasim, work, name, f"verbs-test-{os.getpid()}-{name}")
        try:
            pair(s, ["ibv_rc_pingpong", "-d", "hcasim7", "-n", "100", "-c"],
                 ["ibv_rc_pingpong", "-d", "hcasim0", "-n", "100", "-c"])
        finally:
            _, _, st = s.stop()
        figures.append([{k: v for k, v in q.items()} for c in st["verbs_programs"]["clients"] for q in c["qps"]])
    check(figures[0] == figures[1] and len(figures[0]) == 2 and "latency_us" in figures[0][0],
          "two runs of the same pingpong pair report the same simulated-time figures")
    if not FAILURES:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("outputs kept in " + work)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
