#!/usr/bin/env python3
"""Random loss over seeds: Sluice against ns-3 3.44, and both against the Mathis and PFTK models.

Set-up (docs/validation.md, "Random loss over seeds"): N NewReno flows (1 or 4) from 100 Mb/s,
1 ms access links through a 10 Mb/s, 10 ms bottleneck with a 100-packet drop-tail; Bernoulli
loss of p per packet on the bottleneck A->B (1, 2 or 5 %), SACK on or off, and Gilbert-Elliott
loss (bursty) with SACK; flows start
uniformly in [0, 1) s; 40 s, measured from 10 s; ns-3's choices (`validate = "ns3.44"`, 1 s
minimum RTO). 100 seeds per set-up (30 proved too few: see docs/validation.md). The two simulators draw their losses and start times from
their own generators, so runs are compared as seed means: each flow's goodput, timeout episodes
and recovery episodes, Sluice's mean within two standard errors of the difference of ns-3's, as chance allows: the
script exits 1 when more comparisons lie beyond two standard errors than the 99th percentile
of chance gives, or any beyond three.

    python3 validation/loss_seeds.py --ns3            # ns-3 runs of set-ups not recorded yet -> fixtures/ns3/loss-seeds.json
    python3 validation/loss_seeds.py                  # Sluice runs, the table, exit 1 if a mean parts
    python3 validation/loss_seeds.py --markdown F.md  # also write the table

ns-3 runs all seeds of a set-up in one process (its import costs ~20 s): `Simulator::Destroy`
clears the nodes between runs and the address generator is reset; `--run` = the seed selects
independent random streams (the stream numbers also advance from run to run within a process,
so a run is not the same as that seed alone in a fresh process, only as independent).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3" / "loss-seeds.json"
sys.path.insert(0, str(ROOT / "validation"))
import ns3_loss  # noqa: E402
SEEDS = range(1, 101)  # --seeds N sets 1..N
SETUPS: list[tuple[float | str, int, bool, str]] = [(p, n, sack, "NewReno") for p in (0.01, 0.02, 0.05) for n in (1, 4) for sack in (True, False)]
# Gilbert-Elliott (bursty) loss, given as ns3_dumbbell.py writes it: P_GB,P_BG (Gilbert's model,
# no loss in the good state, all in the bad): 3.2 % of packets in bursts of 3.3 on average.
SETUPS += [("gilbert_elliott:0.01,0.3", n, True, "NewReno") for n in (1, 4)]
# The other congestion controls ns-3 has (`cc = "cubic"`, `"vegas"` against TcpCubic, TcpVegas):
# random loss drives each one's own reduction and growth rules, which the identical cases meet
# only at queue overflows.
SETUPS += [(p, n, True, tcp) for tcp in ("Cubic", "Vegas") for p, n in ((0.01, 4), (0.05, 4), (0.02, 1))]
BASE = {"bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms", "buffer": 100, "duration": 40.0, "warmup": 10.0, "start_window": 1.0}
MSS = 1448
MIN_RTO = 1.0


def name(p: float | str, n: int, sack: bool, tcp: str = "NewReno") -> str:
    model = f"bernoulli{p * 100:g}pct" if isinstance(p, float) else p.replace(":", "").replace(",", "-")
    return f"{model}-{n}flow-{'sack' if sack else 'nosack'}" + ("" if tcp == "NewReno" else f"-{tcp.lower()}")


def loss_arg(p: float | str) -> str:
    """ns3_dumbbell.py's --loss value."""
    return f"bernoulli:{p}" if isinstance(p, float) else p


def run_ns3() -> None:
    sys.path.insert(0, str(ROOT / "validation"))
    import ns3_dumbbell as d  # noqa: E402
    from ns import ns  # ~20 s

    out = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {"setup": BASE | {"seeds": len(SEEDS)}, "versions": d.versions(), "runs": {}}
    for p, n, sack, tcp in SETUPS:
        key = name(p, n, sack, tcp)
        if key in out["runs"] and len(out["runs"][key]) == len(SEEDS):
            continue  # recorded already (delete the fixture to run everything again)
        rows = []
        for seed in SEEDS:
            a = dict(d.DEFAULTS) | BASE | {"flows": n, "no_sack": not sack, "loss": loss_arg(p), "run": seed, "tcp": f"ns3::Tcp{tcp}"}
            rec = d.build_and_run(a)
            ns.Ipv4AddressGenerator.Reset()
            rows.append({"seed": seed, "link_losses": rec["link_losses_window"],
                         "flows": [{k: f[k] for k in ("goodput_mbps", "timeout_episodes", "recovery_episodes", "start_s")} for f in rec["flows"]]})
        out["runs"][key] = rows
        print(key, "done", file=sys.stderr)
        FIXTURE.write_text(json.dumps(out, indent=1) + "\n")  # after each set-up: an interrupted run keeps them


def sluice_toml(p: float | str, n: int, sack: bool, tcp: str = "NewReno") -> str:
    cc = {"NewReno": "new_reno", "Cubic": "cubic", "Vegas": "vegas"}[tcp]
    return f"""name = "{name(p, n, sack, tcp)}"
duration = "{BASE['duration']}s"
warmup = "{BASE['warmup']}s"
[tcp]
validate = "ns3.44"
cc = "{cc}"
sack = {str(sack).lower()}
mss = 1448
snd_buf = "8388608B"
rcv_buf = "8388608B"
[topology]
kind = "dumbbell"
pairs = {n}
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck = {{ rate = "{BASE['bottleneck_rate']}", delay = "{BASE['bottleneck_delay']}", loss = {ns3_loss.sluice_toml(loss_arg(p))} }}
queue = {{ kind = "drop_tail", limit = "{BASE['buffer']}pkt" }}
[[flows]]
count = {n}
src = "senders"
dst = "receivers"
app = {{ kind = "bulk", write_size = "11584B" }}
start = {{ uniform = ["0s", "{BASE['start_window']}s"] }}
"""


