"""The web view answers only this run's page: every route but the page needs the token,
the page's own Origin (when one is sent) and a local Host name; anything else gets 403.
Real server on 127.0.0.1, real HTTP (httpx)."""

from __future__ import annotations

import secrets

import httpx
import pytest

from engine_helpers import make_session, of_type, wait_until
from vibe_tui.core import events as ev
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.web import WebView

# (method, path, JSON body) for every route that needs the token.
GUARDED = [
    ("GET", "/events", None),
    ("POST", "/message", {"text": "hello"}),
    ("POST", "/answer", {"id": "ap1", "turn": 1, "decision": "allow"}),
    ("POST", "/stop", {}),
]
PAGE = ["/", "/app.js", "/style.css"]


@pytest.fixture(scope="module", autouse=True)
def litellm_loaded() -> None:
    """LiteLLM's first import takes seconds: pay it before a test waits on a turn."""
    from vibe_tui.core.model import litellm_module

    litellm_module()


@pytest.fixture
async def view(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    view = WebView(session, port=0)
    await view.start()
    yield view
    await view.stop()
    await session.close()


@pytest.fixture
async def client(view):
    # trust_env=False: no proxy from the environment may stand between us and 127.0.0.1.
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{view.port}", trust_env=False,
                                 timeout=10) as client:
        yield client


async def call(client, method, path, body, *, headers=None, params=None) -> httpx.Response:
    """Send one request; for an event stream only the status line and headers are read."""
    async with client.stream(method, path, json=body, headers=headers, params=params) as reply:
        if reply.headers.get("content-type", "").startswith("text/event-stream"):
            return reply
        await reply.aread()
        return reply


def bad_credentials(view):
    """Each case: (name, headers, query). All but the broken part are right."""
    right = {"X-Token": view.token}
    port = view.port
    wrong = secrets.token_urlsafe(32)
    return [
        ("no token", {}, {}),
        ("empty token", {"X-Token": ""}, {}),
        ("wrong token in the header", {"X-Token": wrong}, {}),
        ("wrong token in the query", {}, {"token": wrong}),
        ("token prefix", {"X-Token": view.token[:-1]}, {}),
        ("non-ASCII token", {}, {"token": view.token[:-1] + "é"}),
        ("foreign origin", {**right, "Origin": "http://evil.example"}, {}),
        ("null origin", {**right, "Origin": "null"}, {}),
        ("origin on another port", {**right, "Origin": f"http://127.0.0.1:{port + 1}"}, {}),
        ("https origin", {**right, "Origin": f"https://127.0.0.1:{port}"}, {}),
        ("foreign host", {**right, "Host": f"evil.example:{port}"}, {}),
        ("rebinding host without port", {**right, "Host": "localhost"}, {}),
        ("host on another port", {**right, "Host": f"127.0.0.1:{port + 1}"}, {}),
        ("any-address host", {**right, "Host": f"0.0.0.0:{port}"}, {}),
    ]


async def test_every_guarded_route_refuses_bad_credentials(view, client):
    failures = []
    for method, path, body in GUARDED:
        for name, headers, params in bad_credentials(view):
            reply = await call(client, method, path, body, headers=headers, params=params)
            if reply.status_code != 403:
                failures.append(f"{method} {path} with {name}: {reply.status_code}")
    assert failures == []
    # Nothing refused reached the session.
    assert of_type(view.session, ev.TurnStarted) == []


async def test_the_page_needs_a_local_host_but_no_token(view, client):
    port = view.port
    for path in PAGE:
        assert (await client.get(path)).status_code == 200
        assert (await client.get(path, headers={"Host": f"localhost:{port}"})).status_code == 200
        for host in (f"evil.example:{port}", "localhost", f"127.0.0.1:{port + 1}"):
            reply = await client.get(path, headers={"Host": host})
            assert reply.status_code == 403, (path, host)


async def test_unknown_paths_are_refused_without_the_token(view, client):
    assert (await client.get("/secret")).status_code == 403
    assert (await client.get("/secret", headers={"X-Token": view.token})).status_code == 404


async def test_the_right_credentials_pass_on_every_route(view, client, fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("made"))
    token = {"X-Token": view.token}
    same_origin = {**token, "Origin": f"http://127.0.0.1:{view.port}"}

    reply = await client.post("/message", json={"text": "make a file"}, headers=same_origin)
    assert reply.status_code == 200 and reply.json()["result"] == "started"
    await wait_until(lambda: of_type(view.session, ev.ApprovalRequested))
    asked = of_type(view.session, ev.ApprovalRequested)[0]

    # The event stream takes the token in the query (EventSource cannot send headers).
    events = await call(client, "GET", "/events", None, params={"token": view.token})
    assert events.status_code == 200
    # localhost is the same machine and the same page, under its other name.
    reply = await client.post("/answer", headers={**token, "Host": f"localhost:{view.port}",
                                                  "Origin": f"http://localhost:{view.port}"},
                              json={"id": asked.approval_id, "turn": asked.turn_id,
                                    "decision": "allow"})
    assert (reply.status_code, reply.json()) == (200, {"result": "done"})
    await view.session.wait_idle()
    assert (tmp_path / "made.txt").exists()

    reply = await client.post("/stop", headers={}, params={"token": view.token})
    assert (reply.status_code, reply.json()) == (200, {"result": "nothing to stop"})


async def test_responses_carry_a_strict_policy_and_no_cors(view, client):
    page = await client.get("/")
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    # The token is never written into the page: the page reads it from its own address.
    assert view.token not in page.text
    for reply in (page, await client.post("/stop", headers={"X-Token": view.token,
                                                            "Origin": "http://evil.example"})):
        assert not [h for h in reply.headers if h.lower().startswith("access-control-")]


async def test_each_run_has_its_own_token(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    first, second = WebView(session, port=0), WebView(session, port=0)
    assert first.token != second.token and len(first.token) >= 43
    await session.close()


async def test_the_server_listens_on_loopback_127_0_0_1_only(view):
    assert view.url.startswith(f"http://127.0.0.1:{view.port}/?token=")
    # 127.0.0.2 is the same loopback interface: a server bound to all addresses would answer.
    async with httpx.AsyncClient(trust_env=False, timeout=5) as other:
        with pytest.raises(httpx.ConnectError):
            await other.get(f"http://127.0.0.2:{view.port}/")
