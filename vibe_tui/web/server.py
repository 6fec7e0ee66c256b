"""The web view: the same session in a browser tab.

A Starlette app served by uvicorn as a task on the caller's event loop (the TUI's, or the
one ``vibe-tui serve`` runs), never in a thread: the Session is not thread-safe and does
not need to be. Like every view it only uses the Session's four doors: ``GET /events``
follows ``session.events(after=...)`` as server-sent events whose ids are the event ids,
``POST /message`` sends or steers, ``POST /answer`` answers an approval, ``POST /stop``
interrupts.

Security: the server binds 127.0.0.1 only. Every request must name this host by
``127.0.0.1:PORT`` or ``localhost:PORT`` (a DNS-rebinding page arrives with its own host
name). Every route but the page and its two static files also needs this run's token
(header ``X-Token`` or query ``token``, compared in constant time) and, when the browser
sends an ``Origin``, the page's own origin. The token is never written into the page: the
page reads it from the link the user opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import signal
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vibe_tui.core import events as ev
from vibe_tui.core.approvals import DECISIONS

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# When the wanted port is taken, try the next ones before giving up.
PORT_TRIES = 20
# Milliseconds a browser waits before reconnecting a dropped event stream.
SSE_RETRY_MS = 1000
# A comment line this often keeps an idle stream alive and notices a vanished client.
KEEPALIVE_S = 15.0
# Seconds uvicorn waits for open requests at shutdown; our streams end on stop(), so this
# only bounds a misbehaving one.
GRACEFUL_SHUTDOWN_S = 1

ASSET_DIR = Path(__file__).parent
# path -> (file, content type). These are the page: they carry no secret and need no token.
ASSETS = {
    "/": ("page.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
     b"object-src 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # the token is in the page's address
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
# Who answered, as the other view tells it.
FIRST_ANSWER = {
    "tui": "the terminal answered first",
    "web": "the web view answered first",
    "interrupt": "the turn was interrupted first",
}

_END = object()  # ends one client's stream


class WebView:
    """The web view of one session, served on the running event loop.

    ``await start()`` returns the link to open (``http://127.0.0.1:PORT/?token=...``);
    ``await stop()`` ends every open event stream and the server. ``port=0`` lets the
    system pick a port; any other port is tried first, then the next free ones.
    """

    def __init__(self, session: Session, port: int = DEFAULT_PORT) -> None:
        self.session = session
        self._wanted_port = port
        self._port: int | None = None
        self._token = secrets.token_urlsafe(32)
        self._assets: dict[str, bytes] = {}
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task | None = None
        self._pumps: set[asyncio.Task] = set()
        self._stopping = False

    # ---- lifecycle ------------------------------------------------------------------

    @property
    def port(self) -> int | None:
        return self._port

    @property
    def token(self) -> str:
        return self._token

    @property
    def url(self) -> str | None:
        if self._port is None:
            return None
        return f"http://{HOST}:{self._port}/?token={self._token}"

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> str:
        if self.running:
            return self.url  # type: ignore[return-value]
        self._assets = await asyncio.to_thread(_load_assets)
        # A restarted view keeps its port and token, so open tabs reconnect by themselves.
        sock = _bind(self._port if self._port is not None else self._wanted_port)
        self._port = sock.getsockname()[1]
        config = uvicorn.Config(
            _Guard(self._routes(), self), host=HOST, port=self._port, log_level="warning",
            log_config=None, access_log=False, lifespan="off", ws="none",
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S)
        self._stopping = False
        self._server = _EmbeddedServer(config)
        self._task = asyncio.get_running_loop().create_task(
            self._server.serve(sockets=[sock]), name=f"web-view:{self._port}")
        await self._server.wait_started(self._task)
        return self.url  # type: ignore[return-value]

    async def stop(self) -> None:
        """End every event stream, then the server. Open tabs do not hold it up."""
        if self._task is None:
            return
        self._stopping = True
        for pump in list(self._pumps):
            pump.cancel()
        if self._server is not None:
            self._server.should_exit = True
        task, self._task, self._server = self._task, None, None
        await task

    # ---- routes ---------------------------------------------------------------------

    def _routes(self) -> Starlette:
        routes = [Route(path, self._asset) for path in ASSETS]
        routes += [
            Route("/events", self._events),
            Route("/message", self._message, methods=["POST"]),
            Route("/answer", self._answer, methods=["POST"]),
            Route("/stop", self._stop, methods=["POST"]),
        ]
        return Starlette(routes=routes)

    async def _asset(self, request: Request) -> Response:
        _, media_type = ASSETS[request.url.path]
        return Response(self._assets[request.url.path], media_type=media_type)

    async def _events(self, request: Request) -> Response:
        if self._stopping:
            return PlainTextResponse("the web view is stopping", status_code=503)
        # EventSource sends Last-Event-ID when it reconnects; ?after= is for a first
        # connect that already knows where it stands. The header is the newer of the two.
        raw = request.headers.get("last-event-id") or request.query_params.get("after") or ""
        try:
            after = int(raw) if raw.strip() else None
        except ValueError:
            return PlainTextResponse("Last-Event-ID must be an event id", status_code=400)
        headers = {"X-Accel-Buffering": "no"}
        return StreamingResponse(self._stream(after), media_type="text/event-stream",
                                 headers=headers)

    async def _message(self, request: Request) -> Response:
        body = await _json_object(request)
        text = body.get("text") if body else None
        if not isinstance(text, str) or not text.strip():
            return JSONResponse({"result": "send a non-empty text"}, status_code=400)
        steering = self.session.running
        try:
            turn = self.session.send(text)
        except RuntimeError as exc:  # the session is closed
            return JSONResponse({"result": str(exc)}, status_code=409)
        return JSONResponse({"result": "steered" if steering else "started", "turn": turn})

    async def _answer(self, request: Request) -> Response:
        body = await _json_object(request)
        if body is None:
            return JSONResponse({"result": "send a JSON object"}, status_code=400)
        approval_id, turn = body.get("id"), body.get("turn")
        decision, note = body.get("decision"), body.get("note")
        if (not isinstance(approval_id, str) or not isinstance(turn, int)
                or decision not in DECISIONS or not isinstance(note, str | None)):
            return JSONResponse(
                {"result": f"send id, turn and decision (one of {', '.join(DECISIONS)})"},
                status_code=400)
        asked = self._approval_request(approval_id)
        if asked is None:
            return JSONResponse({"result": "no such approval"}, status_code=404)
        # Logs written before approval ids continued across runs can hold one id twice:
        # the turn tells a stale card from a past run apart from the open question.
        if asked.turn_id != turn:
            return JSONResponse({"result": "this question is no longer open"}, status_code=409)
        outcome = self.session.answer(approval_id, decision, note=note or None, by="web")
        if outcome.accepted:
            return JSONResponse({"result": "done"})
        if not outcome.by:
            return JSONResponse({"result": "this question is no longer open"}, status_code=409)
        # A conflict, not a success: this answer did not count, and the page says whose did.
        who = FIRST_ANSWER.get(outcome.by, f"{outcome.by} answered first")
        return JSONResponse({"result": f"{who}: {outcome.decision}",
                             "decision": outcome.decision, "by": outcome.by}, status_code=409)

    async def _stop(self, request: Request) -> Response:
        stopped = self.session.interrupt()
        return JSONResponse({"result": "stopped" if stopped else "nothing to stop"})

    # ---- event streams --------------------------------------------------------------

    async def _stream(self, after: int | None) -> AsyncIterator[str]:
        """One client's stream. A pump task reads the session's events into a queue, so
        ``stop()`` can end every stream at once by cancelling the pumps."""
        queue: asyncio.Queue = asyncio.Queue()
        pump = asyncio.get_running_loop().create_task(self._pump(after, queue))
        self._pumps.add(pump)
        try:
            yield f"retry: {SSE_RETRY_MS}\n\n"
            while True:
                try:
                    async with asyncio.timeout(KEEPALIVE_S):
                        item = await queue.get()
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                # Everything already queued goes out in one write.
                batch = [item]
                while not queue.empty() and batch[-1] is not _END:
                    batch.append(queue.get_nowait())
                text = "".join(_sse(e) for e in batch if e is not _END)
                if text:
                    yield text
                if batch[-1] is _END:
                    return
        finally:
            pump.cancel()
            self._pumps.discard(pump)

    async def _pump(self, after: int | None, queue: asyncio.Queue) -> None:
        try:
            async with contextlib.aclosing(self.session.events(after=after)) as events:
                async for event in events:
                    queue.put_nowait(event)
        finally:
            queue.put_nowait(_END)

    def _approval_request(self, approval_id: str) -> ev.ApprovalRequested | None:
        for event in reversed(self.session.event_log):
            if isinstance(event, ev.ApprovalRequested) and event.approval_id == approval_id:
                return event
        return None

    # ---- security -------------------------------------------------------------------

    def refusal(self, scope: Scope) -> str | None:
        """Why a request is refused, or None when it may pass."""
        request = Request(scope)
        host = request.headers.get("host", "").lower()
        if host not in (f"{HOST}:{self._port}", f"localhost:{self._port}"):
            return "unknown host"
        if request.url.path in ASSETS and request.method in ("GET", "HEAD"):
            return None
        origin = request.headers.get("origin")
        if origin is not None and origin != f"http://{host}":
            return "foreign origin"
        given = request.headers.get("x-token") or request.query_params.get("token") or ""
        if not hmac.compare_digest(given.encode(), self._token.encode()):
            return "missing or wrong token"
        return None


class _Guard:
    """Refuses what ``WebView.refusal`` refuses with 403, before any route runs, and adds
    the security headers to every response."""

    def __init__(self, app: ASGIApp, view: WebView) -> None:
        self.app = app
        self.view = view

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        send = _with_security_headers(send)
        problem = self.view.refusal(scope)
        if problem is not None:
            await PlainTextResponse(problem, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _with_security_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return sending


class _EmbeddedServer(uvicorn.Server):
    """uvicorn inside a program that owns its signals: Ctrl+C stops the turn (TUI) or the
    program (``serve``), never the server behind its back."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._ready = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self._ready.set()

    async def wait_started(self, task: asyncio.Task) -> None:
        """Return once the server accepts connections; raise what stopped it otherwise."""
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({ready, task}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            task.result()  # raises the server's own error, if it had one
            raise RuntimeError("the web view stopped while starting")


def _bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1: ``port``, else the next free one (0: any)."""
    candidates = [0] if port == 0 else range(port, min(port + PORT_TRIES, 65536))
    for candidate in candidates:
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are
        # TCP, and without it every reply on a kept-alive connection waits ~40 ms.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, candidate))
        except OSError:
            sock.close()
            continue
        sock.listen(128)
        sock.setblocking(False)
        return sock
    raise OSError(f"no free port for the web view in {port}-{port + PORT_TRIES - 1}")


def _load_assets() -> dict[str, bytes]:
    return {path: (ASSET_DIR / name).read_bytes() for path, (name, _) in ASSETS.items()}


def _sse(event: ev.Event) -> str:
    # JSON escapes newlines inside strings, so the data is always one line.
    return f"id: {event.id}\ndata: {event.dumps()}\n\n"


async def _json_object(request: Request) -> dict[str, Any] | None:
    try:
        body = await request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


async def serve_forever(session: Session, port: int = DEFAULT_PORT) -> int:
    """``vibe-tui serve``: the web view alone, until Ctrl+C or SIGTERM; then the session
    is closed (a running turn is interrupted first)."""
    view = WebView(session, port)
    url = await view.start()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    # Before the link is out: whoever reads it may stop us at once.
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"vibe-tui web view: {url}", flush=True)
    print("open the link in a browser; Ctrl+C stops", flush=True)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await view.stop()
        await session.close()
    return 0
