"""Side by side with other terminal agents: the same work, the same machine, the same run.

Each agent runs in a real pseudo-terminal of 120x40 (pexpect), read through a terminal
emulator (pyte), in a fresh git repository, against one fake OpenAI-compatible server on
127.0.0.1 (``vibe_tui.testing.fake_llm``, in its own process). One run of one agent:

1. launch to prompt ready (the agent's own "ready" sign on the screen);
2. a 4,000-token Markdown answer with 20 code blocks, streamed at full speed: Enter to its
   last line on the screen, and the CPU seconds of the agent's process tree meanwhile;
3. the same answer at 200 tokens/s: a letter the answer never holds is typed (then erased)
   every 0.2 s, and timed from the write to the letter on the screen; CPU seconds too;
4. peak memory: VmHWM, summed over the agent's process tree;
5. with ``--code``, before the memory: one 4,000-token fenced Python block at 200 tokens/s,
   keys typed as in 3 (an agent showing a whole file it wrote).

Runs interleave the agents (run 1 of each, then run 2 ...), so each ratio to vibe-tui is
taken pair by pair, within one run index, on the same machine load.

    uv run python bench/peers.py [--runs 5] [--peers vibe-tui,mistral-vibe,aider] [--code]
    uv run python bench/peers.py --install   # the peers' own venvs, outside the project

Peers live in ``~/.cache/vibe-tui-bench/peers/<name>/`` (``--peer-dir``); a missing one is
skipped with the command that installs it. See bench/README.md for figures and aims.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
import pyte

ROOT = Path(__file__).resolve().parent.parent
COLUMNS, LINES = 120, 40
PEER_DIR = Path.home() / ".cache" / "vibe-tui-bench" / "peers"
PYTHON_312 = Path.home() / ".pyenv" / "versions" / "3.12.1" / "bin" / "python3.12"

ANSWER_TOKENS = 4000
CODE_BLOCKS = 20
CHARS_PER_TOKEN = 4  # one streamed delta of 4 characters is counted as one token
SLOW_RATE = 200  # tokens per second
KEY = "j"  # typed while the slow answer streams; the answers never contain it
KEY_INTERVAL_S = 0.2
KEY_TIMEOUT_S = 30.0
LAUNCH_TIMEOUT_S = 90.0
ANSWER_TIMEOUT_S = 120.0
IDLE_CPU_S = 0.05  # "idle": the tree used less than this CPU over IDLE_WINDOW_S
IDLE_WINDOW_S = 0.5
IDLE_TIMEOUT_S = 120.0


# ---------------------------------------------------------------------------------------------
# The work: two Markdown answers, told apart by the prompt that asks for them

WORDS = ("the parser reads every token once and keeps a small buffer so a slow reader never "
         "holds up the stream while the widget draws what arrived since its last frame").split()
CODE = '''\
```python
def step_{n}(values: list[int], scale: int = {n}) -> dict[str, int]:
    """Sum the values, scaled, and count them."""
    total = 0
    for value in values:
        total += value * scale
    return {{"total": total, "count": len(values), "step": {n}}}
```'''


def markdown_answer(kind: str) -> str:
    """About ANSWER_TOKENS tokens of Markdown, CODE_BLOCKS code blocks, with begin and end
    markers of its own (``kind``), so a previous answer still on the screen does not count."""
    budget = ANSWER_TOKENS * CHARS_PER_TOKEN
    per_section = budget // CODE_BLOCKS
    sections = [f"{kind} begin: here is the whole plan, step by step.\n"]
    for n in range(1, CODE_BLOCKS + 1):
        head = f"## Step {n}\n\n"
        code = CODE.format(n=n)
        bullets = f"- keeps `step_{n}` pure\n- **no** other files change\n- tested with `pytest -q`\n\n"
        room = per_section - len(head) - len(code) - len(bullets) - 4
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < room:
            words.append(WORDS[(len(words) + n) % len(WORDS)])
        sections.append(f"{head}{' '.join(words)}.\n\n{bullets}{code}\n")
    sections.append(f"That is all. {kind} finis 7731.\n")
    text = "\n".join(sections)
    assert KEY not in text.lower(), "the typed key must never be in the answer"
    return text


def code_answer(kind: str) -> str:
    """About ANSWER_TOKENS tokens of one Python code block (a whole module, as an agent
    shows a file it wrote), between begin and end markers outside the block."""
    lines = ['"""Scaled sums of the values, one function a step."""', "", "import math", ""]
    n = 0
    while sum(len(line) + 1 for line in lines) < ANSWER_TOKENS * CHARS_PER_TOKEN - 200:
        n += 1
        lines += ["", f"def step_{n}(values: list[int], scale: int = {n}) -> dict[str, float]:",
                  f'    """Step {n}: the scaled total and its square root."""',
                  "    total = sum(value * scale for value in values)",
                  f"    return {{'total': total, 'root': math.sqrt(abs(total)), 'step': {n}}}"]
    body = "\n".join(lines)
    text = f"{kind} begin: the whole module.\n\n```python\n{body}\n```\n\nThat is all. {kind} finis 7731.\n"
    assert KEY not in text.lower(), "the typed key must never be in the answer"
    return text


FAST, SLOW, CODE = "bench-fast", "bench-slow", "bench-code"
PROMPTS = {FAST: "Explain the plan (bench-fast)", SLOW: "Explain the plan again (bench-slow)",
           CODE: "Show the module (bench-code)"}


def end_marker(kind: str) -> str:
    return f"{kind} finis 7731"


def last_user_text(body: dict) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


def serve() -> None:
    """The fake model, as its own process: its CPU and GIL stay out of the bench's way."""
    from vibe_tui.testing.fake_llm import FakeLLM
    from vibe_tui.testing.script import text

    answers = {kind: markdown_answer(kind) for kind in (FAST, SLOW)}
    answers[CODE] = code_answer(CODE)

    def respond(body: dict):
        asked = last_user_text(body)
        if FAST in asked:
            return text(answers[FAST], chunk_size=CHARS_PER_TOKEN)
        for kind in (SLOW, CODE):
            if kind in asked:
                return text(answers[kind], chunk_size=CHARS_PER_TOKEN, rate=SLOW_RATE)
        return text("ok")  # titles, summaries and anything else an agent asks on the side

    llm = FakeLLM(responder=respond).start()
    print(f"READY {llm.base_url}", flush=True)
    try:
        sys.stdin.read()  # until the bench closes our stdin
    finally:
        llm.stop()


