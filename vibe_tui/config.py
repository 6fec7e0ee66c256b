"""User settings: the model, its provider, the mode, permission rules and limits.

Read from ``config.toml`` in the user's config folder (``$VIBE_TUI_HOME`` replaces the
per-user folders, for tests and portable installs); command-line flags override it.
A project's own folder never grants permissions: a cloned repository must not be able to
allow itself anything.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from vibe_tui.policy.types import MODES, Mode


def home_override() -> Path | None:
    value = os.environ.get("VIBE_TUI_HOME")
    return Path(value) if value else None


def config_dir() -> Path:
    override = home_override()
    if override:
        return override / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir("vibe-tui"))


def data_dir() -> Path:
    override = home_override()
    if override:
        return override / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir("vibe-tui"))


@dataclass
class Config:
    model: str | None = None
    """LiteLLM model string, e.g. ``openai/gpt-4.1`` or ``anthropic/claude-sonnet-4-5``."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server, or a provider's non-default endpoint."""
    api_key: str | None = None
    """A key given directly; usually left empty so the provider's own env variable is used."""
    mode: Mode = "default"
    """default: edits and commands ask; accept-edits; plan: read only; yolo: all but denied."""
    allow: list[str] = field(default_factory=list)
    """Permission rules in Claude Code syntax that run without asking, e.g. ``Bash(npm test:*)``."""
    deny: list[str] = field(default_factory=list)
    """Rules that are always refused, in every mode."""
    ask: list[str] = field(default_factory=list)
    """Rules that always ask, even when another rule would allow them."""
    max_steps: int = 30
    """Model calls per turn before the turn ends with state ``limit``."""
    model_timeout_s: float = 120.0
    """Seconds to wait for the model before a call counts as timed out."""
    model_retries: int = 3
    """Tries for a model call that fails with 429, 5xx or a timeout."""
    model_retry_base_s: float = 1.0
    """First backoff delay when the provider gives no Retry-After; doubles each try."""
    bash_timeout_s: float = 30.0
    """Default timeout of a shell command."""
    bash_timeout_max_s: float = 120.0
    """The longest timeout the model may ask for."""
    temperature: float | None = None
    """Sampling temperature; None leaves the provider's default."""

    def check_rules(self) -> None:
        """A rule that does not parse is an error, never silently skipped: an ignored deny
        rule would allow what the user meant to forbid."""
        from vibe_tui.policy import parse_rule

        for kind in ("allow", "deny", "ask"):
            for rule in getattr(self, kind):
                try:
                    parse_rule(rule)
                except ValueError as exc:
                    raise ValueError(f"{kind} rule {rule!r} is not valid: {exc}") from None

    def with_overrides(self, **values: Any) -> Config:
        known = {f.name for f in fields(self)}
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        for key, value in values.items():
            if key in known and value is not None:
                merged[key] = value
        return Config(**merged)


def load_config(path: Path | None = None) -> Config:
    """The user's config file, or defaults when there is none. Unknown keys are ignored so
    an older version can read a newer file."""
    path = path or config_dir() / "config.toml"
    if not path.is_file():
        return Config()
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    permissions = raw.pop("permissions", {}) or {}
    for key in ("allow", "deny", "ask"):
        if key in permissions:
            raw[key] = list(permissions[key])
    config = Config().with_overrides(**raw)
    if config.mode not in MODES:
        raise ValueError(f"{path}: mode must be one of {', '.join(MODES)}, not {config.mode!r}")
    try:
        config.check_rules()
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return config
