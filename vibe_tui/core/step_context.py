"""What the small-model harness puts in front of the model before its first step: the
files of the workspace, the places a search for the task's words finds, whole small files
the task names, and the lines a failing command's traceback points to.

A small model given tools goes looking and loses its way (evals/README.md); given these,
it can often answer or edit at once. Blocking: call it with ``asyncio.to_thread``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vibe_tui.tools.file_walk import select_files

LISTED_FILES_MAX = 80
SEARCHED_FILES_MAX = 400
SEARCHED_FILE_MAX_BYTES = 256 * 1024
WHOLE_FILE_MAX_LINES = 60  # a file this short is shown whole when it matters
NAMED_WHOLE_MAX_LINES = 200  # one the task names, up to this
SHOWN_FILES_MAX = 4
LINES_AROUND = 3
MATCHED_LINES_MAX = 12  # the best matching lines of a file shown, with LINES_AROUND
NAMED_LINES_MAX = 16  # every line naming the task's code names, listed when no more
# A repository this small is listed file by file in an answer that lists its files.
LISTED_IN_ANSWER_MAX = 20
# Commands a task names in backticks that the harness runs to see the failure, and again
# after every change to check it.
RUNNERS = frozenset({"python", "python3", "pytest", "node", "npm", "bash", "sh", "make",
                     "cargo", "go", "uv", "ruby", "deno", "bun", "npx"})
STOP_WORDS = frozenset("""a an and any are as at be been but by can did do does each else
every file files find fix for from has have here how if in into is it its just keep let
look make may more most must new no not now of on one only or other out over run same see
set should so some than that the their them then there these they this those to too up
use used uses using was what when where which while who why will with without would you
your all also answer change changes code project repository test tests work""".split())
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
# Words the task writes as code: os.environ, getenv(), `limit`, late_fee.
_CODE_WORDS = re.compile(r"`(\w+)`|\b((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*)\b|\b(\w+)\(|"
                         r"\b([A-Za-z]\w*_\w+)\b")
FILE_SUFFIXES = frozenset("py js ts json toml yaml yml md txt sh cfg ini lock html css".split())
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CLAUSE_BREAK = re.compile(r",\s*(?:and\s+)?|\s+and\s+(?=\w+ )")
CHANGE_VERBS = frozenset("""add set turn remove delete change rename update make replace
enable disable bump move create insert drop raise lower put append""".split())
_PY_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import|import[ \t]+([\w.]+))",
                        re.MULTILINE)
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
_JS_IMPORT = re.compile(r"""(?:require\(\s*|\bfrom\s+|^\s*import\s+)['"](\.{1,2}/[^'"]+)['"]""",
                        re.MULTILINE)
# ``File "x.py", line 12`` (Python) and ``x.py:12`` (pytest, node, compilers, shells).
# What JSON, TOML and YAML parsers say of where a file stops parsing.
_PARSE_PLACE = re.compile(r"\bline (\d+),? column (\d+)")
DATA_SUFFIXES = (".json", ".toml", ".yaml", ".yml")
_TRACE_PLACES = (re.compile(r'File "([^"]+)", line (\d+)'),
                 re.compile(r"([\w./-]+\.\w+):(\d+)"))


@dataclass
class Gathered:
    text: str  # what the model reads
    files: int = 0  # in the workspace
    shown: list[str] = field(default_factory=list)  # files whose lines are in ``text``
    whole: list[str] = field(default_factory=list)  # those of them shown whole
    naming: str = ""  # every line that names the code the task names, when few, listed
    named: list[str] = field(default_factory=list)  # the files the task names
    answerable: bool = False  # ``text`` holds the answer


# Asks for every file ("What files are in this repository?", "list the files"), not for
# some ("Which files import os?", "list the files that fail").
_LISTS_FILES = re.compile(
    r"\bfiles\s+(?:are|exist)\s+(?:there\s+)?(?:here|there|in\s+(?:this|the|my)\s+\w+)\b"
    r"|\b(?:list|show|name)\s+(?:me\s+)?(?:all\s+|every\s+)?(?:of\s+)?(?:the\s+|its\s+)?files\b"
    r"(?!\s+(?:that|which|where|with|whose|in\s+which)\b)"
    r"|\bfiles\s+(?:does|do)\s+(?:this|the|my)\s+\w+\s+(?:have|contain|hold)\b",
    re.IGNORECASE)
# A question about a file that needs more than its text: a run, or the files around it.
_LOOKS_FURTHER = re.compile(r"\b(?:run\w*|output|prints?|crash\w*|fail\w*|errors?|tests?|"
                            r"pass\w*|where|files?\b(?! \w+\.\w)|other|else|calls?|"
                            r"called|imports?|imported|uses?|used)\b", re.IGNORECASE)
# What a question asks of the files beyond their names.
_ASKS_INSIDE = re.compile(r"\b(?:each|explain|describe|summar|contents?|inside|purpose|"
                          r"what (?:they|it|these|those) (?:do|does|contain|hold|say))",
                          re.IGNORECASE)


def task_commands(task: str) -> list[str]:
    """The commands a task names in backticks (`python -m pytest`), in order, once each."""
    commands = []
    for quoted in _BACKTICKED.findall(task):
        words = quoted.split()
        if words and words[0] in RUNNERS and quoted not in commands:
            commands.append(quoted.strip())
    return commands


_IN_A_TERMINAL = re.compile(r"\b(interactive|wizard|answer(ing)? (its|the) questions|"
                            r"needs? a terminal|in a terminal)\b", re.IGNORECASE)


def runs_in_terminal(task: str) -> bool:
    """The task says its command asks questions: it is started in a terminal to be
    answered, not run as a check (run with bash, it has no terminal to ask in)."""
    return _IN_A_TERMINAL.search(task) is not None


_SENDS_HELPER = re.compile(r"\b(the task tool|a sub-?agent|(send|use|ask) (a|the) helper)\b",
                           re.IGNORECASE)


def asks_every_file(task: str) -> bool:
    """The task asks for every file of the repository ("What files are in this
    repository?"), not for some or for what they hold."""
    return _LISTS_FILES.search(task) is not None


def sends_helper(task: str) -> bool:
    """The task asks for a read-only helper (the ``task`` tool) to do the search."""
    return _SENDS_HELPER.search(task) is not None


def asks_change(task: str) -> bool:
    """A sentence of the task asks for a change: it starts with a verb of change ("Add a
    function ...") or says to fix something."""
    return any(sentence.split(" ", 1)[0].lower() in CHANGE_VERBS
               or re.search(r"\bfix\b", sentence, re.IGNORECASE) is not None
               for sentence in _SENTENCE_END.split(task.strip()))


def task_parts(task: str) -> list[str]:
    """The changes a task lists in one sentence ("set the version to 1.3.0, add the
    dependency httpx and set line-length to 100"): each clause that starts with a verb of
    change, when there are at least two. A small model often makes the first and answers
    that it made them all."""
    for sentence in _SENTENCE_END.split(task):
        sentence = sentence.split(": ", 1)[-1]
        clauses = [clause.strip(" .") for clause in _CLAUSE_BREAK.split(sentence)]
        parts = [clause for clause in clauses if clause.split(" ", 1)[0].lower() in CHANGE_VERBS]
        if len(parts) >= 2 and len(parts) == len([c for c in clauses if c]):
            return parts
    return []


_RENAME_TASK = re.compile(r"\brename (?:the )?(?:function|method|class|variable|constant|"
                          r"name)?\s*`?([A-Za-z_]\w*)(?:\(\))?`? (?:to|into|as) "
                          r"`?([A-Za-z_]\w*)", re.IGNORECASE)


def task_rename(task: str) -> tuple[str, str] | None:
    """The rename a task asks for in so many words ("Rename the function calc_area to
    compute_area"): (old, new)."""
    found = _RENAME_TASK.search(task)
    return (found[1], found[2]) if found else None


def task_terms(task: str) -> list[str]:
    """The words of the task worth searching for: names, and the longer plain words."""
    terms: list[str] = []
    for word in _WORD.findall(task):
        lowered = word.lower()
        if len(word) < 3 or lowered in STOP_WORDS or lowered in terms:
            continue
        terms.append(lowered)
    return terms


def gather(workspace: Path, task: str, budget_chars: int = 6000, listing_names: bool = False
           ) -> Gathered:
    """What the model sees before its first step. ``listing_names``: end with every line
    that names the task's code (for a task that changes nothing: after a change the list
    would be stale, and the 1.5B model copied it into a README)."""
    files = select_files(workspace, workspace, None).files
    file_list = listing(files)
    named = [rel for rel in files if _named(rel, task)]
    hits = _search(workspace, files, task_terms(task))
    ranked = sorted(hits, key=lambda rel: (rel not in named, -len(hits[rel][0]), rel))
    ranked = named + [rel for rel in ranked if rel not in named]
    parts, shown, whole = [file_list], [], []
    room = budget_chars - len(file_list)
    for rel in ranked[:SHOWN_FILES_MAX]:
        lines = text_lines(workspace / rel)
        if lines is None:
            continue
        wanted = hits.get(rel, (set(), []))[1]
        block = excerpt(rel, lines, wanted, whole=rel in named and len(lines) <= NAMED_WHOLE_MAX_LINES)
        if len(block) > room and wanted:  # the places the search found, not the file's start
            block = excerpt(rel, lines, wanted, whole=False)
        if len(block) > room:
            continue
        parts.append(block)
        shown.append(rel)
        if f" (lines 1-{len(lines)} of {len(lines)})" in block.partition("\n")[0]:
            whole.append(rel)
        room -= len(block)
    # Last, nearest the steps: given excerpts of four files, the 1.5B model listed what the
    # last one held; given every line that names the code, it can list them all.
    naming = _naming_lines(workspace, files, code_names(task, files)) if listing_names else ""
    if naming:
        parts.append(naming)
    answerable = listing_names and _answerable(task, len(files), named, whole)
    return Gathered(text="\n\n".join(parts), files=len(files), shown=shown, whole=whole,
                    naming=naming, named=named, answerable=answerable)


def _answerable(task: str, files: int, named: list[str], whole: list[str]) -> bool:
    """What is gathered holds the answer to the question ``task``: it asks for every file
    of a repository small enough to list (the 1.5B model read one file and named that one
    alone), or asks about files it names, all shown whole, and nothing beyond them (it
    read the file again, then ran it: `python app.py`)."""
    if asks_every_file(task):
        return files <= LISTED_IN_ANSWER_MAX and not _ASKS_INSIDE.search(task)
    return (bool(named) and set(named) <= set(whole) and not task_commands(task)
            and not _LOOKS_FURTHER.search(task))


def code_names(task: str, files: list[str]) -> list[str]:
    """The names the task writes as code (the last part of ``os.environ``, ``getenv()``,
    `limit`, ``late_fee``), leaving out the files it names."""
    suffixes = {rel.rsplit(".", 1)[-1] for rel in files} | FILE_SUFFIXES
    names: list[str] = []
    for match in _CODE_WORDS.finditer(task):
        word = next(group for group in match.groups() if group)
        if "." in word and word.rsplit(".", 1)[-1] in suffixes:
            continue  # a file (settings.json), there or to be made
        name = word.rsplit(".", 1)[-1]
        if len(name) >= 3 and name.lower() not in STOP_WORDS and name not in names:
            names.append(name)
    return names


def _naming_lines(workspace: Path, files: list[str], names: list[str]) -> str:
    """Every line of the workspace that names one of ``names``, as ``path:line: text``;
    nothing when there are none or too many to list."""
    if not names:
        return ""
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in names) + r")\b")
    found = []
    for rel in files[:SEARCHED_FILES_MAX]:
        for number, line in enumerate(text_lines(workspace / rel) or [], start=1):
            if pattern.search(line):
                found.append(f"{rel}:{number}: {line.strip()[:160]}")
                if len(found) > NAMED_LINES_MAX:
                    return ""
    if not found:
        return ""
    return (f"Every line of the repository that names {' or '.join(names)}:\n"
            + "\n".join(found))


