"""What validation/aqm_seeds.py and validation/bbr_seeds.py share: Sluice's side of a comparison
of seed means with ns-3 on the eval9 access dumbbell (100 Mb/s access links, a 100 Mb/s, 2 ms
bottleneck, bulk flows starting uniformly in [0, 3) s), and the table of the two sides."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release" / "sluice-sim"

# (summary key, tolerance key or None for shown only, label)
METRICS = (("goodput_mbps", "goodput", "goodput Mb/s"), ("queue_mean_pkts", "queue", "queue pkts"),
           ("drop_ratio", "drop", "drop ratio"), ("jain", "jain", "Jain"), ("mark_ratio", "mark", "mark ratio"))


def scenario(fx: dict, name: str, seed: int, duration: str, warmup: str, tcp: list[str], queue: str) -> str:
    """The dumbbell of fixture `fx` (its sender and receiver delays) under ns-3's profile."""
    lst = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
    n = len(fx["sender_delays"])
    return "\n".join([
        f'name = "{name}"', f'duration = "{duration}"', f'warmup = "{warmup}"', f"seed = {seed}",
        "[tcp]", 'validate = "ns3.44"', *tcp, "mss = 1448", 'snd_buf = "8388608B"', 'rcv_buf = "8388608B"',
        "[topology]", 'kind = "dumbbell"', f"pairs = {n}", 'access_rate = "100Mbps"',
        f"sender_delays = {lst(fx['sender_delays'])}", f"receiver_delays = {lst(fx['receiver_delays'])}",
        'bottleneck = { rate = "100Mbps", delay = "2ms" }', f"queue = {queue}",
        "[[flows]]", f"count = {n}", 'src = "senders"', 'dst = "receivers"',
        'app = { kind = "bulk", write_size = "11584B" }', 'start = { uniform = ["0s", "3s"] }',
    ]) + "\n"


def run_sluice(text: str) -> dict:
    """Run one scenario; what the comparison reads of its summary."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "s.toml"
        p.write_text(text)
        out = subprocess.run([str(BIN), str(p), "--out", d], capture_output=True, text=True, check=True)
    s = json.loads(out.stdout)
    qa = next(x for x in s["queues"] if x["name"] == "A->B")
    return {"goodput_mbps": s["aggregate_goodput_bps"] / 1e6, "queue_mean_pkts": qa["mean_len_pkts"],
            "drop_ratio": qa["drop_ratio"], "jain": s["jain_goodput"], "wall_s": s["wall_time_s"],
            "mark_ratio": qa["marked"] / qa["arrivals"] if qa["arrivals"] else 0.0}


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim"], cwd=ROOT, check=True)


def compare(groups: list[tuple[str, list[dict], list[dict]]], what: str, tolerance: dict, markdown: Path | None) -> int:
    """The table of seed means, Sluice's against ns-3's, one row per group and metric; a
    metric without a tolerance (`tolerance` lacks its key) is shown, not judged. Prints it
    (and writes it to `markdown`); 1 if a judged metric disagrees. A metric that a side does
    not record, or that is zero on both (marks without ECN), is left out."""
    lines = [f"| {what} | metric | Sluice mean (sd), {len(groups[0][1]) if groups else 0} seeds | ns-3 mean (sd) [runs] | Δ | tolerance | agrees |",
             "|---|---|---|---|---|---|---|"]
    bad = []
    for label, ours, theirs in groups:
        for key, tol, name in METRICS:
            if any(key not in r for r in ours + theirs) or not any(r[key] for r in ours + theirs):
                continue
            tol = tol if tol in tolerance else None
            a, sa = mean_sd([r[key] for r in ours])
            c, sc = mean_sd([r[key] for r in theirs])
            if tol is None:
                ok, dtxt, tt = True, f"{100 * (a - c) / c:+.1f}%" if c else "", "(shown)"
            elif tol == "jain":
                ok, dtxt, tt = abs(a - c) <= tolerance[tol], f"{a - c:+.3f}", f"{tolerance[tol]}"
            else:
                delta = (a - c) / c if c else 0.0
                ok, dtxt, tt = abs(delta) <= tolerance[tol], f"{100 * delta:+.1f}%", f"{100 * tolerance[tol]:.0f}%"
            fmt = "{:.3e}" if key in ("drop_ratio", "mark_ratio") else "{:.3f}" if key == "jain" else "{:.2f}"
            lines.append(f"| {label} | {name} | {fmt.format(a)} ({fmt.format(sa)}) | {fmt.format(c)} ({fmt.format(sc)}) [{len(theirs)}] | "
                         f"{dtxt} | {tt} | {'–' if tol is None else 'yes' if ok else 'NO'} |")
            if not ok:
                bad.append(f"{label} {name}")
    table = "\n".join(lines)
    print(table)
    if markdown:
        markdown.write_text(table + "\n")
    if bad:
        print("disagrees with ns-3: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0
