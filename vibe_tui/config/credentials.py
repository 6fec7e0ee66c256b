"""API keys typed in the settings screen: kept in a file only the user can read, and put
into each provider's environment variable at start."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from vibe_tui.config.paths import config_dir
from vibe_tui.config.settings import Config
from vibe_tui.config.toml_edit import toml_string, write_atomically

CREDENTIALS_FILE = "credentials.toml"


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
    write_atomically(path, text, mode=0o600)
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
