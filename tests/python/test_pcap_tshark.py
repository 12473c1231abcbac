"""Wireshark's own dissector reads the captures Sluice writes: every IPv4, TCP and UDP checksum
verifies and tshark reports nothing malformed. An extra check beside the Rust tests that read
every header back with pcap-parser and etherparse (always run): it needs tshark, which CI
installs (.ci/run), and shows as skipped, with the reason, where it is missing."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import sluice

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="needs tshark (Debian: apt-get install tshark)")


def test_capture_opens_cleanly_in_tshark(tmp_path: Path) -> None:
    r = sluice.run(ROOT / "scenarios" / "examples" / "file-transfers.toml", out_dir=tmp_path)
    pcap = tmp_path / "A-to-B.pcap"
    assert pcap.exists(), r.files
    checks = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
    expert = subprocess.run(["tshark", "-r", str(pcap), *checks, "-q", "-z", "expert"], capture_output=True, text=True, check=True)
    assert "Malformed" not in expert.stdout and "Errors (" not in expert.stdout, expert.stdout
    # One frame per packet that left A->B (the capture is taken as each starts serializing).
    frames = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-e", "frame.number"], capture_output=True, text=True, check=True)
    q = next(q for q in r.summary["queues"] if q["name"] == "A->B")
    n = len(frames.stdout.split())
    assert n > 1000
    assert n >= q["dequeued"]
