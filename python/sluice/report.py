"""One self-contained HTML report of a sweep's results directory.

The file holds everything needed to read and redo the study: the figures (embedded PNG), the
tables of means with Student-t 95 % intervals over seeds, the calibration and its steps, the
sweep file and every scenario text as they ran, the seeds, the failed cells with commands that
reproduce them, and the command that reruns the sweep.

Examples
--------
>>> from sluice.report import write_report
>>> write_report("results/buffer-sizing", "report.html")   # doctest: +SKIP
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from .api import Result
    from .sweep import SweepResult

__all__ = ["write_report", "render", "load_run", "REPORT_METRICS"]

#: Metrics the report draws and tabulates, with their labels.
REPORT_METRICS: dict[str, str] = {
    "loss_pct": "mean loss ratio (%)",
    "goodput_mbps": "mean goodput (Mbit/s)",
    "fct_s": "mean file transfer time (s)",
    "efficiency_pct": "TCP efficiency (%)",
    "jain_goodput": "Jain's index (goodput)",
    "mean_rtt_ms": "mean RTT (ms)",
    "queue_drop_pct": "bottleneck drop ratio (%)",
    "queue_mean_pkts": "mean queue length (packets)",
}

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
img { max-width: 100%; } .fail { color: #a00; } code { background: #f3f3f3; }
"""


def _png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return '<img alt="figure" src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode("ascii") + '">'


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _num(x: Any, digits: int = 4) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return _esc(x)
    if v != v:
        return "–"
    return f"{v:.{digits}g}"


