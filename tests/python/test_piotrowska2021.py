"""Piotrowska (2021)'s sweeps (scenarios/papers/piotrowska2021/): every cell is a valid scenario, the quick
variant runs, and tables.py puts the runs beside the paper's tables."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sluice import sweep

DIR = Path(__file__).resolve().parents[2] / "scenarios" / "papers" / "piotrowska2021"


def _tables():
    spec = importlib.util.spec_from_file_location("piotrowska2021_tables", DIR / "tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["access-link", "data-center"])
def test_every_cell_of_the_paper_sweeps_is_a_valid_scenario(name: str) -> None:
    sw = sweep.load_sweep(DIR / f"sweep-{name}.toml")
    cells = sw.cells()
    assert len(cells) == 3 * 3 * 3 * 5  # TCP × queue × load × seeds
    sweep.check_cells(cells[::5])  # one seed of each setting


def test_the_paper_values_are_read_whole() -> None:
    t = _tables()
    al = t.paper_values("access-link")
    assert len(al) == 9
    # Table 8, heavy load, NewReno, CoDel: 588 (272); Table 9: 11.44 %; Table 7: 0.90.
    assert al[("HC", "NewReno")]["CoDel"] == (0.90, 588.0, 272.0, 11.44)
    # Table 4, mild load, CUBIC, drop-tail: 900 (1); Table 5: 0.13 %; Table 3: 0.25.
    assert t.paper_values("data-center")[("MC", "CUBIC")]["DT"] == (0.25, 900.0, 1.0, 0.13)


def test_quick_sweep_runs_and_tables_put_it_beside_the_paper(tmp_path: Path) -> None:
    res = tmp_path / "res"
    sweep.run(DIR / "sweep-access-link.toml", res, quick=True, workers=2)
    t = _tables()
    scenario, cells, seeds = t.ours(res)
    assert scenario == "access-link" and seeds == 1
    assert set(cells) == {("UC", cc, q) for cc in ("NewReno", "CUBIC", "C-TCP") for q in ("DT", "PIE", "CoDel")}
    text = t.tables(scenario, cells, seeds)
    row = next(line for line in text.splitlines() if line.startswith("| UC NewReno") and "727 (142)" in line)
    dt_ours = cells[("UC", "NewReno", "DT")]
    assert f"{dt_ours['queue_mean_pkts']:.0f} (" in row
    # Loads the quick run did not cover show a dash, not a number.
    assert "| HC NewReno | 891 (10) | – (–) |" in text
