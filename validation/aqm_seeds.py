#!/usr/bin/env python3
"""RED, Adaptive RED and PIE against ns-3 3.44, as seed means.

Set-up: the access-link dumbbell of the recorded case ``b-access90-newreno-pie5ms`` (90 NewReno
flows over the nine eval9 round-trip classes, 100 Mb/s access links, a 100 Mb/s, 2 ms bottleneck,
900-packet queue disc on A->B, flows starting uniformly in [0, 3) s, 100 s measured from 30 s)
with the queue disc under test:

* ``red``: ns-3's ``RedQueueDisc`` with ``MinTh`` = ``MaxTh`` = 0, so both come from the 5 ms
  ``TargetDelay`` (62.5 and 187.5 packets at ``MeanPktSize`` 500), ``QW`` 0.002, gentle, wait;
  Sluice ``{ kind = "red", params = "target" }``;
* ``ared``: the same with ``ARED = true``; Sluice ``{ kind = "ared" }``;
* ``pie``: ``PieQueueDisc`` with a 5 ms ``QueueDelayReference`` and 15 ms ``Tupdate`` (the recorded
  case); Sluice ``{ kind = "pie", target = "5ms" }``.

Each also runs with ECN (``red-ecn``, ``ared-ecn``, ``pie-ecn``): ns-3's TCP sockets with
``UseEcn On`` and the queue disc's ``UseEcn true`` (RED keeps its hard drops above the thresholds,
PIE marks only while its drop probability is under ``MarkEcnThreshold`` 0.1); Sluice with
``tcp.ecn = true`` and ``ecn = true`` in the queue table. The ECN rows also compare the ratio of
marked to arriving packets, within 25 % like the drop ratio.

Sluice runs under ``validate = "ns3.44"`` (ns-3's rules for RED and PIE: ``flavor``,
``byte_scaling``, ``hard_drop``, ``mean_pkt_size``, ``burst``). Both simulators draw the AQMs'
random numbers and the start times from their own generators, so each side runs seeds 1..5 (ns-3:
``--run``) and the seed means are compared: aggregate goodput within 5 %, mean queue within 20 %,
drop ratio within 25 % (relative), Jain's index within 0.1.

    python3 validation/aqm_seeds.py --ns3              # ns-3 runs (one at a time, ~2-4 min each) -> fixture
    python3 validation/aqm_seeds.py --ns3 --only red-ecn,pie-ecn   # some variants (merged into the fixture)
    python3 validation/aqm_seeds.py --collect DIR      # build the fixture from ns3_dumbbell.py records in DIR
    python3 validation/aqm_seeds.py                    # Sluice runs and the table; exit 1 on disagreement
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import seed_means

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "validation" / "fixtures" / "ns3" / "aqm-seeds.json"
QDISCS = ("red", "ared", "pie", "red-ecn", "ared-ecn", "pie-ecn")
SEEDS = range(1, 6)
TOLERANCE = {"goodput": 0.05, "queue": 0.20, "drop": 0.25, "jain": 0.1, "mark": 0.25}
ARGS = ["--flows", "90", "--rtt-table", "eval9", "--bottleneck-rate", "100Mbps", "--bottleneck-delay", "2ms",
        "--buffer", "900", "--duration", "100", "--warmup", "30", "--start-window", "3",
        "--pie-target", "5ms", "--pie-tupdate", "15ms"]
SLUICE_QUEUE = {
    "red": '{ kind = "red", limit = "900pkt", params = "target", target = "5ms" }',
    "ared": '{ kind = "ared", limit = "900pkt", target = "5ms" }',
    "pie": '{ kind = "pie", limit = "900pkt", target = "5ms", t_update = "15ms" }',
}


def ecn(variant: str) -> bool:
    return variant.endswith("-ecn")


def base(variant: str) -> str:
    """The queue disc of a variant: "red" for "red-ecn"."""
    return variant.removesuffix("-ecn")


def sluice_queue(variant: str) -> str:
    q = SLUICE_QUEUE[base(variant)]
    return q.replace(" }", ", ecn = true }") if ecn(variant) else q


def summary(rec: dict) -> dict:
    """What the comparison keeps of an ns3_dumbbell.py record."""
    return {
        "run": rec["args"]["run"],
        "goodput_mbps": rec["aggregate_goodput_mbps"],
        "queue_mean_pkts": rec["queue_mean_pkts"],
        "drop_ratio": rec["drop_ratio"],
        "jain": rec["jain"],
        "mark_ratio": rec["qdisc_window"]["marked"] / rec["qdisc_window"]["received"],
        "wall_run_s": rec["wall_run_s"],
    }


def collect(records: dict[str, list[dict]]) -> None:
    """Write the fixture from `records` (variant -> ns3_dumbbell.py records); variants not in
    `records` keep the runs the fixture already holds."""
    any_rec = next(r for rs in records.values() for r in rs)
    old = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {"runs": {}}
    runs = {q: old["runs"][q] for q in QDISCS if q in old["runs"]}
    runs.update({q: [summary(r) for r in sorted(rs, key=lambda r: r["args"]["run"])] for q, rs in records.items()})
    fx = {
        "setup": "b-access90-newreno-pie5ms access link; queue disc under test on A->B; "
                 "-ecn variants add --ecn (sockets and queue disc)",
        "ns3_args": ARGS,
        "versions": any_rec.get("versions"),
        "sender_delays": [f["sender_delay"] for f in any_rec["flows"]],
        "receiver_delays": [f["receiver_delay"] for f in any_rec["flows"]],
        "runs": {q: runs[q] for q in QDISCS if q in runs},
    }
    FIXTURE.write_text(json.dumps(fx, indent=1) + "\n")
    print(f"wrote {FIXTURE}")


def run_ns3(out_dir: Path, variants: tuple[str, ...]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for q in variants:
        for r in SEEDS:
            out = out_dir / f"{q}-run{r}.json"
            if out.exists() and out.stat().st_size > 0:
                continue
            subprocess.run([sys.executable, str(ROOT / "validation" / "ns3_dumbbell.py"), *ARGS, "--qdisc", base(q),
                            *(["--ecn"] if ecn(q) else []), "--run", str(r), "--name", f"b-access90-newreno-{q}-run{r}", "--out", str(out)], check=True)


def load_dir(d: Path, variants: tuple[str, ...]) -> dict[str, list[dict]]:
    recs: dict[str, list[dict]] = {}
    for q in variants:
        recs[q] = [json.loads(p.read_text()) for p in sorted(d.glob(f"{q}-run*.json"))]
        if not recs[q]:
            raise SystemExit(f"no {q}-run*.json in {d}")
    return recs


def scenario(fx: dict, q: str, seed: int) -> str:
    return seed_means.scenario(fx, f"aqm-{q}", seed, "100s", "30s", ["ecn = true"] if ecn(q) else [], sluice_queue(q))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3", type=Path, nargs="?", const=Path("aqm-ns3-records"), metavar="DIR",
                    help="run ns-3 (records kept in DIR, reused if present) and write the fixture")
    ap.add_argument("--collect", type=Path, metavar="DIR", help="write the fixture from the records in DIR")
    ap.add_argument("--only", type=lambda v: tuple(v.split(",")), default=QDISCS, metavar="V,V",
                    help=f"these variants only (of {', '.join(QDISCS)})")
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    args = ap.parse_args()
    if unknown := [v for v in args.only if v not in QDISCS]:
        ap.error(f"--only: unknown variant {unknown[0]!r}, expected some of {', '.join(QDISCS)}")
    if args.ns3:
        run_ns3(args.ns3, args.only)
        collect(load_dir(args.ns3, args.only))
        return 0
    if args.collect:
        collect(load_dir(args.collect, args.only))
        return 0
    fx = json.loads(FIXTURE.read_text())
    seed_means.build()
    groups = [(q, [seed_means.run_sluice(scenario(fx, q, s)) for s in SEEDS], fx["runs"][q]) for q in args.only]
    return seed_means.compare(groups, "queue", TOLERANCE, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
