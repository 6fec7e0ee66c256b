"""/compact in the app: the notice's token counts are the context the next request sends,
as the provider (here the fake server, which reports usage) counts it."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.widgets.conversation import Entry


def notices(app) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(".-notice")]


def gauge(app) -> int:
    usage = app.session.context_usage
    assert usage is not None
    return usage.tokens


async def test_compact_reports_the_tokens_the_next_request_sends(fake_llm, tmp_path):
    # A long tool result: the fake server counts it (characters / 4) unlike our tokenizer,
    # so an estimate scaled from the counts of other texts misses its size.
    (tmp_path / "notes.txt").write_text("alpha line\n" * 300)
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"})),
                  text("first answer " * 150), text("second answer " * 150),
                  text("Goal: read the notes. Files: notes.txt. Left to do: nothing."),
                  text("ok"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read the notes")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "and again")
        await wait_turns_ended(pilot, app.session, count=2)
        before_gauge = gauge(app)

        await submit(pilot, "/compact")
        await wait_for(pilot, lambda: events_of(app.session, ev.Compacted), what="compaction")
        compacted = events_of(app.session, ev.Compacted)[0]
        assert compacted.steps == ["summary"]
        # Before: what the gauge showed (the last request and its answer, as reported).
        assert compacted.tokens_before == before_gauge
        await wait_for(pilot, lambda: any(
            f"{compacted.tokens_before:,} → {compacted.tokens_after:,} tokens" in notice
            for notice in notices(app)), what="the notice")
        assert gauge(app) == compacted.tokens_after

        # After: what the provider counts for the next request (the summary is our count,
        # and the new message adds a token or two).
        await submit(pilot, "x")
        await wait_turns_ended(pilot, app.session, count=3)
        sent = events_of(app.session, ev.Usage)[-1].prompt_tokens
        assert compacted.tokens_after > 0
        assert abs(sent - compacted.tokens_after) <= 0.05 * sent
