"""The hand-written stub `sluice/_sluice.pyi` must match the compiled module (mypy's stubtest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_stubtest_native_module(tmp_path: Path) -> None:
    pytest.importorskip("mypy.stubtest")
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sluice._sluice"],
        cwd=tmp_path,  # import the installed package, not a source tree on the path
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_package_is_typed() -> None:
    import sluice

    root = Path(sluice.__file__).parent
    assert (root / "py.typed").exists()
    assert (root / "_sluice.pyi").exists()


def test_package_passes_strict_mypy(tmp_path: Path) -> None:
    # The package's own annotations, checked as pyproject.toml's [tool.mypy] says (strict).
    pytest.importorskip("mypy")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"))
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
