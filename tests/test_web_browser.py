"""The web view in a real browser: Debian's headless Chromium driven by Playwright, against
the real server on 127.0.0.1 and a session talking to the fake model server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio

from engine_helpers import make_session, of_type
from vibe_tui.core import events as ev
from vibe_tui.testing.script import hold, text, tool_call, tool_calls
from vibe_tui.web import WebView

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
# Markup a model, a file or a command could carry. If any of it ran, window.pwned is set.
PAYLOAD = ('<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
           '<b onmouseover="window.pwned=3">bold?</b>')

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="Debian's chromium is not installed (apt-get install chromium)"),
    # One browser for the module (launching one costs seconds), so one event loop too.
    pytest.mark.asyncio(loop_scope="module"),
]


@pytest.fixture(scope="module", autouse=True)
def litellm_loaded() -> None:
    """LiteLLM's first import takes seconds: pay it before a page waits on a turn."""
    from vibe_tui.core.model import litellm_module

    litellm_module()


@pytest_asyncio.fixture(loop_scope="module")
async def session(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    yield session
    await session.close()


@pytest_asyncio.fixture(loop_scope="module")
async def view(session):
    view = WebView(session, port=0)
    await view.start()
    yield view
    await view.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        # Playwright gives the browser a fresh temporary profile (user data dir).
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield browser
        await browser.close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser):
    context = await browser.new_context()  # nothing shared with the previous test's tab
    page = await context.new_page()
    page.set_default_timeout(30_000)  # a shared, busy CI machine
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    await context.close()
    assert errors == [], "the page raised script errors"


async def open_view(page, view: WebView) -> None:
    await page.goto(view.url)
    await page.wait_for_selector("#conn[data-state=connected]")


async def caught_up(page, session) -> None:
    """Wait until the page has drawn every event the session has emitted so far."""
    last = session.event_log[-1].id
    await page.wait_for_function("(last) => Number(document.body.dataset.lastEventId) >= last",
                                 arg=last)


async def texts(page, selector: str) -> list[str]:
    return await page.locator(selector).all_text_contents()


async def test_the_page_loads_and_streams_a_turn(fake_llm, session, view, page):
    answer = ("# Plan\n\nHello **world**, see `main.py` and [docs](https://example.org/d).\n\n"
              "- one\n- two\n\n```python\nprint('hi')\n```\n" + "and more words " * 40)
    fake_llm.push(text(answer, chunk_size=4, delay=0.01))
    await open_view(page, view)
    await page.fill("#prompt", "explain")
    await page.press("#prompt", "Enter")
    # Text shows while it streams, not only at the end.
    first = page.locator(".msg.assistant").first
    await first.get_by_text("Hello").wait_for()
    shown = await first.text_content()
    assert len(shown) < len(answer) and session.running
    await page.wait_for_selector("#turn-state[data-state=idle]")
    assert await texts(page, ".msg.user .text") == ["explain"]
    assert await texts(page, ".msg.assistant h1") == ["Plan"]
    assert await texts(page, ".msg.assistant strong") == ["world"]
    assert await texts(page, ".msg.assistant li") == ["one", "two"]
    assert await texts(page, ".msg.assistant pre code") == ["print('hi')"]
    link = page.locator(".msg.assistant a")
    assert await link.get_attribute("href") == "https://example.org/d"
    assert "noopener" in await link.get_attribute("rel")
    assert (await page.text_content("#workspace")) == str(session.workspace)
    assert "tokens" in await page.text_content("#usage")


async def test_an_approval_answered_in_the_browser_resolves_the_turn(
        fake_llm, session, view, page, tmp_path):
    content = "first line\n" + PAYLOAD + "\n"
    fake_llm.push(tool_calls(tool_call("write_file", {"path": "note.txt", "content": content})),
                  text("written"))
    await open_view(page, view)
    session.send("write a note")
    card = page.locator(".approval")
    await card.wait_for()
    assert await page.get_attribute(".tool", "data-state") == "waiting"
    # The proposed diff shows as coloured lines, its markup as text.
    added = await texts(page, ".approval pre.diff .add")
    assert "+first line" in added and f"+{PAYLOAD}" in added
    assert await page.locator("#log img, #log script, #log b").count() == 0
    assert not (tmp_path / "note.txt").exists()
    await card.get_by_role("button", name="Allow", exact=True).click()
    await session.wait_idle()
    assert (tmp_path / "note.txt").read_text() == content
    resolved = of_type(session, ev.ApprovalResolved)
    assert [(r.decision, r.by) for r in resolved] == [("allow", "web")]
    await page.wait_for_selector(".approval.resolved")
    assert "answered in the web view" in await card.text_content()
    assert await card.get_by_role("button").count() == 0
    await page.wait_for_selector(".tool[data-state=ok]")
    assert await page.evaluate("window.pwned") is None


