"""The ``sluice`` command line: a thin shell over :mod:`sluice.api` and :mod:`sluice.plots`.

Commands: ``sluice run``, ``sluice validate``, ``sluice version``; the harness commands
``sluice sweep``, ``sluice calibrate`` and ``sluice report`` are in :mod:`sluice.cli_harness`. Bad input (an invalid or
unreadable scenario, a bad option) gives one ``error: ...`` line on standard error and a non-zero
exit status, never a traceback.

Exit status: 0 success; 1 an output file could not be written; 2 bad input (invalid scenario,
unreadable file, bad option); 3 the simulator hit a bug (the message says how to reproduce it).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup
from rich import box
from rich.console import Console
from rich.table import Table

from . import _sluice, api
from .errors import OutputError, ScenarioError, SimulationPanic, SluiceError

__all__ = ["app", "main"]

EXIT_OUTPUT = 1
EXIT_BAD_INPUT = 2
EXIT_PANIC = 3
EXIT_INTERRUPTED = 130



# Click's exception classes, found through typer (which vendors click in recent versions and
# depends on it in older ones), so the CLI needs no direct click import.
_click_errors = sys.modules[typer.BadParameter.__module__]
_ClickException: type[Exception] = _click_errors.ClickException
_NoArgsIsHelp: type[Exception] | None = getattr(_click_errors, "NoArgsIsHelpError", None)
_Abort: tuple[type[BaseException], ...] = (typer.Abort, getattr(_click_errors, "Abort", typer.Abort))


class _OneLineErrors(TyperGroup):
    """Report usage errors (a bad option, a missing argument) as one ``error:`` line instead of a
    boxed panel, so every kind of bad input looks the same to a user and to scripts."""

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _ClickException as e:
            if _NoArgsIsHelp is not None and isinstance(e, _NoArgsIsHelp):
                typer.echo(e.format_message(), err=True)  # type: ignore[attr-defined]
            else:
                message = " ".join(e.format_message().split())  # type: ignore[attr-defined]
                typer.echo(f"error: {message}", err=True)
            code: int = e.exit_code  # type: ignore[attr-defined]
        except _Abort:
            typer.echo("error: aborted", err=True)
            code = 1
        else:
            if not standalone_mode:
                return rv
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode and code == 0:
            return None
        sys.exit(code)


app = typer.Typer(
    name="sluice",
    cls=_OneLineErrors,
    help=(
        "Sluice: a deterministic packet-level simulator for gateway-side TCP congestion "
        "control.\n\n"
        "Example:  sluice run scenarios/reference/single-newreno.toml --out results/single"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_out = Console(highlight=False)
_err = Console(stderr=True, highlight=False)


def _fail(message: str, code: int) -> NoReturn:
    """Print one ``error:`` line to standard error (never wrapped) and exit with ``code``."""
    typer.echo("error: " + " ".join(message.split("\n")), err=True)
    raise typer.Exit(code)


def _read(scenario: Path) -> str:
    """Read a scenario file, failing with one line if it cannot be read."""
    try:
        return scenario.read_text(encoding="utf-8")
    except FileNotFoundError:
        _fail(f"{scenario}: no such file", EXIT_BAD_INPUT)
    except IsADirectoryError:
        _fail(f"{scenario}: is a directory, not a scenario file", EXIT_BAD_INPUT)
    except UnicodeDecodeError:
        _fail(f"{scenario}: not a UTF-8 text file", EXIT_BAD_INPUT)
    except OSError as e:
        _fail(f"{scenario}: {e.strerror or e}", EXIT_BAD_INPUT)


def _report(e: Exception, scenario: Path) -> NoReturn:
    """Turn an error from the API into one line and the documented exit status."""
    if isinstance(e, ScenarioError):
        _fail(str(e), EXIT_BAD_INPUT)  # "<field path>: <message>"
    if isinstance(e, SimulationPanic):
        _fail(str(e), EXIT_PANIC)
    if isinstance(e, (OutputError, OSError)):
        where = getattr(e, "filename", None)
        what = getattr(e, "strerror", None) or str(e)
        _fail(f"{where}: {what}" if where else what, EXIT_OUTPUT)
    _fail(str(e), EXIT_BAD_INPUT)


SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, help="Override the scenario's seed (a non-negative integer)."),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help=(
            "Set a scenario field before the file is read: PATH=VALUE, PATH dotted keys with [i] "
            "indices, VALUE a TOML value (90, true, \"10ms\", [1, 2], { kind = \"drop_tail\", "
            "limit = \"20pkt\" }) or else a plain string. Repeatable, applied in order."
        ),
        metavar="PATH=VALUE",
        show_default=False,
    ),
]


def _sets(args: list[str] | None) -> dict[str, Any] | None:
    """``--set`` arguments as the overrides of :func:`sluice.run` (values parsed by the simulator)."""
    if not args:
        return None
    overrides: dict[str, Any] = {}
    for arg in args:
        try:
            path, value = _sluice.parse_set(arg)
        except ValueError as e:
            _fail(str(e), EXIT_BAD_INPUT)
        overrides.pop(path, None)  # a repeated path takes its place in the order again
        overrides[path] = value
    return overrides


ScenarioArg = Annotated[
    Path,
    typer.Argument(help="Scenario file (TOML).", show_default=False),
]


def _fmt(x: Any, scale: float = 1.0, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{float(x) * scale:.{digits}f}"


_BROKEN = {
    "failed": "the handshake failed (SYN retries exhausted)",
    "aborted": "the connection was aborted (data_retries timeouts in a row)",
}


def _connection_warnings(summary: dict[str, Any]) -> list[str]:
    """One line per TCP flow whose connection failed or was aborted (`tcp_state`)."""
    return [f"flow {f.get('id')}: {_BROKEN[f['tcp_state']]}" for f in summary.get("flows", []) if f.get("tcp_state") in _BROKEN]


#: Flow rows `sluice run` prints before it summarises the rest (``--all-flows`` prints them all).
FLOW_ROWS = 20


def _headline(summary: dict[str, Any]) -> tuple[str, str, str]:
    """The per-flow rate, its Jain index and its name that the run's profile headlines.

    Under ``validate = "ns3.44"`` it is goodput (payload delivered to the application, ns-3's
    PacketSink count, the figure compared with ns-3); otherwise the payload received in the window,
    which never counts data that reached the receiver before the window began.
    """
    if (summary.get("options") or {}).get("profile") == "ns3.44":
        return "goodput_bps", "jain_goodput", "goodput"
    return "received_bps", "jain_received", "received"


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _distribution(summary: dict[str, Any]) -> str:
    """One line over every flow: the headline rate's min / median / max, its Jain index, how many
    flows had retransmission timeouts."""
    key, jain_key, name = _headline(summary)
    flows = summary.get("flows", [])
    rates = [float(f.get(key) or 0.0) * 1e-6 for f in flows]
    with_rto = sum(1 for f in flows if (f.get("rto_count") or 0) > 0)
    return (
        f"{len(flows):,} flows, {name} Mbps min {min(rates):.3f} / median {_median(rates):.3f} / "
        f"max {max(rates):.3f}; Jain {_fmt(summary.get(jain_key), 1.0, 4)}; "
        f"{with_rto:,} flows with RTOs"
    )


def _print_summary(result: api.Result, all_flows: bool = False, full_table: str | None = None) -> None:
    """Print the readable summary: flows (the first ``FLOW_ROWS`` unless ``all_flows``), a
    distribution line, queues, aggregate. ``full_table`` says where the whole flow table is."""
    s = result.summary
    title = f"{s.get('scenario')}, seed {s.get('seed')}, {s.get('sim_time_s')} s simulated"
    if s.get("warmup_s"):
        title += f", first {s['warmup_s']} s excluded"

    key, _, name = _headline(s)
    # Into a pipe or a file, tables take the width their content needs instead of rich's default
    # of 80 columns, which would cut the cells.
    out = _out if _out.is_terminal else Console(highlight=False, width=240)
    flows = Table(title=f"Flows: {title}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 1), collapse_padding=True)
    # units: start and FCT in s, goodput and received in Mbps, retransmitted payload in bytes,
    # RTT in ms; the profile's headline rate first
    rate_cols = ("goodput Mbps", "rcvd Mbps") if key == "goodput_bps" else ("rcvd Mbps", "goodput Mbps")
    headers = ("flow", "src->dst", "cc", "start", *rate_cols, "retx B", "fast/RTO", "lost", "FCT",
               "RTT ms")
    for h in headers:
        flows.add_column(h, justify="left" if h in ("src->dst", "cc") else "right",
                         no_wrap=True)
    rows = s.get("flows", [])
    shown = rows if all_flows else rows[:FLOW_ROWS]
    for f in shown:
        rates = (_fmt(f.get("goodput_bps"), 1e-6), _fmt(f.get("received_bps"), 1e-6))
        flows.add_row(
            str(f.get("id")),
            f"{f.get('src')}->{f.get('dst')}",
            str(f.get("cc") or f.get("kind")),
            _fmt(f.get("start_s")),
            *(rates if key == "goodput_bps" else rates[::-1]),
            str(f.get("retransmitted_bytes")),
            f"{f.get('fast_retransmits', '-')}/{f.get('rto_count', '-')}",
            str(f.get("lost_packets")),
            _fmt(f.get("fct_s")),
            _fmt(f.get("mean_rtt_s"), 1e3, 1),
        )
    out.print(flows)
    if len(shown) < len(rows):
        where = f"the full table is in {full_table}" if full_table else "--out DIR writes the full table to DIR/flows.parquet"
        out.print(f"... {len(rows) - len(shown):,} more flows not shown ({where}; --all-flows prints every row)")
    if rows:
        out.print(_distribution(s))
    for line in _connection_warnings(s):
        out.print(f"[yellow]{line}[/yellow]")

    queues = Table(title="Queues (len in packets)", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 1), collapse_padding=True)
    for h in ("queue", "enqueued", "dropped", "marked", "drop %", "mean len", "std len",
              "sojourn ms"):
        queues.add_column(h, justify="left" if h == "queue" else "right", no_wrap=True)
    for q in s.get("queues", []):
        queues.add_row(
            str(q.get("name")),
            str(q.get("enqueued")),
            str(q.get("dropped")),
            str(q.get("marked")),
            _fmt(q.get("drop_ratio"), 100.0, 3),
            _fmt(q.get("mean_len_pkts"), 1.0, 2),
            _fmt(q.get("std_len_pkts"), 1.0, 2),
            _fmt(q.get("mean_sojourn_s"), 1e3, 3),
        )
    out.print(queues)

    wall = float(s.get("wall_time_s") or 0.0)
    events = int(s.get("events") or 0)
    rate = f"{events / wall:,.0f}" if wall > 0 else "-"
    total = Table(title="Aggregate", title_justify="left", show_header=False, box=box.SIMPLE, pad_edge=False)
    total.add_column("what")
    total.add_column("value", justify="right")
    agg = [
        ("aggregate goodput Mbps (delivered to applications)", s.get("aggregate_goodput_bps"), "jain_goodput", "Jain index (goodput)"),
        ("aggregate received Mbps (payload reaching receivers)", s.get("aggregate_received_bps"), "jain_received", "Jain index (received)"),
    ]
    if key != "goodput_bps":
        agg.reverse()
    for label, value, jain_key, jain_label in agg:
        total.add_row(label, _fmt(value, 1e-6))
        total.add_row(jain_label, _fmt(s.get(jain_key), 1.0, 4))
    total.add_row("events", f"{events:,}")
    total.add_row("wall time s", _fmt(wall, 1.0, 3))
    total.add_row("events/s", rate)
    out.print(total)
    delivered, received = s.get("aggregate_goodput_bps"), s.get("aggregate_received_bps")
    if delivered is not None and received is not None and delivered > received * (1 + 1e-9):
        out.print(
            f"goodput exceeds received by {(delivered - received) * 1e-6:.3f} Mbps: payload that reached "
            "the receivers before the warm-up ended waited in reassembly buffers and was delivered "
            "in the window (ns-3's PacketSink count)"
        )


def _check_outputs(out: Path | None, summary: Path | None) -> None:
    """Fail before the run, not after it, if its results could not be written: a file where
    the output directory should be, a directory where the summary file should be, or a place
    that cannot be written to. Nothing is created yet (a scenario error leaves no trace)."""
    for flag, path, is_dir in (("--out", out, True), ("--summary", summary, False)):
        if path is None:
            continue
        if is_dir and path.exists() and not path.is_dir():
            _fail(f"--out {path}: a file of that name exists; --out takes a directory", EXIT_OUTPUT)
        if not is_dir and path.is_dir():
            _fail(f"--summary {path}: is a directory; --summary takes a file name", EXIT_OUTPUT)
        base = path if is_dir and path.is_dir() else path.parent
        while not base.exists():
            base = base.parent
        if not base.is_dir():
            _fail(f"{flag} {path}: {base} is not a directory", EXIT_OUTPUT)
        if not os.access(base, os.W_OK):
            _fail(f"{flag} {path}: {base} is not writable", EXIT_OUTPUT)


@app.command("run")
def run_cmd(
    scenario: ScenarioArg,
    seed: SeedOpt = None,
    set_: SetOpt = None,
    summary: Annotated[
        Path | None,
        typer.Option("--summary", help="Write the summary JSON to this file.", metavar="OUT.json"),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Directory for summary.json, Parquet tables, overview.png and any pcap files.",
            metavar="DIR",
        ),
    ] = None,
    no_figure: Annotated[
        bool, typer.Option("--no-figure", help="Do not write overview.png into DIR.")
    ] = False,
    all_flows: Annotated[
        bool,
        typer.Option(
            "--all-flows",
            help=f"Print every flow's row (by default the first {FLOW_ROWS}, then a distribution line).",
        ),
    ] = False,
) -> None:
    """Run one simulation and print a summary of flows and queues.

    With more than 20 flows it prints the first 20 rows and a line with the distribution over all of them (min / median / max rate, Jain's index, flows with RTOs); --all-flows prints every row.

    With --out DIR it writes DIR/summary.json, DIR/flows.parquet, DIR/queues.parquet, one Parquet file per time series (queue_samples, and cwnd / rtt when traced) and DIR/overview.png. A progress bar (simulated seconds) shows on standard error while the simulation runs; Ctrl-C stops it (exit status 130, nothing written).

    --set PATH=VALUE changes a field of the scenario for this run, checked as if the file said it (repeatable).

    Example:  sluice run scenarios/reference/single-newreno.toml --seed 2 --out results/single

    Example:  sluice run scenarios/reference/single-newreno.toml --set topology.queue.limit=20pkt --set 'flows[0].count=4'
    """
    _read(scenario)  # one-line errors for a missing or unreadable file
    overrides = _sets(set_)
    _check_outputs(out, summary)  # before the run, so a long run is never lost to a bad path
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    reached = [0.0, 0.0]  # simulated seconds reached, end
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[sim]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=_err, transient=True, disable=not _err.is_terminal) as bar:
        task = bar.add_task(f"Running {scenario.name}", total=None, sim="")

        def progress(now: float, end: float) -> None:
            reached[:] = [now, end]
            bar.update(task, total=end, completed=now, sim=f"{now:,.1f} / {end:,.6g} s simulated")

        try:
            result = api.run(scenario, seed=seed, out_dir=out, progress=progress, overrides=overrides)
        except KeyboardInterrupt:
            bar.stop()
            _fail(f"interrupted at {reached[0]:,.1f} s of {reached[1]:,.6g} s simulated; nothing written", EXIT_INTERRUPTED)
        except (SluiceError, OSError) as e:
            bar.stop()
            _report(e, scenario)

    if out is not None:
        full_table: str | None = str(out / "flows.parquet")
    elif summary is not None:
        full_table = f'{summary} ("flows")'
    else:
        full_table = None
    _print_summary(result, all_flows=all_flows, full_table=full_table)

    written: list[Path] = []
    try:
        if out is not None:
            written += result.save(out)
            if not no_figure:
                from . import plots

                fig = plots.overview(result)
                png = out / "overview.png"
                fig.savefig(png, dpi=110)
                written.append(png)
            written += [out / f for f in result.files]
        if summary is not None:
            if summary.parent != Path(""):
                summary.parent.mkdir(parents=True, exist_ok=True)
            summary.write_text(result.summary_json.rstrip("\n") + "\n", encoding="utf-8")
            written.append(summary)
    except OSError as e:
        _report(e, scenario)
    for path in written:
        _err.print(f"wrote {path}")


@app.command("validate")
def validate_cmd(
    scenario: ScenarioArg,
    seed: SeedOpt = None,
    set_: SetOpt = None,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="Also print every queue's discipline with all its parameters, defaults filled in (queues with identical parameters on one line)."),
    ] = False,
) -> None:
    """Check a scenario file (with any --set PATH=VALUE applied) without running it.

    Prints "ok" if it is valid; otherwise one line "error: FILE: FIELD: MESSAGE" on standard error and exit status 2. With --explain, then one line per queue (or group of queues with the same parameters): its name, kind and resolved parameters.

    Example:  sluice validate scenarios/reference/single-newreno.toml

    Example:  sluice validate scenarios/reference/single-newreno.toml --set topology.queue.kind=codel --explain
    """
    _read(scenario)
    overrides = _sets(set_)
    try:
        api.validate(scenario, seed=seed, overrides=overrides)
        queues = api.explain(scenario, seed=seed, overrides=overrides) if explain else []
    except (SluiceError, OSError) as e:
        _report(e, scenario)
    typer.echo(f"ok: {scenario}")
    for line in _explain_lines(queues):
        typer.echo(line)


def _toml_value(v: object) -> str:
    """A parameter as a scenario would write it: booleans lower-case, the rest as is."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _explain_lines(queues: list[dict[str, Any]]) -> list[str]:
    """One line per distinct parameter set, in first-seen order: `NAMES: KIND key=value ...`;
    more than three names are shown as the first three and a count."""
    groups: dict[str, list[str]] = {}
    for q in queues:
        p = dict(q["params"])
        kind = p.pop("kind")
        text = " ".join([kind] + [f"{k}={_toml_value(v)}" for k, v in p.items()])
        groups.setdefault(text, []).append(q["name"])
    lines = []
    for text, names in groups.items():
        who = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"{who}: {text}")
    return lines


@app.command("version")
def version_cmd() -> None:
    """Print Sluice's version.

    Example:  sluice version
    """
    from . import __version__

    typer.echo(f"sluice {__version__}")


# sluice sweep / calibrate / report
from . import cli_harness as _cli_harness  # noqa: E402 - needs the helpers above

_cli_harness.register(app)

# sluice testbed up / run / down
from . import cli_testbed as _cli_testbed  # noqa: E402 - needs the helpers above

_cli_testbed.register(app)


def main() -> None:
    """Entry point for ``python -m sluice``."""
    app()
