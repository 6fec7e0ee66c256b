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
import re
import tomllib
from dataclasses import MISSING, dataclass, field, fields
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
    except for the embedded model, which in the evals handed its whole task to helpers
    (5 runs in 8) that looped instead of running the tests it was asked to run."""
    local_model: bool = False
    """Set by the app (and by ``vibe-tui eval`` in its runs' throwaway config): the model
    is the embedded one, whose tool calls are also read from its text when it writes them
    there."""

    @property
    def subagents_on(self) -> bool:
        """Whether the main agent has the task tool (``subagents``, resolved)."""
        return not self.local_model if self.subagents is None else self.subagents

    @property
    def repo_map_first(self) -> bool:
        """Whether the first request carries a repo map (``repo_map_auto``, resolved)."""
        return self.local_model if self.repo_map_auto is None else self.repo_map_auto

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


# -- project config and trusted folders ------------------------------------------------

PROJECT_CONFIG = Path(".vibe") / "config.toml"
TRUST_FILE = "trusted_folders.json"
RULE_KINDS = ("allow", "deny", "ask")


MCP_JSON = ".mcp.json"  # MCP servers in the format Claude Code reads


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
    # .mcp.json starts programs: a pull that changes it must be trusted again too.
    return (entry.get("config_sha256") == _digest(project_config_path(workspace))
            and entry.get("mcp_json_sha256") == _digest(workspace / MCP_JSON))


def trust(workspace: Path) -> None:
    """Remember that the user trusts this folder's project config as it is now."""
    folders = _trusted_folders()
    folders[_folder_key(workspace)] = {"config_sha256": _digest(project_config_path(workspace)),
                                       "mcp_json_sha256": _digest(workspace / MCP_JSON)}
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


# -- the model choice, saved by the settings screen -----------------------------------

CONFIG_FILE = "config.toml"
CREDENTIALS_FILE = "credentials.toml"


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


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
    _write_atomically(path, text, mode=None)
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


def _write_atomically(path: Path, text: str, *, mode: int | None) -> None:
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


# -- keys typed in the settings screen ------------------------------------------------


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS_FILE


def stored_keys(path: Path | None = None) -> dict[str, str]:
    """Keys by provider id, from the 0600 credentials file; {} when there is none."""
    path = path or credentials_path()
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path} is not valid TOML ({exc})") from None
    keys = raw.get("keys", {})
    return {str(k): v for k, v in keys.items() if isinstance(v, str) and v} \
        if isinstance(keys, dict) else {}


def store_key(provider: str, key: str, path: Path | None = None) -> Path:
    """Keep ``key`` for ``provider`` in the credentials file, readable by the user only."""
    path = path or credentials_path()
    keys = {**stored_keys(path), provider: key.strip()}
    body = "\n".join(f"{toml_string(name)} = {toml_string(value)}"
                     for name, value in sorted(keys.items()))
    text = ("# API keys typed in vibe-tui's settings screen. Keep this file private.\n"
            f"[keys]\n{body}\n")
    _write_atomically(path, text, mode=0o600)
    return path


# Variables filled from the credentials file in this process: commands never get them.
loaded_key_names: set[str] = set()


def use_stored_keys(config: Config, key_envs: dict[str, tuple[str, ...]],
                    environ: dict[str, str] | None = None) -> Config:
    """At start: each stored key goes into its provider's environment variable when that
    is unset (a key set in the environment wins), and a key for a provider that reads
    none (an OpenAI-compatible server) into ``api_key`` when that provider is the
    configured one. ``key_envs`` maps provider ids to their variables."""
    environ = os.environ if environ is None else environ
    try:
        keys = stored_keys()
    except ValueError:
        return config  # a damaged file must not stop the app; the screen reports it
    for provider, key in keys.items():
        names = key_envs.get(provider, ())
        if names and not any(environ.get(name) for name in names):
            environ[names[0]] = key
            loaded_key_names.add(names[0])
        elif not names and provider == config.provider and config.api_key is None:
            config = config.with_overrides(api_key=key)
    return config
