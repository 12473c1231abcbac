#!/usr/bin/env python3
"""Run Sluice on the ns-3 reference dumbbells and print a side-by-side table.

For every drop-tail case in ``validation/fixtures/ns3-reference.json`` whose ns-3 TCP type has a
Sluice equivalent under the ``ns3.44`` profile (TcpNewReno, TcpCubic, TcpVegas; a type per flow
too), and every ``--record`` of such a case, this writes the
equivalent Sluice scenario (same rates, per-flow delays, buffer, measurement window, and the
per-flow start times ns-3 drew), runs it under the ``ns3.44`` profile with ``sluice-sim`` and
compares aggregate goodput, bottleneck drop ratio, Jain's index, mean queue length and wall time.
The same comparison is asserted by the Rust integration tests
(``crates/sluice-sim/tests/integration/reference.rs``).

Verdict (last column), and the exit status: a case whose own record
(``validation/fixtures/ns3/CASE.json``) carries a departure fingerprint must be identical packet
for packet: Sluice's capture of A->B gives the same count and SHA-256 (validation/departures.py).
Other cases must be within the tolerances: aggregate goodput 5 %, drop ratio 25 % relative,
Jain's index 0.1. The reference's jitter case, where each simulator draws its own offsets, is
shown and not judged. Exit status 1 if any judged case disagrees.

Usage:  python3 validation/compare.py [--markdown FILE] [--record FILE ...] [--only CASE ...]
                                      [--profile default]

``--record`` adds ns-3 runs made with ``validation/ns3_dumbbell.py --out FILE`` (drop-tail cases;
one made with ``--ewt`` runs Sluice with ``[[gateways]]`` EWT on router A, rewriting at dequeue);
``--only`` keeps the named cases; ``--profile default`` runs Sluice with its own defaults (no
``validate`` profile; the set-up's MSS, buffers and the options a record sets stay) and judges
nothing. The binary is built with cargo into ``$CARGO_TARGET_DIR`` (default ``target/``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3-reference.json"
RECORDS = ROOT / "validation" / "fixtures" / "ns3"
STARTS = RECORDS / "start_times.json"
# cargo resolves a relative CARGO_TARGET_DIR against its working directory, ROOT here
BIN = ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release" / "sluice-sim"
TOLERANCE = {"goodput": 0.05, "drop": 0.25, "jain": 0.1}

sys.path.insert(0, str(ROOT / "validation"))
import departures  # noqa: E402
import ns3_loss  # noqa: E402


# ns-3 TCP types (`--tcp`) and Sluice's `cc` for them.
NS3_CC = {"ns3::TcpNewReno": "new_reno", "ns3::TcpCubic": "cubic", "ns3::TcpVegas": "vegas", "ns3::TcpLinuxReno": "linux_reno",
          "ns3::TcpBbr": "bbr"}


def scenario(case: dict, jitter: str | None, profile: str = "ns3.44", capture: bool = False) -> str:
    a = case["args"]
    flows = case["flows"]
    q = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
    # Exact start times (integer ns) where our ns-3 runs recorded them; the reference's own
    # start_s are rounded to 1 µs, which moves the 1 Gbit/s case by ~1 %.
    exact = json.loads(STARTS.read_text()).get(case["case"]) if STARTS.exists() else None
    starts = q([f"{ns}ns" for ns in exact]) if exact else q([f"{f['start_s']}s" for f in flows])
    lines = [
        f'name = "{case["case"]}"',
        f'duration = "{a["duration"]}s"',
        f'warmup = "{a["warmup"]}s"',
        "seed = 1",
        "[tcp]",
        *([f'validate = "{profile}"'] if profile != "default" else []),
        f"mss = {a['segment_size']}",
        f'snd_buf = "{a["sndbuf"]}B"',
        f'rcv_buf = "{a["rcvbuf"]}B"',
    ]
    types = [t.strip() for t in str(a.get("tcp", "ns3::TcpNewReno")).split(",")]
    if len(set(types)) == 1 and types[0] != "ns3::TcpNewReno":
        lines.append(f'cc = "{NS3_CC[types[0]]}"')
    # ns-3 attributes a record may set beyond the reference cases' (ns3_dumbbell.py flags).
    if a.get("init_cwnd"):
        lines.append(f"initial_cwnd = {a['init_cwnd']}")
    if a.get("recovery") == "classic":
        lines.append('recovery = "classic"')
    if a.get("no_sack"):
        lines.append("sack = false")
    if a.get("min_rto"):
        lines.append(f'min_rto = "{a["min_rto"]}"')
    if a.get("delack"):
        lines.append(f"delack_count = {a['delack']}")
    if a.get("ecn"):
        lines.append("ecn = true")
    lines += [
        "[topology]",
        'kind = "dumbbell"',
        f"pairs = {len(flows)}",
        f'access_rate = "{a["access_rate"]}"',
        f"sender_delays = {q([f['sender_delay'] for f in flows])}",
        f"receiver_delays = {q([f['receiver_delay'] for f in flows])}",
        f'bottleneck = {{ rate = "{a["bottleneck_rate"]}", delay = "{a["bottleneck_delay"]}"'
        + "".join(f", {key} = {ns3_loss.sluice_toml(a[key])}" for key in ("loss", "reverse_loss") if a.get(key)) + " }",
        f"queue = {queue_table(a)}",
        f'reverse_queue = {{ kind = "drop_tail", limit = "{a.get("reverse_buffer", 100000)}pkt" }}',
    ]
    if jitter:
        lines.append(f'jitter = "{jitter}"')
    # BulkSend with MaxBytes is a file transfer of that size.
    app = (f'app = {{ kind = "file", size = "{a["file_size"]}B", write_size = "{a["send_size"]}B" }}'
           if a.get("file_size") else f'app = {{ kind = "bulk", write_size = "{a["send_size"]}B" }}')
    if len(set(types)) == 1 and not any("bbr_draws" in f for f in flows):
        lines += ["[[flows]]", f"count = {len(flows)}", 'src = "senders"', 'dst = "receivers"', app, f"start = {starts}"]
    else:
        # A TCP type per flow (ns3_dumbbell.py --tcp A,B,...), or BBR's draws per flow
        # (--bbr-streams, replayed as bbr.cycle_draws): one flow table each, in order.
        each = [f"{ns}ns" for ns in exact] if exact else [f"{f['start_s']}s" for f in flows]
        for k, f in enumerate(flows):
            draws = f", bbr = {{ cycle_draws = {f['bbr_draws']} }}" if "bbr_draws" in f else ""
            lines += ["[[flows]]", f'name = "f{k}"', f'src = "s{k}"', f'dst = "r{k}"', app, f'start = "{each[k]}"',
                      f'tcp = {{ cc = "{NS3_CC[types[k % len(types)]]}"{draws} }}']
    # ns3_dumbbell.py --reverse-flows: receiver k sends to sender k's port 5002, with the type
    # the receiver nodes run (ns-3's default SocketType, the first of --tcp).
    for f in case.get("reverse_flows", []):
        k = f["pair"]
        lines += ["[[flows]]", f'name = "rev{k}"', f'src = "r{k}"', f'dst = "s{k}"', f"port = {departures.REVERSE_PORT}", app,
                  f'start = "{f["start_ns"]}ns"', f'tcp = {{ cc = "{NS3_CC[types[0]]}" }}']
    if a.get("ewt"):
        # ns3_dumbbell.py --ewt: EWT on router A, reading A->B, rewriting at dequeue
        # (validation/ns3_ewt.py); the start point as the same fraction of the 900-packet limit.
        lines += ["[[gateways]]", 'node = "A"', 'rewrite_at = "dequeue"',
                  f'controller = {{ kind = "ewt", start = "{100 * float(a["ewt_start"]):g}%", mss = {int(a["ewt_mss"])}, mtu = {int(a["mtu"])} }}']
    if capture:
        # headers only: the departure fingerprint reads the IP and TCP fixed headers
        lines += ["[monitor]", 'pcap = ["A->B"]', "pcap_snaplen = 64"]
    return "\n".join(lines) + "\n"


def own_fingerprint(case: dict, shared: bool) -> dict | None:
    """The case's departure fingerprint: a record's own; for a case of the shared reference
    (which has none), that of our ns-3 record of it (``fixtures/ns3/CASE.json``), if any."""
    if not shared:
        return case.get("departures")
    p = RECORDS / f"{case['case']}.json"
    return json.loads(p.read_text()).get("departures") if p.exists() else None


def queue_table(a: dict) -> str:
    """The bottleneck queue of a record (ns3_dumbbell.py --qdisc, --buffer, --codel-*, --ecn);
    parameters the record does not set take the ns3.44 profile's defaults, ns-3's."""
    qd = a.get("qdisc", "fifo")
    if qd == "fifo":
        return f'{{ kind = "drop_tail", limit = "{a["buffer"]}pkt" }}'
    if qd in ("codel", "fq_codel"):
        ecn = "true" if a.get("ecn") else "false"
        return (f'{{ kind = "{qd}", limit = "{a["buffer"]}pkt", target = "{a["codel_target"]}", '
                f'interval = "{a["codel_interval"]}", ecn = {ecn} }}')
    if qd == "pie":
        # ns-3's PIE draws its drops from ns-3's generator: the same set-up, not the same run.
        return f'{{ kind = "pie", limit = "{a["buffer"]}pkt", target = "{a["pie_target"]}", t_update = "{a["pie_tupdate"]}" }}'
    raise ValueError(f"no Sluice queue for qdisc {qd!r}")


def verdict(r: dict) -> tuple[str, bool]:
    """(what the last column says, whether the case disagrees)."""
    if r["jitter"]:
        return "not judged (offsets drawn apart)", False
    g, dr, j = r["gp"], r["drop"], r["jain"]
    off = []
    if abs(g[0] - g[1]) > TOLERANCE["goodput"] * g[1]:
        off.append("goodput")
    if abs(dr[0] - dr[1]) > TOLERANCE["drop"] * dr[1]:
        off.append("drop ratio")
    if abs(j[0] - j[1]) > TOLERANCE["jain"]:
        off.append("Jain")
    rg = r.get("rev_gp")
    if rg is not None and abs(rg[0] - rg[1]) > TOLERANCE["goodput"] * rg[1]:
        off.append("reverse goodput")
    if off:
        return "OUTSIDE tolerance: " + ", ".join(off), True
    if r["losses"] is not None and r["losses"][0] != r["losses"][1]:
        (ll, ep), (nll, nep) = r["losses"]
        return f"PARTS: link losses {ll} vs ns-3 {nll}, (timeout, recovery) episodes per flow {ep} vs {nep}", True
    if r["fingerprint"] is not None:
        ours, ns3 = r["fingerprint"]
        if ours == ns3:
            return f"identical ({ns3['count']} departures)", False
        return f"PARTS: {ours['count']} departures, sha256 {ours['sha256'][:12]}… vs ns-3 {ns3['count']}, {ns3['sha256'][:12]}…", True
    return "within tolerance", False


def jain_of(xs: list[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²); 1 for an all-zero set."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq else 1.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    ap.add_argument("--record", type=Path, action="append", default=[],
                    help="also compare this ns3_dumbbell.py record (repeatable)")
    ap.add_argument("--only", action="append", default=[], metavar="CASE",
                    help="compare only this case (repeatable)")
    ap.add_argument("--profile", choices=["ns3.44", "default"], default="ns3.44",
                    help="Sluice's TCP profile: ns3.44 (judged) or default (Sluice's own options; shown only)")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim"], cwd=ROOT, check=True)
    fx = json.loads(FIXTURE.read_text())
    rows = []
    cases = [(c, True) for c in fx["cases"]] + [(json.loads(p.read_text()), False) for p in args.record]
    for case, shared in cases:
        a = case["args"]
        # Congestion controls with a Sluice equivalent under the ns-3 profile; TcpLinuxReno needs
        # Linux's capped slow start, a compatibility switch and no scenario key (reference.rs runs it).
        if a["qdisc"] not in ("fifo", "codel", "fq_codel") or any(t.strip() not in NS3_CC for t in a["tcp"].split(",")) or case["case"].endswith("seed2") or "noflowmon" in case["case"]:
            continue
        if args.only and case["case"] not in args.only:
            continue
        # The reference's jitter case draws its offsets inside ns-3, so Sluice draws its own; a
        # record of ours carries the drawn delays per flow instead (`jitter_seed` in its args).
        own_draws = "jitter_seed" in case["args"] and case["args"].get("access_delay_jitter")
        jitter = "120us" if "jitter120us" in case["case"] and not own_draws else None
        ns3_fp = own_fingerprint(case, shared) if args.profile == "ns3.44" and not jitter else None
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "s.toml"
            p.write_text(scenario(case, jitter, args.profile, capture=ns3_fp is not None))
            out = subprocess.run([str(BIN), str(p), "--out", d], capture_output=True, text=True, check=True)
            fp = None
            if ns3_fp is not None:
                t0, t1 = ns3_fp["window_ns"]
                fp = {"window_ns": [t0, t1], **departures.fingerprint(departures.sluice_pcap(str(Path(d) / "A-to-B.pcap"), t0, t1))}
        s = json.loads(out.stdout)
        qa = next(x for x in s["queues"] if x["name"] == "A->B")
        # For file transfers Sluice's per-flow goodput is over each transfer's own duration
        # (docs/summary.md, `goodput_bps`); the ns-3 script divides every flow's bytes by the same
        # window, so compare Jain's index over bytes delivered, which is what that measures.
        # The forward flows alone (the reverse flows of --reverse-flows follow them).
        n = len(case["flows"])
        fwd, rev = s["flows"][:n], s["flows"][n:]
        # Mb/s as ns-3's script reckons it: bytes over the window (a file transfer's own
        # goodput_bps is over its duration).
        window = s["sim_time_s"] - s["warmup_s"]
        mbps = lambda f: (f["bytes_delivered"] * 8 / window if f["kind"] == "file" else f["goodput_bps"]) / 1e6  # noqa: E731
        gp = s["aggregate_goodput_bps"] / 1e6 if not rev else sum(map(mbps, fwd))
        jain = s["jain_goodput"] if not rev else jain_of([f["goodput_bps"] for f in fwd])
        if a.get("file_size"):
            jain = jain_of([f["bytes_delivered"] for f in fwd])
        rows.append({
            "case": case["case"],
            "flows": len(case["flows"]),
            "gp": (gp, case["aggregate_goodput_mbps"]),
            # two-way traffic (--reverse-flows): the reverse flows' aggregate goodput
            "rev_gp": (sum(map(mbps, rev)), sum(f["goodput_mbps"] for f in case["reverse_flows"]))
            if case.get("reverse_flows") else None,
            "drop": (qa["drop_ratio"], case["drop_ratio"]),
            "jain": (jain, case["jain"]),
            "queue": (qa["mean_len_pkts"], case["queue_mean_pkts"]),
            "wall": (s["wall_time_s"], case["wall_run_s"]),
            "jitter": jitter,
            "fingerprint": (fp, ns3_fp) if ns3_fp is not None else None,
            # records made with --loss: link losses and per-flow episodes, which must agree exactly
            "losses": (
                (qa["link_losses"], [(f["timeout_episodes"], f["recovery_episodes"]) for f in fwd]),
                (case["link_losses_window"], [(f["timeout_episodes"], f["recovery_episodes"]) for f in case["flows"]]),
            ) if "link_losses_window" in case else None,
        })
    if not rows:
        print("no case selected", file=sys.stderr)
        return 2
    head = "| case | flows | goodput Mb/s (Sluice / ns-3) | Δ | drop ratio (Sluice / ns-3) | Δ rel | Jain (Sluice / ns-3) | Δ | queue pkts (Sluice / ns-3) | wall s (Sluice here / ns-3 reference run) | agrees |"
    lines = [head, "|" + "---|" * 11]
    disagree = []
    for r in rows:
        g, dr, j, q, w = r["gp"], r["drop"], r["jain"], r["queue"], r["wall"]
        if args.profile == "ns3.44":
            say, bad = verdict(r)
        else:
            say, bad = f"not judged ({args.profile} profile)", False
        if bad:
            disagree.append(r["case"])
        drel = f"{100 * (dr[0] - dr[1]) / dr[1]:+.0f}%" if dr[1] else "—"
        lines.append(
            f"| {r['case']} | {r['flows']} | {g[0]:.2f} / {g[1]:.2f} | {100 * (g[0] - g[1]) / g[1]:+.1f}% "
            f"| {dr[0]:.2e} / {dr[1]:.2e} | {drel} "
            f"| {j[0]:.3f} / {j[1]:.3f} | {j[0] - j[1]:+.3f} | {q[0]:.1f} / {q[1]:.1f} | {w[0]:.2f} / {w[1]:.1f} | {say} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    if disagree:
        print(f"disagrees with ns-3: {', '.join(disagree)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