def trace_excerpts(workspace: Path, output: str, named: Sequence[str] = (),
                   budget_chars: int = 3000) -> str:
    """The lines of the workspace's files that a command's output points to (a
    traceback, ``path:line`` in a test report), and the start of the files those import
    (a failing test's report names the test, not the code it tests), the code under test
    first. A parser's "line 6 column 78", which names no file, is shown in the one data
    file the task names (``named``), marked at the column."""
    marked = parse_error_place(workspace, output, named)
    places: dict[str, list[int]] = {}
    for rel, line in trace_places(workspace, output):
        places.setdefault(rel, []).append(line)
    for rel in imported_files(workspace, list(places)):
        places.setdefault(rel, [])
    ordered = sorted(places, key=lambda rel: ("test" in rel.lower(), rel))
    blocks = [marked] if marked else []
    room = budget_chars - len(marked)
    for rel in ordered:
        lines = text_lines(workspace / rel)
        if lines is None:
            continue
        block = excerpt(rel, lines, places[rel], whole=False)
        if len(block) <= room:
            blocks.append(block)
            room -= len(block)
    return "\n\n".join(blocks)


def trace_places(workspace: Path, output: str) -> list[tuple[str, int]]:
    """The places in the workspace's files a command's output points to, as (path, line)."""
    places = []
    for pattern in _TRACE_PLACES:
        for path, line in pattern.findall(output):
            rel = _inside(workspace, path)
            if rel is not None:
                places.append((rel, int(line)))
    return places


