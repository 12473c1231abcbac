"""``python -m sluice`` runs the command line (same as ``sluice``)."""

from .cli import main

main()
