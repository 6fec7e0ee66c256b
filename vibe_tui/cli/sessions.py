"""``vibe-tui sessions``: this workspace's saved sessions, newest first.

Each line gives what ``--resume ID`` needs and what tells sessions apart: the id, when it
was last used, its turns, model and mode, and the first prompt.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from vibe_tui.core.store import SessionSummary, session_summaries

PROMPT_WIDTH = 60


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vibe-tui sessions",
        description="List the saved sessions of a workspace; resume one with "
                    "'vibe-tui --resume ID' (a unique start of the id will do).")
    parser.add_argument("-C", "--cwd", type=Path, default=None,
                        help="workspace folder (default: the current directory)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("-n", "--limit", type=int, default=50,
                        help="show at most this many (default 50; 0 for all)")
    return parser


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    workspace = (args.cwd or Path.cwd()).resolve()
    summaries = session_summaries(workspace)
    if args.limit > 0:
        summaries = summaries[:args.limit]
    if args.json:
        for summary in summaries:
            out.write(json.dumps(as_json(summary), ensure_ascii=False) + "\n")
        return 0
    if not summaries:
        out.write(f"no saved sessions for {workspace}\n")
        return 0
    out.write(format_table(summaries) + "\n")
    return 0


def as_json(summary: SessionSummary) -> dict:
    return {"id": summary.id, "path": str(summary.path), "started": summary.started,
            "updated": summary.updated, "first_prompt": summary.first_prompt,
            "turns": summary.turns, "model": summary.model, "mode": summary.mode}


def format_table(summaries: list[SessionSummary]) -> str:
    rows = [("ID", "LAST USED", "TURNS", "MODEL", "MODE", "FIRST PROMPT")]
    for summary in summaries:
        rows.append((summary.id, format_time(summary.updated), str(summary.turns),
                     summary.model or "-", summary.mode, one_line(summary.first_prompt)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1]
        for row in rows)


def format_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROMPT_WIDTH else line[:PROMPT_WIDTH - 1] + "…"
