"""The policy against a corpus of published bypasses, and a baseline that must stay quiet.

Each line of ``tests/policy_corpus/*.jsonl`` is one tool call with its source (advisory,
CVE, issue or write-up), the mode and rules in force, an optional workspace setup (files,
symbolic links), and the decision it must get. The calls go through the same path as
``vibe-tui policy check``: the tool's own precheck builds the request, then ``decide``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from vibe_tui.cli.policy_check import Checker
from vibe_tui.policy.types import PolicyContext
from vibe_tui.tools import default_tools

CORPUS = Path(__file__).parent / "policy_corpus"
TOOLS = default_tools()
# Every workspace starts with these; a case's setup adds to them.
FILES = {
    "README.md": "# demo\nTODO: more\n",
    "src/app.py": "def main():\n    return 1  # TODO\n",
    "data.csv": "a,b\n1,2\n",
    "a.txt": "alpha\n",
    ".env": "SECRET=1\n",
    ".git/config": "[core]\n",
}


def load_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                case["where"] = f"{path.name}:{number}"
                cases.append(case)
    return cases


CASES = load_cases()
ADVERSARIAL = [c for c in CASES if not c["id"].startswith("baseline-")]
BASELINE = [c for c in CASES if c["id"].startswith("baseline-")]


def make_workspace(root: Path, setup: dict[str, Any]) -> Path:
    workspace = root / "ws"
    for rel, text in {**FILES, **setup.get("files", {})}.items():
        path = Path(os.path.normpath(workspace / rel))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel, target in setup.get("links", {}).items():
        (workspace / rel).symlink_to(os.path.expanduser(target))
    return workspace.resolve()


def answer(case: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    workspace = make_workspace(tmp_path, case.get("setup", {}))
    policy = PolicyContext(mode=case.get("mode", "default"), workspace=workspace,
                           allow=case.get("allow", []), deny=case.get("deny", []),
                           ask=case.get("ask", []), grants=set(case.get("grants", [])))
    return Checker(workspace, policy, TOOLS).answer(json.dumps(
        {"tool": case["tool"], "args": case["args"]}))


def test_the_corpus_is_big_enough_and_sourced() -> None:
    assert len(ADVERSARIAL) >= 150
    assert len(BASELINE) >= 30
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert case["source"].strip(), case["id"]
        assert case["expect"] in ("allow", "ask", "deny"), case["id"]
    # Every family of advisories the issue names is represented.
    groups = {c["id"].rsplit("-", 1)[0] for c in ADVERSARIAL}
    assert groups >= {"claude-code", "codex", "gemini-cli", "cursor", "copilot", "git"}


@pytest.mark.parametrize("case", ADVERSARIAL, ids=[c["id"] for c in ADVERSARIAL])
def test_adversarial_case(case: dict[str, Any], tmp_path: Path) -> None:
    got = answer(case, tmp_path)
    assert got.get("decision") == case["expect"], (
        f"{case['where']} {case['args']} -> {got} (source: {case['source']})")


@pytest.mark.parametrize("case", BASELINE, ids=[c["id"] for c in BASELINE])
def test_baseline_runs_without_a_question(case: dict[str, Any], tmp_path: Path) -> None:
    assert case.get("mode", "default") == "default"
    got = answer(case, tmp_path)
    assert got.get("decision") == "allow", f"{case['where']} {case['args']} -> {got}"
