"""``@path`` in a message attaches the file: what the model server received, what the
conversation shows, and that it survives ``--resume``."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    wait_for,
    wait_turns_ended,
)
from test_headless import make_repo, run_cli
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.testing.script import text
from vibe_tui.widgets.conversation import Entry

SMALL = "def add(a, b):\n    return a + b  # SMALL_MARKER\n"


def big_module(functions: int = 300) -> str:
    return "".join(f"def function_{n}(x):\n    y = x + {n}\n    return y\n\n"
                   for n in range(functions))


def make_workspace(root):
    (root / "calc.py").write_text(SMALL)
    (root / "big.py").write_text(big_module())
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    (root / "pkg").mkdir()
    (root / "pkg" / "one.py").write_text("ONE = 1\n")
    (root / "pkg" / "two.py").write_text("TWO = 2\n")
    (root / ".env").write_text("API_TOKEN=SECRET_VALUE_123\n")
    (root.parent / "outside.txt").write_text("OUTSIDE_MARKER\n")
    return root


def notices(app) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(".-notice")]


async def test_at_paths_attach_files_to_the_message_with_a_note_for_each(fake_llm, tmp_path):
    (tmp_path / "ws").mkdir()
    workspace = make_workspace(tmp_path / "ws")
    fake_llm.push(text("It adds."))
    app = make_app(fake_llm, workspace, deny=["Read(./.env)"])
    message = ("explain @calc.py, then @big.py @logo.png @pkg/ @.env @missing.py "
               "@../outside.txt")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, message)
        await wait_turns_ended(pilot, app.session)
        sent = fake_llm.requests[0]["messages"][-1]["content"]
        # The user's words come last, as typed; the files come before them.
        assert sent.endswith(message)
        assert SMALL in sent
        # A big file: its head, then an outline of the rest, not all of it.
        assert "def function_0(x):" in sent and "def function_299(x):" in sent
        assert "    y = x + 299" not in sent
        assert "binary" in sent and "\\x89PNG" not in sent and "IHDR" not in sent
        assert "one.py" in sent and "two.py" in sent
        assert "SECRET_VALUE_123" not in sent and "deny rule" in sent
        assert "missing.py" in sent and "no such file" in sent
        assert "OUTSIDE_MARKER" not in sent and "outside the workspace" in sent
        # The conversation says what went with the message.
        await wait_for(pilot, lambda: any(n.startswith("attached") for n in notices(app)),
                       what=f"the attachments notice, notices: {notices(app)}")
        shown = next(n for n in notices(app) if n.startswith("attached"))
        assert "@calc.py: 2 lines" in shown and "@pkg/: a listing" in shown
        assert "@big.py: lines 1-200 of 1,200 lines and an outline of the rest" in shown
        assert ".env" in shown and "logo.png" in shown
        assert len(shown.splitlines()) == 8  # a heading and one line per mention
        store = app.session.store_path
    # In the log: a resumed session sends the same conversation.
    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             workspace, store)
    assert any(SMALL in m["content"] for m in resumed.messages if m["role"] == "user")
    await resumed.close()


async def test_a_plain_message_an_email_and_a_decorator_attach_nothing(fake_llm, tmp_path):
    (tmp_path / "calc.py").write_text(SMALL)
    fake_llm.push(text("ok"))
    app = make_app(fake_llm, tmp_path)
    message = "mail me@example.com about calc.py and why @dataclass fails"
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, message)
        await wait_turns_ended(pilot, app.session)
        assert fake_llm.requests[0]["messages"][-1]["content"] == message
        assert not events_of(app.session, ev.Notice)


def test_headless_p_attaches_the_file_too(fake_llm, tmp_path):
    repo = make_repo(tmp_path)
    fake_llm.push(text("It subtracts."))
    result = run_cli(repo, fake_llm, "-p", "explain @calc.py", home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    sent = fake_llm.requests[0]["messages"][-1]["content"]
    assert "return a - b" in sent and sent.endswith("explain @calc.py")
    assert "attached" in result.stderr and "calc.py" in result.stderr
