"""The call log: one JSON line per model call and per tool call, next to the session file.

It answers "why was that slow / what did that cost / who allowed this" without reading
the whole event log: ``<session-id>.calls.jsonl`` in the session folder (``/log`` shows
where). Lines are flushed as they are written, so a crash loses nothing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any

CALL_LOG_SUFFIX = ".calls.jsonl"


def call_log_path(session_file: Path) -> Path:
    """``<session-id>.calls.jsonl`` beside ``<session-id>.jsonl``."""
    return session_file.with_name(session_file.stem + CALL_LOG_SUFFIX)


class CallLog:
    """Appends lines to ``path``; with no path (a session that is not saved) it does nothing."""

    def __init__(self, path: Path | None, session_id: str = "") -> None:
        self.path = path
        self.session_id = session_id
        self._handle: IO[str] | None = None

    def model_call(self, *, turn_id: int, model: str, purpose: str, latency_s: float,
                   first_token_s: float | None, prompt_tokens: int, completion_tokens: int,
                   cached_tokens: int, cost: float | None, estimate: int | None,
                   error: str | None = None, parent_call_id: str | None = None) -> None:
        """``purpose``: turn (the main agent), subagent, or compaction (a summary)."""
        self._write({
            "kind": "model", "turn_id": turn_id, "parent_call_id": parent_call_id,
            "purpose": purpose, "model": model, "latency_s": round(latency_s, 4),
            "first_token_s": None if first_token_s is None else round(first_token_s, 4),
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "cached_tokens": cached_tokens, "cost": cost, "estimated_prompt_tokens": estimate,
            "error": error,
        })

    def tool_call(self, *, turn_id: int, call_id: str, tool: str, args: dict[str, Any],
                  decision: str | None, reason: str | None, answered_by: str | None,
                  duration_s: float, status: str, exit_code: int | None, output_chars: int,
                  parent_call_id: str | None = None) -> None:
        """``decision``: allow, ask or deny (None when the call never reached the policy,
        e.g. an unknown tool); ``answered_by``: policy, or the view or mode that answered."""
        self._write({
            "kind": "tool", "turn_id": turn_id, "parent_call_id": parent_call_id,
            "call_id": call_id, "tool": tool, "args": args, "decision": decision,
            "reason": reason, "answered_by": answered_by, "duration_s": round(duration_s, 4),
            "status": status, "exit_code": exit_code, "output_chars": output_chars,
        })

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def _write(self, record: dict[str, Any]) -> None:
        if self.path is None:
            return
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("a", encoding="utf-8")
        line = {"ts": round(time.time(), 3), "session_id": self.session_id, **record}
        self._handle.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self._handle.flush()


def read_call_log(path: Path) -> list[dict[str, Any]]:
    """Every whole line of a call log (a torn last line is skipped)."""
    records = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records
