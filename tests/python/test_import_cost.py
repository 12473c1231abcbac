"""`import sluice`, `sluice version` and `sluice validate` do not import the heavy libraries
(pandas, pyarrow, matplotlib, scipy, dask): they are imported where a DataFrame, a figure, an
interval or a cluster is made. Checked by the modules loaded, not by a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "pyarrow", "matplotlib", "scipy", "dask", "distributed", "numpy")


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_sluice_is_light() -> None:
    mods = loaded_after("import sluice; sluice.run, sluice.validate, sluice.stats")
    assert not mods & set(HEAVY), sorted(mods & set(HEAVY))


@pytest.mark.parametrize("args", [["version"], ["validate", "TINY"]])
def test_cli_version_and_validate_are_light(args: list[str], tiny_path: Path) -> None:
    argv = [str(tiny_path) if a == "TINY" else a for a in args]
    code = (
        "from sluice.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
    )
    mods = loaded_after(code)
    assert "sluice" in mods
    assert not mods & set(HEAVY), sorted(mods & set(HEAVY))


def test_a_run_still_gives_dataframes(tiny_path: Path) -> None:
    import sluice

    r = sluice.run(tiny_path)
    assert type(r.flows).__module__.startswith("pandas")