def start_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    line = server.stdout.readline()
    if not line.startswith("READY "):
        server.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    return server, line.split()[1]


# ---------------------------------------------------------------------------------------------
# The agents


@dataclass
class Place:
    """Where one run happens: a fresh git repository and a home for the agent's settings."""

    workspace: Path
    home: Path
    base_url: str


@dataclass
class Peer:
    name: str
    command: Callable[[Place], list[str]]
    environment: Callable[[Place], dict[str, str]]
    ready: Callable[[list[str]], bool]
    types_while_streaming: bool = True
    install: str = ""
    prepare: Callable[[Place], None] = lambda place: None
    executable: Callable[[], Path] = field(default=lambda: Path("/nonexistent"))


def screen_has(lines: list[str], *texts: str) -> bool:
    joined = "\n".join(lines)
    return all(t in joined for t in texts)


def vibe_tui_peer(peer_dir: Path, root: Path = ROOT, name: str = "vibe-tui") -> Peer:
    exe = root / ".venv" / "bin" / "vibe-tui"
    return Peer(
        name=name,
        command=lambda p: [str(exe), "--model", "openai/fake-model", "--api-base", p.base_url,
                           "--api-key", "k"],
        environment=lambda p: {"VIBE_TUI_HOME": str(p.home)},
        ready=lambda lines: screen_has(lines, "sk vibe-tui"),  # the prompt's placeholder
        install="uv sync (the project's own venv)",
        executable=lambda: exe,
    )