def parse_error_place(workspace: Path, output: str, named: Sequence[str]) -> str:
    data_files = [rel for rel in named if rel.endswith(DATA_SUFFIXES)]
    places = _PARSE_PLACE.findall(output)
    if len(data_files) != 1 or not places:
        return ""
    line, column = (int(number) for number in places[-1])
    lines = text_lines(workspace / data_files[0])
    if not lines or not 0 < line <= len(lines):
        return ""
    return (f"--- {data_files[0]} line {line}, column {column}, where the error is\n"
            f"{lines[line - 1]}\n{' ' * (column - 1)}^")


def imported_files(workspace: Path, files: list[str], depth: int = 2) -> list[str]:
    """The workspace's files that ``files`` import, and those import, ``depth`` deep."""
    found: list[str] = []
    for _ in range(depth):
        files = [rel for source in files for rel in imports_of(workspace, source)
                 if rel not in found and rel not in files]
        found.extend(dict.fromkeys(files))
    return found


def imports_of(workspace: Path, rel: str) -> list[str]:
    """The files of the workspace that a Python or JavaScript file imports."""
    lines = text_lines(workspace / rel) or []
    text = "\n".join(lines)
    folder = Path(rel).parent
    candidates: list[Path] = []
    if rel.endswith(".py"):
        for dots, module, imported in _PY_IMPORT.findall(text):
            module = module or imported
            bases = [folder] if dots else [Path(), Path("src")]
            for _ in range(max(0, len(dots) - 1)):
                bases = [base.parent for base in bases]
            for base in bases:
                path = base.joinpath(*module.split(".")) if module else base
                candidates += [Path(f"{path}.py"), path / "__init__.py"]
    elif rel.endswith(_JS_SUFFIXES):
        for module in _JS_IMPORT.findall(text):
            path = folder / module
            candidates += [path, *(Path(f"{path}{suffix}") for suffix in _JS_SUFFIXES),
                           path / "index.js"]
    out = []
    for candidate in candidates:
        target = _inside(workspace, str(candidate))
        if target is not None and target != rel and target not in out:
            out.append(target)
    return out


