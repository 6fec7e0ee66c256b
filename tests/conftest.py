"""Shared fixtures. The model in tests is a real HTTP server (see vibe_tui.testing.fake_llm)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# LiteLLM reads this when first imported (possibly at collection, before any fixture runs):
# use the bundled model cost map instead of fetching it from the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from vibe_tui.testing.fake_llm import FakeLLM  # noqa: E402
from vibe_tui.tools import sandbox  # noqa: E402

# Commands refuse to run on the host without bubblewrap unless the user opts in. Where it
# cannot start (a machine without it), the suite opts in so the engine tests still run;
# tests/test_sandbox.py covers both sides and skips its bubblewrap half, saying why.
if sandbox.probe().kind != "bubblewrap":
    os.environ.setdefault("VIBE_TUI_ALLOW_HOST", "1")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Session logs and config go to a throwaway home, never the developer's real one.
    monkeypatch.setenv("VIBE_TUI_HOME", str(tmp_path_factory.mktemp("vibe_home")))
    # Also for subprocesses started from a test (the CLI, benchmarks).
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A running fake model with an empty script; tests `push` the responses they need."""
    with FakeLLM() as llm:
        yield llm
