"""AGENTS.md: which files are read, in which order, the cap, and the system prompt."""

from __future__ import annotations

from engine_helpers import make_session, run_turn
from vibe_tui.config.paths import config_dir
from vibe_tui.core.agents_md import MAX_MEMORY_BYTES, load_memory
from vibe_tui.core.prompts import MEMORY_INTRO
from vibe_tui.testing.script import text


def make_repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir(parents=True)
    return repo


def write_user_memory(text: str) -> None:
    path = config_dir() / "AGENTS.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_user_file_then_root_down_to_the_working_folder(tmp_path):
    repo = make_repo(tmp_path)
    write_user_memory("Use British spelling.\n")
    (repo / "AGENTS.md").write_text("Indent with tabs.\n")
    (repo / "pkg" / "AGENTS.md").write_text("Indent with 4 spaces in pkg.\n")
    (repo / "pkg" / "sub" / "other.md").write_text("not an AGENTS.md\n")
    (tmp_path / "AGENTS.md").write_text("Above the repository: never read.\n")
    memory = load_memory(repo / "pkg", repo / "pkg" / "sub")
    assert [f.path for f in memory.files] == [
        config_dir() / "AGENTS.md", repo / "AGENTS.md", repo / "pkg" / "AGENTS.md"]
    prompt = memory.prompt
    # Most general first: the closer file comes later, and later wins.
    assert (prompt.index("British") < prompt.index("tabs") < prompt.index("4 spaces"))
    assert "From pkg/AGENTS.md (pkg)" in prompt
    assert "From AGENTS.md (the repository root)" in prompt
    assert "never read" not in prompt
    report = memory.describe()
    assert str(repo / "pkg" / "AGENTS.md") in report and "later files win" in report


def test_without_git_the_workspace_is_the_root(tmp_path):
    (tmp_path / "AGENTS.md").write_text("Parent folder, not a repository.\n")
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "AGENTS.md").write_text("Project rules.\n")
    memory = load_memory(workspace)
    assert [f.path for f in memory.files] == [workspace / "AGENTS.md"]


def test_the_cap_keeps_the_closest_files_whole_and_cuts_the_general_ones(tmp_path):
    repo = make_repo(tmp_path)
    write_user_memory("user line\n" * 500)  # 5,000 bytes
    (repo / "AGENTS.md").write_text("root rule line\n" * 2000)  # 30,000 bytes
    (repo / "pkg" / "AGENTS.md").write_text("closest rule\n" * 300)  # 3,900 bytes
    memory = load_memory(repo, repo / "pkg")
    closest, root = memory.files[-1], memory.files[-2]
    assert closest.path == repo / "pkg" / "AGENTS.md" and not closest.truncated
    assert closest.text == "closest rule\n" * 300
    assert root.truncated and "cut here: AGENTS.md files are limited to 32 KiB" in root.text
    assert root.text.splitlines()[-2] == "root rule line"  # cut on a whole line
    assert memory.used <= MAX_MEMORY_BYTES
    assert len(memory.files) == 2  # no room was left for the user's file
    assert "cut to fit" in memory.describe()


def test_a_huge_single_file_is_read_only_up_to_the_cap(tmp_path):
    (tmp_path / "AGENTS.md").write_text("x" * (MAX_MEMORY_BYTES * 4))
    memory = load_memory(tmp_path)
    assert memory.used <= MAX_MEMORY_BYTES and memory.files[0].truncated
    assert memory.files[0].size == MAX_MEMORY_BYTES * 4


def test_nothing_loaded_says_where_it_looked(tmp_path):
    memory = load_memory(tmp_path)
    assert memory.files == () and memory.prompt == ""
    assert "No AGENTS.md loaded" in memory.describe()


async def test_the_model_sees_the_files_in_its_system_prompt(fake_llm, tmp_path):
    repo = make_repo(tmp_path)
    (repo / "AGENTS.md").write_text("Run tests with `make check`.\n")
    fake_llm.push(text("ok"), text("ok again"))
    session = make_session(fake_llm, repo)
    await run_turn(session, "how do I test?")
    await run_turn(session, "and again?")
    first, second = (request["messages"][0]["content"] for request in fake_llm.requests)
    assert MEMORY_INTRO.strip() in first and "Run tests with `make check`." in first
    assert first == second  # read once: the prefix stays the same all session
    assert "AGENTS.md" in session.memory_report()


async def test_an_agents_md_changed_between_turns_is_in_the_next_request(fake_llm, tmp_path):
    from engine_helpers import of_type
    from vibe_tui.core import events as ev

    repo = make_repo(tmp_path)
    (repo / "AGENTS.md").write_text("Run tests with `make check`.\n")
    fake_llm.push(text("ok"), text("ok again"), text("and again"))
    session = make_session(fake_llm, repo)
    await run_turn(session, "how do I test?")
    (repo / "AGENTS.md").write_text("Run tests with `tox -q`, never make.\n")
    (repo / "pkg" / "AGENTS.md").write_text("pkg: no new dependencies.\n")
    await run_turn(session, "and now?")
    await run_turn(session, "still?")
    first, second, third = (r["messages"][0]["content"] for r in fake_llm.requests)
    assert "`make check`" in first and "`tox -q`" not in first
    assert "`tox -q`" in second and "`make check`" not in second
    assert second == third  # unchanged on disk: the same prompt, byte for byte
    reloads = [n.text for n in of_type(session, ev.Notice) if "AGENTS.md changed" in n.text]
    assert len(reloads) == 1
    await session.close()