MISTRAL_CONFIG = """\
active_model = "fake"
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false
enable_notifications = false
[experiments]
enable = false
[session_logging]
generate_titles = false
[[providers]]
name = "fakellm"
api_base = "{base_url}"
api_key_env_var = ""
api_style = "openai"
backend = "generic"
[[models]]
name = "fake-model"
provider = "fakellm"
alias = "fake"
thinking = "off"
max_context_length = 128000
"""
TOKEN_COUNTER = re.compile(r"\d+(?:\.\d+)?k? */ *\d+(?:\.\d+)?k tokens")


def mistral_ready(lines: list[str]) -> bool:
    joined = "\n".join(lines)
    return ("accept edits" in joined and TOKEN_COUNTER.search(joined) is not None
            and "Initializing" not in joined)


def mistral_peer(peer_dir: Path, name: str, version: str) -> Peer:
    venv = peer_dir / name
    install = (f"uv venv -p {PYTHON_312} {venv} && VIRTUAL_ENV={venv} uv pip install "
               f"mistral-vibe=={version}")
    screen = {"VIBE_CLI": "python"}  # 2.x: the Python/Textual screen
    if version.startswith("3."):
        screen = {}  # its own (Rust) screen over the Python backend
        install += " --override <(echo certifi==2026.10.19.post1)"  # a pin the index lacks

    def prepare(place: Place) -> None:
        (place.home / "config.toml").write_text(MISTRAL_CONFIG.format(base_url=place.base_url))

    return Peer(
        name=name,
        command=lambda p: [str(venv / "bin" / "vibe")],
        environment=lambda p: {"VIBE_HOME": str(p.home), **screen},
        ready=mistral_ready,
        install=install,
        prepare=prepare,
        executable=lambda: venv / "bin" / "vibe",
    )


def aider_ready(lines: list[str]) -> bool:
    filled = [line for line in lines if line.strip()]
    return bool(filled) and filled[-1].lstrip().startswith("ask>")


def aider_peer(peer_dir: Path) -> Peer:
    venv = peer_dir / "aider"
    return Peer(
        name="aider",
        command=lambda p: [
            str(venv / "bin" / "aider"), "--model", "openai/fake-model",
            "--openai-api-base", p.base_url, "--openai-api-key", "sk-x", "--chat-mode", "ask",
            "--no-check-update", "--analytics-disable", "--no-show-model-warnings",
            "--no-auto-commits", "--no-gitignore", "--no-show-release-notes"],
        environment=lambda p: {"HOME": str(p.home)},
        ready=aider_ready,
        types_while_streaming=False,  # its prompt is gone while it streams
        install=f"uv venv -p {PYTHON_312} {venv} && VIRTUAL_ENV={venv} uv pip install aider-chat==0.86.2",
        executable=lambda: venv / "bin" / "aider",
    )


def all_peers(peer_dir: Path) -> dict[str, Peer]:
    peers = [vibe_tui_peer(peer_dir), mistral_peer(peer_dir, "mistral-vibe", "2.26.1"),
             mistral_peer(peer_dir, "mistral-vibe-3", "3.0.3"), aider_peer(peer_dir)]
    return {peer.name: peer for peer in peers}


# ---------------------------------------------------------------------------------------------
# /proc: CPU and memory of a process tree


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    return stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, ...


