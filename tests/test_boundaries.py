"""The core knows nothing of its views: importing it must not pull in any UI library."""

from __future__ import annotations

import subprocess
import sys

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
