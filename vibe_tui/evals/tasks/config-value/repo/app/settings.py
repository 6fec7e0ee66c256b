"""Settings: config/default.toml, overridden by config/$APP_ENV.toml."""

import os
import tomllib
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"


def _merge(base: dict, override: dict) -> dict:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load(env: str | None = None) -> dict:
    env = env or os.environ.get("APP_ENV", "development")
    settings = tomllib.loads((CONFIG_DIR / "default.toml").read_text())
    override = CONFIG_DIR / f"{env}.toml"
    if override.exists():
        settings = _merge(settings, tomllib.loads(override.read_text()))
    return settings
