#!/usr/bin/env python3
"""Sluice speed benchmarks: wall time, events/s and data packets/s on the reference dumbbells,
how per-packet cost scales with flow count and buffer size, speed against ns-3 measured in the
same sitting, and memory per flow.

Nothing here is a test: numbers go to ``bench/results.json`` and ``bench/results.md`` (each mode
updates its own part of them and keeps the others).

Usage:
  python3 bench/run.py [--quick] [--repeat N] [--pair-rounds N] [--cachegrind]
      Sluice alone. Cases run in rounds (every case once per round); the fastest run of each counts.
  python3 bench/run.py --same-sitting [--pairs N] [--cases access10,access90]
      ns-3 and Sluice on the same cases in alternation (ns-3, Sluice x3, ns-3, Sluice x3, ...), with
      the load average at each: the speed-up per pair, its median and range per case, and each
      simulator's events/s and nanoseconds per data packet. ns-3 runs through
      validation/ns3_dumbbell.py (ns-3 3.44 from PyPI, FlowMonitor not attached); Sluice runs the
      same case under validate = "ns3.44" with ns-3's start times (packet for packet the same run).
  python3 bench/run.py --memory
      Peak resident memory of sluice-sim against the flow count on a 1 Gb/s dumbbell.
  python3 bench/run.py --variants [--pair-rounds N]
      Cost per data packet of each queue discipline (bench/aqm/) and congestion control (bench/cc/)
      against the drop-tail NewReno reference, and each congestion control from 10 to 900 flows.
"""
from __future__ import annotations

import argparse
import json
import statistics
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from collections.abc import Callable

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "sluice-sim"
BENCH = ROOT / "target" / "release" / "sluice-bench"

ACCESS = """name = "{name}"
duration = "{duration}"
warmup = "{warmup}"
seed = 1
[tcp]
validate = "ns3.44"
snd_buf = "8MiB"
rcv_buf = "8MiB"
[topology]
kind = "dumbbell"
pairs = {flows}
access_rate = "{rate}"
{delays}
bottleneck = {{ rate = "{rate}", delay = "{bdelay}" }}
queue = {{ kind = "drop_tail", limit = "{buffer}pkt" }}
[[flows]]
count = {flows}
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "3s"] }}
"""

EVAL9 = 'rtt_table = "eval9"'
DC = 'sender_delays = ["10us", "100us"]\nreceiver_delays = ["10us", "100us"]'

