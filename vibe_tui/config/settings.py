"""User settings: the model, its provider, the mode, permission rules and limits.

Read from ``config.toml`` in the user's config folder; command-line flags override it.
A project's ``.vibe/config.toml`` adds permission rules and hooks (and nothing else) only
once the user has trusted the folder (``trusted_folders``).
"""

from __future__ import annotations

import tomllib
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from vibe_tui.config.hook_settings import HookSpec, parse_hooks
from vibe_tui.config.paths import CONFIG_FILE, config_dir
from vibe_tui.policy.types import MODES, Mode


class _Clear:
    def __repr__(self) -> str:
        return "CLEAR"


CLEAR: Any = _Clear()
"""``config.with_overrides(api_base=CLEAR)``: back to the default, where None means "keep"."""


@dataclass
class Config:
    model: str | None = None
    """LiteLLM model string, e.g. ``openai/gpt-4.1`` or ``anthropic/claude-sonnet-4-5``."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server, or a provider's non-default endpoint."""
    api_key: str | None = field(default=None, repr=False)
    """A key given directly; usually left empty so the provider's own env variable is used.
    Kept out of ``repr`` so a logged Config never shows it."""
    provider: str | None = None
    """The settings screen's provider id (``openai``, ``ollama``, ``local`` ...): which entry
    it shows first. ``local``: the embedded model (``local_model_name``) is used."""
    local_model_name: str | None = None
    """The embedded model to run when ``provider = "local"``, e.g. ``qwen2.5-coder-0.5b``."""
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
    max_output_tokens: int | None = None
    """Cap on each answer, in tokens; None leaves the provider's. The embedded model gets
    one: a small model can repeat a line until its whole window is full (minutes)."""
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
    sandbox_pass_env: list[str] = field(default_factory=list)
    """``[sandbox] pass_env``: variables commands get although their names say they hold a
    secret (``GITHUB_TOKEN`` for ``gh``); every other key and token stays with vibe-tui."""
    sandbox_hide: list[str] = field(default_factory=list)
    """``[sandbox] hide``: more files and folders commands see as empty, beside ``~/.ssh``,
    cloud credentials and the others vibe-tui hides anyway (``~/work/secrets``)."""
    repo_map_auto: bool | None = None
    """``[repo_map] auto``: the first request of each session carries a repo map focused
    on the task. Unset: on for the embedded model (which otherwise guesses paths like
    ``src/config.py`` before looking), off for the others."""
    repo_map_tokens: int = 1024
    """``[repo_map] max_tokens``: the size of that map."""
    subagents: bool | None = None
    """``subagents``: the task tool, which sends read-only helpers to look around. Unset: on,
    except for the embedded model in the free loop, which hands its whole task to helpers
    that loop instead of doing it (evals/README.md: "Defaults the evals chose"); in
    small-model steps the harness sends one when the task asks for it."""
    small_model: bool | None = None
    """``small_model``: the model is small (1-8B): the harness gathers the context itself and
    asks for one constrained step at a time instead of the free tool loop. Unset: on for the
    embedded model, off for the others."""
    hooks: list[HookSpec] = field(default_factory=list)
    """``[[hooks.PreToolUse]]`` and the other events' tables: shell commands run at named
    points of a turn (``core/hooks.py``); the user's, then a trusted project's."""
    local_model: bool = False
    """Set by the app (and by ``vibe-tui eval`` in its runs' throwaway config): the model
    is the embedded one, whose tool calls are also read from its text when it writes them
    there."""

    @property
    def subagents_on(self) -> bool:
        """Whether the main agent has the task tool (``subagents``, resolved)."""
        if self.subagents is not None:
            return self.subagents
        return not self.local_model or self.step_mode

    @property
    def step_mode(self) -> bool:
        """Whether turns run in small-model steps (``small_model``, resolved)."""
        return self.local_model if self.small_model is None else self.small_model

    @property
    def repo_map_first(self) -> bool:
        """Whether the first request carries a repo map (``repo_map_auto``, resolved)."""
        return self.local_model if self.repo_map_auto is None else self.repo_map_auto

    def check_rules(self) -> None:
        """A rule that does not parse is an error, never silently skipped: an ignored deny
        rule would allow what the user meant to forbid."""
        # Lazy: the rule parser pulls in the shell analysis, which reading settings
        # does not need (tools and the data folders import this module).
        from vibe_tui.policy import parse_rule

        for kind in ("allow", "deny", "ask"):
            for rule in getattr(self, kind):
                try:
                    parse_rule(rule)
                except ValueError as exc:
                    raise ValueError(f"{kind} rule {rule!r} is not valid: {exc}") from None

    def with_overrides(self, **values: Any) -> Config:
        """A copy with ``values`` set; None leaves a field as it is (an absent flag), the
        ``CLEAR`` marker sets it back to its default (no base URL, no key)."""
        defaults = {f.name: f for f in fields(self)}
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        for key, value in values.items():
            if key not in defaults or value is None:
                continue
            if value is CLEAR:
                default = defaults[key]
                value = default.default_factory() if default.default_factory is not MISSING \
                    else default.default
            merged[key] = value
        return Config(**merged)


def load_config(path: Path | None = None) -> Config:
    """The user's config file, or defaults when there is none. Unknown keys are ignored so
    an older version can read a newer file."""
    path = path or config_dir() / CONFIG_FILE
    if not path.is_file():
        return Config()
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    permissions = raw.pop("permissions", {}) or {}
    for key in ("allow", "deny", "ask"):
        if key in permissions:
            raw[key] = list(permissions[key])
    raw.update(_sandbox_settings(raw.pop("sandbox", None), path))
    raw["hooks"] = parse_hooks(raw.pop("hooks", None), path, "user")
    repo_map = raw.pop("repo_map", None) or {}
    if not isinstance(repo_map, dict):
        raise ValueError(f"{path}: [repo_map] must be a table (auto, max_tokens)")
    if "auto" in repo_map:
        raw["repo_map_auto"] = bool(repo_map["auto"])
    if "max_tokens" in repo_map:
        raw["repo_map_tokens"] = int(repo_map["max_tokens"])
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
_SANDBOX_KEYS = {"mode": "sandbox", "network": "sandbox_network", "allow_host": "allow_host",
                 "pass_env": "sandbox_pass_env", "hide": "sandbox_hide"}


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
    for key in ("sandbox_pass_env", "sandbox_hide"):
        value = settings.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{path}: [sandbox] {key.removeprefix('sandbox_')} must be a "
                             "list of strings")
    return settings
