"""Changing ``config.toml`` in place: the settings screen saves the model choice by editing
only its own lines, so the user's other settings and comments stay as they were."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from vibe_tui.config.paths import config_path


def toml_string(value: str) -> str:
    # JSON's string escapes (quote, backslash, newline, \uXXXX) are valid in TOML too.
    return json.dumps(value, ensure_ascii=False)


def save_model_choice(*, provider: str, model: str | None, api_base: str | None,
                      context_window: int | None, local_model_name: str | None = None,
                      path: Path | None = None) -> Path:
    """Write the chosen provider, model and base URL at the top of ``config.toml`` and the
    context-window override under ``[models."<model>"]``, editing only those lines: the
    user's other settings and comments stay as they were. A file that does not parse is
    left untouched (ValueError says where)."""
    path = path or config_path()
    original = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        before = tomllib.loads(original)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path} is not valid TOML ({exc}); fix it before saving") from None
    root = {"provider": provider, "model": model, "api_base": api_base,
            "local_model_name": local_model_name}
    lines = original.splitlines()
    for key, value in root.items():
        lines = _set_root_key(lines, key, None if value is None else toml_string(value))
    if model and context_window is not None:
        lines = _set_table_key(lines, f"models.{toml_string(model)}", "context_window",
                               str(int(context_window)))
    text = "\n".join(lines).strip("\n") + "\n"
    _check_edit(path, before, text, root, model, context_window)
    write_atomically(path, text, mode=None)
    return path


def _check_edit(path: Path, before: dict[str, Any], text: str, root: dict[str, Any],
                model: str | None, context_window: int | None) -> None:
    """Never write a file we could not read back, or one whose other settings moved."""
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        after = None
    expected = {k: v for k, v in before.items() if k not in root}
    expected.update({k: v for k, v in root.items() if v is not None})
    if model and context_window is not None:
        models = expected.setdefault("models", {})
        models[model] = {**models.get(model, {}), "context_window": int(context_window)}
    if after != expected:
        raise ValueError(f"{path}: its layout is too unusual to edit in place; set "
                         f"provider, model and api_base there by hand")


_TABLE_HEADER = re.compile(r"^\s*\[\[?[^\[\]=,]+\]\]?\s*(#.*)?$")


def _key_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{re.escape(key)}\s*=")


def _is_header(line: str) -> bool:
    return bool(_TABLE_HEADER.match(line))


def _root_end(lines: list[str]) -> int:
    """Index of the first table header: root keys live above it."""
    for index, line in enumerate(lines):
        if _is_header(line):
            return index
    return len(lines)


def _set_root_key(lines: list[str], key: str, value: str | None) -> list[str]:
    end = _root_end(lines)
    pattern = _key_pattern(key)
    kept = [line for line in lines[:end] if not pattern.match(line)]
    if value is not None:
        # After the leading comment block, so a file's header comment stays on top.
        at = 0
        while at < len(kept) and kept[at].lstrip().startswith("#"):
            at += 1
        kept.insert(at, f"{key} = {value}")
    return kept + lines[end:]


def _set_table_key(lines: list[str], table: str, key: str, value: str) -> list[str]:
    header = f"[{table}]"
    starts = [i for i, line in enumerate(lines) if line.strip() == header]
    if not starts:
        return [*lines, "", header, f"{key} = {value}"]
    start = starts[0] + 1
    end = start
    while end < len(lines) and not _is_header(lines[end]):
        end += 1
    pattern = _key_pattern(key)
    body = [line for line in lines[start:end] if not pattern.match(line)]
    return [*lines[:start], f"{key} = {value}", *body, *lines[end:]]


def write_atomically(path: Path, text: str, *, mode: int | None) -> None:
    """Whole or not at all; with ``mode`` the file never exists with wider rights."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    descriptor = os.open(scratch, flags, 0o600 if mode is None else mode)
    try:
        if mode is not None:
            os.fchmod(descriptor, mode)  # the umask may have narrowed or the file existed
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise
    if mode is None and path.exists():
        os.chmod(scratch, path.stat().st_mode & 0o777)  # keep the user's own rights
    elif mode is None:
        os.chmod(scratch, 0o644 & ~_umask())
    os.replace(scratch, path)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