# (case, flows, buffer, rate, bottleneck delay, delays, duration, warmup, ns-3 case name)
CASES = [
    ("access10", 10, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "access10-newreno-fifo"),
    ("access9", 9, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "a-access9-newreno-fifo"),
    ("access90", 90, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", "b-access90-newreno-fifo"),
    ("access900", 900, 900, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("access10-buf100", 10, 100, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("access10-buf1000", 10, 1000, "100Mbps", "2ms", EVAL9, "100s", "30s", None),
    ("dc90", 90, 900, "1Gbps", "10us", DC, "10s", "3s", "d-dc90-newreno-fifo-10s"),
]


# Per-packet cost comparisons: (key, base case, other case).
PAIRS = [("per_pkt_900_vs_10_flows", "access10", "access900"), ("per_pkt_buf1000_vs_buf100", "access10-buf100", "access10-buf1000")]


# Same-sitting cases: the ns-3 fixture whose set-up and start times both simulators run, and the
# arguments of validation/ns3_dumbbell.py that reproduce it.
SAME_SITTING = {
    "access10": ("access10-newreno-fifo", ["--name", "access10-newreno-fifo", "--flows", "10", "--rtt-table", "eval9",
                                           "--bottleneck-rate", "100Mbps", "--bottleneck-delay", "2ms", "--buffer", "900",
                                           "--duration", "100", "--warmup", "30", "--start-window", "3"]),
    "access9": ("a-access9-newreno-fifo", ["--case", "a-access9-newreno-fifo"]),
    "access90": ("b-access90-newreno-fifo", ["--case", "b-access90-newreno-fifo"]),
    "single": ("e-single-newreno-fifo", ["--case", "e-single-newreno-fifo"]),
    "access90-cubic": ("c-access90-cubic-fifo", ["--case", "c-access90-cubic-fifo"]),
    # BBR on the 90-flow link, 6 s (ns-3's TcpBbr takes minutes per simulated second there), with
    # ns-3's cycle draws pinned (--bbr-streams 100, in the record's arguments): the same run.
    # (Paths relative to the repository, where run_measured runs ns-3.)
    "access90-bbr": ("v-bbr-access90-6s", ["--from-record", "validation/fixtures/ns3/v-bbr-access90-6s.json"]),
    "access90-codel": ("b-access90-newreno-codel", ["--case", "b-access90-newreno-codel"]),
    # PIE draws from each simulator's own generator: the runs differ (not "same result").
    "access90-pie": ("b-access90-newreno-pie5ms", ["--case", "b-access90-newreno-pie5ms"]),
}
SLUICE_PER_PAIR = 3
NS3_SCRIPT = ROOT / "validation" / "ns3_dumbbell.py"
FIXTURES = ROOT / "validation" / "fixtures" / "ns3"

# Memory per flow: the 1 Gb/s dumbbell of docs/python.md's scale example (2,000-packet drop-tail,
# 10 s, 3 s warm-up), at these flow counts.
MEMORY_FLOWS = [10, 100, 1000, 3000, 10000]
SCALE = """name = "scale{flows}"
duration = "10s"
warmup = "3s"
seed = 1
[topology]
kind = "dumbbell"
pairs = {flows}
access_rate = "10Gbps"
access_delay = "1ms"
bottleneck = {{ rate = "1Gbps", delay = "5ms" }}
queue = {{ kind = "drop_tail", limit = "2000pkt" }}
[[flows]]
count = {flows}
src = "senders"
dst = "receivers"
app = {{ kind = "bulk" }}
start = {{ uniform = ["0s", "1s"] }}
"""


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "sluice-sim", "--bin", "sluice-bench"], cwd=ROOT, check=True)


def scenario_text(case: tuple) -> str:
    name, flows, buf, rate, bdelay, delays, duration, warmup, _ = case
    return ACCESS.format(name=name, flows=flows, buffer=buf, rate=rate, bdelay=bdelay, delays=delays, duration=duration, warmup=warmup)


def run_once(scen: Path) -> dict:
    out = subprocess.run([str(BIN), str(scen)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_measured(cmd: list[str]) -> tuple[str, int]:
    """Run a command; its standard output and its peak resident set size in bytes.

    The peak comes from GNU time (``/usr/bin/time -f %M``), a small C process: the kernel's
    ru_maxrss of a child forked straight from this Python process would include the pages the
    child shared with Python before its exec (about 15-30 MiB, more than sluice-sim itself
    uses at 10 flows). Without GNU time it falls back to that figure, which is then an upper bound.
    """
    import shutil
    gnu_time = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        full = [gnu_time, "-f", "%M", *cmd] if gnu_time else cmd
        proc = subprocess.Popen(full, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise subprocess.CalledProcessError(code, cmd)
        out.seek(0)
        err.seek(0)
        rss_kib = usage.ru_maxrss
        if gnu_time:
            rss_kib = int(err.read().decode().strip().splitlines()[-1])
        return out.read().decode(), rss_kib * 1024


def ns3_build() -> dict:
    """Which ns-3 runs: the installed wheel's version and its build profile, read from the CMake
    export the wheel ships (ns-3 defines NS3_BUILD_PROFILE_<PROFILE>, and NS3_LOG_ENABLE /
    NS3_ASSERT_ENABLE when logging and asserts are compiled in)."""
    import importlib.metadata
    import re
    info: dict = {}
    try:
        dist = importlib.metadata.distribution("ns3")
    except importlib.metadata.PackageNotFoundError:
        return {"installed": False}
    info["wheel"] = f"ns3 {dist.version} (PyPI)"
    targets = [f for f in dist.files or [] if str(f).endswith("cmake/ns3/ns3Targets.cmake")]
    if targets:
        text = Path(dist.locate_file(targets[0])).read_text()
        defs = set(re.findall(r"\b(NS3_[A-Z_]+)\b", text))
        profiles = sorted(d.removeprefix("NS3_BUILD_PROFILE_").lower() for d in defs if d.startswith("NS3_BUILD_PROFILE_"))
        info["build_profile"] = ",".join(profiles) or None
        info["logging_compiled_in"] = "NS3_LOG_ENABLE" in defs
        info["asserts_compiled_in"] = "NS3_ASSERT_ENABLE" in defs
    info["flowmonitor"] = "not attached (validation/ns3_dumbbell.py measures with its own C++ probes)"
    return info


def ns3_forwarded_data_packets(rec: dict) -> int:
    """Data segments of the ns-3 run that reached A's bottleneck device or were dropped by its
    queue disc, less each flow's SYN and handshake ACK: Sluice's ``data_packets`` (segments the
    hosts sent) but for those still queued or on the access links when the run ends (about a
    queue's worth, 0.1-0.2 % here)."""
    flows = rec["flows"]
    return rec["bottleneck_data_pkts_total"] + sum(f["qdisc_drops_total"] for f in flows) - 2 * len(flows)


def same_sitting(cases: list[str], pairs: int, save: Callable[[dict], None]) -> dict:
    """ns-3 and Sluice on the same cases, alternating: per round and case one ns-3 run, then
    three Sluice runs; the ratio of a pair is ns-3's wall time over the median of its three.
    ``save`` receives the summary so far after every pair (a long sitting cut short keeps its pairs)."""
    sys.path.insert(0, str(ROOT / "validation"))
    import compare  # the Sluice scenario of an ns-3 record (same set-up, ns-3's start times)

    runs: dict[str, list[dict]] = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as d:
        scen = {}
        for c in cases:
            fixture = json.loads((FIXTURES / f"{SAME_SITTING[c][0]}.json").read_text())
            scen[c] = Path(d) / f"{c}.toml"
            scen[c].write_text(compare.scenario(fixture, None))
        for k in range(pairs):
            for c in cases:
                load = os.getloadavg()
                t = time.strftime("%H:%M:%S", time.gmtime())
                out = Path(d) / f"{c}-ns3.json"
                _, ns3_rss = run_measured([sys.executable, str(NS3_SCRIPT), *SAME_SITTING[c][1], "--out", str(out)])
                rec = json.loads(out.read_text())
                sl = []
                for _ in range(SLUICE_PER_PAIR):
                    text, rss = run_measured([str(BIN), str(scen[c])])
                    summ = json.loads(text)
                    sl.append({"wall_s": summ["wall_time_s"], "events": summ["events"], "data_packets": summ["data_packets"],
                               "goodput_mbps": summ["aggregate_goodput_bps"] / 1e6, "peak_rss_bytes": rss})
                load_after = os.getloadavg()
                walls = sorted(x["wall_s"] for x in sl)
                mid = walls[len(walls) // 2]
                # The same run packet for packet sends the same data packets: then Sluice's count
                # is ns-3's too; otherwise the count at ns-3's bottleneck.
                same = abs(rec["aggregate_goodput_mbps"] - sl[0]["goodput_mbps"]) < 1e-6
                ns3_pkts = sl[0]["data_packets"] if same else ns3_forwarded_data_packets(rec)
                pair = {
                    "round": k + 1, "utc": t, "loadavg_before": list(load), "loadavg_after": list(load_after),
                    "same_result": same, "ns3_wall_s": rec["wall_run_s"], "ns3_events": rec["events"], "ns3_data_packets": ns3_pkts,
                    "ns3_forwarded_data_packets": ns3_forwarded_data_packets(rec),
                    "ns3_events_per_s": rec["events"] / rec["wall_run_s"], "ns3_ns_per_data_pkt": rec["wall_run_s"] / ns3_pkts * 1e9,
                    "ns3_peak_rss_bytes": ns3_rss, "ns3_goodput_mbps": rec["aggregate_goodput_mbps"],
                    "sluice_wall_s": [x["wall_s"] for x in sl], "sluice_wall_s_median": mid,
                    "sluice_events": sl[0]["events"], "sluice_data_packets": sl[0]["data_packets"],
                    "sluice_events_per_s": sl[0]["events"] / mid, "sluice_ns_per_data_pkt": mid / sl[0]["data_packets"] * 1e9,
                    "sluice_peak_rss_bytes": max(x["peak_rss_bytes"] for x in sl), "sluice_goodput_mbps": sl[0]["goodput_mbps"],
                    "speedup": rec["wall_run_s"] / mid,
                }
                runs[c].append(pair)
                save(summarize_sitting(runs))
                print(f"round {k + 1}/{pairs} {c} at {t} UTC, load {load[0]:.1f}: ns-3 {rec['wall_run_s']:.1f} s, "
                      f"Sluice {' '.join(f'{w:.3f}' for w in pair['sluice_wall_s'])} s: {pair['speedup']:.0f}x "
                      f"(goodput {rec['aggregate_goodput_mbps']:.6f} / {pair['sluice_goodput_mbps']:.6f} Mb/s)", flush=True)
    return summarize_sitting(runs)


def summarize_sitting(runs: dict[str, list[dict]]) -> dict:
    """Per case: the pairs, the median and range of their speed-ups, medians of the costs."""
    out = {"date": time.strftime("%Y-%m-%d"), "ns3": ns3_build(), "sluice_runs_per_pair": SLUICE_PER_PAIR, "cases": {}}
    med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1: len(xs) // 2 + 1]) / 2  # noqa: E731
    for c, ps in runs.items():
        if not ps:
            continue
        sp = [p["speedup"] for p in ps]
        out["cases"][c] = {
            "date": out["date"],
            "ns3_case": SAME_SITTING[c][0],
            "ns3_args": SAME_SITTING[c][1],
            "pairs": ps,
            "speedup_median": med(sp), "speedup_min": min(sp), "speedup_max": max(sp),
            "same_result": all(p["same_result"] for p in ps),
            "ns3_ns_per_data_pkt_median": med([p["ns3_ns_per_data_pkt"] for p in ps]),
            "sluice_ns_per_data_pkt_median": med([p["sluice_ns_per_data_pkt"] for p in ps]),
            "ns3_events_per_s_median": med([p["ns3_events_per_s"] for p in ps]),
            "sluice_events_per_s_median": med([p["sluice_events_per_s"] for p in ps]),
        }
    return out


BASE_90 = ROOT / "scenarios" / "reference" / "access90-newreno.toml"


def variant_costs(rounds: int) -> dict:
    """Each queue discipline (bench/aqm/*.toml), congestion control (bench/cc/*.toml) and
    network-return gateway (bench/gateway/*.toml) on the 90-flow access dumbbell against the
    drop-tail NewReno reference, interleaved in one process;
    and each congestion control's per-packet cost at 900 flows over its cost at 10."""
    import shutil
    rows = []
    counted = shutil.which("valgrind") is not None
    base_instr = instructions_per_pkt(BASE_90) if counted else None
    for group in ("aqm", "cc", "gateway"):
        for f in sorted((ROOT / "bench" / group).glob("*.toml")):
            print(f"interleaved {BASE_90.name} / {group}/{f.name} ...", flush=True)
            out = subprocess.run([str(BENCH), str(BASE_90), str(f), "--rounds", str(rounds)], capture_output=True, text=True, check=True)
            j = json.loads(out.stdout)
            rows.append({"group": group, "file": f"bench/{group}/{f.name}", "ratios": j["ratio"],
                         "base_ns": [r["ns_per_data_pkt"] for r in j["base"]["rounds"]],
                         "other_ns": [r["ns_per_data_pkt"] for r in j["other"]["rounds"]],
                         "instr_ratio": instructions_per_pkt(f) / base_instr if counted else None})
    flat = []
    cases = {c[0]: c for c in CASES}
    ccs = ["new_reno"] + [f.stem.removeprefix("access90-") for f in sorted((ROOT / "bench" / "cc").glob("access90-*.toml"))]
    with tempfile.TemporaryDirectory() as d:
        for cc in ccs:
            files = []
            for name in ("access10", "access900"):
                path = Path(d) / f"{name}-{cc}.toml"
                path.write_text(scenario_text(cases[name]).replace('validate = "ns3.44"', f'validate = "ns3.44"\ncc = "{cc}"'))
                files.append(path)
            print(f"interleaved access10 / access900, cc = {cc} ...", flush=True)
            flat.append({"cc": cc, "ratios": interleaved_ratios(files[0], files[1], rounds)})
    return {"date": time.strftime("%Y-%m-%d"), "loadavg": "/".join(f"{x:.1f}" for x in os.getloadavg()),
            "rounds": rounds, "base": str(BASE_90.relative_to(ROOT)), "base_instr_per_pkt": base_instr, "rows": rows, "flatness": flat}


def merge_sittings(earlier: dict, new: dict) -> dict:
    """A sitting's cases replace the same cases of earlier sittings and keep the others, each
    case with the date of its own sitting."""
    cases = {c: {"date": earlier.get("date"), **r} for c, r in (earlier.get("cases") or {}).items()}
    cases.update(new.get("cases") or {})
    return {**new, "cases": cases}


def memory(flow_counts: list[int]) -> dict:
    """Peak resident memory of sluice-sim on the 1 Gb/s scale dumbbell against the flow count,
    with the wall time and the cost per data packet of each run."""
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in flow_counts:
            f = Path(d) / f"scale{n}.toml"
            f.write_text(SCALE.format(flows=n))
            text, rss = run_measured([str(BIN), str(f)])
            s = json.loads(text)
            q = next(q for q in s["queues"] if q["name"] == "A->B")
            rows.append({"flows": n, "peak_rss_bytes": rss, "wall_s": s["wall_time_s"], "events": s["events"],
                         "data_packets": s["data_packets"], "ns_per_data_pkt": s["wall_time_s"] / s["data_packets"] * 1e9,
                         "drop_ratio": q["drop_ratio"], "goodput_mbps": s["aggregate_goodput_bps"] / 1e6,
                         "received_mbps": s["aggregate_received_bps"] / 1e6})
            print(f"{n:>6} flows: peak RSS {rss / 2**20:.1f} MiB, wall {s['wall_time_s']:.2f} s, "
                  f"{rows[-1]['ns_per_data_pkt']:.0f} ns/pkt, drops {q['drop_ratio']:.1%}", flush=True)
    per_flow = [(b["peak_rss_bytes"] - a["peak_rss_bytes"]) / (b["flows"] - a["flows"]) for a, b in zip(rows, rows[1:])]
    return {"date": time.strftime("%Y-%m-%d"), "scenario": SCALE.format(flows="N"), "runs": rows,
            "bytes_per_flow_between_steps": per_flow}


def record(case: tuple, runs: list[dict]) -> dict:
    """The fastest run of a case, with the spread of all of them."""
    name, flows, buf = case[0], case[1], case[2]
    best = min(runs, key=lambda s: s["wall_time_s"])
    wall = best["wall_time_s"]
    walls = sorted(s["wall_time_s"] for s in runs)
    return {
        "case": name,
        "flows": flows,
        "buffer_pkts": buf,
        "sim_s": best["sim_time_s"],
        "wall_s": wall,
        "wall_s_median": walls[len(walls) // 2],
        "wall_s_all": [s["wall_time_s"] for s in runs],
        "events": best["events"],
        "events_per_s": best["events"] / wall,
        "data_packets": best["data_packets"],
        "data_pkts_per_s": best["data_packets"] / wall,
        "ns_per_data_pkt": wall / best["data_packets"] * 1e9,
        "wall_per_sim_s": wall / best["sim_time_s"],
        "aggregate_goodput_mbps": best["aggregate_goodput_bps"] / 1e6,
    }


def paired_ratios(by: dict, a: str, b: str) -> list[float]:
    """Per-packet cost of case b over case a, run by run: run k of both cases was made in the same
    round, minutes apart at most, so a slow spell of a shared machine weighs on both."""
    ra, rb = by[a], by[b]
    return [(tb / rb["data_packets"]) / (ta / ra["data_packets"]) for ta, tb in zip(ra["wall_s_all"], rb["wall_s_all"])]


def interleaved_ratios(a: Path, b: Path, rounds: int) -> list[float]:
    """Per-packet cost of scenario b over scenario a, both run in one process in alternating
    slices of events (``sluice-bench``), once per round: the two meet the same machine
    conditions throughout, which sequential runs on a shared machine do not."""
    out = subprocess.run([str(BENCH), str(a), str(b), "--rounds", str(rounds)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["ratio"]


def cachegrind_run(scen: Path, *args: str, cache: bool = False) -> tuple[int, str]:
    """Run `sluice-sim` on `scen` (with extra arguments) under cachegrind: its data packets
    and valgrind's report."""
    sim = ["valgrind", "--tool=cachegrind", f"--cache-sim={'yes' if cache else 'no'}"] + (["--LL=1048576,16,64"] if cache else [])
    out = subprocess.run(sim + ["--cachegrind-out-file=/dev/null", str(BIN), str(scen), *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["data_packets"], out.stderr


def valgrind_count(report: str, pattern: str) -> int:
    import re
    return int(re.search(pattern, report).group(1).replace(",", ""))


def instructions_per_pkt(scen: Path) -> float:
    """Instructions per data packet of `scen` cut to 20 s with a 5 s warm-up (deterministic)."""
    pkts, report = cachegrind_run(scen, "--set", 'duration="20s"', "--set", 'warmup="5s"')
    return valgrind_count(report, r"I\s+refs:\s+([\d,]+)") / pkts


def cachegrind_counts(case: tuple) -> dict | None:
    """Instructions and last-level data misses per data packet under cachegrind (a 1 MiB, 16-way
    last-level cache, twice this machine's 512 KiB per-core L2), on the case shortened to 40 s with a 10 s
    warm-up. Deterministic, unlike wall time on a shared machine: the flatness of the work
    itself. None if valgrind is missing."""
    import shutil
    if shutil.which("valgrind") is None:
        return None
    c = list(case)
    c[6], c[7] = "40s", "10s"
    with tempfile.TemporaryDirectory() as d:
        scen = Path(d) / "c.toml"
        scen.write_text(scenario_text(tuple(c)))
        pkts, report = cachegrind_run(scen, cache=True)
    return {"instructions_per_pkt": valgrind_count(report, r"I\s+refs:\s+([\d,]+)") / pkts,
            "ll_misses_per_pkt": valgrind_count(report, r"LLd misses:\s+([\d,]+)") / pkts}


def mib(b: float) -> str:
    return f"{b / 2**20:.1f}"


def render(result: dict) -> str:
    """bench/results.md from bench/results.json: the same-sitting comparison with ns-3 first, then
    Sluice's own cases, the per-packet cost ratios and memory per flow."""
    lines = ["# Benchmark results", ""]
    m = result.get("machine", {})
    lines += [f"Machine: {m.get('cpus')} cores, {m.get('platform')}. Single core per run.", ""]
    ss = result.get("same_sitting")
    if ss:
        ns3 = ss["ns3"]
        build = (f"{ns3.get('wheel')}, build profile `{ns3.get('build_profile')}`, logging "
                 f"{'and asserts compiled in' if ns3.get('logging_compiled_in') and ns3.get('asserts_compiled_in') else 'compiled in: ' + str(ns3.get('logging_compiled_in'))}")
        lines += ["## Speed against ns-3, same sitting", "",
                  f"ns-3: {build}; FlowMonitor {ns3.get('flowmonitor')}. Wall time is `Simulator::Run()` alone for",
                  f"ns-3 and the event loop alone for Sluice. Each pair is one ns-3 run followed by {ss['sluice_runs_per_pair']} Sluice runs of",
                  "the same case (ns-3's set-up and start times, Sluice under `validate = \"ns3.44\"`); its speed-up is ns-3's",
                  f"wall time over the median of the {ss['sluice_runs_per_pair']}. Load average: 1-minute value when the pair began.", "",
                  "| case | date | pairs | speed-up median [range] | ns-3 ns/data pkt | Sluice ns/data pkt | ns-3 events/s | Sluice events/s | same result |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for c, r in ss["cases"].items():
            lines.append(f"| {c} (`{r['ns3_case']}`) | {r.get('date') or ss['date']} | {len(r['pairs'])} | **{r['speedup_median']:.0f}×** [{r['speedup_min']:.0f}–{r['speedup_max']:.0f}] | "
                         f"{r['ns3_ns_per_data_pkt_median']:,.0f} | {r['sluice_ns_per_data_pkt_median']:,.0f} | "
                         f"{r['ns3_events_per_s_median'] / 1e3:,.0f} k | {r['sluice_events_per_s_median'] / 1e6:.2f} M | "
                         f"{'yes' if r['same_result'] else 'no'} |")
        lines += ["", "Pairs:", "", "| case | round | UTC | load avg (1/5/15 min) | ns-3 wall s | Sluice wall s | speed-up | ns-3 peak RSS MiB |", "|---|---|---|---|---|---|---|---|"]
        for c, r in ss["cases"].items():
            for pr in r["pairs"]:
                la = "/".join(f"{x:.1f}" for x in pr["loadavg_before"])
                lines.append(f"| {c} | {pr['round']} | {pr['utc']} | {la} | {pr['ns3_wall_s']:.1f} | "
                             f"{' '.join(f'{w:.3f}' for w in pr['sluice_wall_s'])} | {pr['speedup']:.0f}× | "
                             f"{mib(pr['ns3_peak_rss_bytes'])} |")
        lines += ["", "Same result \"yes\": ns-3's aggregate goodput equals Sluice's to the printed precision in every pair; the two",
                  "runs then send the same data packets, and both costs per packet divide by Sluice's `data_packets`.",
                  "\"no\" (PIE, whose drops draw from each simulator's own generator): ns-3's count is taken at its bottleneck",
                  "(`validation/ns3_dumbbell.py`'s forwarded data packets). Cases measured on another date than the newest",
                  "sitting keep their own date; ratios from different sittings compare loosely. Events are each simulator's own (ns-3's",
                  "scheduler events, Sluice's engine events), so events/s do not compare across simulators; the cost",
                  "per data packet does. ns-3's peak RSS includes the Python interpreter and cppyy, which its bindings need;",
                  "Sluice's is in the memory table below.", ""]
    cases = result.get("cases")
    if cases:
        lines += [f"## Sluice alone ({result.get('date')})", "", f"Fastest of {result.get('repeat', 3)} runs.", "",
                  "| case | flows | buffer | wall s | events/s | data pkt/s | ns/pkt |", "|---|---|---|---|---|---|---|"]
        for r in cases:
            lines.append(f"| {r['case']} | {r['flows']} | {r['buffer_pkts']} | {r['wall_s']:.3f} | {r['events_per_s']/1e6:.2f} M | "
                         f"{r['data_pkts_per_s']/1e6:.2f} M | {r['ns_per_data_pkt']:.0f} |")
        rounds = result.get("pair_rounds", 11)
        lines += ["", "Per-packet cost ratios (1.0 = perfectly flat; target ≤ 1.5). Interleaved: the two cases run in one",
                  f"process in alternating slices (`sluice-bench`), median [range] of {rounds} rounds — the figure to quote, as both",
                  "meet the same machine conditions. Sequential: fastest run over fastest run, and the same-round median [range]:", ""]
        for k, v in result.get("flatness", {}).items():
            p = result["flatness_paired"][k]
            i = result.get("flatness_interleaved", {}).get(k)
            il = f"interleaved {i['median']:.2f} [{i['min']:.2f}–{i['max']:.2f}]; " if i else ""
            lines.append(f"- {k}: {il}sequential {v:.2f} (same-round median {p['median']:.2f} [{p['min']:.2f}–{p['max']:.2f}])")
        counts = result.get("cachegrind") or {}
        if len(counts) == 2:
            a, b = counts["access10"], counts["access900"]
            lines += ["", "Under cachegrind (deterministic; 40 s versions, 1 MiB last-level cache), per data packet:", "",
                      f"- instructions: {a['instructions_per_pkt']:.0f} at 10 flows, {b['instructions_per_pkt']:.0f} at 900 "
                      f"({b['instructions_per_pkt'] / a['instructions_per_pkt']:.2f}x)",
                      f"- last-level data misses: {a['ll_misses_per_pkt']:.2f} at 10 flows, {b['ll_misses_per_pkt']:.2f} at 900 "
                      "(cachegrind ignores prefetches: these are the cold lines the prefetches must cover)"]
        lines.append("")
    cc = result.get("cc_cost")
    if cc:
        lines += [f"## Cost of the congestion controls ({cc['date']})", "",
                  "The 90-flow access dumbbell (`scenarios/reference/access90-newreno.toml`, 100 s) against the same file with",
                  "`cc` changed, run interleaved in one process (`target/release/sluice-bench BASE.toml OTHER.toml --rounds N`):",
                  "OTHER's cost per data packet over BASE's, per round; target ≤ 1.2 for CUBIC against NewReno. The machine was",
                  f"shared (load average {cc['loadavg']}), so single rounds scatter; both runs of a round meet the same load.", "",
                  "| profile | BASE → OTHER | rounds | ratio median [range] | BASE ns/data pkt (median) | OTHER ns/data pkt (median) |",
                  "|---|---|---|---|---|---|"]
        for r in cc["runs"]:
            q = sorted(r["ratios"])
            lines.append(f"| `{r['profile']}` | {r['base']} → {r['other']} | {len(q)} | **{statistics.median(q):.2f}** [{q[0]:.2f}–{q[-1]:.2f}] | "
                         f"{statistics.median(r['base_ns']):,.0f} | {statistics.median(r['other_ns']):,.0f} |")
        lines += ["", cc.get("note", ""), ""]
    var = result.get("variant_cost")
    if var:
        med = statistics.median
        lines += [f"## Cost of each queue discipline, congestion control and gateway ({var['date']})", "",
                  f"`python3 bench/run.py --variants`: each file of `bench/aqm/`, `bench/cc/` and `bench/gateway/` (the 90-flow access dumbbell,",
                  f"100 s, with one thing changed) against `{var['base']}` (drop-tail, NewReno), run interleaved in one",
                  f"process (`sluice-bench BASE OTHER --rounds {var['rounds']}`): OTHER's cost per data packet over BASE's, median [range]",
                  f"of the rounds; target ≤ 1.2. Load average at the end: {var['loadavg']} (2 cores); both runs of a round meet the same load.", "",
                  "The last column counts instructions instead of time (cachegrind, the same files cut to 20 s with a 5 s",
                  f"warm-up; deterministic): OTHER's instructions per data packet over BASE's ({var.get('base_instr_per_pkt') or 0:,.0f}).",
                  "Time and instructions part where a variant changes the traffic itself (shorter queues, more",
                  "drops and recoveries, flows served in turn) and with it how the rest of the simulator uses the caches.", "",
                  "| file | ratio to drop-tail NewReno | BASE ns/data pkt (median) | OTHER ns/data pkt (median) | instructions ratio |", "|---|---|---|---|---|"]
        for r in var["rows"]:
            q = sorted(r["ratios"])
            ir = f"{r['instr_ratio']:.2f}" if r.get("instr_ratio") else "–"
            lines.append(f"| `{r['file']}` | **{med(q):.2f}** [{q[0]:.2f}–{q[-1]:.2f}] | {med(r['base_ns']):,.0f} | {med(r['other_ns']):,.0f} | {ir} |")
        lines += ["", "Per-packet cost at 900 flows over 10 (the access10/access900 cases of `Sluice alone` with `cc` set; target",
                  "≤ 1.5; the figure rises with the machine's load, as more flows' state falls out of cache, so compare the rows",
                  "with each other and with NewReno's here):", "",
                  "| cc | 900 / 10 flows, median [range] |", "|---|---|"]
        for r in var["flatness"]:
            q = sorted(r["ratios"])
            lines.append(f"| `{r['cc']}` | **{med(q):.2f}** [{q[0]:.2f}–{q[-1]:.2f}] |")
        lines.append("")
    mem = result.get("memory")
    if mem:
        lines += [f"## Memory per flow ({mem['date']})", "",
                  "Peak resident set of `sluice-sim` on a 1 Gb/s dumbbell (10 Gb/s, 1 ms access links; 5 ms bottleneck; 2,000-packet",
                  "drop-tail; bulk NewReno flows starting in the first second; 10 s, 3 s warm-up; default profile):", "",
                  "| flows | peak RSS MiB | bytes per flow (from the row above) | wall s | ns/data pkt | drops | goodput / received Mb/s |",
                  "|---|---|---|---|---|---|---|"]
        for k, r in enumerate(mem["runs"]):
            per = f"{mem['bytes_per_flow_between_steps'][k - 1]:,.0f}" if k else "–"
            lines.append(f"| {r['flows']:,} | {mib(r['peak_rss_bytes'])} | {per} | {r['wall_s']:.2f} | {r['ns_per_data_pkt']:.0f} | "
                         f"{r['drop_ratio']:.1%} | {r['goodput_mbps']:.1f} / {r['received_mbps']:.1f} |")
        lines.append("")
    return "\n".join(lines)


def load_results() -> dict:
    path = ROOT / "bench" / "results.json"
    result = json.loads(path.read_text()) if path.exists() else {}
    for r in result.get("cases", []):
        # Ratios against stored ns-3 times are no longer kept: ns-3's wall time for one case
        # varies threefold on this machine from hour to hour (see --same-sitting).
        for k in ("ns3_wall_s", "ns3_events_per_s", "speedup_vs_ns3"):
            r.pop(k, None)
    result.pop("ns3_reference", None)
    return result


# Sections of results.md that render() writes; any other "## " section was written by hand (or
# by another script) and is kept, in its place before these.
GENERATED = ("## Speed against ns-3, same sitting", "## Sluice alone", "## Cost of the congestion controls",
             "## Cost of each queue discipline", "## Memory per flow")


def keep_other_sections(old: str, new: str) -> str:
    """``new`` (render's text) with the sections of ``old`` that render does not write put back
    after the title, in their order."""
    parts = old.split("\n## ")
    kept = ["## " + p.rstrip("\n") + "\n" for p in parts[1:] if not ("## " + p).startswith(GENERATED)]
    if not kept:
        return new
    head, sep, rest = new.partition("\n## ")
    return head.rstrip("\n") + "\n\n" + "\n".join(kept) + ("\n## " + rest if sep else "")


def save_results(result: dict) -> None:
    result["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": sys.version.split()[0]}
    (ROOT / "bench" / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    md = ROOT / "bench" / "results.md"
    md.write_text(keep_other_sections(md.read_text() if md.exists() else "", render(result)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip the 900-flow case")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (runs per case); the fastest run counts (default 3)")
    ap.add_argument("--pair-rounds", type=int, default=11,
                    help="rounds of each interleaved pair; their median is the figure to quote (default 11: on a "
                         "shared machine medians of 5 rounds of the same build scatter by about ±0.05)")
    ap.add_argument("--cachegrind", action="store_true",
                    help="also count instructions and last-level misses per packet at 10 and 900 flows (valgrind, ~1 min)")
    ap.add_argument("--same-sitting", action="store_true",
                    help="run ns-3 and Sluice on the same cases in alternation (needs `pip install ns3`; an ns-3 run takes minutes)")
    ap.add_argument("--pairs", type=int, default=3, help="--same-sitting: rounds of (ns-3, Sluice x3) per case (default 3)")
    ap.add_argument("--cases", default="access10,access90",
                    help=f"--same-sitting: comma-separated, from {', '.join(SAME_SITTING)} (default access10,access90)")
    ap.add_argument("--memory", action="store_true", help="peak memory against the flow count (10 to 10,000 flows, ~15 s)")
    ap.add_argument("--variants", action="store_true",
                    help="cost per data packet of each bench/aqm and bench/cc file against the 90-flow drop-tail NewReno "
                         "reference, and each congestion control's 10 -> 900 flow ratio, interleaved (--pair-rounds rounds; ~15 min)")
    ap.add_argument("--render", action="store_true", help="only rewrite results.md from results.json")
    args = ap.parse_args()
    result = load_results()
    if args.render:
        save_results(result)
        return 0
    build()
    if args.variants:
        result["variant_cost"] = variant_costs(args.pair_rounds)
        save_results(result)
        return 0
    if args.same_sitting or args.memory:
        if args.same_sitting:
            cases = [c.strip() for c in args.cases.split(",") if c.strip()]
            unknown = [c for c in cases if c not in SAME_SITTING]
            if unknown:
                ap.error(f"--cases: unknown {', '.join(unknown)}; known: {', '.join(SAME_SITTING)}")
            earlier = result.get("same_sitting") or {}

            def save(partial: dict) -> None:
                result["same_sitting"] = merge_sittings(earlier, partial)
                save_results(result)

            result["same_sitting"] = merge_sittings(earlier, same_sitting(cases, args.pairs, save))
        if args.memory:
            result["memory"] = memory(MEMORY_FLOWS)
        save_results(result)
        return 0
    cases = [c for c in CASES if not (args.quick and c[1] >= 900)]
    runs: dict[str, list[dict]] = {c[0]: [] for c in cases}
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for c in cases:
            files[c[0]] = Path(d) / f"{c[0]}.toml"
            files[c[0]].write_text(scenario_text(c))
        # Rounds of every case in turn rather than each case's runs back to back: on a shared
        # machine a slow spell then slows one run of every case instead of all runs of one.
        for k in range(args.repeat):
            for c in cases:
                runs[c[0]].append(run_once(files[c[0]]))
            print(f"round {k + 1}/{args.repeat}: " + "  ".join(f"{c[0]} {runs[c[0]][-1]['wall_time_s']:.2f}s" for c in cases), flush=True)
        interleaved = {}
        for key, a, b in PAIRS:
            if a in files and b in files:
                print(f"interleaved {a} / {b} ...", flush=True)
                r = sorted(interleaved_ratios(files[a], files[b], args.pair_rounds))
                interleaved[key] = {"ratios": r, "median": r[len(r) // 2], "min": r[0], "max": r[-1]}
    rows = []
    for c in cases:
        r = record(c, runs[c[0]])
        rows.append(r)
        print(f"{r['case']:>18}: wall {r['wall_s']:.3f}s  {r['events_per_s']/1e6:.2f} Mev/s  {r['data_pkts_per_s']/1e6:.2f} Mpkt/s  {r['ns_per_data_pkt']:.0f} ns/pkt", flush=True)
    by = {r["case"]: r for r in rows}
    flat = {}
    paired = {}
    for key, a, b in PAIRS:
        if a in by and b in by:
            flat[key] = by[b]["ns_per_data_pkt"] / by[a]["ns_per_data_pkt"]
            ratios = sorted(paired_ratios(by, a, b))
            paired[key] = {"median": ratios[len(ratios) // 2], "min": ratios[0], "max": ratios[-1]}
    counts = {}
    if args.cachegrind:
        for c in cases:
            if c[0] in ("access10", "access900"):
                print(f"cachegrind {c[0]} (40 s) ...", flush=True)
                got = cachegrind_counts(c)
                if got is None:
                    print("valgrind not found: no counts", flush=True)
                    break
                counts[c[0]] = got
    result.update({
        "date": time.strftime("%Y-%m-%d"),
        "repeat": args.repeat,
        "pair_rounds": args.pair_rounds,
        "cases": rows,
        "flatness": flat,
        "flatness_paired": paired,
        "flatness_interleaved": interleaved,
        "cachegrind": counts,
    })
    save_results(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
