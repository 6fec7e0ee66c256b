"""read_file, list_dir, write_file and edit_file against real tmp_path workspaces."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from unidiff import PatchSet

from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, schema_of
from vibe_tui.tools.file_read import MAX_LIST_ENTRIES, ListDirTool, ReadFileTool
from vibe_tui.tools.file_write import EditFileTool, WriteFileTool
from vibe_tui.tools.files import FILE_TOOLS

read_file = ReadFileTool()
list_dir = ListDirTool()
write_file = WriteFileTool()


class ReadThenEdit:
    """edit_file as the model must use it: the file read first (when it can be read)."""

    tool = EditFileTool()

    def __getattr__(self, name: str):
        return getattr(self.tool, name)

    async def _read(self, args: dict, ctx: ToolContext) -> None:
        try:
            await read_file.run({"path": args["path"]}, ctx)
        except ToolError:
            pass  # a missing, binary or directory path: edit_file's own error is the test

    async def run(self, args: dict, ctx: ToolContext):
        await self._read(args, ctx)
        return await self.tool.run(args, ctx)

    async def preview(self, args: dict, ctx: ToolContext):
        await self._read(args, ctx)
        return await self.tool.preview(args, ctx)


edit_file = ReadThenEdit()

PYTHON_SOURCE = "def f(x):\n    if x:\n        return x + 1\n    return 0\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return ToolContext(workspace=workspace)


# ---------------------------------------------------------------- the tool set


def test_file_tools_names_kinds_and_schemas() -> None:
    assert [tool.name for tool in FILE_TOOLS] == ["read_file", "list_dir", "write_file", "edit_file"]
    assert {tool.name: tool.kind for tool in FILE_TOOLS} == {
        "read_file": "read",
        "list_dir": "read",
        "write_file": "edit",
        "edit_file": "edit",
    }
    for tool in FILE_TOOLS:
        function = schema_of(tool)["function"]
        assert function["description"] and len(function["description"]) < 400
        assert function["parameters"]["type"] == "object"
    assert edit_file.parameters["required"] == ["path", "old_string", "new_string"]
    assert set(edit_file.parameters["properties"]) == {"path", "old_string", "new_string", "replace_all"}
    assert set(read_file.parameters["properties"]) == {"path", "offset", "limit"}
    assert write_file.parameters["required"] == ["path", "content"]
    assert "required" not in list_dir.parameters


def test_precheck_returns_request_with_resolved_path(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    request = read_file.precheck({"path": "src/../src/a.py"}, ctx)
    assert request == ToolRequest(
        "read_file", "read", {"path": "src/../src/a.py", "offset": 1, "limit": 2000}, (workspace / "src" / "a.py",)
    )
    edit = edit_file.precheck({"path": "a.py", "old_string": "a", "new_string": "b"}, ctx)
    assert (edit.tool, edit.kind, edit.paths) == ("edit_file", "edit", (workspace / "a.py",))
    assert write_file.precheck({"path": "n.txt", "content": ""}, ctx).kind == "edit"
    assert list_dir.precheck({}, ctx).paths == (workspace,)


def test_precheck_resolves_relative_to_cwd(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    ctx = ToolContext(workspace=workspace, cwd=workspace / "sub")
    assert read_file.precheck({"path": "a.py"}, ctx).paths == (workspace / "sub" / "a.py",)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "missing required argument 'path'"),
        ({"path": 3}, "argument 'path' must be a str"),
        ({"path": "a", "offset": 0}, "offset must be 1 or more"),
        ({"path": "a", "limit": -1}, "limit must be 1 or more"),
        ({"path": "a", "offset": "x"}, "argument 'offset' must be a int"),
    ],
)
def test_read_precheck_validates_arguments(ctx: ToolContext, args: dict, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        read_file.precheck(args, ctx)


def test_edit_precheck_validates_arguments(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="missing required argument 'old_string'"):
        edit_file.precheck({"path": "a", "new_string": "x"}, ctx)
    with pytest.raises(ToolError, match="old_string is empty.*write_file"):
        edit_file.precheck({"path": "a", "old_string": "", "new_string": "x"}, ctx)
    with pytest.raises(ToolError, match="identical"):
        edit_file.precheck({"path": "a", "old_string": "x", "new_string": "x"}, ctx)
    with pytest.raises(ToolError, match="missing required argument 'content'"):
        write_file.precheck({"path": "a"}, ctx)


# ---------------------------------------------------------------- containment


def _all_tool_calls(path: str) -> list[tuple]:
    return [
        (read_file, {"path": path}),
        (list_dir, {"path": path}),
        (write_file, {"path": path, "content": "x"}),
        (edit_file, {"path": path, "old_string": "a", "new_string": "b"}),
    ]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


def _refused_everywhere(ctx: ToolContext, path: str, message: str) -> None:
    for tool, args in _all_tool_calls(path):
        with pytest.raises(ToolError, match=message):
            tool.precheck(args, ctx)


async def _run_refused_everywhere(ctx: ToolContext, path: str, message: str) -> None:
    for tool, args in _all_tool_calls(path):
        with pytest.raises(ToolError, match=message):
            await tool.run(args, ctx)


async def test_dotdot_escape_is_refused(ctx: ToolContext, outside: Path) -> None:
    _refused_everywhere(ctx, "../outside/secret.txt", "outside the workspace")
    await _run_refused_everywhere(ctx, "../outside/secret.txt", "outside the workspace")
    assert (outside / "secret.txt").read_text() == "secret\n"


async def test_absolute_path_outside_is_refused(ctx: ToolContext, outside: Path) -> None:
    _refused_everywhere(ctx, str(outside / "secret.txt"), "outside the workspace")
    await _run_refused_everywhere(ctx, "/etc/passwd", "outside the workspace")


async def test_absolute_path_inside_is_allowed(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\n")
    output = await read_file.run({"path": str(workspace / "a.txt")}, ctx)
    assert "hello" in output.text


async def test_sibling_with_same_prefix_is_outside(ctx: ToolContext, workspace: Path) -> None:
    evil = workspace.parent / (workspace.name + "-evil")
    evil.mkdir()
    (evil / "f.txt").write_text("evil\n")
    _refused_everywhere(ctx, str(evil / "f.txt"), "outside the workspace")
    await _run_refused_everywhere(ctx, f"../{evil.name}/f.txt", "outside the workspace")


async def test_symlink_inside_pointing_outside_is_refused(ctx: ToolContext, workspace: Path, outside: Path) -> None:
    (workspace / "link").symlink_to(outside, target_is_directory=True)
    (workspace / "file_link.txt").symlink_to(outside / "secret.txt")
    _refused_everywhere(ctx, "link/secret.txt", "outside the workspace")
    _refused_everywhere(ctx, "file_link.txt", "outside the workspace")
    await _run_refused_everywhere(ctx, "link/new.txt", "outside the workspace")
    assert not (outside / "new.txt").exists()
    assert (outside / "secret.txt").read_text() == "secret\n"


@pytest.fixture
def symlink_loop(workspace: Path) -> Path:
    (workspace / "loop").symlink_to("loop2")
    (workspace / "loop2").symlink_to("loop")
    return workspace


async def test_a_symlink_loop_is_refused_with_a_reason(ctx: ToolContext, symlink_loop: Path) -> None:
    for path in ("loop", "loop2/inner.txt", str(symlink_loop / "loop" / "x")):
        _refused_everywhere(ctx, path, "symlink loop")
        await _run_refused_everywhere(ctx, path, "symlink loop")


async def test_a_name_too_long_is_refused_with_a_reason(ctx: ToolContext) -> None:
    for path in ("a" * 300, "new/" + "b" * 300, "/".join(["c" * 200] * 30)):
        _refused_everywhere(ctx, path, "too long")
        await _run_refused_everywhere(ctx, path, "too long")


def test_nul_byte_in_path_is_refused(ctx: ToolContext) -> None:
    _refused_everywhere(ctx, "a.txt\x00.png", "NUL byte")


def test_home_directory_is_refused(ctx: ToolContext, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(outside))
    _refused_everywhere(ctx, "~/secret.txt", "outside the workspace")
    _refused_everywhere(ctx, "~", "outside the workspace")


# ---------------------------------------------------------------- read_file


async def test_read_numbers_lines_like_cat_n(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.py").write_text(PYTHON_SOURCE)
    output = await read_file.run({"path": "a.py"}, ctx)
    lines = output.text.split("\n")
    assert lines[0] == "     1\tdef f(x):"
    assert lines[3] == "     4\t    return 0"
    assert lines[4] == "(lines 1-4 of 4; end of file)"
    assert len(lines) == 5


async def test_read_records_mtime(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.py"
    path.write_text("x = 1\n")
    await read_file.run({"path": "a.py"}, ctx)
    assert ctx.read_files[path] == path.stat().st_mtime_ns


async def test_read_pages_with_offset_and_limit(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"row {n}\n" for n in range(1, 5401)))
    first = await read_file.run({"path": "big.txt"}, ctx)
    assert first.text.split("\n")[-1] == "(lines 1-2000 of 5400; call read_file with offset=2001 to continue)"
    assert first.text.count("\n") == 2000

    middle = await read_file.run({"path": "big.txt", "offset": 2001, "limit": 3}, ctx)
    assert middle.text.split("\n") == [
        "  2001\trow 2001",
        "  2002\trow 2002",
        "  2003\trow 2003",
        "(lines 2001-2003 of 5400; call read_file with offset=2004 to continue)",
    ]
    last = await read_file.run({"path": "big.txt", "offset": "5399"}, ctx)
    assert last.text.endswith("  5400\trow 5400\n(lines 5399-5400 of 5400; end of file)")


async def test_read_limit_is_capped(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "big.txt").write_text("x\n" * 3000)
    output = await read_file.run({"path": "big.txt", "limit": 100000}, ctx)
    assert "(lines 1-2000 of 3000; call read_file with offset=2001" in output.text


async def test_read_offset_past_end(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match="offset 5 is past the end of a.txt, which has 2 lines"):
        await read_file.run({"path": "a.txt", "offset": 5}, ctx)


async def test_read_empty_file(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "empty.txt").write_text("")
    assert "empty" in (await read_file.run({"path": "empty.txt"}, ctx)).text


async def test_read_last_line_without_newline(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\ntwo")
    output = await read_file.run({"path": "a.txt"}, ctx)
    assert output.text == "     1\tone\n     2\ttwo\n(lines 1-2 of 2; end of file)"


async def test_read_truncates_very_long_lines(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "min.js").write_text("a" * 5000 + "\nshort\n")
    output = await read_file.run({"path": "min.js"}, ctx)
    first, second = output.text.split("\n")[:2]
    assert first == "     1\t" + "a" * 2000 + "... [line truncated: 5,000 characters]"
    assert second == "     2\tshort"


async def test_read_refuses_binary_with_size(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" + bytes(range(256)) * 4)
    with pytest.raises(ToolError, match=r"img.png is a binary file \(1,035 bytes\)"):
        await read_file.run({"path": "img.png"}, ctx)


async def test_read_refuses_binary_without_nul(ctx: ToolContext, workspace: Path) -> None:
    # Not UTF-8 and mostly control bytes: binary even without a NUL.
    (workspace / "blob.bin").write_bytes(bytes([1, 2, 3, 0xFF, 4, 5, 6, 7]) * 100)
    with pytest.raises(ToolError, match="binary file"):
        await read_file.run({"path": "blob.bin"}, ctx)


async def test_read_falls_back_to_latin1(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "old.txt").write_bytes("café crème\n".encode("latin-1"))
    output = await read_file.run({"path": "old.txt"}, ctx)
    assert "     1\tcafé crème" in output.text
    assert "decoded as latin-1" in output.text


async def test_read_crlf_and_bom_are_not_shown(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    output = await read_file.run({"path": "win.txt"}, ctx)
    assert output.text.startswith("     1\tone\n     2\ttwo\n")
    assert "\r" not in output.text and "\ufeff" not in output.text


async def test_read_missing_file_suggests_similar_names(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    for name in ["config.py", "configs.py", "conftest.py", "unrelated.md"]:
        (workspace / "src" / name).write_text("")
    with pytest.raises(ToolError) as caught:
        await read_file.run({"path": "src/confg.py"}, ctx)
    message = str(caught.value)
    assert message.startswith("file not found: src/confg.py; similar names: src/config.py")
    assert "unrelated" not in message


async def test_read_missing_file_without_similar_names_shows_the_top_level(
        ctx: ToolContext, workspace: Path) -> None:
    (workspace / "app").mkdir()
    (workspace / "README.md").write_text("")
    with pytest.raises(ToolError) as caught:
        await read_file.run({"path": "zzz.py"}, ctx)
    assert str(caught.value) == "file not found: zzz.py; the workspace's top level holds: README.md, app/"
    with pytest.raises(ToolError, match="file not found: no/such/file.py .folder no/such does not exist.; "
                                        "the workspace's top level holds: README.md, app/$"):
        await read_file.run({"path": "no/such/file.py"}, ctx)


async def test_a_guessed_folder_is_answered_with_the_real_place_of_that_name(
        ctx: ToolContext, workspace: Path) -> None:
    """The local model asked for src/config.py where the project keeps app/config.py."""
    (workspace / "app" / "settings").mkdir(parents=True)
    (workspace / "app" / "settings" / "config.py").write_text("PORT = 1\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "config.py").write_text("")
    (workspace / ".gitignore").write_text("build/\n")
    with pytest.raises(ToolError) as caught:
        await read_file.run({"path": "src/config.py"}, ctx)
    assert str(caught.value) == ("file not found: src/config.py (folder src does not exist); "
                                 "files named config.py in the workspace: app/settings/config.py")


async def test_read_directory_points_to_list_dir(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    with pytest.raises(ToolError, match="src is a directory.*list_dir"):
        await read_file.run({"path": "src"}, ctx)


async def test_read_preview_is_none(ctx: ToolContext) -> None:
    assert await read_file.preview({"path": "a"}, ctx) is None
    assert await list_dir.preview({}, ctx) is None


# ---------------------------------------------------------------- list_dir


async def test_list_dir_sorts_marks_folders_and_skips_git(ctx: ToolContext, workspace: Path) -> None:
    for folder in ["src", ".git", "docs"]:
        (workspace / folder).mkdir()
    for name in ["b.txt", "A.md", ".env"]:
        (workspace / name).write_text("")
    (workspace / "link_to_src").symlink_to(workspace / "src")
    (workspace / "broken").symlink_to(workspace / "nowhere")
    output = await list_dir.run({}, ctx)
    assert output.text.split("\n") == [
        ".: 7 entries",
        ".env",
        "A.md",
        "b.txt",
        "broken",
        "docs/",
        "link_to_src/",
        "src/",
    ]


async def test_list_dir_of_subfolder(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "main.py").write_text("")
    output = await list_dir.run({"path": "src"}, ctx)
    assert output.text == "src: 2 entries\nmain.py\npkg/"
    (workspace / "empty").mkdir()
    assert (await list_dir.run({"path": "empty"}, ctx)).text == "empty is empty"


async def test_list_dir_caps_entries(ctx: ToolContext, workspace: Path) -> None:
    for n in range(MAX_LIST_ENTRIES + 37):
        (workspace / f"f{n:04d}.txt").write_text("")
    lines = (await list_dir.run({"path": "."}, ctx)).text.split("\n")
    assert lines[0] == f".: {MAX_LIST_ENTRIES + 37} entries"
    assert len(lines) == 1 + MAX_LIST_ENTRIES + 1
    assert lines[-1].startswith("... and 37 more entries not shown")


async def test_list_dir_errors(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("")
    with pytest.raises(ToolError, match="^directory not found: nope; the workspace's top level holds: a.txt$"):
        await list_dir.run({"path": "nope"}, ctx)
    with pytest.raises(ToolError, match="a.txt is a file.*read_file"):
        await list_dir.run({"path": "a.txt"}, ctx)


# ---------------------------------------------------------------- write_file


def _leftover_temp_files(folder: Path) -> list[str]:
    return [path.name for path in folder.rglob("*.tmp")]


async def test_write_creates_file_and_folders(ctx: ToolContext, workspace: Path) -> None:
    output = await write_file.run({"path": "src/pkg/new.py", "content": "a = 1\nb = 2\n"}, ctx)
    path = workspace / "src" / "pkg" / "new.py"
    assert path.read_text() == "a = 1\nb = 2\n"
    assert output.text == "created src/pkg/new.py (2 lines)"
    assert output.diff is not None
    patch = PatchSet(output.diff)
    assert patch[0].is_added_file and patch[0].added == 2
    assert ctx.read_files[path] == path.stat().st_mtime_ns
    assert _leftover_temp_files(workspace) == []


async def test_write_new_file_follows_umask(ctx: ToolContext, workspace: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        await write_file.run({"path": "n.txt", "content": "x\n"}, ctx)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((workspace / "n.txt").stat().st_mode) == 0o644


async def test_write_over_existing_returns_diff_and_keeps_mode(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "run.sh"
    path.write_text("echo one\n")
    path.chmod(0o751)
    await read_file.run({"path": "run.sh"}, ctx)  # write_file replaces only what was read
    output = await write_file.run({"path": "run.sh", "content": "echo two\n"}, ctx)
    assert path.read_text() == "echo two\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert output.diff == "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo one\n+echo two\n"
    assert output.text == "wrote run.sh (1 line)\n\n" + output.diff.rstrip("\n")
    assert _leftover_temp_files(workspace) == []


async def test_write_same_content_says_nothing_changed(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.txt"
    path.write_text("same\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    await read_file.run({"path": "a.txt"}, ctx)
    output = await write_file.run({"path": "a.txt", "content": "same\n"}, ctx)
    assert output.text == "a.txt already had this content; nothing changed" and output.diff == ""
    assert path.stat().st_mtime_ns == 1_000_000_000


async def test_write_refuses_to_replace_a_file_it_has_not_read(ctx: ToolContext, workspace: Path) -> None:
    """The local model replaced a 21-line config with the three keys it was asked to
    change: a file must be read before write_file replaces it."""
    path = workspace / "app.json"
    path.write_text('{"name": "atlas", "port": 80}\n')
    with pytest.raises(ToolError, match="app.json already exists and you have not read it: "
                                        "write_file replaces the whole file"):
        await write_file.run({"path": "app.json", "content": '{"port": 8080}\n'}, ctx)
    assert path.read_text() == '{"name": "atlas", "port": 80}\n'
    await read_file.run({"path": "app.json"}, ctx)
    await write_file.run({"path": "app.json", "content": '{"port": 8080}\n'}, ctx)
    assert path.read_text() == '{"port": 8080}\n'


async def test_write_keeps_crlf_of_existing_file(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    await read_file.run({"path": "win.txt"}, ctx)
    output = await write_file.run({"path": "win.txt", "content": "one\nthree\n"}, ctx)
    assert path.read_bytes() == b"one\r\nthree\r\n"
    assert "\r" not in (output.diff or "")


async def test_write_warns_about_syntax_errors_but_writes(ctx: ToolContext, workspace: Path) -> None:
    output = await write_file.run({"path": "bad.py", "content": "def f(:\n    pass\n"}, ctx)
    assert (workspace / "bad.py").read_text() == "def f(:\n    pass\n"
    warning = "warning: the new content has syntax errors at line 1 col 7 (missing ')')"
    assert output.text == f"created bad.py (2 lines)\n\n{warning}"
    replaced = await write_file.run({"path": "bad.py", "content": "def g(:\n    pass\n"}, ctx)
    assert replaced.text.endswith("+def g(:\n     pass\n\n" + warning)
    clean = await write_file.run({"path": "good.py", "content": "x = 1\n"}, ctx)
    assert "warning" not in clean.text


async def test_write_refuses_to_break_a_file_that_parsed(ctx: ToolContext, workspace: Path) -> None:
    """The local model rewrote a valid JSON file as one broken line; write_file now holds
    a file that parsed to the same rule as edit_file."""
    path = workspace / "app.json"
    path.write_text('{"port": 80}\n')
    await read_file.run({"path": "app.json"}, ctx)
    with pytest.raises(ToolError, match="write refused: it would break the syntax of app.json"):
        await write_file.run({"path": "app.json", "content": '{"port": 80,}\n'}, ctx)
    assert path.read_text() == '{"port": 80}\n'
    await write_file.run({"path": "app.json", "content": '{"port": 8080}\n'}, ctx)
    assert path.read_text() == '{"port": 8080}\n'


async def test_write_refuses_directory_binary_and_file_as_folder(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "img.png").write_bytes(b"\x00\x01\x02")
    (workspace / "plain.txt").write_text("")
    with pytest.raises(ToolError, match="src is a directory"):
        await write_file.run({"path": "src", "content": "x"}, ctx)
    with pytest.raises(ToolError, match="img.png is a binary file"):
        await write_file.run({"path": "img.png", "content": "x"}, ctx)
    with pytest.raises(ToolError, match="plain.txt is a file, not a folder"):
        await write_file.preview({"path": "plain.txt/inner/x.txt", "content": "x"}, ctx)
    with pytest.raises(ToolError, match="plain.txt is a file, not a folder"):
        await write_file.run({"path": "plain.txt/x.txt", "content": "x"}, ctx)
    assert (workspace / "img.png").read_bytes() == b"\x00\x01\x02"


async def test_write_preview_matches_run_and_writes_nothing(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("old\n")
    await read_file.run({"path": "a.txt"}, ctx)
    args = {"path": "a.txt", "content": "new\n"}
    preview = await write_file.preview(args, ctx)
    assert (workspace / "a.txt").read_text() == "old\n"
    created_preview = await write_file.preview({"path": "b/c.txt", "content": "x\n"}, ctx)
    assert created_preview is not None and created_preview.startswith("--- /dev/null\n+++ b/b/c.txt\n")
    assert not (workspace / "b").exists()
    output = await write_file.run(args, ctx)
    assert preview == output.diff


async def test_write_latin1_file_switches_to_utf8_when_needed(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "old.txt"
    path.write_bytes("café\n".encode("latin-1"))
    await read_file.run({"path": "old.txt"}, ctx)
    await write_file.run({"path": "old.txt", "content": "crème\n"}, ctx)
    assert path.read_bytes() == "crème\n".encode("latin-1")
    output = await write_file.run({"path": "old.txt", "content": "→ arrow\n"}, ctx)
    assert path.read_bytes() == "→ arrow\n".encode("utf-8")
    assert "saved as UTF-8" in output.text


# ---------------------------------------------------------------- edit_file


async def test_edit_replaces_and_returns_diff(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "src" / "a.py"
    path.parent.mkdir()
    path.write_text(PYTHON_SOURCE)
    output = await edit_file.run(
        {"path": "src/a.py", "old_string": "return x + 1", "new_string": "return x + 2"}, ctx
    )
    assert path.read_text() == PYTHON_SOURCE.replace("x + 1", "x + 2")
    assert output.diff is not None
    assert output.text == "edited src/a.py: 1 replacement at line 3\n\n" + output.diff.rstrip("\n")
    assert output.diff.startswith("--- a/src/a.py\n+++ b/src/a.py\n")
    patch = PatchSet(output.diff)
    assert (patch[0].source_file, patch[0].target_file) == ("a/src/a.py", "b/src/a.py")
    assert (patch[0].added, patch[0].removed) == (1, 1)
    assert ctx.read_files[path] == path.stat().st_mtime_ns
    assert _leftover_temp_files(workspace) == []


async def test_edit_missing_file(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "main.py").write_text("")
    with pytest.raises(ToolError, match="file not found: mian.py; similar names: main.py"):
        await edit_file.run({"path": "mian.py", "old_string": "a", "new_string": "b"}, ctx)


async def test_edit_directory_and_binary_are_refused(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "data.bin").write_bytes(b"ab\x00cd")
    with pytest.raises(ToolError, match="src is a directory"):
        await edit_file.run({"path": "src", "old_string": "a", "new_string": "b"}, ctx)
    with pytest.raises(ToolError, match=r"data.bin is a binary file \(5 bytes\)"):
        await edit_file.run({"path": "data.bin", "old_string": "ab", "new_string": "xy"}, ctx)


async def test_edit_empty_and_identical_strings(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("text\n")
    with pytest.raises(ToolError, match="old_string is empty; to create a file .* use write_file"):
        await edit_file.run({"path": "a.txt", "old_string": "", "new_string": "x"}, ctx)
    with pytest.raises(ToolError, match="old_string and new_string are identical"):
        await edit_file.run({"path": "a.txt", "old_string": "text", "new_string": "text"}, ctx)


async def test_edit_no_match_points_at_closest_divergence(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.py"
    path.write_text("import os\n\n" + PYTHON_SOURCE)
    old = "    if x:\n        return x + 2\n    return 0\n"
    with pytest.raises(ToolError) as caught:
        await edit_file.run({"path": "a.py", "old_string": old, "new_string": "pass\n"}, ctx)
    assert str(caught.value) == (
        "old_string not found in a.py. Closest match at line 4: matches up to line 5 column 20, "
        "where the file has '1\\n' and old_string has '2\\n'. "
        "Read the file again and copy the exact text."
    )
    assert path.read_text() == "import os\n\n" + PYTHON_SOURCE


async def test_edit_no_match_with_typo_in_first_line(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.js").write_text("const a = 1;\nfunction greet(name) {\n  return 'hi ' + name;\n}\n")
    with pytest.raises(ToolError) as caught:
        await edit_file.run({"path": "a.js", "old_string": "function greet(nam) {", "new_string": "x"}, ctx)
    message = str(caught.value)
    assert message.startswith("old_string not found in a.js. Closest match at line 2: matches up to line 2 column 19")
    assert "where the file has 'e) {\\n' and old_string has ') {'" in message


async def test_edit_no_match_at_end_of_file(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    with pytest.raises(ToolError, match="matches up to line 3 column 1, where the file ends and old_string has 'gamma'"):
        await edit_file.run({"path": "a.txt", "old_string": "beta\ngamma", "new_string": "x"}, ctx)


async def test_edit_no_match_and_nothing_similar(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    with pytest.raises(ToolError, match="no line resembles its first line 'zzzz qqqq'"):
        await edit_file.run({"path": "a.txt", "old_string": "zzzz qqqq\n", "new_string": "x"}, ctx)


async def test_edit_no_match_because_of_tabs(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "main.go").write_text("package main\n\nfunc main() {\n\tprintln(1)\n}\n")
    with pytest.raises(ToolError) as caught:
        await edit_file.run(
            {"path": "main.go", "old_string": "func main() {\n    println(1)\n}", "new_string": "x"}, ctx
        )
    assert str(caught.value).startswith(
        "old_string not found in main.go, but it matches line 3 when whitespace is ignored: "
        "at line 4 the file indents with tabs where old_string uses spaces."
    )


async def test_edit_no_match_because_of_trailing_spaces(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("one   \ntwo\n")
    with pytest.raises(ToolError, match="at line 1 the file has trailing whitespace that old_string lacks"):
        await edit_file.run({"path": "a.txt", "old_string": "one\ntwo", "new_string": "x"}, ctx)


async def test_edit_no_match_because_of_line_numbers(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.py").write_text(PYTHON_SOURCE)
    old = "     2\t    if x:\n     3\t        return x + 1\n"
    with pytest.raises(ToolError, match="it includes the line numbers read_file shows"):
        await edit_file.run({"path": "a.py", "old_string": old, "new_string": "x"}, ctx)


async def test_edit_multiple_matches_are_refused(ctx: ToolContext, workspace: Path) -> None:
    text = "\n".join(["a = 0", "b = 0", "c = 1", "a = 0", "d = 2", "e = 3", "f = 4", "g = 5", "h = 6", "a = 0"]) + "\n"
    (workspace / "m.py").write_text(text)
    with pytest.raises(ToolError) as caught:
        await edit_file.run({"path": "m.py", "old_string": "a = 0", "new_string": "a = 9"}, ctx)
    assert str(caught.value) == (
        "old_string occurs 3 times in m.py (lines 1, 4, 10); add context to make it unique or set replace_all"
    )
    assert (workspace / "m.py").read_text() == text


async def test_edit_replace_all(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.py").write_text("a = 0\nb = a\na = 0\n")
    output = await edit_file.run(
        {"path": "m.py", "old_string": "a = 0", "new_string": "a = 9", "replace_all": True}, ctx
    )
    assert (workspace / "m.py").read_text() == "a = 9\nb = a\na = 9\n"
    assert output.text.startswith("edited m.py: 2 replacements at lines 1, 3")


async def test_edit_replace_all_accepts_string_boolean(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "m.txt").write_text("x x x\n")
    await edit_file.run({"path": "m.txt", "old_string": "x", "new_string": "y", "replace_all": "true"}, ctx)
    assert (workspace / "m.txt").read_text() == "y y y\n"


async def test_edit_keeps_crlf_line_endings(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "win.py"
    path.write_bytes(b"def f():\r\n    return 1\r\n\r\nx = f()\r\n")
    output = await edit_file.run(
        {"path": "win.py", "old_string": "def f():\n    return 1\n", "new_string": "def f():\n    return 2\n"}, ctx
    )
    assert path.read_bytes() == b"def f():\r\n    return 2\r\n\r\nx = f()\r\n"
    assert output.diff is not None and "\r" not in output.diff


async def test_edit_crlf_old_string_on_lf_file(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.txt"
    path.write_text("one\ntwo\n")
    await edit_file.run({"path": "a.txt", "old_string": "one\r\ntwo", "new_string": "1\r\n2"}, ctx)
    assert path.read_bytes() == b"1\n2\n"


async def test_edit_mixed_line_endings_match_crlf_lines(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "mixed.txt"
    path.write_bytes(b"lf one\nlf two\ncr one\r\ncr two\r\n")
    await edit_file.run({"path": "mixed.txt", "old_string": "cr one\ncr two", "new_string": "A\nB"}, ctx)
    assert path.read_bytes() == b"lf one\nlf two\nA\r\nB\r\n"
    await edit_file.run({"path": "mixed.txt", "old_string": "lf one\nlf two", "new_string": "C\nD"}, ctx)
    assert path.read_bytes() == b"C\nD\nA\r\nB\r\n"


async def test_edit_keeps_file_mode(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "tool.sh"
    path.write_text("#!/bin/sh\necho one\n")
    path.chmod(0o755)
    await edit_file.run({"path": "tool.sh", "old_string": "one", "new_string": "two"}, ctx)
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert path.read_text() == "#!/bin/sh\necho two\n"


async def test_edit_keeps_bom_and_latin1(ctx: ToolContext, workspace: Path) -> None:
    bom_file = workspace / "bom.txt"
    bom_file.write_bytes(b"\xef\xbb\xbfname = caf\xc3\xa9\n")
    await edit_file.run({"path": "bom.txt", "old_string": "café", "new_string": "thé"}, ctx)
    assert bom_file.read_bytes() == b"\xef\xbb\xbfname = th\xc3\xa9\n"

    latin = workspace / "latin.txt"
    latin.write_bytes("très cher, trop cher\n".encode("latin-1"))
    await edit_file.run({"path": "latin.txt", "old_string": "trop", "new_string": "bien trop"}, ctx)
    assert latin.read_bytes() == "très cher, bien trop cher\n".encode("latin-1")
    with pytest.raises(ToolError, match="latin.txt is latin-1 text and new_string has characters it cannot hold"):
        await edit_file.run({"path": "latin.txt", "old_string": "cher,", "new_string": "→"}, ctx)


async def test_edit_keeps_symlink_and_edits_its_target(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "real.txt").write_text("one\n")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    output = await edit_file.run({"path": "alias.txt", "old_string": "one", "new_string": "two"}, ctx)
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "two\n"
    assert output.diff is not None and output.diff.startswith("--- a/real.txt\n")


async def test_syntax_guard_refuses_breaking_python_edit(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.py"
    path.write_text(PYTHON_SOURCE)
    with pytest.raises(ToolError) as caught:
        await edit_file.run({"path": "a.py", "old_string": "def f(x):", "new_string": "def f(x:"}, ctx)
    assert str(caught.value).startswith("edit refused: it would break the syntax of a.py at line 1 column ")
    assert str(caught.value).endswith("; the file is unchanged")
    assert path.read_text() == PYTHON_SOURCE


async def test_syntax_guard_catches_python_indentation(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.py").write_text(PYTHON_SOURCE)
    with pytest.raises(ToolError, match="edit refused: it would break the syntax of a.py at line 2 column"):
        await edit_file.run({"path": "a.py", "old_string": "    if x:\n        return", "new_string": "if x:\n        return"}, ctx)


async def test_syntax_guard_allows_edits_to_broken_file(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.py"
    path.write_text("def f(:\n    return 1\n")
    # Still broken afterwards, but it was broken before: the model may be mid-fix.
    await edit_file.run({"path": "a.py", "old_string": "return 1", "new_string": "return 2"}, ctx)
    assert path.read_text() == "def f(:\n    return 2\n"
    await edit_file.run({"path": "a.py", "old_string": "def f(:", "new_string": "def f():"}, ctx)
    assert path.read_text() == "def f():\n    return 2\n"


async def test_json_guard(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "package.json"
    path.write_text('{\n  "name": "x",\n  "version": "1.0.0"\n}\n')
    with pytest.raises(ToolError, match="break the syntax of package.json at line 3 column 3"):
        await edit_file.run({"path": "package.json", "old_string": '"x",', "new_string": '"x"'}, ctx)
    await edit_file.run({"path": "package.json", "old_string": '"1.0.0"', "new_string": '"1.0.1"'}, ctx)
    assert '"1.0.1"' in path.read_text()


async def test_unsupported_extension_edits_freely(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "notes.txt"
    path.write_text("(balanced)\n")
    await edit_file.run({"path": "notes.txt", "old_string": "(balanced)", "new_string": "((("}, ctx)
    assert path.read_text() == "(((\n"


async def test_edit_preview_matches_run_and_writes_nothing(ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "a.py"
    path.write_text(PYTHON_SOURCE)
    args = {"path": "a.py", "old_string": "return 0", "new_string": "return -1"}
    preview = await edit_file.preview(args, ctx)
    assert path.read_text() == PYTHON_SOURCE
    assert preview is not None and "-    return 0\n+    return -1\n" in preview
    assert (await edit_file.run(args, ctx)).diff == preview


async def test_edit_preview_raises_what_run_would(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.py").write_text(PYTHON_SOURCE)
    with pytest.raises(ToolError, match="edit refused"):
        await edit_file.preview({"path": "a.py", "old_string": "def f(x):", "new_string": "def f(x:"}, ctx)
    with pytest.raises(ToolError, match="occurs 2 times"):
        await edit_file.preview({"path": "a.py", "old_string": "return", "new_string": "yield"}, ctx)
    with pytest.raises(ToolError, match="file not found"):
        await edit_file.preview({"path": "b.py", "old_string": "a", "new_string": "b"}, ctx)


@pytest.mark.parametrize("tool, args", [
    (WriteFileTool(), {"path": "app.json", "content": "[cleared: ...]"}),
    (EditFileTool(), {"path": "app.json", "old_string": '"x": 1', "new_string": "[cleared: ...]\n"}),
])
def test_the_cleared_result_note_is_not_file_content(ctx: ToolContext, tool, args) -> None:
    """The local model copied the note that stands for a cleared result over a JSON file."""
    with pytest.raises(ToolError, match="note that stands for a cleared tool result"):
        tool.precheck(args, ctx)


async def test_text_that_merely_mentions_the_note_is_written(ctx: ToolContext, workspace: Path) -> None:
    content = "Results show as [cleared: read_file returned 3 lines]\nwhen cut.\n"
    await write_file.run({"path": "notes.md", "content": content}, ctx)
    assert (workspace / "notes.md").read_text() == content


async def test_an_edit_to_a_file_never_read_is_refused_until_it_is_read(
        ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "config.json"
    path.write_text('{"http": {"timeout_seconds": 10}}\n')
    edit = {"path": "config.json", "old_string": '"timeout": 10', "new_string": '"timeout": 30'}
    with pytest.raises(ToolError, match="not read config.json yet: read it with read_file first"):
        await EditFileTool().run(edit, ctx)
    with pytest.raises(ToolError, match="not read config.json yet"):
        await EditFileTool().preview(edit, ctx)  # the approval modal shows the same refusal
    await ReadFileTool().run({"path": "config.json"}, ctx)
    edit.update(old_string='"timeout_seconds": 10', new_string='"timeout_seconds": 30')
    await EditFileTool().run(edit, ctx)
    assert path.read_text() == '{"http": {"timeout_seconds": 30}}\n'


async def test_an_edit_to_a_file_changed_since_it_was_read_is_refused(
        ctx: ToolContext, workspace: Path) -> None:
    path = workspace / "notes.py"
    path.write_text("value = 1\n")
    await ReadFileTool().run({"path": "notes.py"}, ctx)
    path.write_text("value = 1\nother = 2\n")  # the user's editor, after the model read it
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    edit = {"path": "notes.py", "old_string": "value = 1", "new_string": "value = 3"}
    with pytest.raises(ToolError, match="changed on disk after you last read it.*read it again"):
        await EditFileTool().run(edit, ctx)
    assert path.read_text() == "value = 1\nother = 2\n"
    await ReadFileTool().run({"path": "notes.py"}, ctx)
    await EditFileTool().run(edit, ctx)  # read again: the edit lands
    assert path.read_text() == "value = 3\nother = 2\n"
