"""The repository stands alone: nothing in it points at documents or paths a reader of the repo
does not have.

Comments and docs cite RFCs, papers (author, title, year), ns-3 or Linux code by name, or the
repo's own `docs/` pages. They must not cite sections of a specification kept outside the repo,
design or style notes that are not in it, sibling folders of the checkout, or directories of the
machine a file was written on. This test scans every tracked text file and lists each offending
line as `path:line`.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: What a reader of the repo cannot follow, with the reason shown on failure.
FORBIDDEN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bspec\s*§"), "a section of a specification that is not in the repo"),
    (re.compile(r"\bspec\/"), "a specification folder that is not in the repo"),
    (re.compile(r"\b(?:design|style|algorithms)\.md\b"),
     "a design/style/spec note that is not in the repo"),
    (re.compile(r"\.\./(?:shared|papers)\b|\bshared/(?:spec|papers|reference)\b"),
     "a folder outside the repo"),
    (re.compile(r"\bpapers? 00\d\b"), "a paper by its number in a list that is not in the repo"),
    (re.compile(r"(?<![\w.~-])/(?:home|work|root|Users|tmp)/"), "a path on another machine"),
)

#: Files allowed to keep such citations: none. Do not add to it.
ALLOWED: frozenset[str] = frozenset()

#: Directories never scanned when the file list does not come from git.
SKIP_DIRS = {".git", "target", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist"}


@functools.lru_cache(maxsize=1)
def tracked_files() -> list[str]:
    """Paths (relative, `/`-separated) of the tracked files; every file when git is missing."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
        names = [n for n in out.stdout.decode("utf-8").split("\0") if n]
        if names:
            return names
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for f in files:
            found.append((Path(root) / f).relative_to(REPO).as_posix())
    return found


def offences(path: str, text: str) -> list[str]:
    """`path:line: reason: line text` for each line of `text` matching a forbidden pattern."""
    hits = []
    for no, line in enumerate(text.splitlines(), start=1):
        for pattern, reason in FORBIDDEN:
            if pattern.search(line):
                hits.append(f"{path}:{no}: {reason}: {line.strip()[:160]}")
                break
    return hits


@functools.lru_cache(maxsize=1)
def scan() -> dict[str, list[str]]:
    """Offending lines per file, over every tracked text file (this one included)."""
    result: dict[str, list[str]] = {}
    for name in tracked_files():
        p = REPO / name
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue  # binary, a submodule, or deleted in the work tree
        hits = offences(name, text)
        if hits:
            result[name] = hits
    return result


def test_checker_flags_what_it_must_and_passes_proper_citations() -> None:
    # Spelt in pieces (adjacent literals, escapes) so that this file passes its own scan.
    bad = [
        "// tests spec \u00a72.5.3 worked example",
        "/// (the contract of design" ".md)",
        '"""Must match the module (style' '.md \u00a79)."""',
        "Rules, with the sections of (`shared" "/spec" "/algorithms" ".md`)",
        "see ../" "shared" "/papers",
        "the access-link RTTs of paper" " 003",
        "(/" "work/shared" "/reference/ns3-dumbbell.json)",
        "  target/release/sluice-sim /" "tmp/dc.toml --out /" "tmp/sluice",
        "python3 run.py /" "home/alice/x.toml",
    ]
    good = [
        "// tests RFC 6298 §2.2-2.3 on a worked example",
        "(docs/tcp.md, \"pacing\"; Linux `tcp_update_pacing_rate`)",
        "A. Piotrowska, \"On Cross-Layer Interactions ...\", Applied Sciences 2021, §5",
        "validation/fixtures/ns3-reference.json",
        "https://example.org/tmp/x and ./tmp/out and target/tmp/y",
        "a specification of the window (RFC 9293 §3.8.6)",
    ]
    for line in bad:
        assert offences("x", line), f"not flagged: {line!r}"
    for line in good:
        assert not offences("x", line), f"flagged: {line!r}"
    # Every line is reported with its number.
    assert offences("a.md", "ok\nsee design" ".md\nok") == [
        "a.md:2: a design/style/spec note that is not in the repo: see design" ".md"
    ]


def test_repository_cites_nothing_outside_it() -> None:
    found = scan()
    assert len(tracked_files()) > 50, "the file list is empty: the scan would prove nothing"
    offending = [h for name, hits in sorted(found.items()) if name not in ALLOWED for h in hits]
    assert not offending, (
        "cite the RFC, the paper, ns-3's or Linux's code by name, or a page of docs/ instead:\n"
        + "\n".join(offending)
    )


def test_allow_list_only_shrinks() -> None:
    found = scan()
    stale = sorted(name for name in ALLOWED if name not in found)
    assert not stale, f"now clean, remove from ALLOWED in this file: {stale}"