async def test_always_shows_its_grant_and_deny_sends_a_note(fake_llm, session, view, page):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("ok"))
    await open_view(page, view)
    session.send("make a file")
    card = page.locator(".approval")
    await card.wait_for()
    grant = of_type(session, ev.ApprovalRequested)[0].grant
    assert grant and grant in await card.get_by_role("button", name="Always").text_content()
    await card.locator("input.note").fill("use write_file")
    await card.get_by_role("button", name="Deny").click()
    await session.wait_idle()
    resolved = of_type(session, ev.ApprovalResolved)[0]
    assert (resolved.decision, resolved.by, resolved.note) == ("deny", "web", "use write_file")
    await page.wait_for_selector(".tool[data-state=denied]")
    assert "use write_file" in await card.text_content()


async def test_an_approval_answered_in_the_terminal_closes_the_browser_card(
        fake_llm, session, view, page, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("done"))
    await open_view(page, view)
    session.send("make a file")
    card = page.locator(".approval")
    await card.get_by_role("button", name="Allow", exact=True).wait_for()
    asked = of_type(session, ev.ApprovalRequested)[0]
    assert session.answer(asked.approval_id, "allow", by="tui").accepted
    await page.wait_for_selector(".approval.resolved")
    assert "answered in the terminal" in await card.text_content()
    assert await card.get_by_role("button").count() == 0
    await session.wait_idle()
    assert (tmp_path / "made.txt").exists()
    await page.wait_for_selector(".tool[data-state=ok]")


async def test_steering_and_stop_from_the_browser(fake_llm, session, view, page):
    fake_llm.push(hold(text("first answer")), hold(text("never shown")))
    await open_view(page, view)
    await page.fill("#prompt", "start")
    await page.click("#send")
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    await page.wait_for_selector("#send:text('Steer')")
    await page.fill("#prompt", "also this")
    await page.press("#prompt", "Enter")
    await page.wait_for_selector("#feedback:text('sent to the running turn')")
    fake_llm.release()
    await asyncio.to_thread(fake_llm.wait_for_requests, 2)
    assert any(m.get("content") == "also this" for m in fake_llm.requests[1]["messages"])
    await page.wait_for_selector(".msg.user:has(.tag)")
    assert await texts(page, ".msg.user .text") == ["start", "also this"]

    await page.click("#stop")
    await session.wait_idle()
    assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
    await page.wait_for_selector(".line.turn-end[data-state=interrupted]")
    assert await page.is_disabled("#stop")
    fake_llm.release()


async def test_a_reload_draws_the_conversation_once(fake_llm, session, view, page):
    fake_llm.push(tool_calls(tool_call("list_dir", {"path": "."})), text("the answer"))
    await open_view(page, view)
    session.send("look around")
    await session.wait_idle()
    await caught_up(page, session)
    for _ in range(2):
        await page.reload()
        await caught_up(page, session)
        assert await texts(page, ".msg.user .text") == ["look around"]
        assert await texts(page, ".msg.assistant") == ["the answer"]
        assert await page.locator(".tool").count() == 1


async def test_a_dropped_stream_resumes_with_last_event_id(fake_llm, session, view, page):
    fake_llm.push(text("before the drop"), text("after the drop"))
    streams = []
    page.on("request", lambda request: streams.append(request)
            if "/events" in request.url else None)
    await open_view(page, view)
    session.send("one")
    await session.wait_idle()
    await caught_up(page, session)
    seen = session.event_log[-1].id
    # The server goes away and comes back (same port, same token): the tab reconnects by
    # itself and asks only for what it has not seen.
    await view.stop()
    await page.wait_for_selector("#conn:not([data-state=connected])")
    await view.start()
    await page.wait_for_selector("#conn[data-state=connected]")
    session.send("two")
    await session.wait_idle()
    await caught_up(page, session)
    assert await texts(page, ".msg.assistant") == ["before the drop", "after the drop"]
    assert await texts(page, ".msg.user .text") == ["one", "two"]
    headers = [await request.all_headers() for request in streams]
    assert "last-event-id" not in headers[0]
    assert headers[-1].get("last-event-id") == str(seen)


