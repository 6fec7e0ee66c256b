"""The wheel, installed: ``uv tool install .`` must give a ``vibe-tui`` whose commands work
outside the checkout. Built and installed offline (dependencies from the uv cache that
``uv sync`` filled, pinned by the lock file), then run from a temporary folder: no file of
the source tree is on the path, so a command that reaches into it fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = shutil.which("uv")

pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on PATH: it builds the wheel")


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh virtual environment holding the built wheel."""
    base = tmp_path_factory.mktemp("wheel")
    built = run([UV, "build", "--wheel", "--offline", "--out-dir", str(base / "dist")], cwd=ROOT)
    if built.returncode != 0:
        pytest.skip(f"uv could not build the wheel offline: {built.stderr.strip()[-500:]}")
    wheel = next((base / "dist").glob("vibe_tui-*.whl"))
    # The lock file's exact files, so the install resolves nothing and needs no index.
    lock = base / "lock" / "pylock.toml"
    lock.parent.mkdir()
    steps = [
        [UV, "export", "--frozen", "--no-dev", "--no-emit-project", "--format", "pylock.toml",
         "--quiet", "-o", str(lock)],
        [UV, "venv", "--quiet", "--python", sys.executable, str(base / "venv")],
        [UV, "pip", "install", "--quiet", "--offline", "--python", str(base / "venv"),
         "-r", str(lock)],
        [UV, "pip", "install", "--quiet", "--offline", "--no-deps", "--python",
         str(base / "venv"), str(wheel)],
    ]
    for argv in steps:
        done = run(argv, cwd=ROOT if argv[1] == "export" else base)
        if done.returncode != 0:
            pytest.skip(f"cannot install offline ({' '.join(argv[1:3])}): "
                        f"{done.stderr.strip()[-500:]}")
    return base / "venv" / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working folder outside the checkout, and an environment with a home of its own."""
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["VIBE_TUI_HOME"] = str(tmp_path / "home")
    return work, env


def test_the_installed_package_is_not_the_checkout(installed, outside):
    work, env = outside
    found = run([str(installed / "python"), "-c", "import vibe_tui; print(vibe_tui.__file__)"],
                cwd=work, env=env)
    assert found.returncode == 0, found.stderr
    assert not Path(found.stdout.strip()).is_relative_to(ROOT)


def test_eval_scripted_runs_a_shipped_task(installed, outside):
    work, env = outside
    result = run([str(installed / "vibe-tui"), "eval", "--scripted", "--tasks", "config-value",
                  "--report", str(work / "report.json")], cwd=work, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((work / "report.json").read_text(encoding="utf-8"))
    assert "config-value" in json.dumps(report)


def test_policy_check_answers(installed, outside):
    work, env = outside
    calls = "\n".join(json.dumps(call) for call in (
        {"tool": "bash", "args": {"command": "ls"}},
        {"tool": "write_file", "args": {"path": "a.txt", "content": "x"}},
    )) + "\n"
    result = run([str(installed / "vibe-tui"), "policy", "check"], cwd=work, env=env,
                 input=calls)
    assert result.returncode == 0, result.stderr
    decisions = [json.loads(line)["decision"] for line in result.stdout.splitlines()]
    assert decisions == ["allow", "ask"]


def test_sessions_lists_none_in_a_new_workspace(installed, outside):
    work, env = outside
    result = run([str(installed / "vibe-tui"), "sessions", "-C", str(work)], cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert "no saved sessions" in result.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_answers_over_http_on_loopback(installed, outside):
    work, env = outside
    # A model is named so no local model boots; serving the page never calls it.
    server = subprocess.Popen(
        [str(installed / "vibe-tui"), "serve", "--port", str(free_port()), "--model",
         "openai/fake-model", "--api-base", "http://127.0.0.1:9/v1", "-C", str(work)],
        cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("vibe-tui web view: http://127.0.0.1:"), \
            line + server.stderr.read() if server.poll() is not None else line
        url = line.split(": ", 1)[1].strip()
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only
        with direct.open(url, timeout=30) as response:
            assert response.status == 200
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
