"""Where a task's change goes, found before the model's first step: the files the task
says to change, in so many words ("Add a function ... to textutils/strings.py", "then
fix scripts/backup.sh (not the test)", "In config/app.json: turn on ..."), or else the
definition a failing command points to, and what that command says fails. The
small-model harness makes each such change first, asking the model for the file (or the
definition) whole: left to choose its own step, the 1.5B model read the file it had been
shown, again and again, or edited the function beside the bug (evals/README.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.core.step_context import (
    CHANGE_VERBS,
    SEARCHED_FILE_MAX_BYTES,
    code_names,
    imported_files,
    trace_places,
)
from vibe_tui.core.step_edits import definition_line

TARGETS_MAX = 2
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z]{1,5})(?![\w/])")
_BACKTICKED = re.compile(r"`[^`\n]*`")
_VERBS = CHANGE_VERBS | {"fix", "repair", "correct", "edit"}
_WORDS = re.compile(r"[A-Za-z']+")
# "not the test", "(not in the tests)", "Do not change the tests"
_SPARES_TESTS = re.compile(r"\bnot\b[^.]{0,20}\btests?\b", re.IGNORECASE)
_THE_FILE = re.compile(r"\bthe file\b", re.IGNORECASE)
# pytest's lines of a failed assertion ("> assert count_words(...) == 4", "E  where 0 =
# days()"): the calls in them name the code under test.
_ASSERTION_LINES = re.compile(r"^(?:>|E) .*$", re.MULTILINE)
_CALLED = re.compile(r"([A-Za-z_]\w*)\(")


@dataclass(frozen=True)
class Target:
    path: str  # as the task writes it, relative to the workspace
    sentence: str  # the sentence that asks for the change
    names: tuple[str, ...]  # the code it names (late_fee): a definition to ask for
    line: int | None = None  # the line a failure points to: its definition is asked for
    whole_file: bool = True  # a short file is asked for whole; else only the definition


def change_targets(workspace: Path, task: str) -> list[Target]:
    """Each existing file a sentence of the task asks to change, in the task's order."""
    spares_tests = _SPARES_TESTS.search(task) is not None
    sentences = [sentence.strip() for sentence in _SENTENCE_END.split(task) if sentence.strip()]
    named_anywhere = _files_named(workspace, task)
    targets: list[Target] = []
    for sentence in sentences:
        if not _asks_change(sentence):
            continue
        paths = [path for path in _files_named(workspace, sentence) if not _spared(sentence, path)]
        if not paths and _THE_FILE.search(sentence) and len(named_anywhere) == 1:
            paths = named_anywhere  # "... data/catalog.json is not valid JSON. Fix the file"
        for path in paths:
            if spares_tests and _is_test(path):
                continue
            if path not in [target.path for target in targets]:
                names = tuple(code_names(sentence, [path]))
                targets.append(Target(path, sentence, names))
    return targets[:TARGETS_MAX]


def _asks_change(sentence: str) -> bool:
    words = [word.lower() for word in _WORDS.findall(_BACKTICKED.sub(" ", sentence))]
    if words[:2] == ["do", "not"] or words[:1] == ["don't"]:
        return False
    return any(word in _VERBS for word in words)


def _files_named(workspace: Path, text: str) -> list[str]:
    """The files ``text`` names outside backticks (those are commands), that exist."""
    found: list[str] = []
    for path in _PATH.findall(_BACKTICKED.sub(" ", text)):
        if path not in found and _is_file(workspace, path):
            found.append(path)
    return found


def _is_file(workspace: Path, path: str) -> bool:
    """A file of the workspace small enough to read and outline on the event loop."""
    try:
        resolved = (workspace / path).resolve()
        return (resolved.is_relative_to(workspace.resolve()) and resolved.is_file()
                and resolved.stat().st_size <= SEARCHED_FILE_MAX_BYTES)
    except (OSError, ValueError):
        return False


def _spared(sentence: str, path: str) -> bool:
    """"do not change settings.json", "not in README.md", "from the defaults in app.py":
    a file the sentence spares, or reads from."""
    before = sentence[:sentence.index(path)].lower().split()[-4:]
    return bool({"not", "don't", "from"} & set(before))


def _is_test(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    return ("tests" in parts[:-1] or "test" in parts[:-1] or name.startswith("test_")
            or ".test." in name or ".spec." in name or name.rsplit(".", 1)[0].endswith("_test"))


def failure_targets(workspace: Path, output: str, command: str) -> list[Target]:
    """Where a failing command's output puts the bug, when the task names no file: the
    definition a stack frame in the code (not the tests) points to, or else the one the
    failed assertion calls, found in the files the tests import. Left to find it, the
    1.5B model edited the function beside it (evals/README.md)."""
    sentence = f"Fix the bug that makes `{command}` fail (its output is above)"
    places = trace_places(workspace, output)
    for rel, line in places:
        if not _is_test(rel) and _is_file(workspace, rel):
            return [Target(rel, sentence, (), line, whole_file=False)]
    tests = list(dict.fromkeys(rel for rel, _ in places))
    code = [rel for rel in imported_files(workspace, tests)
            if not _is_test(rel) and _is_file(workspace, rel)]
    called = _CALLED.findall("\n".join(_ASSERTION_LINES.findall(output)))
    for name in dict.fromkeys(called):
        for rel in code:
            if _defines(workspace / rel, name):
                return [Target(rel, sentence, (name,), whole_file=False)]
    return []


def failed_assertions(output: str, limit: int = 12) -> str:
    """What each failed test checked and got: pytest's assertion line (">") and the first
    "E" line after it, or a TAP report's "not ok" line and its error (node --test)."""
    kept: list[str] = []
    after_assertion = False
    for line in _ASSERTION_LINES.findall(output):
        if (line.startswith(">") or after_assertion) and line not in kept:
            kept.append(line)
        after_assertion = line.startswith(">")
    return "\n".join((kept or _tap_failures(output))[:limit])


def _tap_failures(output: str) -> list[str]:
    kept: list[str] = []
    error_indent = None  # inside a failure's "error:" block, its key's indentation
    for line in output.splitlines():
        indent = len(line) - len(line.lstrip())
        if line.lstrip().startswith("not ok "):
            kept.append(line.strip())
        elif line.lstrip().startswith("error:"):
            kept.append(line.strip())
            error_indent = indent
        elif error_indent is not None and indent > error_indent and line.strip():
            kept.append("  " + line.strip())
        elif line.strip():
            error_indent = None
    return kept


def _defines(path: Path, name: str) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return definition_line(text, name) is not None