def process_tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(stat_fields(int(entry))[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass  # gone meanwhile
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def tree_cpu_seconds(root: int) -> float:
    """utime + stime of every live process in the tree, plus what their reaped children used."""
    ticks = 0
    for pid in process_tree(root):
        try:
            fields = stat_fields(pid)
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / CLOCK_TICKS


def own_cpu_seconds(pid: int) -> float:
    """utime + stime of one process alone (for vibe-tui's first process: the screen)."""
    return sum(int(value) for value in stat_fields(pid)[11:13]) / CLOCK_TICKS


def tree_peak_mib(root: int) -> float:
    """VmHWM summed over the tree: each process's own peak resident memory."""
    total_kib = 0
    for pid in process_tree(root):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
        total_kib += int(match.group(1)) if match else 0
    return total_kib / 1024


# ---------------------------------------------------------------------------------------------
# A terminal the bench can read


class AnsweringScreen(pyte.Screen):
    """Answers the terminal's reports (cursor position, device attributes) as xterm would:
    some agents wait for those answers before they draw."""

    def __init__(self, columns: int, lines: int, fd: int) -> None:
        super().__init__(columns, lines)
        self._fd = fd

    def write_process_input(self, data: str) -> None:
        try:
            os.write(self._fd, data.encode())
        except OSError:
            pass


class Terminal:
    """One agent in a pseudo-terminal, its output fed to an emulated screen as it comes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.child = pexpect.spawn(argv[0], argv[1:], env=env, cwd=str(cwd),
                                   dimensions=(LINES, COLUMNS))
        self.screen = AnsweringScreen(COLUMNS, LINES, self.child.child_fd)
        self.stream = pyte.ByteStream(self.screen)
        self._lines: list[str] | None = None

    @property
    def pid(self) -> int:
        return self.child.pid

    def pump(self, timeout: float = 0.005) -> bool:
        """Read whatever the agent wrote (waiting up to ``timeout`` for the first byte)."""
        got = False
        fd = self.child.child_fd
        while select.select([fd], [], [], 0 if got else timeout)[0]:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:  # the agent has gone
                break
            if not data:
                break
            self.stream.feed(data)
            got = True
        if got:
            self._lines = None
        return got

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = list(self.screen.display)
        return self._lines

    def wait_for(self, predicate: Callable[[list[str]], bool], timeout: float, what: str) -> float:
        """perf_counter() when ``predicate(lines)`` first holds."""
        deadline = time.perf_counter() + timeout
        while not predicate(self.lines):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{what}: not seen in {timeout:.0f} s; screen:\n" + self.text())
            if not self.child.isalive() and not self.pump(0):
                raise RuntimeError(f"{what}: the agent exited; screen:\n" + self.text())
            self.pump()
        return time.perf_counter()

    def wait_idle(self) -> float:
        """Until the agent's tree stops using CPU (background loading after the prompt shows
        up, the end of a turn): the next measure then counts only its own work. Returns
        perf_counter() at the start of the first quiet window."""
        deadline = time.perf_counter() + IDLE_TIMEOUT_S
        while time.perf_counter() < deadline:
            before, since = tree_cpu_seconds(self.pid), time.perf_counter()
            self.keep_reading(IDLE_WINDOW_S)
            if tree_cpu_seconds(self.pid) - before < IDLE_CPU_S:
                return since
        raise TimeoutError(f"the agent never went idle in {IDLE_TIMEOUT_S:.0f} s")

    def keep_reading(self, seconds: float) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            self.pump(min(0.02, max(0.0, until - time.perf_counter())))

    def type(self, text: str) -> None:
        os.write(self.child.child_fd, text.encode())

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines).strip("\n")

    def close(self) -> None:
        tree = process_tree(self.pid) if self.child.isalive() else [self.pid]
        self.child.close(force=True)
        for pid in tree[1:]:  # anything the agent started and left behind
            try:
                os.kill(pid, 9)
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
# One run of one agent


def count_key(lines: list[str]) -> int:
    return sum(line.count(KEY) for line in lines)


def ask(term: Terminal, kind: str) -> tuple[float, float, float]:
    """Type the prompt, wait until it shows, press Enter: (time, tree CPU, the first
    process's own CPU) at Enter."""
    term.type(PROMPTS[kind])
    term.wait_for(lambda lines: screen_has(lines, kind), 30, f"prompt {kind!r} typed")
    cpu, own_cpu = tree_cpu_seconds(term.pid), own_cpu_seconds(term.pid)
    start = time.perf_counter()
    term.type("\r")
    return start, cpu, own_cpu


def echo_latencies(term: Terminal, done: Callable[[list[str]], bool]) -> list[float]:
    """While the answer streams: type KEY, time it onto the screen, erase it, wait until it
    is gone, repeat. A key that takes long is waited for (up to KEY_TIMEOUT_S) and counted
    at its real latency: typing on before it shows would mistake one key's echo for the next."""
    samples: list[float] = []
    while not done(term.lines):
        term.keep_reading(KEY_INTERVAL_S)
        if done(term.lines):
            break
        before = count_key(term.lines)
        sent = time.perf_counter()
        term.type(KEY)
        try:
            shown = term.wait_for(lambda lines, before=before: count_key(lines) > before,
                                  KEY_TIMEOUT_S, "key echo")
        except TimeoutError:
            samples.append(KEY_TIMEOUT_S * 1000)
            break  # the screen no longer answers keys: stop typing, keep the stall counted
        samples.append((shown - sent) * 1000)
        term.type("\x7f")
        term.wait_for(lambda lines, before=before: count_key(lines) <= before, KEY_TIMEOUT_S, "key erased")
    return samples


def one_run(peer: Peer, base_url: str, code: bool = False) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix=f"bench-{peer.name}-") as folder:
        place = Place(Path(folder) / "repo", Path(folder) / "home", base_url)
        make_repository(place.workspace)
        place.home.mkdir()
        peer.prepare(place)
        env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor",
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-x",
               "MISTRAL_API_KEY": "sk-x", **peer.environment(place)}
        env.pop("VIRTUAL_ENV", None)
        started = time.perf_counter()
        term = Terminal(peer.command(place), env, place.workspace)
        try:
            return measure(term, peer, started, code)
        finally:
            term.close()


