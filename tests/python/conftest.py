"""Shared fixtures for the Python tests: the tiny scenario and its text."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tiny_path() -> Path:
    """Two bulk NewReno flows on a 10 Mbps dumbbell for 5 s (uniform start in [0, 1) s)."""
    return DATA / "tiny.toml"


@pytest.fixture
def tiny_text(tiny_path: Path) -> str:
    return tiny_path.read_text(encoding="utf-8")
