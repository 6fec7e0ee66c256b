"""The user's folders: ``$VIBE_TUI_HOME`` replaces the per-user config and data folders,
for tests and portable installs."""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_FILE = "config.toml"


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


def config_path() -> Path:
    return config_dir() / CONFIG_FILE