def measure(term: Terminal, peer: Peer, started: float, code: bool) -> dict[str, float]:
    result: dict[str, float] = {}
    result["launch_s"] = term.wait_for(peer.ready, LAUNCH_TIMEOUT_S, "prompt ready") - started
    result["idle_s"] = term.wait_idle() - started
    result["launch_cpu_s"] = tree_cpu_seconds(term.pid)

    start, cpu, _ = ask(term, FAST)
    fast_done = lambda lines: screen_has(lines, end_marker(FAST))  # noqa: E731
    result["fast_s"] = term.wait_for(fast_done, ANSWER_TIMEOUT_S, "fast answer") - start
    result["fast_cpu_s"] = tree_cpu_seconds(term.pid) - cpu
    term.wait_idle()

    slow_names = {"cpu_s": "slow_cpu_s", "own_cpu_s": "slow_own_cpu_s"}  # the older names
    for name, value in typed_answer(term, peer, SLOW).items():
        result[slow_names.get(name, name)] = value
    if code:
        term.wait_idle()
        for name, value in typed_answer(term, peer, CODE).items():
            result[f"code_{name}"] = value
    result["peak_mib"] = tree_peak_mib(term.pid)
    return result


def typed_answer(term: Terminal, peer: Peer, kind: str) -> dict[str, float]:
    """A 200 tokens/s answer with keys typed while it streams: its CPU, the first
    process's own CPU, and the keys' echo times."""
    result: dict[str, float] = {}
    start, cpu, own_cpu = ask(term, kind)
    done = lambda lines: screen_has(lines, end_marker(kind))  # noqa: E731
    term.wait_for(lambda lines: screen_has(lines, f"{kind} begin"), ANSWER_TIMEOUT_S, f"{kind} answer")
    if peer.types_while_streaming:
        keys = echo_latencies(term, done)
        result["keys"] = len(keys)
        if keys:
            result["key_p50_ms"] = percentile(keys, 0.5)
            result["key_p95_ms"] = percentile(keys, 0.95)
    term.wait_for(done, ANSWER_TIMEOUT_S, f"{kind} answer end")
    result["cpu_s"] = tree_cpu_seconds(term.pid) - cpu
    result["own_cpu_s"] = own_cpu_seconds(term.pid) - own_cpu
    return result


