"""The harness commands of the ``sluice`` command line: ``sweep``, ``calibrate``, ``report``.

A thin shell over :mod:`sluice.sweep`, :mod:`sluice.calibrate` and :mod:`sluice.report`, with
the conventions of :mod:`sluice.cli`: one ``error:`` line and exit status 0 (success), 1 (an
output could not be written), 2 (bad input), 3 (a run failed: a simulator bug), 130 (Ctrl-C).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from .cli import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OUTPUT, EXIT_PANIC, _err, _fail, _out, _sets

__all__ = ["register"]


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{float(x):.{digits}g}"


def _progress_bar(label: str) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]}"),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    return Progress(*columns, console=_err, transient=False, disable=not _err.is_terminal)


def sweep_cmd(
    sweep_file: Annotated[Path, typer.Argument(help="Sweep file (TOML; docs/harness.md).", show_default=False, metavar="SWEEP.toml")],
    results: Annotated[
        Path | None,
        typer.Option("--results", help="Results directory (default: results/<sweep name>, with -quick under --quick).", metavar="DIR"),
    ] = None,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Local worker threads (default: the number of CPUs).", metavar="N")] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler address: run the cells on that cluster.", metavar="ADDR")
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Apply the sweep file's quick table (fewer seeds, shorter runs).")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Run again the cells recorded as failed.")] = False,
) -> None:
    """Run scenarios × axes × seeds into a results directory; a rerun skips what is done.

    Each cell's summary and Parquet tables go to DIR/runs/<key>-<seed>/, one line per cell to DIR/manifest.jsonl. With a calibrate table the flow counts of each congestion level are searched first (steps printed). Ctrl-C stops cleanly (exit 130); rerun the same command to continue. A cell that fails is recorded with its error and a command reproducing it (exit 3 at the end).

    Example:  sluice sweep scenarios/studies/buffer-sizing.toml --quick --results results/quick
    """
    from . import sweep as sw_mod
    from .errors import ScenarioError

    try:
        sw = sw_mod.load_sweep(sweep_file, quick=quick)
    except ScenarioError as e:
        _fail(str(e), EXIT_BAD_INPUT)
    results = results or Path("results") / (sw.name + ("-quick" if quick else ""))

    bar = _progress_bar(f"{sw.name}")
    task = None
    failed = [0]

    def progress(done: int, total: int, outcome: Any) -> None:
        nonlocal task
        if task is None:
            task = bar.add_task(f"Sweep {sw.name}", total=total, failed="")
        if outcome is not None and outcome.status == "failed":
            failed[0] += 1
        bar.update(task, completed=done, total=total, failed=f"{failed[0]} failed" if failed[0] else "")

    def log(line: str) -> None:
        if _err.is_terminal:
            bar.console.print(line, markup=False, highlight=False)  # above the live bar
        else:
            typer.echo(line, err=True)

    try:
        with bar:
            res = sw_mod.run(sw, results, workers=workers, scheduler=scheduler, progress=progress, log=log,
                             retry_failed=retry_failed)
    except sw_mod.Interrupted as e:
        _fail(str(e), EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        _fail(f"interrupted; finished cells are saved in {results}; rerun the same command to continue", EXIT_INTERRUPTED)
    except ScenarioError as e:
        _fail(str(e), EXIT_BAD_INPUT)
    except (sw_mod.ResultsDirError, sw_mod.SchedulerError) as e:
        _fail(str(e), EXIT_BAD_INPUT)
    except OSError as e:
        _fail(f"{getattr(e, 'filename', None) or results}: {e.strerror or e}", EXIT_OUTPUT)
    except Exception as e:  # noqa: BLE001 - a Dask connection error and the like, in one line
        _fail(f"{type(e).__name__}: {e}", EXIT_BAD_INPUT)

    _print_aggregate(res)
    cached = sum(o.status == "cached" for o in res.outcomes)
    typer.echo(f"{len(res.outcomes)} cells ({cached} from earlier runs) in {results}", err=True)
    if res.failed:
        for o in res.failed[:5]:
            typer.echo(f"failed: {o.cell.scenario.label}, {o.cell.describe()}: {o.error}\n  reproduce: {o.cell.reproduce()}", err=True)
        _fail(f"{len(res.failed)} of {len(res.outcomes)} cells failed (listed in {results}/manifest.jsonl with reproduce commands)", EXIT_PANIC)


def _print_aggregate(res: Any) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    agg = res.aggregate(["loss_pct", "goodput_mbps", "fct_s", "jain_goodput", "efficiency_pct"])
    if agg.empty:
        return
    out = _out if _out.is_terminal else Console(highlight=False, width=240)
    table = Table(title=f"{res.sweep.name}: means over seeds ± 95 % Student-t", title_justify="left", box=box.SIMPLE_HEAD)
    keys = ["scenario", *res.sweep.axis_names()]
    for k in keys:
        table.add_column(k)
    table.add_column("n", justify="right")
    cols = [("loss_pct", "loss %"), ("goodput_mbps", "goodput Mbps"), ("fct_s", "FCT s"), ("jain_goodput", "Jain"),
            ("efficiency_pct", "efficiency %")]
    for _, h in cols:
        table.add_column(h, justify="right")
    for _, row in agg.iterrows():
        cells = [str(row[k]) if row[k] is not None and row[k] == row[k] else "" for k in keys]
        vals = [f"{_fmt(row[m])} ± {_fmt(row[m + '_ci'], 2)}" for m, _ in cols]
        table.add_row(*cells, str(row["n"]), *vals)
    out.print(table)


def calibrate_cmd(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Set a scenario field for every run, PATH=VALUE as for sluice run (repeatable), e.g. the method: --set topology.queue.kind=red.", metavar="PATH=VALUE"),
    ] = None,
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Common seeds 1..N each evaluation averages over.", metavar="N")] = 3,
    levels: Annotated[
        str, typer.Option("--levels", help="Levels as NAME=LOSS% pairs.", metavar="NAME=PCT,...")
    ] = "mild=0.1,medium=0.5,heavy=1",
    path: Annotated[str, typer.Option("--path", help="The override the search moves.", metavar="PATH")] = "flows[0].count",
    start: Annotated[int, typer.Option("--start", min=1, help="First count tried.", metavar="N")] = 1,
    maximum: Annotated[int, typer.Option("--max", min=1, help="Largest count tried.", metavar="N")] = 1024,
    results: Annotated[Path | None, typer.Option("--results", help="Keep the runs in this results directory (a rerun reuses them).", metavar="DIR")] = None,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Local worker threads.", metavar="N")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="Dask scheduler address.", metavar="ADDR")] = None,
) -> None:
    """Find the flow counts giving mild (0.1 %), medium (0.5 %) and heavy (1 %) mean loss.

    The scenario runs as written (drop-tail, if that is its queue) with 1, 2, 4, ... flows until the seed-averaged mean loss ratio reaches a level, then an integer bisection finds the smallest count that reaches it. Every step is printed. With --set topology.queue.kind=METHOD the same search gives the flows that method serves at each level.

    Example:  sluice calibrate scenarios/studies/buffer-sizing-base.toml --seeds 3 --max 256
    """
    from .calibrate import calibrate
    from .errors import ScenarioError, SimulationPanic
    from .sweep import ResultsDirError, SchedulerError

    overrides = _sets(set_) or {}
    lv: dict[str, float] = {}
    for part in levels.split(","):
        name, sep, val = part.partition("=")
        try:
            lv[name.strip()] = float(val)
        except ValueError:
            _fail(f"--levels {levels}: expected NAME=PERCENT pairs like mild=0.1,heavy=1", EXIT_BAD_INPUT)
        if not sep or not name.strip():
            _fail(f"--levels {levels}: expected NAME=PERCENT pairs like mild=0.1,heavy=1", EXIT_BAD_INPUT)
    if maximum < start:
        _fail(f"--max {maximum}: must be at least --start ({start})", EXIT_BAD_INPUT)
    if not scenario.is_file():
        _fail(f"{scenario}: no such file", EXIT_BAD_INPUT)
    try:
        res = calibrate(scenario, levels=lv, seeds=range(1, seeds + 1), overrides=overrides, path=path, start=start,
                        maximum=maximum, results=results, workers=workers, scheduler=scheduler,
                        log=lambda line: typer.echo(line, err=True))
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except (ScenarioError, ResultsDirError, SchedulerError) as e:
        _fail(str(e), EXIT_BAD_INPUT)
    except SimulationPanic as e:
        _fail(str(e), EXIT_PANIC)
    what = ", ".join(f"{k}={v}" for k, v in overrides.items()) or "the scenario as written"
    typer.echo(f"{scenario} ({what}; mean over seeds 1..{seeds}):")
    for name, threshold in lv.items():
        n = res.counts[name]
        steps = len(res.steps[name])
        typer.echo(f"  {name:<8} loss ≥ {threshold:g} %: " + (f"{path} = {n}" if n is not None else f"not reached up to {maximum}")
                   + f"  ({steps} steps)")


def report_cmd(
    results: Annotated[Path, typer.Argument(help="Results directory written by sluice sweep.", show_default=False, metavar="RESULTS")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The HTML file to write.", metavar="REPORT.html")] = Path("report.html"),
) -> None:
    """Write one self-contained HTML report of a sweep's results.

    Figures (embedded PNG), tables of means with 95 % intervals, calibration steps, scenario texts, seeds, failed cells and the commands that rerun everything; no other file is needed to read it.

    Example:  sluice report results/buffer-sizing -o report.html
    """
    from .report import write_report
    from .sweep import ResultsDirError

    try:
        path = write_report(results, output)
    except ResultsDirError as e:
        _fail(str(e), EXIT_BAD_INPUT)
    except OSError as e:
        _fail(f"{getattr(e, 'filename', None) or output}: {e.strerror or e}", EXIT_OUTPUT)
    typer.echo(f"wrote {path}", err=True)


def register(app: typer.Typer) -> None:
    """Add the harness commands to the ``sluice`` app."""
    app.command("sweep")(sweep_cmd)
    app.command("calibrate")(calibrate_cmd)
    app.command("report")(report_cmd)