def excerpt(rel: str, lines: list[str], wanted: list[int], whole: bool) -> str:
    """``rel``'s lines around the 1-based ``wanted`` ones (all of a short file), as the
    file has them: a small model copies what it sees into an edit's search text."""
    if whole or len(lines) <= WHOLE_FILE_MAX_LINES or not wanted:
        end = min(len(lines), NAMED_WHOLE_MAX_LINES if whole else WHOLE_FILE_MAX_LINES)
        spans = [(1, end)]
    else:
        spans = _spans(wanted, len(lines))
    body = []
    for start, end in spans:
        body.append(f"--- {rel} (lines {start}-{end} of {len(lines)})")
        body.extend(lines[start - 1:end])
    return "\n".join(body)


def _spans(wanted: list[int], total: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for line in sorted(set(wanted)):
        start, end = max(1, line - LINES_AROUND), min(total, line + LINES_AROUND)
        if spans and start <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def listing(files: list[str]) -> str:
    if len(files) <= LISTED_FILES_MAX:
        return f"All the files of the repository ({len(files)}): {', '.join(files)}"
    top = sorted({rel.split("/", 1)[0] + ("/" if "/" in rel else "") for rel in files})
    return (f"The repository has {len(files)} files; at the top level: "
            f"{', '.join(top[:LISTED_FILES_MAX])}")


def _named(rel: str, task: str) -> bool:
    """The task names the file by its path or, when the name is distinctive, by name."""
    name = rel.rsplit("/", 1)[-1]
    return rel in task or ("." in name and re.search(rf"(?<![\w/.]){re.escape(name)}\b", task)
                           is not None)


def _search(workspace: Path, files: list[str], terms: list[str]) -> dict[str, tuple[set[str], list[int]]]:
    """file -> (the terms found in it, the lines they are on)."""
    if not terms:
        return {}
    pattern = re.compile("|".join(re.escape(term) for term in terms), re.IGNORECASE)
    hits: dict[str, tuple[set[str], list[int]]] = {}
    for rel in files[:SEARCHED_FILES_MAX]:
        scored = []
        for number, line in enumerate(text_lines(workspace / rel) or [], start=1):
            found = {match.lower() for match in pattern.findall(line)}
            if found:
                # A name (late_fee, parseConfig) says more than a word (long, fails).
                scored.append((-sum(3 if _is_name(term) else 1 for term in found), number))
                hits.setdefault(rel, (set(), []))[0].update(found)
        if scored:
            hits[rel][1].extend(number for _, number in sorted(scored)[:MATCHED_LINES_MAX])
    return hits


def _is_name(term: str) -> bool:
    return "_" in term.strip("_") or any(char.isdigit() for char in term)


def text_lines(path: Path) -> list[str] | None:
    """A text file's lines; None for a missing, large or binary file."""
    try:
        if path.stat().st_size > SEARCHED_FILE_MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", "replace").splitlines()


def _inside(workspace: Path, path: str) -> str | None:
    """``path`` relative to the workspace when it is a file in it; None otherwise."""
    candidate = Path(path)
    full = candidate if candidate.is_absolute() else workspace / candidate
    try:
        rel = full.resolve().relative_to(workspace.resolve())
    except (ValueError, OSError):
        return None
    return rel.as_posix() if full.is_file() else None


CLEARED = "[its output was cleared to make room]"
EARLIER_TURNS = 3


def earlier_turns(messages: list[dict]) -> list[str]:
    """The turns before this one, in brief: a small model needs what was said, not every
    call."""
    pairs, user = [], None
    for message in messages:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, str) and content:
            user = content
        elif message["role"] == "assistant" and content and not message.get("tool_calls"):
            pairs.append(f"User: {clip(user or '', 300)}\nYou: {clip(content, 300)}")
    if not pairs:
        return []
    return ["Earlier in this conversation:\n" + "\n".join(pairs[-EARLIER_TURNS:])]


