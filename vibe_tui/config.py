"""User settings: the model, its provider, the mode, permission rules and limits.

Read from ``config.toml`` in the user's config folder (``$VIBE_TUI_HOME`` replaces the
per-user folders, for tests and portable installs); command-line flags override it.
A project's ``.vibe/config.toml`` adds permission rules (and nothing else) only once the
user has trusted the folder, and only as it was then: a cloned repository, or a pull that
changes the file, must not be able to allow itself anything.
"""

from __future__ import annotations

import hashlib
import json
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
    context_window: int | None = None
    """Tokens the model reads at once. None asks LiteLLM; local models report nothing, and
    then 8,192 is assumed. A ``[models."name"]`` entry wins over this for that model."""
    compaction_model: str | None = None
    """Model that writes the summary when old turns are compacted; None: the session's."""
    compact_at: float = 0.7
    """Share of the context window at which old context is freed before the next call."""
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-model settings, e.g. ``[models."ollama/qwen3"]`` then ``context_window = 32768``."""
    sandbox: str = "auto"
    """``[sandbox] mode``: "auto" runs commands in bubblewrap where it works; "off" runs them
    on the host with your rights (what ``--no-sandbox`` does)."""
    sandbox_network: bool = False
    """``[sandbox] network``: let sandboxed commands reach the network."""
    allow_host: bool = False
    """``[sandbox] allow_host``: where bubblewrap cannot start, run commands on the host
    anyway instead of refusing them (as ``VIBE_TUI_ALLOW_HOST=1`` does)."""
    local_model: bool = False
    """Set by the app, not the file: the model is the embedded one, whose tool calls are
    also read from its text when it writes them there."""

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
    raw.update(_sandbox_settings(raw.pop("sandbox", None), path))
    config = Config().with_overrides(**raw)
    if config.mode not in MODES:
        raise ValueError(f"{path}: mode must be one of {', '.join(MODES)}, not {config.mode!r}")
    if not 0.1 <= config.compact_at <= 0.95:
        raise ValueError(f"{path}: compact_at must be between 0.1 and 0.95, "
                         f"not {config.compact_at!r}")
    try:
        config.check_rules()
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return config


SANDBOX_MODES = ("auto", "off")
_SANDBOX_KEYS = {"mode": "sandbox", "network": "sandbox_network", "allow_host": "allow_host"}


def _sandbox_settings(table: Any, path: Path) -> dict[str, Any]:
    """``[sandbox]`` (mode, network, allow_host) as Config fields; ``sandbox = "off"``
    is read as the mode."""
    if table is None:
        return {}
    if isinstance(table, str):
        table = {"mode": table}
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [sandbox] must be a table")
    settings = {_SANDBOX_KEYS[k]: v for k, v in table.items() if k in _SANDBOX_KEYS}
    if settings.get("sandbox", "auto") not in SANDBOX_MODES:
        raise ValueError(f"{path}: sandbox mode must be one of {', '.join(SANDBOX_MODES)}, "
                         f"not {settings['sandbox']!r}")
    for key in ("sandbox_network", "allow_host"):
        if not isinstance(settings.get(key, False), bool):
            raise ValueError(f"{path}: [sandbox] {key.removeprefix('sandbox_')} must be "
                             "true or false")
    return settings


# -- project config and trusted folders ------------------------------------------------

PROJECT_CONFIG = Path(".vibe") / "config.toml"
TRUST_FILE = "trusted_folders.json"
RULE_KINDS = ("allow", "deny", "ask")


def project_config_path(workspace: Path) -> Path:
    return workspace / PROJECT_CONFIG


def _digest(path: Path) -> str | None:
    """The project config's fingerprint; None when there is none."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _trust_path() -> Path:
    return config_dir() / TRUST_FILE


def _trusted_folders() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_trust_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return folders if isinstance(folders, dict) else {}


def _folder_key(workspace: Path) -> str:
    return str(workspace.resolve())


def is_trusted(workspace: Path) -> bool:
    """Has the user trusted this folder with its project config as it is now? A config
    changed since (by a pull, by a command) needs trusting again."""
    entry = _trusted_folders().get(_folder_key(workspace))
    if not isinstance(entry, dict):
        return False
    return entry.get("config_sha256") == _digest(project_config_path(workspace))


def trust(workspace: Path) -> None:
    """Remember that the user trusts this folder's project config as it is now."""
    folders = _trusted_folders()
    folders[_folder_key(workspace)] = {"config_sha256": _digest(project_config_path(workspace))}
    path = _trust_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps({"version": 1, "folders": folders}, indent=2) + "\n",
                       encoding="utf-8")
    os.replace(scratch, path)  # whole or not at all: a torn list would forget every folder


def load_project_config(workspace: Path) -> tuple[dict[str, list[str]], str | None]:
    """The project's permission rules by kind ({"allow": [...], ...}), and why they were
    ignored (a sentence for the views) or None. Rules count only in a trusted folder;
    other settings in the file are never read: a project must not pick the model
    endpoint your key is sent to."""
    path = project_config_path(workspace)
    if not path.is_file():
        return {}, None
    entry = _trusted_folders().get(_folder_key(workspace))
    if not is_trusted(workspace):
        why = ("it changed since you trusted this folder" if isinstance(entry, dict)
               else "this folder is not trusted yet")
        return {}, f"ignored {PROJECT_CONFIG}: {why}; trust the folder to use its rules"
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    permissions = raw.get("permissions", {}) or {}
    rules = {kind: [str(r) for r in permissions.get(kind, raw.get(kind, []))]
             for kind in RULE_KINDS}
    try:
        Config(**rules).check_rules()
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return {kind: found for kind, found in rules.items() if found}, None


def apply_project_config(config: Config, workspace: Path) -> tuple[Config, str | None]:
    """``config`` with the trusted project's rules added, and the ignored-reason."""
    rules, ignored = load_project_config(workspace)
    merged = {kind: [*getattr(config, kind), *rules.get(kind, [])] for kind in RULE_KINDS}
    return config.with_overrides(**merged), ignored
