"""The example study, scenarios/studies/buffer-sizing.toml, in its --quick variant: `sluice sweep`
(calibration to the three congestion levels, then the cells) and `sluice report` give one HTML
file. This is the CI run of the whole harness on a real scenario (a few seconds)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from sluice import sweep
from sluice.cli import app

REPO = Path(__file__).resolve().parents[2]
STUDY = REPO / "scenarios" / "studies" / "buffer-sizing.toml"

runner = CliRunner()


def test_full_study_file_is_valid() -> None:
    sw = sweep.load_sweep(STUDY)
    assert [a.name for a in sw.axes] == ["buffer", "flows"]
    assert sw.axes[0].labels == ("0.25 BDP", "0.5 BDP", "1 BDP", "2 BDP", "4 BDP")
    assert sw.seeds == tuple(range(1, 11))
    assert len(sw.cells()) == 5 * 2 * 10
    sweep.check_cells(sw.cells())  # every override fits the scenario
    assert sw.calibrate is not None and sw.calibrate.levels == {"mild": 0.1, "medium": 0.5, "heavy": 1.0}


def test_quick_study_sweeps_calibrates_and_reports(tmp_path: Path) -> None:
    results = tmp_path / "quick"
    r = runner.invoke(app, ["sweep", str(STUDY), "--quick", "--results", str(results), "--workers", "2"])
    assert r.exit_code == 0, r.output

    cal = json.loads((results / "calibration.json").read_text())
    assert [c["labels"]["buffer"] for c in cal] == ["0.5 BDP", "2 BDP"]
    for c in cal:
        assert set(c["counts"]) == {"mild", "medium", "heavy"}
        for level, threshold in c["levels"].items():
            n = c["counts"][level]
            assert isinstance(n, int) and 1 <= n <= 64, (level, n)
            steps = {s["n"]: s for s in c["steps"][level]}
            assert steps[n]["value"] >= threshold  # the count reaches the level ...
            if n - 1 in steps:
                assert steps[n - 1]["value"] < threshold  # ... and the one below does not
    # the search printed its steps
    assert re.search(r"mild \(≥ 0.1\) (bracket|bisect) n=\d+: ", r.stderr)

    res = sweep.load(results)
    runs = res.runs()
    assert (runs["status"] == "done").all()
    plain = runs[runs["level"].isna()]
    leveled = runs[runs["level"].notna()]
    assert len(plain) == 2 * 2 * 2  # buffer × flows × seeds
    assert len(leveled) == 2 * 3 * 2  # buffer × level × seeds
    agg = res.aggregate(["loss_pct"])
    # at a calibrated level the loss is near the level: reached on the calibration seeds
    assert (agg[agg["level"] == "heavy"]["loss_pct"] > 0.3).all()
    # 90 flows lose more than 9 in the same buffer
    for b in ("0.5 BDP", "2 BDP"):
        nine = agg[(agg["buffer"] == b) & (agg["flows"] == "9")]["loss_pct"].item()
        ninety = agg[(agg["buffer"] == b) & (agg["flows"] == "90")]["loss_pct"].item()
        assert ninety > nine

    out = tmp_path / "study.html"
    rep = runner.invoke(app, ["report", str(results), "-o", str(out)])
    assert rep.exit_code == 0, rep.output
    page = out.read_text()
    assert page.count("data:image/png;base64,") >= 8
    assert "Calibration" in page and "buffer-sizing-base.toml" in page
    assert "sluice sweep " in page and "--quick" in page
