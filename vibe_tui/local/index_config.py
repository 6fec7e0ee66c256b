"""Where this machine's installers look for packages: the indexes, find-links folders and
CA bundle that pip and uv are set up with, read from their config files and environment.
The local model's weights are fetched from the same places."""

from __future__ import annotations

import configparser
import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PYPI_SIMPLE = "https://pypi.org/simple"

@dataclass
class PackageSources:
    """The package indexes and wheel folders this machine's pip and uv are set up with."""

    indexes: list[str] = field(default_factory=list)  # simple-API roots, primary first
    find_links: list[str] = field(default_factory=list)  # folders or pages listing wheels
    cert: str | None = None  # CA bundle pip is told to use

    def in_search_order(self) -> list[tuple[str, str]]:
        """(kind, location): local ones first (no network), then the remote indexes."""
        candidates = [("links", link) for link in self.find_links]
        candidates += [("index", index) for index in self.indexes]
        return sorted(candidates, key=lambda item: not _is_local(item[1]))


def _is_local(location: str) -> bool:
    return location.startswith("file:") or "://" not in location


def _split(value: str | None) -> list[str]:
    return value.split() if value else []


def pip_config_files(environ: dict[str, str]) -> list[Path]:
    """pip's configuration files, lowest priority first (as pip reads them)."""
    override = environ.get("PIP_CONFIG_FILE")
    if override == os.devnull:
        return []
    config_dirs = environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    files = [Path(d) / "pip" / "pip.conf" for d in reversed(config_dirs) if d]
    files.append(Path("/etc/pip.conf"))
    home = Path(environ.get("HOME", str(Path.home())))
    config_home = Path(environ.get("XDG_CONFIG_HOME", str(home / ".config")))
    files += [home / ".pip" / "pip.conf", config_home / "pip" / "pip.conf"]
    files.append(Path(sys.prefix) / "pip.conf")
    if override:
        files.append(Path(override))
    return files


def uv_config_files(environ: dict[str, str]) -> list[Path]:
    home = Path(environ.get("HOME", str(Path.home())))
    config_home = Path(environ.get("XDG_CONFIG_HOME", str(home / ".config")))
    config_dirs = environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    files = [Path(d) / "uv" / "uv.toml" for d in reversed(config_dirs) if d]
    return [*files, Path("/etc/uv/uv.toml"), config_home / "uv" / "uv.toml"]


def _read_pip_config(files: list[Path]) -> dict[str, str]:
    settings: dict[str, str] = {}
    for path in files:
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        for section in ("global", "download", "install"):
            if parser.has_section(section):
                settings.update(parser.items(section))
    return settings


def _read_uv_config(files: list[Path]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for path in files:
        try:
            with path.open("rb") as handle:
                settings.update(tomllib.load(handle))
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return settings


def package_sources(environ: dict[str, str] | None = None, *,
                    pip_files: list[Path] | None = None,
                    uv_files: list[Path] | None = None) -> PackageSources:
    """Indexes as pip/uv would use them: environment over files; pypi.org only when no
    primary index is configured (a configured mirror may be the only way out)."""
    env = dict(os.environ if environ is None else environ)
    pip = _read_pip_config(pip_config_files(env) if pip_files is None else pip_files)
    uv = _read_uv_config(uv_config_files(env) if uv_files is None else uv_files)
    uv_indexes = [i for i in uv.get("index", []) if isinstance(i, dict) and i.get("url")]
    primary = [
        env.get("UV_DEFAULT_INDEX"), env.get("UV_INDEX_URL"), env.get("PIP_INDEX_URL"),
        *[i["url"] for i in uv_indexes if i.get("default")],
        uv.get("index-url"), pip.get("index-url"),
    ]
    extra = [
        *_split(env.get("UV_INDEX")), *_split(env.get("UV_EXTRA_INDEX_URL")),
        *_split(env.get("PIP_EXTRA_INDEX_URL")),
        *[i["url"] for i in uv_indexes if not i.get("default")],
        *uv.get("extra-index-url", []), *_split(pip.get("extra-index-url")),
    ]
    links = [
        *_split(env.get("UV_FIND_LINKS")), *_split(env.get("PIP_FIND_LINKS")),
        *uv.get("find-links", []), *_split(pip.get("find-links")),
    ]
    primary = [p for p in primary if p] or [PYPI_SIMPLE]
    no_index = env.get("PIP_NO_INDEX", pip.get("no-index", "")).lower() in ("1", "true", "yes")
    return PackageSources(
        indexes=[] if no_index else _unique([*primary[:1], *extra]),
        find_links=_unique(links),
        cert=env.get("PIP_CERT") or pip.get("cert"),
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item.rstrip("/") for item in items if item))
