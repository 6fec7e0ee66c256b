"""A scripted fake OpenAI-compatible chat-completions server.

Tests, benchmarks and demos talk to it through LiteLLM exactly as they would talk to a real
provider: a real HTTP server on 127.0.0.1, streamed SSE, OpenAI-shaped tool-call deltas.
Each request to ``/v1/chat/completions`` consumes the next scripted response; every request
body is recorded so tests can assert on what the agent sent.

Standard library only, so it also runs as a separate process::

    python -m vibe_tui.testing.fake_llm --port 0 --script script.json

It ships in the wheel, not only in a checkout, because a shipped command uses it:
``vibe-tui eval --scripted`` plays each task's ``script.json`` on it (``evals/endpoints.py``).
The responses it plays are built in ``script.py``; ``wire.py`` renders them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vibe_tui.testing.script import (
    MODEL_ID,
    CutStream,
    Error,
    Hold,
    Response,
    Text,
    ToolCalls,
    error,
    response_from_json,
    text,
)
from vibe_tui.testing.wire import Chunks, Turn, completion_json, estimate_prompt_tokens, usage_of

HOLD_TIMEOUT = 30.0
EXHAUSTED_TEXT = "(fake-llm: script exhausted)"


# ---------------------------------------------------------------------------------------------
# HTTP


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck handler never keeps the process alive
    fake: FakeLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-response (interrupts, cancelled streams) are expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so the stream can use chunked encoding: a stream cut before its terminating
    # chunk is then a protocol error for the client, not a silent clean end of body.
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    # --- routing

    def do_GET(self) -> None:
        path = self.path.rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [_model_entry()]})
        elif path == "/_fake/requests":
            self._send_json(200, self.server.fake.requests)
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        body = self._read_body()
        if path in ("/v1/chat/completions", "/chat/completions"):
            self._chat(body)
        elif path == "/_fake/release":  # lets an out-of-process test release a hold()
            self.server.fake.release()
            self._send_json(200, {"released": True})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    # --- chat

    def _chat(self, raw: bytes) -> None:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        response = self.server.fake._next_response(body)
        while isinstance(response, Hold):
            self.server.fake._wait_released()
            response = response.response
        self._respond(body, response)

    def _respond(self, body: dict[str, Any], response: Response) -> None:
        model = str(body.get("model") or MODEL_ID)
        if isinstance(response, Error):
            self._send_error(response)
            return
        turn = self.server.fake._turn(body, response)
        if not body.get("stream"):
            self._send_json(200, completion_json(turn, model), cut=isinstance(response, CutStream))
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = Chunks(turn, model)
        progress = []
        if body.get("return_progress"):
            progress = list(chunks.progress_chunks(len(json.dumps(body.get("messages"))) // 4))
        cut = isinstance(response, CutStream)
        self._stream(chunks, include_usage, cut=cut, progress=progress,
                     failure=response.error if cut else None)

    def _stream(self, chunks: Chunks, include_usage: bool, *, cut: bool,
                progress: list[dict[str, Any]] | None = None, failure: str | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self._end_headers_closing()
        events = [*(progress or []), *chunks.body()]
        if cut:
            # Role + content only: no finish chunk, no [DONE], no terminating HTTP chunk.
            self._send_events(events[:-1], chunks.turn)
            if failure is not None:
                error = {"code": 500, "message": failure, "type": "server_error"}
                self._write_chunk(b"data: " + json.dumps({"error": error}).encode() + b"\n\n")
                self._write_chunk(b"data: [DONE]\n\n")
                self._write_chunk(b"")
            return
        if include_usage:
            events.append(chunks.usage_chunk())
        self._send_events(events, chunks.turn)
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")  # terminating zero-length chunk: a clean end of the body

    def _send_events(self, events: list[dict[str, Any]], turn: Turn) -> None:
        started = time.perf_counter()
        for n, event in enumerate(events):
            # Delay only between content/argument deltas, not before the role chunk.
            if turn.delay and n > 1:
                time.sleep(turn.delay)
            if turn.rate and n > 1:
                time.sleep(max(0.0, started + (n - 1) / turn.rate - time.perf_counter()))
            self._write_chunk(b"data: " + json.dumps(event).encode() + b"\n\n")

    # --- low level

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _end_headers_closing(self) -> None:
        # One request per connection: clients never wait on a kept-alive socket.
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _send_json(self, status: int, payload: Any, *, headers: dict[str, str] | None = None, cut: bool = False) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self._end_headers_closing()
        # A cut non-streamed response stops half-way through its promised Content-Length.
        self.wfile.write(data[: len(data) // 2] if cut else data)
        self.wfile.flush()

    def _send_error(self, err: Error) -> None:
        headers = {}
        if err.retry_after is not None:
            headers["Retry-After"] = f"{err.retry_after:g}"
        payload = {"error": {"message": err.message, "type": err.type, "param": None, "code": err.code}}
        self._send_json(err.status, payload, headers=headers)


def _model_entry() -> dict[str, Any]:
    return {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "vibe-tui-fake"}


# ---------------------------------------------------------------------------------------------
# The server object


Responder = Callable[[dict[str, Any]], Response]


class FakeLLM:
    """A scripted OpenAI-compatible server on 127.0.0.1, running in a daemon thread."""

    model = f"openai/{MODEL_ID}"  # the LiteLLM model string for this server

    def __init__(
        self,
        script: Iterable[Response] | None = None,
        *,
        responder: Responder | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        default: Response | None = None,
    ) -> None:
        self._script: deque[Response] = deque(script or ())
        self._responder = responder
        self._default = default
        self._host, self._port = host, port
        self._lock = threading.Condition()
        self._requests: list[dict[str, Any]] = []
        self._releases = 0
        self._stopping = False
        self._call_ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle

    def start(self) -> FakeLLM:
        if self._server is not None:
            return self
        server = _Server((self._host, self._port), _Handler)
        server.fake = self
        self._server, self._port, self._stopping = server, server.server_address[1], False
        # A short poll interval keeps stop() (shutdown waits one poll) fast.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"fake-llm:{self._port}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stopping = True  # wakes held responses so their threads finish
            self._lock.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- public state

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self._port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Chat request bodies received so far, oldest first (a snapshot copy)."""
        with self._lock:
            return list(self._requests)

    def push(self, *responses: Response) -> None:
        with self._lock:
            self._script.extend(responses)

    def release(self) -> None:
        """Let one held response proceed (a release before the request arrives is banked)."""
        with self._lock:
            self._releases += 1
            self._lock.notify_all()

    def wait_for_requests(self, n: int, timeout: float = 10) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: len(self._requests) >= n, timeout)

    # --- used by the handler threads

    def _next_response(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self._requests.append(body)  # recorded before anything is sent back
            self._lock.notify_all()
            if self._script:
                return self._script.popleft()
        if self._responder is not None:
            try:
                return self._responder(body)
            except Exception as exc:  # a broken responder should fail the test loudly, not hang it
                traceback.print_exc()
                return error(500, f"fake-llm responder failed: {exc!r}")
        return self._default if self._default is not None else text(EXHAUSTED_TEXT)

    def _wait_released(self) -> None:
        with self._lock:
            self._lock.wait_for(lambda: self._releases > 0 or self._stopping, HOLD_TIMEOUT)
            if self._releases > 0:
                self._releases -= 1

    def _turn(self, body: dict[str, Any], response: Response) -> Turn:
        if isinstance(response, ToolCalls):
            calls = [(c.id or self._new_call_id(), c.name, c.arguments) for c in response.calls]
            produced = len(response.content) + sum(len(a) for _, _, a in calls)
            usage = usage_of(estimate_prompt_tokens(body), produced // 4 + 1)
            return Turn(response.content, calls, usage, delay=response.delay, finish_reason="tool_calls")
        if isinstance(response, CutStream):
            usage = usage_of(estimate_prompt_tokens(body), len(response.content) // 4 + 1)
            return Turn(response.content, [], usage, chunk_size=response.chunk_size)
        assert isinstance(response, Text), response
        prompt, completion = response.usage or (estimate_prompt_tokens(body), len(response.content) // 4 + 1)
        return Turn(
            response.content, [], usage_of(prompt, completion), response.chunk_size, response.delay, rate=response.rate,
            finish_reason=response.finish_reason,
        )

    def _new_call_id(self) -> str:
        with self._lock:
            return f"call_{next(self._call_ids)}"


# ---------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scripted fake OpenAI-compatible server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON list, e.g. [{\"text\": \"hi\"}]")
    args = parser.parse_args(argv)
    script = []
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            script = [response_from_json(item) for item in json.load(f)]
    llm = FakeLLM(script, host=args.host, port=args.port).start()
    print(f"READY {llm.base_url}", flush=True)  # the parent process waits for this line
    try:
        threading.Event().wait()  # serve until killed
    except KeyboardInterrupt:
        pass
    finally:
        llm.stop()


if __name__ == "__main__":
    main()
