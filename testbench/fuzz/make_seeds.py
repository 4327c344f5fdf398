#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed inputs (testbench/fuzz/corpus/<harness>/) before
minimisation: shipped configs and fabrics, the iba-facts ICRC vector, hand-made
WQEs, CQEs and SA segment sequences, and packets and MADs from pcaps of runs.

Usage: testbench/fuzz/make_seeds.py OUT_DIR [PCAP ...]
  e.g. build/hcasim run configs/inband_fat_tree.json --pcap --out /tmp/inband
       testbench/fuzz/make_seeds.py /tmp/seeds /tmp/inband/packets.pcap
then minimise into the repository with scripts/fuzz.sh --merge /tmp/seeds (docs/fuzzing.md).
"""
import glob
import hashlib
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPPER_PDU_HEADER = 20  # LINKTYPE_WIRESHARK_UPPER_PDU: the "infiniband" TLV and the end TLV


def put(out, harness, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def pcap_packets(path):
    with open(path, "rb") as f:
        blob = f.read()
    at = 24
    while at + 16 <= len(blob):
        incl = struct.unpack_from("<I", blob, at + 8)[0]
        yield blob[at + 16 + UPPER_PDU_HEADER: at + 16 + incl]
        at += 16 + incl


# MAD class -> the fuzz_mad decoder index (kDecoders order).
MAD_DECODER = {0x01: 1, 0x81: 1, 0x03: 2, 0x21: 3}
# SMP attribute id -> fuzz_mad decoder index of its attribute, read from SMP data at 64.
SMP_ATTR = {0x11: 4, 0x10: 5, 0x15: 6, 0x12: 7, 0x19: 8, 0x17: 9, 0x18: 10, 0x16: 11, 0x20: 13}


def from_pcap(out, path):
    seen = set()
    for p in pcap_packets(path):
        if len(p) < 8:
            continue
        lnh = p[1] & 3
        if lnh < 2:
            key = ("raw", len(p))
            bth = None
        else:
            bth = 8 + (40 if lnh == 3 else 0)
            key = (lnh, p[bth], len(p) // 64)
        if key not in seen:
            seen.add(key)
            put(out, "packet", b"\x00" + p)
        if bth is None or p[bth] != 0x64 or len(p) < bth + 20 + 256:  # UD SEND only
            continue
        mad = p[bth + 20: bth + 20 + 256]
        mkey = (mad[1], mad[3], mad[16:18])
        if mkey in seen or mad[1] not in MAD_DECODER:
            continue
        seen.add(mkey)
        put(out, "mad", bytes([0]) + mad)
        put(out, "mad", bytes([MAD_DECODER[mad[1]]]) + mad)
        attr = struct.unpack(">H", mad[16:18])[0]
        if mad[1] in (0x01, 0x81) and attr in SMP_ATTR:
            put(out, "mad", bytes([SMP_ATTR[attr]]) + mad[64:128])


def handmade(out):
    # iba-facts "Test vectors": the 52-byte [MPGA] packet, LRH..payload; mode 1 reseals
    # its ICRC and VCRC (the 6 bytes after it).
    mpga = bytes.fromhex("7012375C000E17D20A20248700 87B1B3000DEC2A01710A1C015D400238F27A05"
                         "0000000EBB884D85FD5CFBA4728BC0690ED40000".replace(" ", ""))
    put(out, "packet", b"\x01" + mpga[:-4] + b"\x00" * 6)
    # A raw packet (LNH 0): LRH, 8 bytes, VCRC; PktLen 4 words.
    put(out, "packet", b"\x01" + bytes([0x00, 0x00, 0x00, 0x01, 0x00, 0x04, 0x00, 0x02]) + b"\x11" * 8 + b"\x00" * 2)
    for op, vl, fccl in ((0, 0, 0x40), (1, 3, 0xFFF), (0, 14, 1)):
        w0 = op << 12 | 0x123
        w1 = vl << 12 | fccl
        put(out, "fcp", b"\x01" + struct.pack(">HH", w0, w1) + b"\x00\x00")
    # SA reassembly: T = 500 (3 segments): in order; reversed; duplicates, gap and
    # timers; a forged stream; a single packet.
    t = struct.pack("<H", 500)
    for mode, ops in ((1, b"\x00\x01\x02"), (1, b"\x02\x01\x00"), (0, b"\x00\x00\x02\xf1\x01\xf0\x02"),
                      (1, b"\xf1\xf1\xf1\x00"), (3, b"\x00\x01\x00\x01\xf4\x00" * 3)):
        put(out, "sa_reassembly", bytes([mode]) + t + ops)
    put(out, "sa_reassembly", b"\x01" + struct.pack("<H", 100) + b"\x00")
    # Host formats: byte 0 format, byte 1 parameter (host_formats.hpp layouts).
    def ctrl(op, ds, flags=1):
        return bytes([op, flags]) + struct.pack("<HIB", 7, 0x12, ds) + b"\x00" * 3 + struct.pack("<I", 0xABCD)
    sge = struct.pack("<IIQ", 4096, 0x100, 0x10000)
    put(out, "host_formats", b"\x00\x00" + ctrl(0x0A, 2) + sge)                        # RC send
    put(out, "host_formats", b"\x00\x00" + ctrl(0x08, 3) + struct.pack("<QII", 0x2000, 0x200, 0) + sge)  # RDMA write
    put(out, "host_formats", b"\x00\x00" + ctrl(0x11, 4) + struct.pack("<QII", 0x2000, 0x200, 0)
        + struct.pack("<QQ", 5, 6) + struct.pack("<IIQ", 8, 0x100, 0x3000))             # compare and swap
    put(out, "host_formats", b"\x00\x02" + ctrl(0x0A, 3) + struct.pack("<IIHBB4x", 9, 0x11111111, 3, 0, 0) + sge)  # UD send
    put(out, "host_formats", b"\x00\x00" + ctrl(0x0A, 2) + struct.pack("<I", 0x80000005) + b"hello" + b"\x00" * 7)  # inline
    put(out, "host_formats", b"\x01\x02" + sge * 2 + b"\x00" * 32)                   # receive WQE, stride 64
    cqe = (struct.pack("<QIIII", 1000, 4096, 0, 0x12, 0) + struct.pack("<HBBI", 1, 0, 1, 0)
           + struct.pack("<HBBB", 7, 5, 0, 0) + b"\x00" * 26 + b"\x01")
    put(out, "host_formats", b"\x02\x00" + cqe)
    put(out, "host_formats", b"\x03\x06" + struct.pack("<HBBI", 1, 0, 0, 64) * 7 + b"\x00" * 7 + b"\x03")
    mpt = struct.pack("<IIIBBH", 0x100, 0x100, 7, 12, 3, 0) + struct.pack("<QQQQ", 0x10000, 8192, 0, 2) + b"\x00" * 16
    put(out, "host_formats", b"\x04\x00" + mpt)
    # The HCA's MMIO program (fuzz_hca_mmio.cpp): byte 0 the header (bit 0: A's CQ compresses),
    # then ops. A well-formed send WQE (op 3): how (opcode index, 0x08 signaled, 0x20 random
    # keys, 0x40 inline, 0x80 BlueFlame), index (1 byte), length, local and remote offsets, imm,
    # compare, swap; a doorbell (op 4): counter (1 byte), other QP; a receive WQE on B (op 5): index,
    # length, offset; arm (op 6): command, counter; run (op 7): 100 ns units.
    def wqe(how, index, length=4096, local=0, remote=0x100):
        body = struct.pack("<B", index)
        if (how & 7) % 7 < 5:
            body += struct.pack("<H", length)
        return b"\x03" + bytes([how]) + body + struct.pack("<HHIII", local, remote, 7, 1, 2)
    def doorbell(counter):
        return b"\x04" + struct.pack("<BB", counter, 0)
    recv = b"\x05" + struct.pack("<BHH", 0, 4096, 0)
    run = b"\x07\xff"
    put(out, "hca_mmio", b"\x00" + wqe(0x08, 0) + doorbell(1) + run)                       # RDMA WRITE
    put(out, "hca_mmio", b"\x01" + wqe(0x08, 0) + wqe(0x08, 1, 512, 0x2000, 0x3000) + doorbell(2) + run)
    put(out, "hca_mmio", b"\x00" + recv + wqe(0x0A, 0) + doorbell(1) + run)                # SEND
    put(out, "hca_mmio", b"\x00" + wqe(0x0C, 0) + doorbell(1) + run)                       # READ
    put(out, "hca_mmio", b"\x00" + wqe(0x0D, 0) + wqe(0x0E, 1) + doorbell(2) + run)        # atomics
    put(out, "hca_mmio", b"\x00" + wqe(0x88, 0, 64) + run)                                 # BlueFlame
    put(out, "hca_mmio", b"\x00" + wqe(0x28, 0) + doorbell(1) + run)                       # random keys
    put(out, "hca_mmio", b"\x00" + wqe(0x08, 0) + doorbell(9) + b"\x06\x01\x00\x00" + run)  # past the ring; armed
    put(out, "hca_mmio", b"\x00\x02\x00\x00\x00\x02\x02\x00\x08\x00\x02\x02\x00\x10\x00\x02")  # register reads
    put(out, "hca_mmio", b"\x00\x01\x00\x00\x08\x04" + struct.pack("<QII", 0x200000, 5, 0)
        + wqe(0x08, 0) + doorbell(1) + b"\x06\x01\x00\x00" + run)                        # MSI-X entry, armed CQ
    put(out, "hca_mmio", b"\x00\x00\x00\x00\x00\x40" + b"\xab" * 64 + doorbell(1) + run)  # raw bytes in the ring
    # Scenarios: every shipped one, and one with --set overrides.
    for path in sorted(glob.glob(os.path.join(ROOT, "configs", "*.json"))):
        with open(path, "rb") as f:
            text = f.read()
        put(out, "scenario", text)
    with open(os.path.join(ROOT, "configs", "b2b_hdr.json"), "rb") as f:
        put(out, "scenario", f.read() + b"\n--set link.speed=EDR\x00port.vlarb.low=0:64,1:192\x00run.seed=3")
    # ibnetdiscover dumps.
    for path in sorted(glob.glob(os.path.join(ROOT, "configs", "fabrics", "*.ibnd")) +
                       glob.glob(os.path.join(ROOT, "testbench", "tests", "config", "data", "*.ibnetdiscover"))):
        with open(path, "rb") as f:
            put(out, "ibnetdiscover", f.read())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    handmade(out)
    for pcap in sys.argv[2:]:
        from_pcap(out, pcap)


if __name__ == "__main__":
    main()
