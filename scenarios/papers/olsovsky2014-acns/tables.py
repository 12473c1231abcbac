#!/usr/bin/env python3
"""Olšovský (2014)'s ACNS experiment beside Sluice's, as Markdown.

M. Olšovský, "Advanced Congestion Notification System", ACM Slovakia Bulletin 6(2) 2014, §5:
three CUBIC flows (DSCP 0, 26, 46) and three UDP flows over one last mile, 118 s, without and
with ACNS (Tables 6-10). This runs baseline.toml (and acns.toml when given) and prints ours
beside the paper's per-flow average and maximal throughput, average and maximal RTT, data sent
and packets lost, and the totals' changes.

Usage:
  python3 scenarios/papers/olsovsky2014-acns/tables.py                 # baseline and ACNS
  python3 scenarios/papers/olsovsky2014-acns/tables.py --baseline-only
  python3 scenarios/papers/olsovsky2014-acns/tables.py --calibrate     # the last-mile grid
  python3 scenarios/papers/olsovsky2014-acns/tables.py --rate 4.5 --buffer 350   # sensitivity

Metrics (the paper defines none; docs/reproductions/olsovsky2014-acns.md): average throughput
= payload bytes sent (retransmissions included) × 8 / 118 s; maximal throughput = the largest
payload delivered in a 1 s bin; average / maximal RTT over the sender's RTT samples; sent = TCP
payload bytes sent including retransmissions, MB = 10^6 B; lost = the flow's data-direction
packets dropped anywhere on the path.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import sluice

HERE = Path(__file__).resolve().parent
DURATION_S = 118.0

# Tables 6-9, per TCP flow: (avg thr Mb/s, max thr Mb/s, avg RTT ms, max RTT ms, sent MB, lost).
PAPER = {
    "without": [(0.8, 2.7, 377, 973, 11.78, 110), (0.4, 2.1, 377, 1230, 6.15, 86), (0.2, 1.8, 316, 335, 2.89, 40)],
    "with": [(0.3, 3.0, 327, 468, 4.4, 0), (0.7, 3.0, 329, 484, 11.26, 2), (1.0, 3.0, 332, 406, 14.33, 0)],
}
# Table 10: total average throughput, total average RTT, total data sent (with vs without).
PAPER_TABLE10 = {"throughput": 44.5, "rtt": -7.1, "sent": 44.0}


def metrics(res) -> list[tuple[float, float, float, float, float, int]]:
    """Per TCP flow: the paper's six columns from one run."""
    flows = res.summary["flows"]
    samples = res.tables["flow_samples"]
    rtt = res.tables["rtt"]
    out = []
    for f in flows:
        if f["kind"] != "bulk":
            continue
        k = f["id"]
        sent = f["payload_bytes_sent"] / 1e6
        s = samples[samples["flow"] == k]
        max_thr = float(s["bytes"].max()) * 8 / 1e6 if len(s) else 0.0
        r = rtt[rtt["flow"] == k]["rtt_s"] * 1e3
        out.append((sent * 8 / DURATION_S, max_thr, float(r.mean()), float(r.max()), sent, int(f["data_dir_packets_lost"])))
    return out


def run(name: str, overrides: dict | None = None):
    return sluice.run(str(HERE / name), overrides=overrides)


def score(m) -> float:
    """Distance of a no-ACNS run from the paper: the mean relative error of the three flows'
    shares of the data sent (Table 8: 0.566 / 0.295 / 0.139 — the volumes themselves are 1.7 to
    2.5 times the paper's anywhere between 4 and 5 Mb/s, see the reproduction page), of flows #1
    and #2's maximal RTT (Table 7; #3's 335 ms, barely above the base RTT, no drop-tail buffer
    shared by all three flows can give) and of the total loss (Table 9), equally weighted."""
    p = PAPER["without"]
    tot, ptot = sum(x[4] for x in m), sum(x[4] for x in p)
    share = sum(abs(m[i][4] / tot - p[i][4] / ptot) / (p[i][4] / ptot) for i in range(3)) / 3
    rtt = sum(abs(m[i][3] - p[i][3]) / p[i][3] for i in range(2)) / 2
    lost = abs(sum(x[5] for x in m) - 236) / 236
    return (share + rtt + lost) / 3


