#!/usr/bin/env python3
"""The departure fingerprint: which packets left router A on the bottleneck, when, in what order.

A run's fingerprint is the count and the SHA-256 of the packets that **start transmission** on
A's bottleneck interface (A->B) at a time t with ``warmup <= t < duration`` (integer
nanoseconds; ns-3's ``PointToPointNetDevice`` ``PhyTxBegin`` trace, Sluice's pcap record time
of queue ``A->B``, which is written when the packet starts serializing). Every packet counts:
data segments, SYNs, the handshake's ACK, retransmissions (only packets dropped by the queue
disc never start transmission). Each packet contributes 19 bytes, in departure order:

    time_ns  u64   transmission start, ns since the start of the run
    flow     u32   the flow index (flow k is the k-th flow of the record, sender node k); with
                   reverse flows (ns3_dumbbell.py --reverse-flows), a packet from sender node k
                   whose TCP source port is REVERSE_PORT (an ACK of the flow from receiver k)
                   has k + 2**31
    seq      u32   TCP sequence number relative to the flow's SYN: (seq - ISN) mod 2**32,
                   so the SYN is 0 and the first data byte 1 (ns-3's ISN is 0; Sluice's is drawn)
    len      u16   IPv4 total length (IP + TCP headers with options + payload; no PPP header)
    flags    u8    the TCP flags byte (CWR ECE URG ACK PSH RST SYN FIN)

all big-endian, concatenated. Two runs with the same fingerprint sent the same packets of the
same lengths and flags in the same order at the same nanoseconds.

Usage (Sluice's side, from a capture of queue "A->B" with `[monitor] pcap = ["A->B"]`):
    python3 validation/departures.py OUT/A-to-B.pcap --window 30,100 [--dump FILE.csv]
ns-3's side is computed during the run by `ns3_dumbbell.py` (the record's ``departures``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from typing import Any, Callable, Iterable, Iterator

RECORD = struct.Struct(">QIIHB")  # time_ns, flow, seq, len, flags: 19 bytes
SLUICE_BASE = 0x0A000000  # Sluice's node i has address 10.0.0.0 + i + 1; dumbbell sender k is node k
REVERSE_PORT = 5002  # a reverse flow's receiver listens here on the sender node (ns3_dumbbell.py)
REVERSE_BIT = 1 << 31


def fingerprint(records: Iterable[tuple[int, int, int, int, int]]) -> dict[str, Any]:
    """{count, sha256} of (time_ns, flow, rel seq, ip len, flags) tuples in departure order."""
    h, n = hashlib.sha256(), 0
    for r in records:
        h.update(RECORD.pack(*r))
        n += 1
    return {"count": n, "sha256": h.hexdigest()}


def fingerprint_bytes(blob: bytes) -> dict[str, Any]:
    """The fingerprint of already serialized records (what ns3_dumbbell.py's probe writes)."""
    assert len(blob) % RECORD.size == 0, "a whole number of 19-byte records"
    return {"count": len(blob) // RECORD.size, "sha256": hashlib.sha256(blob).hexdigest()}


def unpack(blob: bytes) -> list[tuple[int, int, int, int, int]]:
    return [RECORD.unpack_from(blob, i) for i in range(0, len(blob), RECORD.size)]


def dumbbell_flow(src: int, dst: int, sport: int) -> int:
    """A dumbbell's flow of a packet: its source node's index (sender k is node k and carries
    flow k), with REVERSE_BIT for a reverse flow's ACKs (source port REVERSE_PORT)."""
    return src | (REVERSE_BIT if sport == REVERSE_PORT else 0)


def sluice_pcap(path: str, t0_ns: int, t1_ns: int, flow_of: Callable[[int, int, int], int] = dumbbell_flow) -> Iterator[tuple[int, int, int, int, int]]:
    """The departure tuples of a Sluice capture (nanosecond pcap, PPP link type), for
    transmission starts in [t0_ns, t1_ns); a packet's flow is ``flow_of(source node,
    destination node, source port)``. The snap length must cover the TCP header."""
    with open(path, "rb") as fh:
        b = fh.read()
    magic = struct.unpack("<I", b[:4])[0]
    if magic != 0xA1B23C4D:
        raise SystemExit(f"{path}: not a little-endian nanosecond pcap (Sluice writes those)")
    off = 24
    isn: dict[int, int] = {}
    while off + 16 <= len(b):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", b, off)
        off += 16
        rec = b[off:off + incl]
        off += incl
        ip = rec[2:]  # after the 2-byte PPP protocol field
        if ip[9] != 6:
            continue  # not TCP
        ihl = (ip[0] & 15) * 4
        tcp = ip[ihl:]
        src, dst = (struct.unpack_from(">I", ip, o)[0] - SLUICE_BASE - 1 for o in (12, 16))
        flow = flow_of(src, dst, struct.unpack_from(">H", tcp, 0)[0])
        seq = struct.unpack_from(">I", tcp, 4)[0]
        flags = tcp[13]
        if flags & 0x02:
            isn.setdefault(flow, seq)
        t = sec * 10**9 + nsec
        if t0_ns <= t < t1_ns:
            yield t, flow, (seq - isn.get(flow, 0)) % 2**32, struct.unpack_from(">H", ip, 2)[0], flags


def write_csv(path, rows: Iterable[tuple[int, int, int, int, int]]) -> None:
    """Departure tuples as CSV (time_ns,flow,seq,len,flags), to diff two runs line by line."""
    with open(path, "w") as fh:
        fh.write("time_ns,flow,seq,len,flags\n")
        fh.writelines(",".join(map(str, r)) + "\n" for r in rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pcap", help="Sluice's capture of queue A->B")
    ap.add_argument("--window", required=True, help="WARMUP,DURATION in seconds (or ns with an 'ns' suffix)")
    ap.add_argument("--dump", help="also write the tuples as CSV here")
    args = ap.parse_args()
    t0, t1 = (int(x[:-2]) if x.endswith("ns") else round(float(x) * 1e9) for x in args.window.split(","))
    recs = list(sluice_pcap(args.pcap, t0, t1))
    if args.dump:
        write_csv(args.dump, recs)
    print(json.dumps({"window_ns": [t0, t1], **fingerprint(recs)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
