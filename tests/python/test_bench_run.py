"""bench/run.py's bookkeeping: a sitting keeps the cases it did not rerun, and rewriting
results.md keeps the sections written by hand."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_module():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_sitting_replaces_its_cases_and_keeps_the_others_with_their_date() -> None:
    run = _run_module()
    earlier = {"date": "2026-11-20", "cases": {"access10": {"speedup_median": 400}, "access90": {"speedup_median": 175}}}
    new = {"date": "2026-11-25", "cases": {"access90": {"date": "2026-11-25", "speedup_median": 180}}}
    merged = run.merge_sittings(earlier, new)
    assert merged["date"] == "2026-11-25"
    assert merged["cases"]["access10"] == {"date": "2026-11-20", "speedup_median": 400}
    assert merged["cases"]["access90"] == {"date": "2026-11-25", "speedup_median": 180}


def test_rewriting_results_md_keeps_hand_written_sections() -> None:
    run = _run_module()
    old = ("# Benchmark results\n\nMachine.\n\n## The harness (by hand)\n\nkept text\n\n"
           "## Sluice alone (old)\n\nold numbers\n")
    new = "# Benchmark results\n\nMachine.\n\n## Sluice alone (new)\n\nnew numbers\n"
    out = run.keep_other_sections(old, new)
    assert "kept text" in out and "new numbers" in out and "old numbers" not in out
    assert out.index("## The harness") < out.index("## Sluice alone (new)")
    assert run.keep_other_sections("", new) == new
