"""Shared fixtures. The model in tests is a real HTTP server (see vibe_tui.testing.fake_llm)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# LiteLLM reads this when first imported (possibly at collection, before any fixture runs):
# use the bundled model cost map instead of fetching it from the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from vibe_tui.testing.fake_llm import FakeLLM  # noqa: E402
from vibe_tui.tools import sandbox  # noqa: E402
from pytest_textual_snapshot import SVGImageExtension  # noqa: E402
from syrupy.assertion import SnapshotAssertion  # noqa: E402
from syrupy.location import PyTestLocation  # noqa: E402

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


# ---- snapshots: kept in snapshots/ at the repository root, not beside the tests --------

SNAPSHOT_DIR = Path(__file__).resolve().parent.parent / "snapshots"


class RootSVGExtension(SVGImageExtension):
    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_DIR / test_location.basename)


class RootSnapshotAssertion(SnapshotAssertion):
    """``snap_compare`` switches to ``SVGImageExtension``; switch to ours instead."""

    def use_extension(self, extension_class: Any = None) -> SnapshotAssertion:
        if extension_class is SVGImageExtension:
            extension_class = RootSVGExtension
        return super().use_extension(extension_class)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return RootSnapshotAssertion(
        update_snapshots=snapshot.update_snapshots,
        extension_class=snapshot.extension_class,
        test_location=snapshot.test_location,
        session=snapshot.session,
    )
