#!/usr/bin/env python3
"""BBR v1 against ns-3 3.44's ``TcpBbr``, as seed means.

Set-up: the nine-flow access link of the recorded case ``q-access9-cubic`` (nine flows over the
eval9 round-trip classes, 100 Mb/s access links, a 100 Mb/s, 2 ms bottleneck, flows starting
uniformly in [0, 3) s) with every sender running BBR, 30 s measured from 10 s, and two drop-tail
buffers on A->B: 900 packets (``buf900``) and 50 packets (``buf50``).

Sluice runs under ``validate = "ns3.44"`` (``bbr.target``, ``bbr.cycle_start`` = ``"ns3"``,
``bbr.cycle_stream = "shared"``: every flow draws the same numbers, as every ns-3 ``TcpBbr``
takes stream 4; ns-3's high gain and pacing margin). ns-3 draws BBR's ProbeBW cycle start and the
start times from its own generator, Sluice from its seeded streams, so each side runs seeds 1..5 (ns-3:
``--run``) and the seed means are compared: aggregate goodput within 5 %, mean queue within
25 %, Jain's index within 0.1 (docs/validation.md; tests/integration/bbr_seeds.rs checks the
same against the stored records).

    python3 validation/bbr_seeds.py --ns3              # ns-3 runs (one at a time, a few min each) -> fixture
    python3 validation/bbr_seeds.py --collect DIR      # build the fixture from ns3_dumbbell.py records in DIR
    python3 validation/bbr_seeds.py                    # Sluice runs and the table; exit 1 on disagreement
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import seed_means

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3" / "u-access9-bbr-seeds.json"
BUFFERS = {"buf900": 900, "buf50": 50}
SEEDS = range(1, 6)
TOLERANCE = {"goodput": 0.05, "queue": 0.25, "jain": 0.1}
ARGS = ["--flows", "9", "--rtt-table", "eval9", "--bottleneck-rate", "100Mbps", "--bottleneck-delay", "2ms",
        "--duration", "30", "--warmup", "10", "--start-window", "3", "--tcp", "ns3::TcpBbr"]


def summary(rec: dict) -> dict:
    """What the comparison keeps of an ns3_dumbbell.py record."""
    return {
        "run": rec["args"]["run"],
        "goodput_mbps": rec["aggregate_goodput_mbps"],
        "queue_mean_pkts": rec["queue_mean_pkts"],
        "drop_ratio": rec["drop_ratio"],
        "jain": rec["jain"],
        "wall_run_s": rec["wall_run_s"],
    }


def collect(records: dict[str, list[dict]]) -> None:
    any_rec = next(r for rs in records.values() for r in rs)
    fx = {
        "setup": "q-access9-cubic access link, every flow ns3::TcpBbr, 30 s from 10 s; drop-tail buffer per key",
        "ns3_args": ARGS,
        "buffers": BUFFERS,
        "versions": any_rec.get("versions"),
        "sender_delays": [f["sender_delay"] for f in any_rec["flows"]],
        "receiver_delays": [f["receiver_delay"] for f in any_rec["flows"]],
        "runs": {b: [summary(r) for r in sorted(rs, key=lambda r: r["args"]["run"])] for b, rs in records.items()},
    }
    FIXTURE.write_text(json.dumps(fx, indent=1) + "\n")
    print(f"wrote {FIXTURE}")


def run_ns3(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    # Seed by seed, both buffers each time: a partial set still covers both.
    for r in SEEDS:
        for b, n in BUFFERS.items():
            out = out_dir / f"{b}-run{r}.json"
            if out.exists() and out.stat().st_size > 0:
                continue
            subprocess.run([sys.executable, str(ROOT / "validation" / "ns3_dumbbell.py"), *ARGS, "--buffer", str(n),
                            "--run", str(r), "--name", f"u-access9-bbr-{b}-run{r}", "--out", str(out)], check=True)


def load_dir(d: Path) -> dict[str, list[dict]]:
    recs: dict[str, list[dict]] = {}
    for b in BUFFERS:
        found = [json.loads(p.read_text()) for p in sorted(d.glob(f"{b}-run*.json"))]
        if found:
            recs[b] = found
        else:
            print(f"no {b}-run*.json in {d}: that buffer is left out of the fixture", file=sys.stderr)
    if not recs:
        raise SystemExit(f"no records in {d}")
    return recs


def scenario(fx: dict, b: str, seed: int) -> str:
    return seed_means.scenario(fx, f"bbr-{b}", seed, "30s", "10s", ['cc = "bbr"'], f'{{ kind = "drop_tail", limit = "{fx["buffers"][b]}pkt" }}')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3", type=Path, nargs="?", const=Path("bbr-ns3-records"), metavar="DIR",
                    help="run ns-3 (records kept in DIR, reused if present) and write the fixture")
    ap.add_argument("--collect", type=Path, metavar="DIR", help="write the fixture from the records in DIR")
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    args = ap.parse_args()
    if args.ns3:
        run_ns3(args.ns3)
        collect(load_dir(args.ns3))
        return 0
    if args.collect:
        collect(load_dir(args.collect))
        return 0
    fx = json.loads(FIXTURE.read_text())
    seed_means.build()
    groups = [(f"{fx['buffers'][b]} pkt", [seed_means.run_sluice(scenario(fx, b, s)) for s in SEEDS], fx["runs"][b]) for b in fx["runs"]]
    return seed_means.compare(groups, "buffer", TOLERANCE, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