def mean_se(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def mathis_mbps(p: float, rtt: float) -> float:
    """Mathis et al. 1997: MSS / RTT · sqrt(3 / (2p))."""
    return MSS * 8 / rtt * math.sqrt(1.5 / p) / 1e6


def pftk_mbps(p: float, rtt: float, b: int = 2, t0: float = MIN_RTO) -> float:
    """Padhye, Firoiu, Towsley, Kurose 1998 (the full model's approximation, eq. 33), b packets
    acknowledged per ACK, T0 the retransmission timeout."""
    d = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    return MSS * 8 / d / 1e6


def main() -> int:
    global SEEDS, FIXTURE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3", action="store_true", help="run ns-3 and write the fixture")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument("--seeds", type=int, default=100, help="seeds 1..N (default 100)")
    ap.add_argument("--fixture", type=Path, default=FIXTURE, help="the ns-3 record to write or read")
    args = ap.parse_args()
    SEEDS, FIXTURE = range(1, args.seeds + 1), args.fixture
    if args.ns3:
        run_ns3()
        return 0
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim"], cwd=ROOT, check=True)
    import os
    binary = ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release" / "sluice-sim"
    ns3 = json.loads(FIXTURE.read_text())["runs"]
    lines = ["| set-up | flows' goodput Mb/s: Sluice / ns-3 (mean ± s.e.) | timeout episodes per flow | recovery episodes per flow | mean RTT s | Mathis / PFTK per flow Mb/s | within 2 s.e. |",
             "|---|---|---|---|---|---|---|"]
    parted = []
    compared = beyond2 = beyond3 = 0
    for p, n, sack, tcp in SETUPS:
        key = name(p, n, sack, tcp)
        if key not in ns3:
            print(f"{key}: no ns-3 runs in {FIXTURE.name} (python3 validation/loss_seeds.py --ns3)", file=sys.stderr)
            continue
        ours: dict[str, list[list[float]]] = {"goodput_mbps": [[] for _ in range(n)], "timeout_episodes": [[] for _ in range(n)], "recovery_episodes": [[] for _ in range(n)]}
        rtts = []
        with tempfile.TemporaryDirectory() as d:
            f = Path(d) / "s.toml"
            f.write_text(sluice_toml(p, n, sack, tcp))
            for seed in SEEDS:
                s = json.loads(subprocess.run([str(binary), str(f), "--seed", str(seed)], capture_output=True, text=True, check=True).stdout)
                # flows sorted by start time, as ns-3's are compared by their own order of start
                flows = sorted(s["flows"], key=lambda x: x["start_s"])
                for k, fl in enumerate(flows):
                    ours["goodput_mbps"][k].append(fl["goodput_bps"] / 1e6)
                    ours["timeout_episodes"][k].append(fl["timeout_episodes"])
                    ours["recovery_episodes"][k].append(fl["recovery_episodes"])
                    if fl["mean_rtt_s"]:
                        rtts.append(fl["mean_rtt_s"])
        theirs: dict[str, list[list[float]]] = {m: [[] for _ in range(n)] for m in ours}
        for row in ns3[key]:
            flows = sorted(row["flows"], key=lambda x: x["start_s"])
            for k, fl in enumerate(flows):
                for m in ours:
                    theirs[m][k].append(fl[m])
        cells, ok = [], True
        for m in ("goodput_mbps", "timeout_episodes", "recovery_episodes"):
            parts = []
            for k in range(n):
                (a, sa), (b, sb) = mean_se(ours[m][k]), mean_se(theirs[m][k])
                z = abs(a - b) / max(math.hypot(sa, sb), 1e-12)
                within = z <= 2
                ok &= within
                compared += 1
                beyond2 += not within
                beyond3 += z > 3
                parts.append(f"{a:.3g}±{sa:.2g} / {b:.3g}±{sb:.2g}{'' if within else ' ✗'}")
            cells.append("; ".join(parts))
        rtt = sum(rtts) / len(rtts)
        model = f"{mathis_mbps(p, rtt):.2f} / {pftk_mbps(p, rtt):.2f}" if isinstance(p, float) and tcp == "NewReno" else "–"
        if not ok:
            parted.append(key)
        lines.append(f"| {key} | {cells[0]} | {cells[1]} | {cells[2]} | {rtt:.4f} | {model} | {'yes' if ok else 'NO'} |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    # Beyond two standard errors happens by chance for ~4.6 % of comparisons; fail on more than
    # the 99th percentile of that binomial count, or on any beyond three.
    q99, cum, k = 0, 0.0, 0
    pr = 2 * (1 - 0.5 * (1 + math.erf(2 / math.sqrt(2))))
    while cum < 0.99:
        cum += math.comb(compared, k) * pr**k * (1 - pr) ** (compared - k)
        q99, k = k, k + 1
    print(f"{beyond2} of {compared} comparisons beyond 2 s.e. (chance: {pr * compared:.1f}, 99th percentile {q99}), "
          f"{beyond3} beyond 3; set-ups with one beyond 2: {', '.join(parted) or 'none'}", file=sys.stderr)
    return 1 if beyond2 > q99 or beyond3 else 0


if __name__ == "__main__":
    sys.exit(main())
