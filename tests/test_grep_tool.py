"""The grep tool on real files in tmp_path workspaces, with both backends."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from vibe_tui.tools import file_walk, search
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.file_walk import MAX_FILES
from vibe_tui.tools.search import MAX_MATCHES, SEARCH_TOOLS, GrepTool

HAS_RG = shutil.which("rg") is not None
needs_rg = pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) is not installed")

python_grep = GrepTool(backend="python")
rg_grep = GrepTool(backend="rg")


@pytest.fixture(params=["python", pytest.param("rg", marks=needs_rg)])
def grep(request) -> GrepTool:
    """Every behaviour test runs against each available backend."""
    return GrepTool(backend=request.param)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


async def lines_of(grep: GrepTool, ctx: ToolContext, **args) -> list[str]:
    out = await grep.run(args, ctx)
    assert out.meta["backend"] == grep.backend
    return out.text.splitlines()


async def test_exported_tool_list():
    assert [t.name for t in SEARCH_TOOLS] == ["grep"]


async def test_regex_sorted_relative_output(grep, ctx, tmp_path):
    write(tmp_path, {
        "b.py": "x = 1\ndef beta():\n    pass\n",
        "a/z.py": "def zeta(): ...\n",
        "a.txt": "def in text\n",
        "c.md": "nothing here\n",
    })
    assert await lines_of(grep, ctx, pattern=r"^def \w+") == [
        "a/z.py:1:def zeta(): ...",
        "a.txt:1:def in text",
        "b.py:2:def beta():",
    ]


async def test_literal(grep, ctx, tmp_path):
    write(tmp_path, {"f.txt": "a.b(c)\naxb(c)\n"})
    assert await lines_of(grep, ctx, pattern="a.b(c)", literal=True) == ["f.txt:1:a.b(c)"]
    assert await lines_of(grep, ctx, pattern="a.b", literal=False) == [
        "f.txt:1:a.b(c)",
        "f.txt:2:axb(c)",
    ]


async def test_python_only_syntax_works_with_either_backend(grep, ctx, tmp_path):
    # ripgrep's default engine has no look-ahead: the rg backend falls back to Python.
    write(tmp_path, {"f.txt": "foobar\nfoobaz\n"})
    out = await grep.run({"pattern": "foo(?=baz)"}, ctx)
    assert out.text == "f.txt:2:foobaz"
    assert out.meta["backend"] == "python"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("[T&&O]DO", ["f.txt:1:TODO"]),  # Python: one of T & O; Rust: an empty intersection
        ("[[:alpha:]]DO", ["f.txt:4:a]DO"]),  # Python: one of [:alph then "]DO"; Rust: a letter
    ],
)
async def test_patterns_rust_reads_differently_use_python_semantics(
    grep, ctx, tmp_path, pattern, expected
):
    write(tmp_path, {"f.txt": "TODO\n:DO\nxDO\na]DO\n"})
    out = await grep.run({"pattern": pattern}, ctx)
    assert out.text.splitlines() == expected
    assert out.meta["backend"] == "python"


def test_rg_reads_alike():
    alike = ["abc", "[abc]", "[]a]", "[^]a]", "a--b", "a&&b", r"[\<]", r"\bx", "[a-z]+--x"]
    different = [
        "[[:alpha:]]", "[a[b]]", "[a&&b]", "[a--b]", "[a~~b]", r"\<x", r"x\>", r"\b{start}"
    ]
    assert all(search.rg_reads_alike(p) for p in alike)
    assert not any(search.rg_reads_alike(p) for p in different)


async def test_glob(grep, ctx, tmp_path):
    write(tmp_path, {
        "a.py": "hit\n",
        "a.ts": "hit\n",
        "src/x/b.ts": "hit\n",
        "src/c.ts": "hit\n",
        "lib/d.ts": "hit\n",
    })
    assert await lines_of(grep, ctx, pattern="hit", glob="*.py") == ["a.py:1:hit"]
    assert await lines_of(grep, ctx, pattern="hit", glob="src/**/*.ts") == [
        "src/c.ts:1:hit",
        "src/x/b.ts:1:hit",
    ]
    assert await lines_of(grep, ctx, pattern="hit", glob="./src/c.ts") == ["src/c.ts:1:hit"]
    assert await lines_of(grep, ctx, pattern="hit", glob="!*.ts") == ["a.py:1:hit"]
    # With a path, a glob with a slash is relative to that folder.
    assert await lines_of(grep, ctx, pattern="hit", path="src", glob="x/*.ts") == [
        "src/x/b.ts:1:hit",
    ]


async def test_path_file_and_folder(grep, ctx, tmp_path):
    write(tmp_path, {"src/a.py": "hit\n", "other/b.py": "hit\n"})
    assert await lines_of(grep, ctx, pattern="hit", path="src") == ["src/a.py:1:hit"]
    assert await lines_of(grep, ctx, pattern="hit", path="other/b.py") == ["other/b.py:1:hit"]


async def test_default_path_is_the_cwd(grep, tmp_path):
    write(tmp_path, {"sub/a.txt": "hit\n", "b.txt": "hit\n"})
    ctx = ToolContext(workspace=tmp_path, cwd=tmp_path / "sub")
    assert await lines_of(grep, ctx, pattern="hit") == ["sub/a.txt:1:hit"]


async def test_gitignore_root_and_nested(grep, ctx, tmp_path):
    write(tmp_path, {
        ".gitignore": "*.log\nbuild/\n",
        "keep.txt": "hit\n",
        "debug.log": "hit\n",
        "build/out.txt": "hit\n",
        "pkg/.gitignore": "generated.py\n!important.log\n",
        "pkg/generated.py": "hit\n",
        "pkg/important.log": "hit\n",
        "pkg/other.log": "hit\n",
        "pkg/mod.py": "hit\n",
        "other/generated.py": "hit\n",
    })
    assert await lines_of(grep, ctx, pattern="hit") == [
        "keep.txt:1:hit",
        "other/generated.py:1:hit",
        "pkg/important.log:1:hit",
        "pkg/mod.py:1:hit",
    ]


async def test_gitignore_of_parent_applies_to_subfolder_search(grep, ctx, tmp_path):
    write(tmp_path, {".gitignore": "*.log\n", "src/a.log": "hit\n", "src/a.py": "hit\n"})
    assert await lines_of(grep, ctx, pattern="hit", path="src") == ["src/a.py:1:hit"]


async def test_explicit_file_is_searched_even_if_ignored(grep, ctx, tmp_path):
    write(tmp_path, {".gitignore": "*.log\n", "a.log": "hit\n"})
    assert await lines_of(grep, ctx, pattern="hit", path="a.log") == ["a.log:1:hit"]


async def test_git_and_hidden_skipped(grep, ctx, tmp_path):
    write(tmp_path, {
        ".git/config": "hit\n",
        ".git/objects/x": "hit\n",
        ".env": "hit\n",
        ".hidden/a.txt": "hit\n",
        "visible.txt": "hit\n",
    })
    assert await lines_of(grep, ctx, pattern="hit") == ["visible.txt:1:hit"]


async def test_binary_files_skipped(grep, ctx, tmp_path):
    write(tmp_path, {
        "early.bin": b"hit\n\x00\x01\x02\n",
        "late.bin": b"hit\n" + b"a" * 100_000 + b"\n\x00\n",
        "text.txt": "hit\n",
    })
    assert await lines_of(grep, ctx, pattern="hit") == ["text.txt:1:hit"]
    out = await grep.run({"pattern": "hit", "path": "early.bin"}, ctx)
    assert out.text == "no matches for hit in early.bin"


async def test_symlinks_not_followed(grep, ctx, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("hit\n")
    write(tmp_path, {"real.txt": "hit\n"})
    os.symlink(outside, tmp_path / "link")
    assert await lines_of(grep, ctx, pattern="hit") == ["real.txt:1:hit"]


async def test_long_lines_truncated_and_invalid_utf8_replaced(grep, ctx, tmp_path):
    write(tmp_path, {"long.txt": "hit" + "x" * 1000 + "\n", "bad.txt": b"hit \xff here\r\n"})
    lines = await lines_of(grep, ctx, pattern="hit")
    assert lines[0] == "bad.txt:1:hit \ufffd here"
    assert lines[1] == "long.txt:1:hit" + "x" * 297 + " [... 703 more chars]"


async def test_no_matches(grep, ctx, tmp_path):
    write(tmp_path, {"src/a.txt": "nothing\n"})
    out = await grep.run({"pattern": "absent", "path": "src"}, ctx)
    assert out.ok and out.text == "no matches for absent in src"
    out = await grep.run({"pattern": "absent"}, ctx)
    assert out.text == "no matches for absent in ."


async def test_match_cap(grep, ctx, tmp_path):
    write(tmp_path, {
        "a.txt": "hit\n" * 150,
        "b.txt": "hit\n" * 150,
        "c.txt": "hit\n" * 150,
    })
    lines = await lines_of(grep, ctx, pattern="hit")
    assert len(lines) == MAX_MATCHES + 1
    assert lines[0] == "a.txt:1:hit" and lines[MAX_MATCHES - 1] == "b.txt:50:hit"
    assert "stopped at 200 matches" in lines[-1] and "glob" in lines[-1]


async def test_file_cap(grep, ctx, tmp_path, monkeypatch):
    monkeypatch.setattr(file_walk, "MAX_FILES", 3)
    write(tmp_path, {f"f{i}.txt": "hit\n" for i in range(5)})
    lines = await lines_of(grep, ctx, pattern="hit")
    assert lines[:3] == ["f0.txt:1:hit", "f1.txt:1:hit", "f2.txt:1:hit"]
    assert "stopped after 3 files" in lines[3] and "path or glob" in lines[3]
    assert len(lines) == 4


def test_file_cap_constant():
    assert MAX_FILES == 5_000


async def test_invalid_regex(grep, ctx, tmp_path):
    with pytest.raises(ToolError, match=r"invalid regex '\(unclosed'.*missing \)"):
        await grep.run({"pattern": "(unclosed"}, ctx)
    # The same text is fine as a literal.
    write(tmp_path, {"f.txt": "call(unclosed\n"})
    assert await lines_of(grep, ctx, pattern="(unclosed", literal=True) == ["f.txt:1:call(unclosed"]


async def test_outside_workspace_refused(grep, ctx):
    for path in ("..", "/etc"):
        with pytest.raises(ToolError, match="outside the workspace"):
            await grep.run({"pattern": "x", "path": path}, ctx)


async def test_a_symlink_loop_is_refused_with_a_reason(grep, ctx, tmp_path):
    (tmp_path / "loop").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop")
    for path in ("loop", "loop2/x"):
        with pytest.raises(ToolError, match="symlink loop"):
            grep.precheck({"pattern": "x", "path": path}, ctx)
        with pytest.raises(ToolError, match="symlink loop"):
            await grep.run({"pattern": "x", "path": path}, ctx)


async def test_missing_path(grep, ctx):
    with pytest.raises(ToolError, match="no such file or directory: nope; the workspace's top level"):
        await grep.run({"pattern": "x", "path": "nope"}, ctx)


async def test_a_guessed_path_is_answered_with_the_real_one(grep, ctx):
    """The local model grepped src/app.py three times in a row, where the project has
    app/settings.py: the error now names the real place."""
    (ctx.workspace / "app").mkdir()
    (ctx.workspace / "app" / "app.py").write_text("PORT = 1\n")
    with pytest.raises(ToolError, match="^no such file or directory: src/app.py; "
                                        "files named app.py in the workspace: app/app.py$"):
        await grep.run({"pattern": "PORT", "path": "src/app.py"}, ctx)


def test_precheck(ctx, tmp_path):
    req = python_grep.precheck({"pattern": "x", "path": "src"}, ctx)
    assert (req.tool, req.kind, req.paths) == ("grep", "read", (tmp_path.resolve() / "src",))
    assert python_grep.precheck({"pattern": "x"}, ctx).paths == (tmp_path.resolve(),)
    for bad in (
        {},
        {"pattern": ""},
        {"pattern": "["},
        {"pattern": "x", "literal": "maybe"},
        {"pattern": "x", "glob": 3},
        {"pattern": "x", "glob": "\\"},
    ):
        with pytest.raises(ToolError):
            python_grep.precheck(bad, ctx)


# ---------------------------------------------------------------- parity


def parity_tree(root: Path) -> None:
    write(root, {
        ".gitignore": "*.log\nout/\n",
        "README.md": "# Title\nTODO: write docs\n\nsee todo below\n",
        "src/app.py": "import os\n\ndef main():\n    # TODO handle errors\n    return 0\n",
        "src/util.py": "def helper(x):\n    return x * 2  # todo?\n",
        "src/a.py.txt": "TODO in a.py.txt\n",
        "src/a/deep.py": "TODO deep\n",
        "src/.cache/x.py": "TODO hidden\n",
        "src/gen/.gitignore": "*.py\n!keep.py\n",
        "src/gen/drop.py": "TODO generated\n",
        "src/gen/keep.py": "TODO kept\n",
        "out/bundle.js": "TODO built\n",
        "debug.log": "TODO log\n",
        "crlf.txt": "TODO crlf\r\nline two\r\n",
        "empty.txt": "",
        "unicode.txt": "naïve TODO café\nΣίσυφος todo\n",
        "latin1.txt": b"TODO caf\xe9\n\xe2\x82 half a euro caf\xe2\x82\xac\n",
        "bom.txt": b"\xef\xbb\xbfTODO after a BOM caf\n",
        "utf16.txt": "TODO in UTF-16 café\nsecond\n".encode("utf-16"),
        "img.bin": b"\x89PNG\x00TODO\x00",
        "late_nul.txt": b"TODO early\n" + b"z" * 70_000 + b"\n\x00\n",
        "long.min.js": "var a=1;" * 100 + "TODO" + ";" * 500 + "\n",
        "many.txt": "todo\n" * 120,
        "more.txt": "TODO\n" * 120,
    })


PARITY_CASES = [
    {"pattern": "TODO"},
    {"pattern": "todo"},
    {"pattern": r"(?i)todo"},
    {"pattern": r"^\s*#"},
    {"pattern": r"^$"},
    {"pattern": r"crlf$"},
    {"pattern": r"caf."},
    {"pattern": r"caf.*"},
    {"pattern": r"^TODO"},
    {"pattern": r"\x00"},
    {"pattern": r"\bx\b"},
    {"pattern": "TODO", "glob": "*.py"},
    {"pattern": "TODO", "glob": "src/**/*.py"},
    {"pattern": "TODO", "path": "src"},
    {"pattern": "TODO", "path": "debug.log"},
    {"pattern": "x * 2", "literal": True},
    {"pattern": "-", "literal": True},
    {"pattern": "nothing matches this"},
]


@needs_rg
@pytest.mark.parametrize("args", PARITY_CASES, ids=lambda a: repr(a))
async def test_backends_agree(ctx, tmp_path, args):
    parity_tree(tmp_path)
    from_python = await python_grep.run(dict(args), ctx)
    from_rg = await rg_grep.run(dict(args), ctx)
    assert from_rg.meta["backend"] == "rg"
    assert from_rg.text == from_python.text
    assert from_rg.meta["matches"] == from_python.meta["matches"]


@needs_rg
async def test_backends_agree_at_the_caps(ctx, tmp_path, monkeypatch):
    monkeypatch.setattr(file_walk, "MAX_FILES", 7)
    parity_tree(tmp_path)
    for args in ({"pattern": "TODO"}, {"pattern": "(?i)todo"}):
        from_python = await python_grep.run(dict(args), ctx)
        from_rg = await rg_grep.run(dict(args), ctx)
        assert from_rg.text == from_python.text
        assert "stopped after 7 files" in from_rg.text


@needs_rg
async def test_rg_batches_keep_path_order(ctx, tmp_path, monkeypatch):
    monkeypatch.setattr(search, "RG_FIRST_BATCH", 2)
    monkeypatch.setattr(search, "RG_BATCH_FILES", 4)
    write(tmp_path, {f"d{i % 3}/f{i}.txt": "hit\n" * 40 for i in range(12)})
    from_python = await python_grep.run({"pattern": "hit"}, ctx)
    from_rg = await rg_grep.run({"pattern": "hit"}, ctx)
    assert from_rg.meta["backend"] == "rg"
    assert from_rg.text == from_python.text
    assert "stopped at 200 matches" in from_rg.text


async def test_a_search_over_a_folder_skips_what_a_read_deny_rule_covers(tmp_path):
    """The policy sees the folder's name only; the files in it are read one by one."""
    from vibe_tui.tools.base import ToolContext
    from vibe_tui.tools.search import GrepTool

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "secrets.yml").write_text("token: SECRET-VALUE\n")
    (tmp_path / "config" / "app.yml").write_text("name: SECRET-LOOKALIKE\n")
    ctx = ToolContext(workspace=tmp_path, read_deny=("Read(config/secrets.yml)", "Bash(rm:*)"))
    out = await GrepTool().run({"pattern": "SECRET"}, ctx)
    assert "SECRET-LOOKALIKE" in out.text and "SECRET-VALUE" not in out.text
    ctx.read_deny = ()
    assert "SECRET-VALUE" in (await GrepTool().run({"pattern": "SECRET"}, ctx)).text
