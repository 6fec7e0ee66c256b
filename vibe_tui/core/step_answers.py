"""What a small model's answer step is checked for before it ends the turn
(``core/step_mode.py``): an answer that claims a change none of the steps made, one that
stops before the changes the task lists are made, one that only repeats the question, one
the files contradict. Each is sent back with a note the model reads (evals/README.md has
the runs behind them)."""

from __future__ import annotations

import re
from pathlib import Path

from vibe_tui.core import step_context
from vibe_tui.core.step_edits import definition_line
from vibe_tui.tools.file_walk import select_files

# Typing into a program (a wizard) changes what the program writes: no diff, one change.
CHANGING_TOOLS = frozenset({"edit_file", "write_file", "interactive_send"})
# A change told of as made ("I fixed"), as about to be ("Now I'll proceed to rename",
# "Now, let's add the function"), or as one to make ("We need to change this", "it needs
# to be adjusted").
_CLAIMED_CHANGE = re.compile(r"\bI (?:have |\'ve )?(?:changed|corrected|fixed|renamed|added|"
                             r"updated|modified|replaced|edited|removed|deleted|set|turned)\b"
                             r"|\bwas (?:changed|renamed|added|updated|set)\b"
                             r"|\b(?:I(?:\'ll| will| am going to)|we(?:\'ll| will| are going to)|"
                             r"let(?:\'s| us)) (?:now |then |first )?(?:proceed|change|correct|"
                             r"fix|rename|add|update|modify|replace|edit|remove|delete|set|turn|"
                             r"make|define|write|create|implement)\b"
                             r"|\b(?:needs?|has|have) to be (?:changed|adjusted|fixed|modified|"
                             r"updated|corrected)\b|\b(?:we|you) (?:need|have) to (?:change|adjust|"
                             r"fix|modify|update|correct)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_NOT_DONE = re.compile(r"\b(?:could ?n[o']t|can ?n[o']t|cannot|unable|did ?n[o']t|was ?n[o']t able|"
                       r"not able|no (?:file|change)s? (?:was|were))\b", re.IGNORECASE)
_STILL_FAILS = re.compile(r"\b(?:still|yet)\b[^.]*\bfail|\b(?:does|do|did) ?n[o']t (?:yet )?pass|"
                          r"\bnot (?:yet )?pass", re.IGNORECASE)
_ASKS_FILES = re.compile(r"\bfiles\b", re.IGNORECASE)
_ANSWER_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_DEFINED = re.compile(r"\bdefin", re.IGNORECASE)
# A name as an answer writes code: in backticks, or with an underscore or an inner capital.
_CODE_NAME = re.compile(r"`(\w+)(?:\(\))?`|\b([A-Za-z]\w*_\w*|[a-z]+[A-Z]\w*)\b")
_FILE_WORD = re.compile(r"\S+\.\w+")


def unmade_change(answer: str, task: str) -> str | None:
    """Who asks for a change when no step made one: the answer, which tells of it, or the
    task, which asks for it (and the answer does not say it could not)."""
    if claims_change(answer):
        return "Your answer tells of a change"
    if step_context.asks_change(task) and not admits_no_change(answer):
        return "The task asks for a change"
    return None


def claims_change(answer: str) -> bool:
    """The answer tells of a change it made."""
    return _CLAIMED_CHANGE.search(answer) is not None


def admits_no_change(answer: str) -> bool:
    """The answer says the change was not made ("I could not find Y")."""
    return _NOT_DONE.search(answer) is not None


def still_failing(answer: str, command: str) -> str | None:
    """The note for an answer given while the task's command fails after the changes,
    unless the answer says it still fails or what was not done."""
    if admits_no_change(answer) or _STILL_FAILS.search(answer):
        return None
    return (f"`{command}` still fails after your change: its last run is above, so the task "
            "is not done. Fix the code with an edit step, or answer that it still fails.")


def parts_note(parts: list[str], made: int) -> str:
    """The changes the task lists, sent back when fewer were made: the 1.5B model makes
    the first of three and answers that it made them all."""
    listed = "\n".join(f"{index}. {part}" for index, part in enumerate(parts, 1))
    return (f"The task asks for {len(parts)} changes:\n{listed}\nSo far {made} change(s) "
            "applied. Check the file above, make each change that is still missing with an "
            "edit or write step, then answer.")


def echoes(answer: str, task: str) -> bool:
    """The answer says nothing the task did not: the 0.5B model answered "What files are
    in this repository?" with that question."""
    said, asked = (set(_WORD.findall(text.lower())) for text in (answer, task))
    # A short answer made of the task's words ("8080" to "8080 or 9090?") is an answer;
    # eight words of a long task (a helper's brief) said back are an echo.
    return len(said) >= max(3, min(len(asked) // 2, 8)) and said <= asked


def changed_places(diff: str) -> int:
    """The lines a unified diff changes (a run of removed and added lines counts as the
    longer of the two): a file written whole can hold every change a task lists, on
    lines next to each other, and counts as that many."""
    places, removed, added = 0, 0, 0
    for line in [*diff.splitlines(), " "]:
        if line.startswith(("+++", "---")) or line[:1] not in ("+", "-"):
            places, removed, added = places + max(removed, added), 0, 0
        elif line.startswith("-"):
            removed += 1
        else:
            added += 1
    return places


def against_files(workspace: Path, task: str, answer: str, hands_off: bool) -> str | None:
    """What the files say against an answer, as a note: definitions it places in files
    that do not hold them, with the files that do; or, asked about the files, those it
    leaves out. Blocking: it reads the files."""
    files = select_files(workspace, workspace, None).files
    misplaced = misplaced_definitions(workspace, files[:step_context.SEARCHED_FILES_MAX], answer)
    if misplaced:
        where = "; ".join(f"{name} is defined in {rel}" for name, rel in misplaced.items())
        return (f"Check your answer against the files: {where}, a file your answer does not "
                "name. Answer again.")
    left_out = files_left_out(files, task, answer) if hands_off else None
    return f"{left_out} Answer again." if left_out else None


def misplaced_definitions(workspace: Path, files: list[str], answer: str) -> dict[str, str]:
    """The names a sentence of ``answer`` says are defined ("In shop/checkout.py the
    function apply_bulk_discount is defined") in files it names, when those files define
    none of them: each name that one other file defines, with that file."""
    texts: dict[str, str] = {}

    def defines(rel: str, name: str) -> bool:
        if rel not in texts:
            texts[rel] = "\n".join(step_context.text_lines(workspace / rel) or [])
        return definition_line(texts[rel], name) is not None

    misplaced: dict[str, str] = {}
    for sentence in _ANSWER_SENTENCE.split(answer):
        if not _DEFINED.search(sentence):
            continue
        paths = [rel for rel in files if _names_file(sentence, rel)]
        names = list(dict.fromkeys(next(group for group in match.groups() if group)
                                   for match in _CODE_NAME.finditer(_FILE_WORD.sub(" ", sentence))))
        homes = {name: [rel for rel in files if defines(rel, name)] for name in names}
        if not paths or any(set(where) & set(paths) for where in homes.values()):
            continue
        misplaced.update({name: where[0] for name, where in homes.items() if len(where) == 1})
    return misplaced


def files_left_out(files: list[str], task: str, answer: str) -> str | None:
    """What ``answer`` leaves out of the repository's files, as a note, when the task asks
    about them: all of them (the 0.5B model answered "No changes were made and the task
    was checked."), or, asked for every file of a small repository, some (the 1.5B model
    named the one file it had read)."""
    if not files or not _ASKS_FILES.search(task):
        return None
    listing = step_context.listing(files)
    named = [rel for rel in files[:step_context.SEARCHED_FILES_MAX] if _names_file(answer, rel)]
    if not named:
        return f"The task asks about the files, and your answer names none. {listing}."
    if not step_context.asks_every_file(task) or len(files) > step_context.LISTED_IN_ANSWER_MAX:
        return None
    left_out = [rel for rel in files if rel not in named and not _names_folder(answer, rel)]
    if not left_out:
        return None
    return (f"The task asks for the files, and your answer leaves out {len(left_out)} of "
            f"the {len(files)}: {', '.join(left_out)}. {listing}.")


def _names_folder(text: str, rel: str) -> bool:
    """``text`` names a folder that holds ``rel`` ("tests/ holds the tests")."""
    folders = rel.split("/")[:-1]
    return any(re.search(rf"(?<![\w/.]){re.escape('/'.join(folders[:depth]))}/", text)
               for depth in range(1, len(folders) + 1))


def _names_file(text: str, rel: str) -> bool:
    return rel in text or re.search(rf"(?<![\w/.]){re.escape(Path(rel).name)}\b", text) is not None


def changes_report(changes: list[tuple[str, bool]]) -> str | None:
    """The files the steps' edits and writes (path, applied) changed, and how many did not
    apply; None when no step tried a change."""
    if not changes:
        return None
    changed = list(dict.fromkeys(path for path, ok in changes if ok))
    failed = sum(1 for _, ok in changes if not ok)
    text = f"changed: {', '.join(changed)}" if changed else "no file was changed"
    if failed:
        text += f" ({failed} of {len(changes)} changes did not apply)"
    return text