def make_repository(path: Path) -> None:
    path.mkdir()
    (path / "README.md").write_text("# scratch\n\nA repository for the benchmark.\n")
    (path / "main.py").write_text("def main():\n    print('hello')\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run([*git, *args], cwd=path, check=True)


# ---------------------------------------------------------------------------------------------
# Figures


FIGURES = [  # key, label, unit format
    ("launch_s", "launch to ready prompt (s)", "{:.2f}"),
    ("idle_s", "launch to idle (background loading done) (s)", "{:.2f}"),
    ("launch_cpu_s", "  CPU seconds until idle", "{:.2f}"),
    ("fast_s", "full-speed answer: Enter to last line on screen (s)", "{:.2f}"),
    ("fast_cpu_s", "  same, CPU seconds", "{:.2f}"),
    ("slow_cpu_s", "200 tokens/s answer (20 s), keys typed: CPU seconds", "{:.2f}"),
    ("slow_own_cpu_s", "  of it, the first process's own (vibe-tui: the screen)", "{:.2f}"),
    ("key_p50_ms", "keystroke to screen while streaming, p50 (ms)", "{:.0f}"),
    ("key_p95_ms", "  same, p95 (ms)", "{:.0f}"),
    ("code_cpu_s", "--code: a 4,000-token code block at 200 tokens/s, keys typed: CPU s",
     "{:.2f}"),
    ("code_own_cpu_s", "  of it, the first process's own", "{:.2f}"),
    ("code_key_p50_ms", "  keystroke to screen meanwhile, p50 (ms)", "{:.0f}"),
    ("code_key_p95_ms", "  same, p95 (ms)", "{:.0f}"),
    ("peak_mib", "peak memory, VmHWM of the tree (MiB)", "{:.0f}"),
]
BASE = "vibe-tui"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def cell(values: list[float], fmt: str) -> str:
    if not values:
        return "n/a"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def pair_ratios(runs: dict[str, list[dict]], peer: str, key: str) -> list[float]:
    """peer / vibe-tui within each run index: >1 means vibe-tui is lower (faster, smaller)."""
    ours_by_run = {r["run"]: r for r in runs.get(BASE, [])}
    ratios = []
    for theirs in runs[peer]:
        ours = ours_by_run.get(theirs["run"], {})
        if ours.get(key) and key in theirs:
            ratios.append(theirs[key] / ours[key])
    return ratios


def table(runs: dict[str, list[dict]]) -> str:
    names = [n for n in runs if runs[n]]
    header = ["figure: median (min-max)"]
    for name in names:
        header.append(f"{name} ({len(runs[name])} runs)")
        if name != BASE and BASE in runs:
            header.append(f"{name} / {BASE}")
    rows = [header, ["---"] * len(header)]
    for key, label, fmt in FIGURES:
        if not any(key in r for name in names for r in runs[name]):
            continue  # a figure no run took (--code)
        row = [label]
        for name in names:
            row.append(cell([r[key] for r in runs[name] if key in r], fmt))
            if name != BASE and BASE in runs:
                ratios = pair_ratios(runs, name, key)
                row.append(f"{statistics.median(ratios):.2f}x" if ratios else "n/a")
        rows.append(row)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def aims(runs: dict[str, list[dict]]) -> list[str]:
    """The issue's aims, each with the pairwise median it is judged on."""
    lines = []
    if runs.get("mistral-vibe") and runs.get(BASE):
        launch = pair_ratios(runs, "mistral-vibe", "launch_s")
        if launch:
            ratio = statistics.median(launch)
            lines.append(f"launch >= 3x faster than mistral-vibe: {ratio:.1f}x "
                         f"-> {'met' if ratio >= 3 else 'NOT met'}")
        for key, answer in (("fast_cpu_s", "full-speed"), ("slow_cpu_s", "200 tokens/s")):
            cpu = pair_ratios(runs, "mistral-vibe", key)
            if cpu:
                ratio = statistics.median(cpu)
                lines.append(f"<= half mistral-vibe's CPU on the {answer} answer: "
                             f"{1 / ratio:.2f} of it -> {'met' if ratio >= 2 else 'NOT met'}")
    own = [r["slow_own_cpu_s"] for r in runs.get(BASE, []) if "slow_own_cpu_s" in r]
    if own:
        share = statistics.median(own) / (ANSWER_TOKENS / SLOW_RATE)
        lines.append(f"the screen under a tenth of a core at 200 tokens/s: {share:.2f} "
                     f"-> {'met' if share < 0.1 else 'NOT met'}")
    p95 = [r["key_p95_ms"] for r in runs.get(BASE, []) if "key_p95_ms" in r]
    if p95:
        lines.append(f"keystroke p95 < 50 ms while streaming: {statistics.median(p95):.0f} ms "
                     f"-> {'met' if statistics.median(p95) < 50 else 'NOT met'}")
    return lines


# ---------------------------------------------------------------------------------------------
# Command line


def install(peers: list[Peer]) -> None:
    for peer in peers:
        if peer.name == BASE or peer.executable().exists():
            continue
        print(f"installing {peer.name}: {peer.install}", flush=True)
        subprocess.run(["bash", "-c", peer.install], check=True)


def machine() -> str:
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (f"{time.strftime('%Y-%m-%d %H:%M %Z')}, nproc {os.cpu_count()}, load average {load}, "
            f"{COLUMNS}x{LINES} pty, answer {ANSWER_TOKENS} tokens / {CODE_BLOCKS} code blocks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--peers", default="vibe-tui,mistral-vibe,aider",
                        help="comma-separated, from: vibe-tui, mistral-vibe, mistral-vibe-3, aider")
    parser.add_argument("--peer-dir", type=Path, default=PEER_DIR)
    parser.add_argument("--install", action="store_true", help="create the missing peer venvs")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured runs per agent first")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                        help="also measure the vibe-tui of another checkout (with its .venv), "
                             "as peer 'vibe-tui@base': a change's before and after, pair by pair")
    parser.add_argument("--code", action="store_true",
                        help="also a third answer: one long code block at 200 tokens/s")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    known = all_peers(args.peer_dir)
    wanted = [n.strip() for n in args.peers.split(",") if n.strip()]
    if args.baseline:
        known["vibe-tui@base"] = vibe_tui_peer(args.peer_dir, args.baseline.resolve(), "vibe-tui@base")
        wanted.append("vibe-tui@base")
    unknown = [n for n in wanted if n not in known]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.install:
        install([known[n] for n in wanted])
    peers = []
    for name in wanted:
        if known[name].executable().exists():
            peers.append(known[name])
        else:
            print(f"skipping {name}: not installed; install it with\n  {known[name].install}")
    if not peers:
        sys.exit("no agent to measure")
    print(machine(), flush=True)
    runs = run_all(peers, args.runs, args.warmup, args.code)
    print()
    print(table(runs))
    for line in aims(runs):
        print(line)
    print(machine())
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


def run_all(peers: list[Peer], count: int, warmup: int,
            code: bool = False) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {peer.name: [] for peer in peers}
    server, base_url = start_server()
    try:
        for index in range(-warmup, count):
            for peer in peers:
                label = "warm-up" if index < 0 else f"run {index + 1}/{count}"
                try:
                    result = one_run(peer, base_url, code)
                except (TimeoutError, RuntimeError) as exc:
                    print(f"{peer.name} {label}: failed: {exc}", flush=True)
                    continue
                print(f"{peer.name} {label}: " + ", ".join(f"{k} {v:.3g}" for k, v in result.items()),
                      flush=True)
                if index >= 0:
                    runs[peer.name].append({"run": index, **result})
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    return runs


if __name__ == "__main__":
    main()
