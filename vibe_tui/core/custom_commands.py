"""Custom commands: Markdown files the user writes that become slash commands.

``/name args`` sends the file's text as the message, with ``$ARGUMENTS`` replaced by
everything after the name and ``$1`` ... ``$9`` by its words (quotes group words, as in
a shell). The files live in ``~/.config/vibe-tui/commands/`` (the user's) and in a
project's ``.vibe/commands/`` or ``.claude/commands/`` (Claude Code's files read as they
are); a file in a subfolder is ``/folder:name``. A project's commands count only in a
folder the user trusted: a cloned repository must not put words in the user's mouth.
A project's command wins over the user's of the same name; the built-in commands win
over both.

Optional YAML front matter: ``description`` and ``argument-hint`` (shown in the
completion and /help), ``allowed-tools`` (permission rules that run without asking for
the command's turn only; deny rules still win) and ``model`` (the model of that turn).
Otherwise a command is only a message: the same policy and approvals as anything typed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from vibe_tui.config.paths import config_dir
from vibe_tui.config.trusted_folders import COMMAND_DIRS, is_trusted
from vibe_tui.core.scope import TurnOptions

PROJECT_DIRS = COMMAND_DIRS
MAX_FILE_BYTES = 64 * 1024
MAX_DEPTH = 3  # folders below a commands folder
_NAME_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True)
class CustomCommand:
    name: str  # with its slash
    body: str
    source: str  # "project" or "user"
    path: Path
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None

    @property
    def options(self) -> TurnOptions:
        return TurnOptions(allow=self.allowed_tools, model=self.model)

    @property
    def granted(self) -> str | None:
        """What the command's turn may do beyond the session's settings, for the user."""
        parts = [f"model {self.model}"] if self.model else []
        if self.allowed_tools:
            parts.append(f"allowed without asking: {', '.join(self.allowed_tools)}")
        return f"{self.name}: {'; '.join(parts)} (this turn only)" if parts else None

    @property
    def usage(self) -> str:
        return f"{self.name} {self.argument_hint}".rstrip()

    @property
    def help(self) -> str:
        return f"{self.description or 'custom command'} ({self.source})"

    def prompt(self, arguments: str) -> str:
        """The message the command sends. With no ``$ARGUMENTS`` in the text, what was
        typed after the name follows it, so nothing typed is lost."""
        arguments = arguments.strip()
        words = _words(arguments)
        text = _POSITIONAL.sub(
            lambda match: words[int(match.group(1)) - 1] if int(match.group(1)) <= len(words)
            else "", self.body)
        if "$ARGUMENTS" in text:
            return text.replace("$ARGUMENTS", arguments).strip()
        if arguments and not _POSITIONAL.search(self.body):
            return f"{text.strip()}\n\nArguments: {arguments}"
        return text.strip()


@dataclass
class CommandFiles:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # for the views: what was skipped
    untrusted: bool = False  # the project has commands that do not count yet


def load_commands(workspace: Path, reserved: set[str] | frozenset[str] = frozenset()
                  ) -> CommandFiles:
    """The commands there are now (files are read at each use, so an edit counts at
    once). ``reserved``: the built-in names, which a file cannot take."""
    found = CommandFiles()
    _load_folder(config_dir() / "commands", "user", found, reserved)
    project = [workspace / folder for folder in PROJECT_DIRS if (workspace / folder).is_dir()]
    if project and not is_trusted(workspace):
        found.untrusted = True
        return found
    # .claude first, so .vibe's file of the same name wins.
    for folder in reversed(project):
        _load_folder(folder, "project", found, reserved)
    return found


def _load_folder(root: Path, source: str, found: CommandFiles, reserved) -> None:
    if not root.is_dir():
        return
    real_root = root.resolve()
    for path in sorted(root.rglob("*.md")):
        relative = path.relative_to(root)
        if len(relative.parts) > MAX_DEPTH + 1:
            continue
        name = _command_name(relative)
        if name is None:
            found.problems.append(f"{path}: not a command name (letters, digits, . _ -)")
            continue
        if name in reserved:
            found.problems.append(f"{path}: {name} is a built-in command")
            continue
        try:
            # A link out of the commands folder could put any file the user can read
            # (a key, a token) in a message to the provider.
            if not path.resolve().is_relative_to(real_root):
                found.problems.append(f"{path}: links out of {root}")
                continue
            command = _read_command(path, name, source)
        except (OSError, ValueError) as exc:
            found.problems.append(f"{path}: {exc}")
            continue
        found.commands[name] = command


def _command_name(relative: Path) -> str | None:
    parts = [*relative.parts[:-1], relative.name[:-len(".md")]]
    if not all(_NAME_PART.match(part) for part in parts):
        return None
    return "/" + ":".join(parts)


def _read_command(path: Path, name: str, source: str) -> CustomCommand:
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES // 1024} KiB")
    if b"\0" in data:
        raise ValueError("a binary file")
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    meta, body = split_front_matter(text)
    model = _one_line(meta.get("model")) or None
    return CustomCommand(name=name, body=body, source=source, path=path,
                         description=_one_line(meta.get("description")),
                         argument_hint=_one_line(meta.get("argument-hint")),
                         allowed_tools=allowed_tools(meta.get("allowed-tools")),
                         model=model)


def allowed_tools(value: object) -> tuple[str, ...]:
    """``allowed-tools`` as rules: a YAML list, or Claude Code's comma-separated line
    (``Bash(git add:*), Bash(git status:*)``; commas inside parentheses stay). A rule
    that does not parse makes the whole command a problem, never a quieter grant."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else _top_level_split(str(value))
    rules = tuple(" ".join(str(item).split()) for item in items if str(item).strip())
    from vibe_tui.policy import parse_rule  # the shell parser: only for files that ask

    for rule in rules:
        try:
            parse_rule(rule)
        except ValueError as exc:
            raise ValueError(f"allowed-tools rule {rule!r} is not valid: {exc}") from None
    return rules


def _top_level_split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def split_front_matter(text: str) -> tuple[dict, str]:
    """YAML front matter (between ``---`` lines at the top) and the text after it."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1:
        return {}, text
    import yaml

    try:
        meta = yaml.safe_load(text[4:end])
    except yaml.YAMLError as exc:
        raise ValueError(f"its front matter is not YAML ({exc.__class__.__name__})") from exc
    after = text.find("\n", end + 4)
    body = "" if after == -1 else text[after + 1:]
    return (meta if isinstance(meta, dict) else {}), body


def _one_line(value: object) -> str:
    return " ".join(str(value).split())[:200] if value is not None else ""


def _words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:  # an unclosed quote: the words as typed
        return arguments.split()


@dataclass(frozen=True)
class Expanded:
    """What a ``-p`` task line stands for: the message, the turn's options, and a
    sentence for the user (what the command grants, or why it did not count)."""

    text: str
    options: TurnOptions | None = None
    note: str | None = None


def expand_command(workspace: Path, text: str) -> Expanded:
    """For ``-p``: the message a ``/name args`` line stands for (the text itself when it
    names no custom command)."""
    name, _, arguments = text.strip().partition(" ")
    if not name.startswith("/"):
        return Expanded(text)
    found = load_commands(workspace)
    command = found.commands.get(name)
    if command is not None:
        return Expanded(command.prompt(arguments), command.options, command.granted)
    if found.untrusted:
        return Expanded(text, note=(f"{name}: this project's own commands count once you "
                                    "trust the folder (vibe-tui trust)"))
    return Expanded(text)
