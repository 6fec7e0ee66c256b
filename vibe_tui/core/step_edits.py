"""A small model's changes, checked before they are applied: a search/replace step, a
short file written whole, a rename across files.

Small models copy lines with the wrong indentation or trailing spaces more often than with
the wrong words (evals/README.md). A search text that is not in the file exactly but
matches one place line for line once spaces are set aside is taken as that place, and the
replacement is re-indented by the same amount; anything less certain goes back to the
model as an error it can act on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.code.languages import language_name
from vibe_tui.code.outline import outline
from vibe_tui.tools.file_walk import select_files


@dataclass
class Located:
    old: str  # the file's own text to replace
    new: str
    replace_all: bool = False
    note: str | None = None  # what was adjusted, for the model


class NotLocated(Exception):
    pass


class Unchanged(NotLocated):
    """A file written whole that came back as it was."""


def locate(content: str, search: str, replace: str) -> Located:
    """Where ``search`` is in ``content``; raises NotLocated with the reason."""
    if not search.strip():
        raise NotLocated("search is empty: copy the lines to change from the file")
    count = content.count(search)
    if count == 1:
        return Located(search, replace)
    if count > 1:
        if "\n" not in search.strip():
            # One line or a name: every occurrence is meant (a rename, a repeated value).
            return Located(search, replace, replace_all=True,
                           note=f"replaced all {count} occurrences")
        raise NotLocated(f"search occurs {count} times in the file: add a line around it "
                         "that makes it unique")
    return _by_lines(content, search, replace)


def _by_lines(content: str, search: str, replace: str) -> Located:
    lines = content.splitlines()
    wanted = [_loose(line) for line in search.strip("\n").splitlines()]
    places = [start for start in range(len(lines) - len(wanted) + 1)
              if [_loose(line) for line in lines[start:start + len(wanted)]] == wanted]
    if len(places) != 1:
        reason = "not in the file" if not places else f"in {len(places)} places"
        raise NotLocated(f"search is {reason}: copy whole lines exactly as the file has them "
                         "(read the file first)")
    start = places[0]
    found = lines[start:start + len(wanted)]
    shift = _indent(found[0]) - _indent(search.strip("\n").splitlines()[0])
    return Located("\n".join(found), _reindent(replace.strip("\n"), shift),
                   note="matched with the file's indentation and quotes")


def _loose(line: str) -> str:
    """A line as compared when the search text is not in the file as written: without its
    indentation, and with one kind of quote (the 1.5B model wrote '' where the file has "")."""
    return line.strip().replace("'", '"')


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _reindent(text: str, shift: int) -> str:
    if shift == 0:
        return text
    lines = []
    for line in text.splitlines():
        if shift > 0:
            lines.append(" " * shift + line if line.strip() else line)
        else:
            cut = min(-shift, _indent(line))
            lines.append(line[cut:])
    return "\n".join(lines)


# A short file is changed by writing it whole: given the file and the task, the 1.5B model
# writes the changed file right far more often than it copies search text that matches
# (evals/README.md). Longer files keep search/replace: writing them costs too many tokens.
REWRITE_MAX_LINES = 120
REWRITE_MAX_CHARS = 6000
REGION_MAX_LINES = 80  # a definition of a longer file, asked for whole


def rewritable(content: str) -> bool:
    """A file short enough to be written whole, whose text a fence can hold."""
    return (len(content) <= REWRITE_MAX_CHARS and content.count("\n") <= REWRITE_MAX_LINES
            and "```" not in content)


# Fence names for files no tree-sitter grammar here parses (code/languages.py names the rest).
_OTHER_FENCES = {".json": "json", ".cfg": "ini", ".ini": "ini"}


@dataclass(frozen=True)
class Rewrite:
    """A request for a file whole: the end of the user message, the start of the reply
    (llama.cpp continues an assistant message the request ends with) and a token cap."""
    ask: str
    opening: str
    max_tokens: int
    temperature: float | None = None  # None: the model's own setting


@dataclass(frozen=True)
class Region:
    """The lines of a long file asked for whole: a definition the edit falls in."""
    start: int  # 1-based
    end: int
    text: str  # the lines, with their ends


def region_of(rel: str, content: str, search: str) -> Region | None:
    """The top-level definition of ``content`` that holds the one place ``search`` names,
    when it is short enough to write whole."""
    try:
        located = locate(content, search, "")
    except NotLocated:
        return None
    if located.replace_all:
        return None
    return region_at(rel, content, content.count("\n", 0, content.index(located.old)) + 1)


def region_named(rel: str, content: str, names: Sequence[str]) -> Region | None:
    """The top-level definition of ``content`` where one of ``names`` is defined ("The bug
    is in late_fee"; a method's class), when it is short enough to write whole."""
    for name in names:
        line = definition_line(content, name)
        region = region_at(rel, content, line) if line else None
        if region is not None:
            return region
    return None


def definition_line(content: str, name: str) -> int | None:
    """The 1-based line where ``content`` defines ``name`` (Python or JavaScript)."""
    found = re.search(rf"^[ \t]*(?:export\s+)?(?:async\s+)?(?:def|function|class|const|let|"
                      rf"var)\s+{re.escape(name)}\b", content, re.MULTILINE)
    return content.count("\n", 0, found.start()) + 1 if found else None


def region_at(rel: str, content: str, line: int) -> Region | None:
    """The top-level definition of ``content`` that holds the 1-based ``line``, when it is
    short enough to write whole."""
    for entry in outline(rel, content) or []:
        if entry.start <= line <= entry.end and entry.end - entry.start < REGION_MAX_LINES:
            lines = content.splitlines(keepends=True)[entry.start - 1:entry.end]
            return Region(entry.start, entry.end, "".join(lines))
    return None


def rewrite_request(rel: str, content: str, region: Region | None = None,
                    listed: list[str] | None = None, failing: str = "") -> Rewrite:
    """The request that asks for ``rel`` whole (or ``region`` of it), after the steps so
    far. The model's own search/replace is left out: shown it, the 1.5B model made that one
    change and dropped the others the task asked for. The reply is begun with the code
    fence: told to, the model still wrote a JSON step with the file as a string."""
    fence = language_name(rel) or _OTHER_FENCES.get(Path(rel).suffix.lower(), "")
    opening = f"```{fence}\n"
    if region is None:
        shown, target, text = f"The file {rel}", f"the whole of {rel}", content
    else:
        shown = f"Lines {region.start}-{region.end} of {rel}"
        target, text = "those lines", region.text
    # The changes a task lists, one per line: rewriting from the sentence, the 1.5B model
    # made two of three.
    checklist = "".join(f"{index}. {part}\n" for index, part in enumerate(listed or [], 1))
    ask = (f"Your step: edit {rel}.\n{shown} now:\n{opening}{text}```\n\n"
           + (f"The task asks for these changes:\n{checklist}\n" if checklist else "")
           # Beside the code: far above, in the command's whole output, the 1.5B model
           # wrote late_fee back unchanged.
           + (f"What fails now:\n```\n{failing}\n```\n\n" if failing else "")
           + f"Write {target} as they must be after the change: every line, with each change "
           "the task asks for there, in one fenced code block and nothing else.")
    # Tokens of the text (about three characters each in code) and room for the change.
    return Rewrite(ask, opening, len(text) // 3 + 256)


def rewritten(reply: str, content: str, cut: bool) -> str:
    """The new text of the file from the model's reply; raises NotLocated with the reason
    the model reads. ``cut``: the reply reached its token cap."""
    new = _fenced_file(reply)
    if new is None and cut:
        new = _kept_whole(content, reply)
    if new is None:
        raise NotLocated("the file was cut off before its end" if cut
                         else "the reply held no fenced code block with the file")
    if content.endswith("\n") != new.endswith("\n"):
        new = new + "\n" if content.endswith("\n") else new.rstrip("\n")
    if new == content:
        raise Unchanged("the file came back unchanged")
    if _STEP_KEY.search(new) and not _STEP_KEY.search(content):
        # Asked for a function of src/lines.js, the 1.5B model wrote an answer step, which
        # tree-sitter's JavaScript grammar parses as a block.
        raise NotLocated("the reply was a JSON step, not the file")
    old_lines, new_lines = content.count("\n"), new.count("\n")
    if old_lines >= 8 and new_lines < old_lines // 2:
        raise NotLocated(f"the file came back with {new_lines} of its {old_lines} lines: "
                         "write every line")
    return new


_STEP_KEY = re.compile(r'^\s*\{?\s*"action"\s*:', re.MULTILINE)


def _kept_whole(content: str, reply: str) -> str | None:
    """A reply cut at its token cap, up to its last whole line, when that still holds
    every line of the file in order: adding a test, the 1.5B model wrote the file and
    then the same assertion until the cap. Anything less could drop the file's end."""
    if "```" in reply or "\n" not in reply:
        return None
    kept = reply[:reply.rindex("\n") + 1]
    remaining = iter(kept.splitlines())
    if all(line in remaining for line in content.splitlines()):
        return kept
    return None


def _fenced_file(reply: str) -> str | None:
    """The file in the reply: the continuation of the begun fence up to its closing line,
    or the first block the reply opens itself (a server that ignores the begun reply, a
    model that writes the fence again)."""
    lines = reply.splitlines(keepends=True)
    fences = [index for index, line in enumerate(lines) if line.startswith("```")]
    if not fences:
        return None
    first = fences[0]
    if lines[first].strip() == "```" and (first > 0 or len(fences) == 1):
        return "".join(lines[:first])  # the closing fence of the begun block
    if len(fences) < 2:
        return None
    return "".join(lines[first + 1:fences[1]])


# A rename across files is one step the harness carries out: the 1.5B model renamed the
# definition and left the imports and calls (evals/README.md).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RENAME_FILES_MAX = 400
RENAME_FILE_MAX_BYTES = 256 * 1024


def rename_plan(workspace: Path, old: str, new: str) -> list[tuple[str, str]]:
    """Each text file that has the name ``old`` as a whole word, with its new text; raises
    NotLocated with the reason the model reads. Blocking: call it in a thread."""
    if not _NAME.fullmatch(old) or not _NAME.fullmatch(new):
        raise NotLocated("a rename takes two names (letters, digits and _)")
    if old == new:
        raise NotLocated("the two names are the same")
    word = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)")
    plan = []
    for rel in select_files(workspace, workspace, None).files[:RENAME_FILES_MAX]:
        text = _text(workspace / rel)
        if text is not None and word.search(text):
            plan.append((rel, word.sub(lambda _: new, text)))
    if not plan:
        raise NotLocated(f"no file has the name {old}")
    return plan


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size > RENAME_FILE_MAX_BYTES:
            return None
        data = path.read_bytes()
        return None if b"\0" in data[:4096] else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
