#!/usr/bin/env python3
"""The evaluation harness's own speed (docs/harness.md): a paper-sized study, its overhead, Dask
scaling and the client's memory.

    python bench/harness.py [--seeds 30] [--out bench/harness.json]

Measures, on this machine and in one sitting:

1. **Study**: the 90-flow access link (`scenarios/reference/access90-newreno.toml`, 100 s
   simulated) as 3 load levels × 8 buffer sizes × `--seeds` seeds (720 runs with 30 seeds)
   through `sluice.sweep.run` with one thread per CPU. The levels are 30, 60 and 90 flows: they
   stand in for calibrated congestion levels, whose search is not part of the timing.
   Reported: wall time, the runs' own simulation time (each run's `wall_time_s`), and the
   harness's overhead: wall time × threads over the summed simulation time, less one.
2. **Dask**: the same cells (one level, 48 runs) on a `distributed.LocalCluster` of 1, 2 and 4
   worker processes of one thread each: runs per second for each.
3. **Client memory**: peak resident memory (`VmHWM`: `ru_maxrss` would carry the parent's over
   `fork`) of a client process that runs 60, 240 and 720 cells of a 5 s scenario on 2 threads
   (a fresh process per size).

Results go to the JSON file and are summarised in bench/results.md by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "scenarios" / "reference" / "access90-newreno.toml"
BUFFERS = ["50pkt", "100pkt", "200pkt", "300pkt", "450pkt", "600pkt", "750pkt", "900pkt"]


def sweep_file(d: Path, flows: list[int], buffers: list[str], seeds: int, duration: str | None = None) -> Path:
    """A sweep over `BASE` with the given axes, written into `d`."""
    text = BASE.read_text()
    if duration is not None:
        text = text.replace('duration = "100s"', f'duration = "{duration}"').replace('warmup = "30s"', 'warmup = "1s"')
    (d / "base.toml").write_text(text)
    axes_text = f"[axes]\nflows = {flows}\nbuffer = {json.dumps(buffers)}\n"
    p = d / "study.toml"
    p.write_text(f'scenarios = ["base.toml"]\nseeds = {seeds}\n{axes_text}')
    return p


def study(seeds: int) -> dict[str, float]:
    from sluice import sweep

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        path = sweep_file(d, [30, 60, 90], BUFFERS, seeds)
        threads = os.cpu_count() or 1
        t0 = time.perf_counter()
        res = sweep.run(path, d / "res", workers=threads)
        wall = time.perf_counter() - t0
        runs = res.runs()
        sim = float(runs["wall_time_s"].sum())
        n = len(runs)
    return {"runs": n, "threads": threads, "wall_s": wall, "sim_sum_s": sim, "overhead": wall * threads / sim - 1.0}


def dask_scaling() -> list[dict[str, float]]:
    from distributed import Client, LocalCluster

    from sluice import sweep

    out = []
    for workers in (1, 2, 4):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            path = sweep_file(d, [90], BUFFERS, 6)
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
                client.run(lambda: __import__("sluice"))  # imports done before the clock starts
                t0 = time.perf_counter()
                res = sweep.run(path, d / "res", scheduler=client)
                wall = time.perf_counter() - t0
            n = len(res.runs())
        out.append({"workers": workers, "runs": n, "wall_s": wall, "runs_per_s": n / wall})
    return out


def client_memory() -> list[dict[str, float]]:
    out = []
    for seeds in (5, 20, 60):  # × 3 levels × 4 buffers = 60, 240, 720 cells
        code = (
            "import json, resource, sys, tempfile\n"
            "from pathlib import Path\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "import harness\n"
            "from sluice import sweep\n"
            "with tempfile.TemporaryDirectory() as tmp:\n"
            "    d = Path(tmp)\n"
            f"    p = harness.sweep_file(d, [30, 60, 90], harness.BUFFERS[:4], {seeds}, duration='5s')\n"
            "    n = len(sweep.run(p, d / 'res', workers=2).outcomes)\n"
            "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "print(json.dumps({'runs': n, 'peak_rss_mb': int(hwm.split()[1]) / 1024}))\n"
        )
        r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True, check=True)
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=30, help="seeds of the study (30: 720 runs)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "harness.json")
    ap.add_argument("--skip", nargs="*", default=[], choices=["study", "dask", "memory"])
    a = ap.parse_args()
    res: dict[str, object] = {"load_avg_before": os.getloadavg()[0], "cpus": os.cpu_count()}
    if "study" not in a.skip:
        res["study"] = study(a.seeds)
        print("study", res["study"], flush=True)
    if "dask" not in a.skip:
        res["dask"] = dask_scaling()
        print("dask", res["dask"], flush=True)
    if "memory" not in a.skip:
        res["client_memory"] = client_memory()
        print("memory", res["client_memory"], flush=True)
    res["load_avg_after"] = os.getloadavg()[0]
    prev = json.loads(a.out.read_text()) if a.out.exists() else {}
    a.out.write_text(json.dumps({**prev, **res}, indent=1) + "\n")


if __name__ == "__main__":
    main()
