"""``sluice testbed up|run|down``: the live dumbbell in network namespaces (docs/gateway.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .cli import EXIT_OUTPUT, _fail, _out

testbed_app = typer.Typer(
    help=(
        "A live dumbbell in network namespaces with sluice-gateway in the middle (root; ip, "
        "ethtool, iperf3).\n\n"
        "Example:  sluice testbed up tb --qdisc '{ kind = \"pie\", limit = \"1000pkt\" }' && "
        "sluice testbed run tb --flows 4 --cc cubic && sluice testbed down tb"
    ),
    no_args_is_help=True,
)

#: Exit status of a failed testbed call (an OSError, like the gateway's).
EXIT_GATEWAY = 5


@testbed_app.command("up")
def up_cmd(
    name: Annotated[str, typer.Argument(help="Testbed name (namespaces <name>-c, -g, -s).")] = "sluice",
    rate: Annotated[str, typer.Option(help="Bottleneck rate toward the server.")] = "100Mbps",
    delay: Annotated[str, typer.Option(help="Delay toward the server.")] = "10ms",
    reverse_delay: Annotated[str, typer.Option(help="Delay toward the client.")] = "0s",
    qdisc: Annotated[str | None, typer.Option(help="Queue table, e.g. '{ kind = \"codel\" }'.")] = None,
    controller: Annotated[str | None, typer.Option(help="Controller table, e.g. '{ kind = \"rwm\" }'.")] = None,
    seed: Annotated[int, typer.Option(help="The gateway's seed.")] = 1,
    gateway: Annotated[str | None, typer.Option(help="Path of sluice-gateway (default: $SLUICE_GATEWAY, PATH, target/release).")] = None,
) -> None:
    """Build the namespaces and start the gateway.

    Example:  sluice testbed up tb --rate 100Mbps --delay 10ms --controller '{ kind = "rwm" }'
    """
    from . import testbed
    from .errors import GatewayError

    try:
        state = testbed.up(name, rate=rate, delay=delay, reverse_delay=reverse_delay, qdisc=qdisc, controller=controller, seed=seed, gateway=gateway)
    except GatewayError as e:
        _fail(str(e), EXIT_GATEWAY)
    _out.print(f"testbed {name} up; gateway files in {state}")


@testbed_app.command("run")
def run_cmd(
    name: Annotated[str, typer.Argument(help="Testbed name.")] = "sluice",
    flows: Annotated[int, typer.Option(help="Parallel TCP flows (iperf3 -P).")] = 1,
    duration: Annotated[float, typer.Option(help="Measured seconds (after the warm-up).")] = 10.0,
    warmup: Annotated[float, typer.Option(help="Seconds left out at the start (iperf3 -O).")] = 1.0,
    cc: Annotated[str, typer.Option(help="Kernel congestion control: reno, cubic, bbr.")] = "cubic",
    summary: Annotated[Path | None, typer.Option(help="Write the summary JSON here.")] = None,
) -> None:
    """Run bulk TCP from client to server and print (or write) the summary.

    Example:  sluice testbed run tb --flows 4 --duration 10 --cc bbr --summary tb.json
    """
    from . import testbed
    from .errors import GatewayError

    try:
        s = testbed.run(name, flows=flows, duration=duration, cc=cc, warmup=warmup)
    except GatewayError as e:
        _fail(str(e), EXIT_GATEWAY)
    text = json.dumps(s, indent=2)
    if summary is None:
        typer.echo(text)
        return
    try:
        summary.write_text(text + "\n")
    except OSError as e:
        _fail(f"{summary}: {e.strerror or e}", EXIT_OUTPUT)
    _out.print(f"aggregate goodput {s['aggregate_goodput_bps'] / 1e6:.2f} Mb/s; summary in {summary}")


@testbed_app.command("down")
def down_cmd(name: Annotated[str, typer.Argument(help="Testbed name.")] = "sluice") -> None:
    """Stop the gateway and remove the namespaces.

    Example:  sluice testbed down tb
    """
    from . import testbed
    from .errors import GatewayError

    try:
        testbed.down(name)
    except GatewayError as e:
        _fail(str(e), EXIT_GATEWAY)


def register(app: typer.Typer) -> None:
    """Add ``sluice testbed`` to the ``sluice`` app."""
    app.add_typer(testbed_app, name="testbed")
