"""What a small model's step is: the JSON schemas llama.cpp holds it to, reading a step
from the reply, and the answer step's words as they stream (``core/step_mode.py``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from vibe_tui.core.step_context import CHANGE_VERBS

_STRING = {"type": "string"}
_ANSWER = {"type": "object", "properties": {"action": {"const": "answer"}, "text": _STRING},
           "required": ["action", "text"]}
_STEPS = [
    _ANSWER,
    {"type": "object", "properties": {"action": {"const": "read"}, "path": _STRING,
                                      "line": {"type": "integer"}},
     "required": ["action", "path"]},
    {"type": "object", "properties": {"action": {"const": "run"}, "command": _STRING},
     "required": ["action", "command"]},
    {"type": "object", "properties": {"action": {"const": "edit"}, "path": _STRING,
                                      "search": _STRING, "replace": _STRING},
     "required": ["action", "path", "search", "replace"]},
    {"type": "object", "properties": {"action": {"const": "write"}, "path": _STRING,
                                      "content": _STRING},
     "required": ["action", "path", "content"]},
    {"type": "object", "properties": {"action": {"const": "rename"}, "old": _STRING,
                                      "new": _STRING},
     "required": ["action", "old", "new"]},
    {"type": "object", "properties": {"action": {"const": "start"}, "command": _STRING},
     "required": ["action", "command"]},
    {"type": "object", "properties": {"action": {"const": "type"}, "text": _STRING},
     "required": ["action", "text"]},
]
REQUIRED = {schema["properties"]["action"]["const"]: schema["required"][1:] for schema in _STEPS}


def _format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "step", "schema": schema}}


def _steps_format(*actions: str) -> dict[str, Any]:
    return _format({"anyOf": [s for s in _STEPS if s["properties"]["action"]["const"] in actions]})


# A program that asks questions is started and typed into only when the task says it
# asks: offered them for any task, the 1.5B model started `python -m pytest` in a
# terminal and typed the task into it.
STEP_FORMAT = _steps_format("answer", "read", "run", "edit", "write", "rename")
TERMINAL_FORMAT = _format({"anyOf": _STEPS})
# A task that must change nothing (plan mode, "do not change any file") is offered no step
# that could: a small model told not to edit often edits all the same (evals/README.md).
LOOK_FORMAT = _steps_format("answer", "read", "run")
READ_FORMAT = _steps_format("answer", "read")  # a helper (the task tool) can only read
ANSWER_FORMAT = _format(_ANSWER)
# While a program waits for input: asked for words, the 1.5B model made up the program's
# questions and its own answers, then ran the program again with bash (evals/README.md).
TYPE_FORMAT = _format(next(s for s in _STEPS if s["properties"]["action"]["const"] == "type"))
_HANDS_OFF = re.compile(r"\b(do not|don't|never|without) (chang|edit|modif|touch)\w* "
                        r"(anything|any files?|a file|files|the (repository|repo|code|files))\b",
                        re.IGNORECASE)
# A question asks for words, as does a sentence that asks to list, show or explain. "Can
# you ...?" is a request, and a sentence with a word of change may want one made (a miss
# leaves the task the steps that change files, as before).
_ASKING = re.compile(r"(what|which|where|who|whose|when|why|how|is|are|does|do|did)\b.*\?"
                     r"|(list|show|explain|tell|describe|summari[sz]e|answer|name|find|count|look)"
                     r"\b.*", re.IGNORECASE | re.DOTALL)
_CHANGE_WORDS = CHANGE_VERBS | {"fix", "write", "rewrite", "implement", "refactor", "edit",
                                "modify"}
_ASKING_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z]+")


def hands_off(task: str, mode: str) -> bool:
    """The task or the mode says no file may change, or the task only asks questions."""
    return mode == "plan" or _HANDS_OFF.search(task) is not None or _only_asks(task)


def _only_asks(task: str) -> bool:
    return all(_ASKING.fullmatch(sentence) and not _CHANGE_WORDS & set(_WORD.findall(sentence))
               for sentence in _ASKING_END.split(task.strip().lower()))


@dataclass(frozen=True)
class Step:
    action: str
    args: dict[str, Any]

    @property
    def key(self) -> str:
        """Steps with the same key do the same (a read from line 1 is a read)."""
        args = self.args
        if self.action == "read" and args.get("line") in (None, 0, 1):
            args = {"path": args["path"]}
        return json.dumps([self.action, args], sort_keys=True)

    def describe(self) -> str:
        """The step in the log the model reads: "ran `pytest`", "edit a.py"."""
        args = self.args
        if self.action == "run":
            return f"ran `{args['command']}`"
        if self.action == "read":
            return f"read {args['path']}" + (f" from line {args['line']}" if args.get("line") else "")
        if self.action == "rename":
            return f"rename {args['old']} to {args['new']}"
        if self.action == "start":
            return f"started `{args['command']}` in a terminal"
        if self.action == "type":
            return f"typed {json.dumps(args['text'])} and Enter"
        return f"{self.action} {args['path']}"


def parse_step(text: str) -> Step | str:
    """The step the model wrote, or why it is not one. Text that is no JSON at all (a
    server that does not enforce the schema) is an answer in words."""
    start = text.find("{")
    if start < 0:
        return Step("answer", {"text": text.strip()}) if text.strip() else "an empty reply"
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg})"
    action = value.get("action") if isinstance(value, dict) else None
    if action not in REQUIRED:
        return f"no known action (one of {', '.join(REQUIRED)})"
    missing = [name for name in REQUIRED[action] if not isinstance(value.get(name), str)]
    if missing:
        return f"the {action} step lacks {', '.join(missing)}"
    args = {name: value[name] for name in (*REQUIRED[action], "line") if name in value}
    return Step(action, args)


# An answer held to the schema ends at the first double quote the model writes: quoting
# code (getenv("X")), the 1.5B model's answer stopped at `getenv(`. Such an answer ends
# in an open bracket, an open code span or a space; it is finished without the schema.
_OPENS = tuple("([{=,:")


def cut_short(raw: str, text: str) -> bool:
    """The answer step's text (``text``, read from ``raw``) was ended by a quote the
    model meant to write, not by the end of what it had to say."""
    if not raw.lstrip().startswith("{") or not text.strip():
        return False
    stripped = text.rstrip()
    spaced = text[-1].isspace() and not stripped.endswith((".", "!", "?"))
    return spaced or stripped.endswith(_OPENS) or text.count("`") % 2 == 1


def answer_opening(text: str) -> str:
    """The answer step so far with the quote that ended it, as JSON left open: the model
    continues it."""
    return '{"action": "answer", "text": ' + json.dumps(text + '"')[:-1]


def finished_answer(text: str, continuation: str) -> str:
    """``text`` and what the model wrote after ``answer_opening(text)``: the continuation
    is read as JSON where it is, and leniently where it is not (a raw quote in code)."""
    try:
        value, _ = json.JSONDecoder().raw_decode(answer_opening(text) + continuation)
        whole = value["text"] if isinstance(value, dict) else None
    except (json.JSONDecodeError, KeyError):
        whole = None
    if not isinstance(whole, str):
        body = re.sub(r'"\s*}\s*$', "", continuation.rstrip())
        whole = text + '"' + _json_string_prefix(re.sub(r'(?<!\\)"', r'\\"', body))
    return text if whole == text + '"' else whole


class AnswerStream:
    """The answer step's text as it streams, for the views; the rest of a step is JSON
    the user does not need to watch being written."""

    def __init__(self, raw: str = "", sent: str = "") -> None:
        self.raw = raw
        self.sent = sent

    def feed(self, chunk: str) -> str:
        self.raw += chunk
        if self.raw.strip() and not self.raw.lstrip().startswith("{"):
            # Words, not a step (a server that does not hold the model to the schema):
            # they are the answer, shown as they come.
            new, self.sent = self.raw[len(self.sent):], self.raw
            return new
        if not re.match(r'\s*\{\s*"action"\s*:\s*"answer"', self.raw):
            return ""
        found = re.search(r'"text"\s*:\s*"', self.raw)
        if found is None:
            return ""
        text = _json_string_prefix(self.raw[found.end():])
        new, self.sent = text[len(self.sent):], text
        return new


def _json_string_prefix(raw: str) -> str:
    """The decoded part of a JSON string body that has arrived (up to its closing quote)."""
    out, index = [], 0
    escapes = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
    while index < len(raw):
        char = raw[index]
        if char == '"':
            break
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(raw):
            break
        code = raw[index + 1]
        if code == "u":
            digits = raw[index + 2:index + 6]
            if len(digits) < 4:
                break
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                pass
            index += 6
            continue
        out.append(escapes.get(code, code))
        index += 2
    return "".join(out)
