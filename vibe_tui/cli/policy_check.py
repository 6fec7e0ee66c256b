"""``vibe-tui policy check``: what the policy would answer, for a batch of tool calls.

Reads JSON lines ``{"tool": "bash", "args": {"command": "ls"}}`` on stdin and writes one
line per input: ``{"decision": "allow" | "ask" | "deny", "reason": "..."}`` (plus
``"grant"`` when an "always" answer would grant a rule), or ``{"error": "..."}`` for a
line that is not a tool call. The workspace is the current directory; rules come from
the user's config, the trusted project config, and ``--allow`` / ``--deny`` / ``--ask``.

Each request is built by the tool's own ``precheck``, as in a session, so paths resolve
the same way; a call the tool itself refuses (a path outside the workspace) is a deny.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from vibe_tui.policy.decide import decide
from vibe_tui.policy.rules import parse_rule
from vibe_tui.policy.types import MODES, PolicyContext
from vibe_tui.tools.base import Tool, ToolContext, ToolError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vibe-tui policy check",
        description="Answer allow / ask / deny for JSON lines of tool calls read on stdin, "
                    'e.g. {"tool": "bash", "args": {"command": "git status"}}.')
    parser.add_argument("--mode", choices=MODES, help="permission mode (default: the config's)")
    for kind, text in (("allow", "runs without asking"), ("deny", "is always refused"),
                       ("ask", "always asks")):
        parser.add_argument(f"--{kind}", action="append", default=[], metavar="RULE",
                            help=f"permission rule that {text} (repeatable)")
    return parser


class Checker:
    """One workspace, one set of rules, many calls: set up once, answer fast."""

    def __init__(self, workspace: Path, policy: PolicyContext, tools: Iterable[Tool]) -> None:
        self.context = ToolContext(workspace=workspace)
        self.policy = policy
        self.tools = {tool.name: tool for tool in tools}

    def answer(self, line: str) -> dict[str, Any]:
        try:
            call = json.loads(line)
        except ValueError as exc:
            return {"error": f"not JSON: {exc}"}
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            return {"error": 'expected an object like {"tool": "bash", "args": {...}}'}
        args = call.get("args", {})
        if not isinstance(args, dict):
            return {"error": "args must be an object"}
        tool = self.tools.get(call["tool"])
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return {"error": f"unknown tool {call['tool']!r} (known: {known})"}
        try:
            request = tool.precheck(args, self.context)
        except ToolError as exc:
            return {"decision": "deny", "reason": f"the tool refuses it: {exc}"}
        decision = decide(request, self.policy)
        answer = {"decision": decision.action, "reason": decision.reason}
        if decision.grant is not None:
            answer["grant"] = decision.grant
        return answer


def _policy(args: argparse.Namespace, workspace: Path) -> tuple[PolicyContext, list[str]]:
    """The rules and mode in force here, and notes for stderr (an ignored project config)."""
    from vibe_tui.config.settings import load_config
    from vibe_tui.config.trusted_folders import apply_project_config

    config, ignored = apply_project_config(load_config(), workspace)
    extra = {"allow": args.allow, "deny": args.deny, "ask": args.ask}
    for kind, rules in extra.items():
        for rule in rules:
            try:
                parse_rule(rule)
            except ValueError as exc:
                raise ValueError(f"--{kind} {rule!r}: {exc}") from None
    policy = PolicyContext(mode=args.mode or config.mode, workspace=workspace,
                           allow=[*config.allow, *args.allow], deny=[*config.deny, *args.deny],
                           ask=[*config.ask, *args.ask])
    return policy, [ignored] if ignored else []


def run(lines: Iterable[str], out: TextIO, checker: Checker) -> int:
    """Answer each non-blank line; returns how many lines were errors."""
    errors = 0
    for line in lines:
        if not line.strip():
            continue
        answer = checker.answer(line)
        errors += "error" in answer
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()  # a caller may write one line and wait for its answer
    return errors


def main(argv: list[str]) -> int:
    """0 when every line was a tool call, 1 when some were not, 2 for bad options or
    config (the message on stderr)."""
    args = build_parser().parse_args(argv)
    workspace = Path.cwd().resolve()
    try:
        policy, notes = _policy(args, workspace)
    except (ValueError, OSError) as exc:
        print(f"vibe-tui policy check: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"vibe-tui policy check: {note}", file=sys.stderr)
    from vibe_tui.tools import default_tools

    checker = Checker(workspace, policy, default_tools())
    return 1 if run(sys.stdin, sys.stdout, checker) else 0