def calibrate() -> None:
    print("| last mile Mb/s | buffer pkts | sent MB #1/#2/#3 (total) | max RTT ms #1/#2/#3 | lost #1/#2/#3 (total) | score |")
    print("|---|---|---|---|---|---|")
    best = None
    for rate in (4.0, 4.25, 4.5, 4.75, 5.0):
        for buf in range(50, 601, 50):
            ov = {"topology.links[3].rate": f"{rate}Mbps", "topology.links[5].rate": f"{rate}Mbps", "topology.links[3].queue.limit": f"{buf}pkt"}
            m = metrics(run("baseline.toml", ov))
            sc = score(m)
            best = min(best or (sc, rate, buf), (sc, rate, buf))
            print(
                f"| {rate} | {buf} | {'/'.join(f'{x[4]:.2f}' for x in m)} ({sum(x[4] for x in m):.2f}) "
                f"| {'/'.join(f'{x[3]:.0f}' for x in m)} | {'/'.join(str(x[5]) for x in m)} ({sum(x[5] for x in m)}) | {sc:.3f} |"
            )
    print(f"\nbest: {best[1]} Mb/s, {best[2]} packets (score {best[0]:.3f}); paper: 11.78/6.15/2.89 MB (20.82), max RTT 973/1230/335 ms, lost 110/86/40 (236)")


def table(label: str, ours, paper) -> None:
    print(f"\n{label}\n")
    print("| flow | avg thr Mb/s (paper / ours) | max thr Mb/s (1 s bins) | avg RTT ms | max RTT ms | sent MB | lost pkts |")
    print("|---|---|---|---|---|---|---|")
    for i, (o, p) in enumerate(zip(ours, paper)):
        print(f"| #{i + 1} | {p[0]} / {o[0]:.2f} | {p[1]} / {o[1]:.2f} | {p[2]} / {o[2]:.0f} | {p[3]} / {o[3]:.0f} | {p[4]} / {o[4]:.2f} | {p[5]} / {o[5]} |")
    ts, tp = sum(x[4] for x in ours), sum(x[4] for x in paper)
    print(f"| total | | | | | {tp:.2f} / {ts:.2f} | {sum(x[5] for x in paper)} / {sum(x[5] for x in ours)} |")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-only", action="store_true")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--rate", type=float, help="last-mile rate, Mb/s (both runs; default the scenarios')")
    ap.add_argument("--buffer", type=int, help="RA->ISP1 drop-tail limit, packets (both runs)")
    a = ap.parse_args(argv)
    if a.calibrate:
        calibrate()
        return 0
    ov = {}
    if a.rate is not None:
        ov |= {"topology.links[3].rate": f"{a.rate}Mbps", "topology.links[5].rate": f"{a.rate}Mbps"}
    if a.buffer is not None:
        ov["topology.links[3].queue.limit"] = f"{a.buffer}pkt"
    base = run("baseline.toml", ov or None)
    mb = metrics(base)
    table("Without ACNS (baseline.toml)", mb, PAPER["without"])
    if a.baseline_only:
        return 0
    acns = run("acns.toml", ov or None)
    ma = metrics(acns)
    table("With ACNS (acns.toml)", ma, PAPER["with"])
    for g in acns.summary.get("gateways", []):
        print(f"\n{g['node']}: {g['acns']}")
    p = g["params"] if acns.summary.get("gateways") else {}
    print(f"\nacns.age = {p.get('age')}, acns.eps = {p.get('eps')}, acns.p_max = {p.get('p_max')}, acns.weight = {p.get('weight')}")
    thr = lambda m: sum(x[0] for x in m)
    rtt = lambda m: sum(x[2] for x in m) / len(m)
    sent = lambda m: sum(x[4] for x in m)
    print("\n| Table 10 | paper (printed / from its tables) | ours |")
    print("|---|---|---|")
    pw, pwo = PAPER["with"], PAPER["without"]
    for key, f in (("throughput", thr), ("rtt", rtt), ("sent", sent)):
        paper_tab = (f(pw) / f(pwo) - 1) * 100
        print(f"| total {key} | {PAPER_TABLE10[key]:+.1f} % / {paper_tab:+.1f} % | {(f(ma) / f(mb) - 1) * 100:+.1f} % |")
    print(f"| max RTT | {max(x[3] for x in pwo)} → {max(x[3] for x in pw)} ms | {max(x[3] for x in mb):.0f} → {max(x[3] for x in ma):.0f} ms |")
    print(f"| TCP losses | {sum(x[5] for x in pwo)} → {sum(x[5] for x in pw)} | {sum(x[5] for x in mb)} → {sum(x[5] for x in ma)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