async def test_markup_in_tool_output_and_model_text_shows_as_text_and_runs_nothing(
        fake_llm, session, view, page, tmp_path):
    (tmp_path / "evil.html").write_text(PAYLOAD + "\n")
    fake_llm.push(
        tool_calls(tool_call("read_file", {"path": "evil.html"})),
        text(f"Found {PAYLOAD} and [click](javascript:window.pwned=4) "
             f"**{PAYLOAD}** `{PAYLOAD}`"))
    await open_view(page, view)
    session.send("read it")
    await session.wait_idle()
    await caught_up(page, session)
    await page.click(".tool summary")
    output = await page.text_content(".tool pre.output")
    assert PAYLOAD in output
    message = await page.text_content(".msg.assistant")
    assert message.count(PAYLOAD) == 3 and "click (javascript:window.pwned=4)" in message
    assert await page.locator("#log img, #log script, #log b, #log a").count() == 0
    await page.hover(".msg.assistant")
    assert await page.evaluate("window.pwned") is None


async def test_an_approval_card_shows_controls_in_names_escaped_and_drops_none(
        fake_llm, session, view, page, tmp_path):
    name = "esc\x1b]0;X\x07\u202etxt.exe"  # reads "esc" + "exe.txt" when the override acts
    shown = "esc\\x1b]0;X\\x07\\u202etxt.exe"
    fake_llm.push(
        tool_calls(tool_call("write_file", {"path": name, "content": "a\u202eb\x1b[31mred\n"})),
        text("wrote \u2066it\u2069 \x1b]8;;https://evil.example/\x1b\\here\x1b]8;;\x1b\\"))
    await open_view(page, view)
    session.send("write it")
    card = page.locator(".approval")
    await card.wait_for()
    assert await card.locator(".title").text_content() == "Allow write_file?"
    assert await card.locator(".path").text_content() == shown
    assert f"+++ b/{shown}" in await texts(page, ".approval pre.diff .meta")
    # File content is output: its sequences go, as in the terminal; its bidi shows.
    assert "+a\\u202ebred" in await texts(page, ".approval pre.diff .add")
    assert await page.text_content(".tool .summary") == shown
    shown_card = await card.text_content()
    assert not set(shown_card) & {"\u202e", "\x1b", "\x07"}
    await card.get_by_role("button", name="Allow", exact=True).click()
    await session.wait_idle()
    assert (tmp_path / name).read_text() == "a\u202eb\x1b[31mred\n"
    await caught_up(page, session)
    assert await page.text_content(".msg.assistant") == "wrote \\u2066it\\u2069 here"


async def test_a_command_card_shows_its_sequences_escaped(fake_llm, session, view, page):
    command = "printf '\x1b]52;c;ZXZpbA==\x07'\necho \u202edone"
    fake_llm.push(tool_calls(tool_call("bash", {"command": command})), text("ok"))
    await open_view(page, view)
    session.send("print")
    card = page.locator(".approval")
    await card.wait_for()
    assert await card.locator(".command").text_content() == (
        "printf '\\x1b]52;c;ZXZpbA==\\x07'\necho \\u202edone")
    session.interrupt()
    await session.wait_idle()


async def test_the_tui_serves_the_web_view_and_a_browser_answer_closes_its_modal(
        fake_llm, browser, tmp_path):
    """``vibe-tui --web``: the link in the status bar (never in the session log); the
    terminal shows the approval modal; the browser answers first and the modal closes."""
    from app_helpers import SIZE, wait_for
    from vibe_tui.app import VibeApp
    from vibe_tui.screens.approval import ApprovalScreen

    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("made it"))
    app = VibeApp(make_session(fake_llm, tmp_path), web_port=0)
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(30_000)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.status_bar.web_url, timeout=30, what="the link")
            url = app.status_bar.web_url
            assert url == app.web_view.url and "token=" in url
            assert not any(url in str(event.to_json()) for event in app.session.event_log)
            await page.goto(url)
            await page.wait_for_selector("#conn[data-state=connected]")
            app.session.send("make a file")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="modal")
            card = page.locator(".approval")
            await card.get_by_role("button", name="Allow", exact=True).click()
            await wait_for(pilot, lambda: not isinstance(app.screen, ApprovalScreen),
                           timeout=30, what="the modal to close")
            await wait_for(pilot, lambda: not app.session.running and of_type(
                app.session, ev.TurnEnded), timeout=30, what="the turn to end")
            assert (tmp_path / "made.txt").exists()
            resolved = of_type(app.session, ev.ApprovalResolved)
            assert [(r.decision, r.by) for r in resolved] == [("allow", "web")]
            await app.action_quit()
        assert not app.web_view.running
    finally:
        await context.close()
