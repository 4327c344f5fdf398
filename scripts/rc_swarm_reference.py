#!/usr/bin/env python3
"""Writes the device pages' reference CSVs (docs/devices/) from a checkout of the public rdma_bench
repository's rc-swarm/sweep files: for each configuration a file lists, the mean over its machines
of their "Machine N average: X M/s" lines, in operations per second.

usage: scripts/rc_swarm_reference.py RDMA_BENCH_DIR [OUT_DIR]   (OUT_DIR: docs/devices)
"""
import csv
import os
import re
import statistics
import sys

DEFINE = re.compile(r"#define (\w+) (\d+)")
AVERAGE = re.compile(r"average: ([\d.]+) M/s")


def configurations(path):
    """[(settings, mean M/s)] of one sweep file: a run is its #defines and the averages after them."""
    runs, settings, values = [], {}, []
    for line in open(path, encoding="utf-8"):
        if m := DEFINE.search(line):
            if values:
                runs.append((dict(settings), statistics.mean(values)))
                values = []
            settings[m.group(1)] = int(m.group(2))
        elif m := AVERAGE.search(line):
            values.append(float(m.group(1)))
    if values:
        runs.append((dict(settings), statistics.mean(values)))
    return runs


def write(out, name, header, rows):
    with open(os.path.join(out, name), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    print(f"wrote {name}: {len(rows)} rows")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip())
    sweep = os.path.join(sys.argv[1], "rc-swarm", "sweep")
    out = sys.argv[2] if len(sys.argv) == 3 else "docs/devices"
    osdi = os.path.join(sweep, "osdi")
    # Connect-IB (NetApp cluster), 6 machines x 14 threads: 32-byte READs over M and the window.
    rows = [(s["VM_PER_MACHINE"], 84 * s["VM_PER_MACHINE"], s["WINDOW_SIZE"], round(v * 1e6))
            for s, v in configurations(os.path.join(osdi, "netapp-allsig-32b_reads-6_machines-varnum_vms"))]
    write(out, "connect-ib-rc-swarm-reads.csv", ["vms", "qps_per_machine", "window", "reads_per_s"], rows)
    rows = [(f"{s['SIZE']}B", s["WINDOW_SIZE"], round(v * 1e6))
            for s, v in configurations(os.path.join(osdi, "netapp-allsig-varsize_reads-6_machines-1_vm"))]
    write(out, "connect-ib-rc-swarm-read-sizes.csv", ["size", "window", "reads_per_s"], rows)
    # 32-byte RC WRITEs, 6 machines, NUM_WORKERS threads in all (84: 14 per machine, one QP per remote machine).
    rows = [(s["NUM_WORKERS"] // 6, s["NUM_WORKERS"], s["WINDOW_SIZE"], s["UNSIG_BATCH"], round(v * 1e6))
            for s, v in configurations(os.path.join(sweep, "netapp-de28929-swarm-32_byte_rc_write_allsig"))]
    write(out, "connect-ib-rc-swarm-writes.csv", ["threads", "qps_per_machine", "window", "unsig_batch", "writes_per_s"],
          rows)
    # ConnectX-3 (Apt cluster), 8 threads per machine: 32-byte READs over M, on 6 and on 11 machines.
    rows = []
    for machines in (6, 11):
        f = os.path.join(osdi, f"apt-allsig-32b_reads-{machines}_machines-varnum_vms")
        rows += [(machines, s["VM_PER_MACHINE"], 8 * machines * s["VM_PER_MACHINE"], s["WINDOW_SIZE"], round(v * 1e6))
                 for s, v in configurations(f)]
    write(out, "connectx-3-rc-swarm-reads.csv", ["machines", "vms", "qps_per_machine", "window", "reads_per_s"], rows)
    rows = [(f"{s['SIZE']}B", s["WINDOW_SIZE"], round(v * 1e6))
            for s, v in configurations(os.path.join(osdi, "apt-allsig-varsize_reads-6_machines-1_vm"))]
    write(out, "connectx-3-rc-swarm-read-sizes.csv", ["size", "window", "reads_per_s"], rows)


if __name__ == "__main__":
    main()
