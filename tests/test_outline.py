"""Outlines of one file, and read_file putting one above the first window of a long file."""

from __future__ import annotations

from pathlib import Path

from vibe_tui.code.outline import outline, outline_text
from vibe_tui.tools.base import ToolContext
from vibe_tui.tools.file_read import MAX_READ_LINES, ReadFileTool

MODULE = """\
LIMIT = 10


class Cart:
    def add(self, item):
        def check():
            return True
        return check()

    def total(self):
        return 0


def checkout(cart):
    return cart.total()
"""


def test_outline_lists_top_level_definitions_with_their_line_ranges():
    entries = outline("cart.py", MODULE)
    assert [(e.start, e.end, e.signature) for e in entries] == [
        (4, 11, "class Cart:"),
        (14, 15, "def checkout(cart):"),
    ]


def test_outline_of_other_languages_and_of_unsupported_ones():
    go = "package x\n\ntype T struct{}\n\nfunc (t T) M() {}\n\nfunc F() {\n}\n"
    assert [(e.start, e.end, e.category) for e in outline("x.go", go)] == [
        (3, 3, "type"),
        (5, 5, "method"),
        (7, 8, "function"),
    ]
    assert outline("notes.txt", "class A:\n    pass\n") is None
    assert outline_text("notes.txt", "class A:\n    pass\n", 2) == ""
    assert outline_text("empty.py", "x = 1\n", 1) == ""


def _long_module(functions: int, body_lines: int) -> str:
    parts = []
    for number in range(functions):
        body = "".join(f"    value_{line} = {line}\n" for line in range(body_lines))
        parts.append(f"def step_{number}():\n{body}    return value_0\n\n")
    return "".join(parts)


async def test_read_file_on_a_long_file_starts_with_its_outline(tmp_path: Path):
    text = _long_module(functions=30, body_lines=80)  # 30 * 83 = 2,490 lines
    assert text.count("\n") > MAX_READ_LINES
    (tmp_path / "long.py").write_text(text)
    ctx = ToolContext(tmp_path)
    output = await ReadFileTool().run({"path": "long.py"}, ctx)
    head, _, body = output.text.partition("\n\n")
    assert head.startswith("Outline of long.py (2,490 lines)")
    assert "  1-82\tdef step_0():" in head
    assert "  2408-2489\tdef step_29():" in head
    assert body.startswith("     1\tdef step_0():")
    assert output.text.endswith(f"call read_file with offset={MAX_READ_LINES + 1} to continue)")


async def test_read_file_shows_no_outline_for_later_windows_short_or_unsupported_files(tmp_path: Path):
    (tmp_path / "long.py").write_text(_long_module(functions=30, body_lines=80))
    (tmp_path / "short.py").write_text(_long_module(functions=3, body_lines=5))
    (tmp_path / "long.txt").write_text("words\n" * (MAX_READ_LINES + 10))
    ctx = ToolContext(tmp_path)
    tool = ReadFileTool()
    later = await tool.run({"path": "long.py", "offset": 2001}, ctx)
    short = await tool.run({"path": "short.py"}, ctx)
    plain = await tool.run({"path": "long.txt"}, ctx)
    assert later.text.startswith("  2001\t")
    assert short.text.startswith("     1\tdef step_0():")
    assert plain.text.startswith("     1\twords")