def _table(df: pd.DataFrame, text_cols: Sequence[str] = ()) -> str:
    head = "".join(f'<th class="{"l" if c in text_cols else ""}">{_esc(c)}</th>' for c in df.columns)
    rows = []
    for _, r in df.iterrows():
        cells = "".join(
            f'<td class="l">{_esc(r[c])}</td>' if c in text_cols else f"<td>{_num(r[c])}</td>" for c in df.columns
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def load_run(results: str | os.PathLike[str], run: str) -> Result:
    """A stored run of a results directory as a :class:`sluice.api.Result` (summary and the
    Parquet tables), for figures of a single run."""
    import pandas as pd

    from .api import QUEUE_COLUMNS, FLOW_COLUMNS, Result, _frame

    d = Path(results) / "runs" / run
    text = (d / "summary.json").read_text(encoding="utf-8")
    summary = json.loads(text)
    tables = {p.stem: pd.read_parquet(p) for p in sorted(d.glob("*.parquet")) if p.stem not in ("flows", "queues")}
    return Result(summary=summary, summary_json=text, flows=_frame(summary.get("flows", []), FLOW_COLUMNS),
                  queues=_frame(summary.get("queues", []), QUEUE_COLUMNS), tables=tables)


def _layout(axis_names: list[str], agg: pd.DataFrame) -> tuple[str, str | None, list[str]]:
    """x, hue and facet columns for the bar figures: x is the level when calibrating, else the
    last axis; hue the first other axis with more than one value; the rest facets."""
    varying = [a for a in axis_names if a in agg and agg[a].nunique(dropna=True) > 1]
    if "scenario" in agg and agg["scenario"].nunique() > 1:
        varying = ["scenario", *varying]
    if not varying:
        return ("scenario", None, [])
    x = "level" if "level" in varying else varying[-1]
    rest = [a for a in varying if a != x]
    hue = rest[0] if rest else None
    return (x, hue, rest[1:])


def _families(agg: pd.DataFrame, axis_names: list[str]) -> list[tuple[str, pd.DataFrame, list[str]]]:
    """The sweep's rows in the groups drawn together: with calibrated levels, the cells of the
    axes and the cells at the levels apart (each without the axes it does not set)."""
    if "level" not in agg or not agg["level"].notna().any():
        return [("", agg, [a for a in axis_names if a != "level"])]
    out = []
    for heading, fam in (("Cells of the axes", agg[agg["level"].isna()]),
                         ("Cells at the calibrated congestion levels", agg[agg["level"].notna()])):
        if fam.empty:
            continue
        names = [a for a in axis_names if a in fam and fam[a].notna().any()]
        out.append((heading, fam.reset_index(drop=True), names))
    return out


def render(res: SweepResult) -> str:
    """The report's HTML text."""
    from . import plots
    from .sweep import RESULTS_FORMAT

    sw = res.sweep
    info = res.results.read_json("sweep.json") or {}
    axis_names = sw.axis_names()
    runs = res.runs()
    agg = res.aggregate(list(REPORT_METRICS))
    parts: list[str] = []
    title = f"Sluice sweep report: {sw.name}"
    parts.append(f"<h1>{_esc(title)}</h1>")
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    n_done = int((runs["status"] == "done").sum()) if len(runs) else 0
    parts.append(
        f"<p>Written {now} by sluice {_esc(res.results.version)} (results format {RESULTS_FORMAT}) from "
        f"<code>{_esc(res.results.root)}</code>: {len(runs)} cells ({n_done} done, {len(res.failed)} failed), "
        f"{len(sw.scenarios)} scenario(s), seeds {_esc(', '.join(map(str, sw.seeds)))}"
        f"{' (quick variant)' if sw.quick else ''}.</p>"
    )
    where = f" (from <code>{_esc(info['cwd'])}</code>, where it ran)" if info.get("cwd") else ""
    parts.append(f"<h2>Rerun</h2><p>Rerun or resume the sweep, then rebuild this report{where}:</p>")
    cmd = info.get("command") or f"sluice sweep {sw.source} --results {res.results.root}"
    parts.append(f"<pre>{_esc(cmd)}\nsluice report {_esc(res.results.root)} -o report.html</pre>")
    parts.append(
        "<p>Each cell's results are in <code>runs/&lt;key&gt;-&lt;seed&gt;/</code> (summary.json, Parquet tables); "
        "<code>manifest.jsonl</code> lists every cell with the command that reruns it alone.</p>"
    )

    if res.calibration:
        parts.append("<h2>Calibration</h2>")
        c0 = res.calibration[0]
        parts.append(
            f"<p>Smallest <code>{_esc(c0.path)}</code> whose {_esc(c0.metric)}, averaged over seeds "
            f"{_esc(c0.seeds)}, reaches each level (bracket by doubling, then integer bisection), "
            f"with overrides <code>{_esc(json.dumps(c0.set))}</code>.</p>"
        )
        import pandas as pd

        rows = []
        for c in res.calibration:
            row: dict[str, Any] = {"scenario": c.scenario, **c.labels}
            for lvl, thr in c.levels.items():
                row[f"{lvl} (≥ {thr:g})"] = "not reached" if c.counts.get(lvl) is None else c.counts[lvl]
            row["evaluations"] = len({s.n for v in c.steps.values() for s in v})
            rows.append(row)
        cal_df = pd.DataFrame(rows)
        parts.append(_table(cal_df, text_cols=[c for c in cal_df.columns if c != "evaluations"]))
        steps = []
        for c in res.calibration:
            where = ", ".join([c.scenario, *[f"{k}={v}" for k, v in c.labels.items()]])
            for lvl, ss in c.steps.items():
                for s in ss:
                    steps.append(f"{where}: {lvl} {s.phase} n={s.n}: {s.value:.4g} {'≥' if s.reached else '<'} {c.levels[lvl]:g}")
        parts.append("<details><summary>search steps</summary><pre>" + _esc("\n".join(steps)) + "</pre></details>")

    parts.append("<h2>Results: means over seeds ± Student-t 95 % half-width</h2>")
    if agg.empty:
        parts.append("<p>No finished cells.</p>")
    else:
        keys = ["scenario", *axis_names, "n"]
        show = agg[[c for c in keys if c in agg]].copy()
        for m in REPORT_METRICS:
            show[m] = [f"{_num(a)} ± {_num(b, 2)}" for a, b in zip(agg[m], agg[f"{m}_ci"])]
        parts.append(_table(show, text_cols=[*keys[:-1], *REPORT_METRICS]))
        parts.append("<h2>Figures</h2>")
        for heading, fam, names in _families(agg, axis_names):
            if heading:
                parts.append(f"<h3>{_esc(heading)}</h3>")
            x, hue, facet = _layout(names, fam)
            for m, label in REPORT_METRICS.items():
                if fam[m].notna().any():
                    parts.append(_png(plots.interval_bars(fam, m, x, hue, facet, label)))
            if fam["mean_rtt_ms"].notna().any() and fam["goodput_mbps"].notna().any():
                parts.append(_png(plots.goodput_latency(fam, hue or (x if x != "scenario" else None))))

        done = runs[runs["status"] == "done"]
        if len(done):
            first = done.iloc[0]
            labels = ", ".join(f"{a}={first[a]}" for a in axis_names if a in first)
            parts.append(f"<h2>One run: {_esc(first['scenario'])}, {_esc(labels)}, seed {int(first['seed'])}</h2>")
            r = load_run(res.results.root, str(first["run"]))
            parts.append(_png(plots.queue_length(r)))
            parts.append(_png(plots.goodput_bars(r)))
            if "cwnd" in r.tables:
                parts.append(_png(plots.cwnd(r)))
            if "flow_samples" in r.tables:
                parts.append(_png(plots.flow_throughput(r)))

    if res.failed:
        parts.append("<h2 class=\"fail\">Failed cells</h2><ul>")
        for o in res.failed:
            parts.append(f"<li>{_esc(o.cell.scenario.label)}, {_esc(o.cell.describe())}: {_esc(o.error)}"
                         f"<pre>{_esc(o.cell.reproduce())}</pre></li>")
        parts.append("</ul>")

    parts.append("<h2>Per-run table</h2><details><summary>every cell</summary>")
    cols = ["scenario", *axis_names, "seed", "run", "status", *REPORT_METRICS]
    parts.append(_table(runs[[c for c in cols if c in runs]], text_cols=["scenario", *axis_names, "run", "status"]))
    parts.append("</details>")
    parts.append(f"<h2>Sweep file</h2><p><code>{_esc(sw.source)}</code></p><pre>{_esc(sw.text)}</pre>")
    for sc in sw.scenarios:
        parts.append(f"<h2>Scenario {_esc(sc.label)}</h2><p><code>{_esc(sc.path)}</code></p><pre>{_esc(sc.text)}</pre>")
    body = "\n".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>'
            f"<style>{_CSS}</style></head><body>\n{body}\n</body></html>\n")


def write_report(results: str | os.PathLike[str], output: str | os.PathLike[str]) -> Path:
    """Write the report of a results directory to ``output`` (through a temporary file and a
    rename) and return its path."""
    from .sweep import load, write_atomic

    res = load(results)
    text = render(res)
    out = Path(output)
    if out.parent != Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, text.encode("utf-8"))
    return out
