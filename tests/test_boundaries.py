"""The core knows nothing of its views: importing it must not pull in any UI library."""

from __future__ import annotations

import os
import subprocess
import sys

from vibe_tui.cli import SCREEN_FPS

VIEW_MODULES = ("textual", "rich", "starlette", "uvicorn")


def test_core_tools_and_policy_import_no_view_library():
    code = (
        "import sys\n"
        "import vibe_tui.core.session, vibe_tui.core.loop, vibe_tui.cli.headless\n"
        "import vibe_tui.tools, vibe_tui.policy\n"
        "vibe_tui.tools.default_tools()\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {VIEW_MODULES!r}]\n"
        "print(','.join(sorted(bad)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_litellm_is_not_imported_until_a_model_is_called():
    code = (
        "import sys\n"
        "import vibe_tui.core.session, vibe_tui.cli\n"
        "print('litellm' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"


def test_the_screen_rate_is_set_before_textual_reads_it():
    # Textual reads TEXTUAL_FPS once, when imported: anything that imported it before the
    # TUI starts (the CLI, opening a session) would leave the screen at 60 frames a second.
    code = (
        "import vibe_tui.cli, vibe_tui.core.session, vibe_tui.core.store\n"
        "import vibe_tui.config.trusted_folders\n"
        "vibe_tui.cli.set_screen_rate()\n"
        "import textual.screen\n"
        "print(round(1 / textual.screen.UPDATE_PERIOD))\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "TEXTUAL_FPS"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env=env)
    assert int(result.stdout) == SCREEN_FPS > 60