def fit_log(entries: list[str], room: int, cleared: int = 0) -> tuple[list[str], int]:
    """The steps' log within ``room`` characters, and how many of its entries are cleared:
    the ``cleared`` oldest as before, and when the log is still too long, more, oldest
    first, each to its first line, until it takes half the room; the last stays whole.
    What changes in a request is re-read by the model (llama.cpp keeps the prompt only up
    to the first change: on two cores 5,000 tokens re-read took 125 s), so the start of
    the log stays as it was until the room is full again, and then changes once."""
    fitted = [_cleared(entry) for entry in entries[:cleared]] + entries[cleared:]
    total = sum(len(entry) + 2 for entry in fitted)
    if total <= room:
        return fitted, cleared
    while cleared < len(fitted) - 1 and total > room // 2:
        short = _cleared(fitted[cleared])
        total -= len(fitted[cleared]) - len(short)
        fitted[cleared] = short
        cleared += 1
    return fitted, cleared


def _cleared(entry: str) -> str:
    heading = entry.split("\n", 1)[0]
    return entry if heading == entry else f"{heading}\n{CLEARED}"


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def clip_result(text: str, head: int = 1200, tail: int = 1800) -> str:
    """A result as the model reads it in the step log: its start and its end."""
    if len(text) <= head + tail:
        return text
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters left out ...]\n{text[-tail:]}"
