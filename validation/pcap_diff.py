#!/usr/bin/env python3
"""Find where a Sluice run and an ns-3 run of the same dumbbell part, packet by packet.

Compares the sender→receiver packets leaving router A on the bottleneck, in order: flow,
relative sequence number, TCP flags and payload length must match, and times must agree within
ns-3's microsecond capture resolution. Prints how many packets agree and the first difference
with the packets around it.

At nanosecond resolution, over the measurement window only: the departure lists behind the
fixtures' fingerprints, `validation/departures.py SLUICE --window W,D --dump A.csv` against
`validation/ns3_dumbbell.py ... --departures-out B.csv` (`diff A.csv B.csv`).

Inputs (both PPP link type):
  SLUICE  Sluice's capture of queue "A->B": `[monitor] pcap = ["A->B"]`, `sluice-sim FILE --out DIR`
          (DIR/A-to-B.pcap; nanosecond timestamps). Dumbbell senders are nodes 0..n-1, so
          flow k's sender has address 10.0.0.(k+1); the ACKs of a reverse flow
          (source port 5002) are flow k + 2^31, as in validation/departures.py.
  NS3     `validation/ns3_dumbbell.py --case CASE --pcap FILE [--until S]`: A's bottleneck
          device in both directions; flow k's sender sits on subnet 2k.

Example (the data-centre case, first 3.2 s; the Sluice scenario is the case as
validation/compare.py writes it, `scenario(case, None)`, with duration "3.2s" and
`[monitor] pcap = ["A->B"]` appended):
  target/release/sluice-sim dc.toml --out sluice-out
  python3 validation/ns3_dumbbell.py --case d-dc90-newreno-fifo-10s --until 3.2 --pcap ns3.pcap
  python3 validation/pcap_diff.py sluice-out/A-to-B.pcap ns3.pcap
"""
from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import departures  # noqa: E402

SLUICE_BASE = 0x0A000000  # node i has address 10.0.0.0 + i + 1


def packets(path: str, ns3: bool) -> list[tuple[int, int, int, int, int]]:
    """(time ns, flow, relative seq, flags, payload) of the sender→receiver TCP packets."""
    b = open(path, "rb").read()
    nano = struct.unpack("<I", b[:4])[0] == 0xA1B23C4D
    off, out, isn = 24, [], {}
    while off + 16 <= len(b):
        ts, frac, incl, _ = struct.unpack("<IIII", b[off:off + 16])
        off += 16
        if off + incl > len(b):
            break  # a capture cut short (a run stopped with --until) ends mid-record
        ip = b[off + 2:off + incl]  # skip the 2-byte PPP header
        off += incl
        src = struct.unpack(">I", ip[12:16])[0]
        if ns3:
            subnet = ((src >> 16) & 255) * 250 + ((src >> 8) & 255)
            if subnet % 2:
                continue  # receiver → sender, captured on reception
            flow = subnet // 2
        else:
            flow = src - SLUICE_BASE - 1
        ihl = (ip[0] & 15) * 4
        tcp = ip[ihl:]
        if struct.unpack(">H", tcp[0:2])[0] == departures.REVERSE_PORT:
            flow |= departures.REVERSE_BIT  # an ACK of the reverse flow from receiver k
        seq = struct.unpack(">I", tcp[4:8])[0]
        flags = tcp[13]
        if flags & 0x02:
            isn.setdefault(flow, seq)
        payload = struct.unpack(">H", ip[2:4])[0] - ihl - (tcp[12] >> 4) * 4
        t = ts * 10**9 + (frac if nano else frac * 1000)
        out.append((t, flow, (seq - isn.get(flow, seq)) % 2**32, flags & 0x17, payload))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sluice", help="Sluice pcap of queue A->B")
    ap.add_argument("ns3", help="ns-3 pcap of A's bottleneck device (validation/ns3_dumbbell.py --pcap)")
    ap.add_argument("--context", type=int, default=6, help="packets shown on each side of the first difference")
    args = ap.parse_args()
    a, b = packets(args.sluice, False), packets(args.ns3, True)
    for i, (x, y) in enumerate(zip(a, b)):
        if x[1:] != y[1:] or abs(x[0] // 1000 - y[0] // 1000) > 1:
            print(f"identical for {i} packets (through {y[0] / 1e9:.6f} s); first difference:")
            print("  (time ns, flow, rel seq, flags, payload)  Sluice | ns-3")
            for j in range(max(0, i - args.context), min(i + args.context, len(a), len(b))):
                print(f"  {'>' if j == i else ' '} {a[j]} | {b[j]}")
            return 1
    n = min(len(a), len(b))
    print(f"identical for all {n} packets compared ({len(a)} Sluice, {len(b)} ns-3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
