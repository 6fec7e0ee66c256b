"""DiffView: parsing, line numbers, hunk selection, and the fallbacks."""

from __future__ import annotations

from textual.app import App, ComposeResult

from vibe_tui.widgets.diff_view import DiffRow, DiffView, build_rows

TWO_HUNKS = "\n".join(
    [
        "diff --git a/src/app.py b/src/app.py",
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -1,3 +1,4 @@",
        " import os",
        "-x = 1",
        "+x = 2",
        "+y = 3",
        " print(x)",
        "@@ -40,2 +41,2 @@ def main():",
        "     a = 1",
        "-    b = 2",
        "+    b = 3",
        "\\ No newline at end of file",
        "",
    ]
)

NEW_FILE = "\n".join(
    [
        "--- /dev/null",
        "+++ b/notes.md",
        "@@ -0,0 +1,2 @@",
        "+# Notes",
        "+hello",
        "",
    ]
)

DELETED_FILE = "\n".join(
    [
        "--- a/old.txt",
        "+++ /dev/null",
        "@@ -1,2 +0,0 @@",
        "-one",
        "-two",
        "",
    ]
)


def code_rows(rows: list[DiffRow]) -> list[tuple[str, int | None, int | None, str]]:
    return [
        (row.kind, row.old, row.new, row.text.plain)
        for row in rows
        if row.kind in ("added", "removed", "context")
    ]


def test_parses_files_hunks_and_line_numbers() -> None:
    rows, parsed = build_rows(TWO_HUNKS)
    assert parsed
    assert [row.kind for row in rows][:2] == ["file", "hunk"]
    assert rows[0].text.plain.startswith("src/app.py")
    assert "+3" in rows[0].text.plain and "-2" in rows[0].text.plain
    assert code_rows(rows) == [
        ("context", 1, 1, "import os"),
        ("removed", 2, None, "x = 1"),
        ("added", None, 2, "x = 2"),
        ("added", None, 3, "y = 3"),
        ("context", 3, 4, "print(x)"),
        ("context", 40, 41, "    a = 1"),
        ("removed", 41, None, "    b = 2"),
        ("added", None, 42, "    b = 3"),
    ]
    hunks = [row for row in rows if row.kind == "hunk"]
    assert [row.text.plain for row in hunks] == ["@@ -1,3 +1,4 @@", "@@ -40,2 +41,2 @@ def main():"]
    assert rows[-1].kind == "note" and rows[-1].text.plain == "\\ No newline at end of file"


def test_rows_know_their_hunk() -> None:
    rows, _ = build_rows(TWO_HUNKS)
    assert rows[0].hunk == -1  # the file header belongs to no hunk
    assert {row.hunk for row in rows if row.old == 1} == {0}
    assert {row.hunk for row in rows if row.old == 40} == {1}


def test_code_is_syntax_coloured_by_file_name() -> None:
    rows, _ = build_rows(TWO_HUNKS)
    import_row = next(row for row in rows if row.text.plain == "import os")
    assert import_row.text.spans  # a Python keyword and a name


def test_new_and_deleted_files() -> None:
    rows, _ = build_rows(NEW_FILE)
    assert "new file" in rows[0].text.plain
    assert code_rows(rows) == [("added", None, 1, "# Notes"), ("added", None, 2, "hello")]
    rows, _ = build_rows(DELETED_FILE)
    assert "deleted" in rows[0].text.plain
    assert code_rows(rows) == [("removed", 1, None, "one"), ("removed", 2, None, "two")]


def test_empty_diff_says_no_changes() -> None:
    for diff in ("", "  \n"):
        rows, parsed = build_rows(diff)
        assert parsed
        assert [(row.kind, row.text.plain) for row in rows] == [("note", "no changes")]


def test_unparseable_diff_falls_back_to_coloured_text() -> None:
    broken = "--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,5 @@\n-old\n+new\n context\n"
    rows, parsed = build_rows(broken)
    assert not parsed
    assert rows[0].kind == "note"
    kinds = [(row.kind, row.text.plain) for row in rows[1:]]
    assert kinds == [
        ("file", "--- a/x.py"),
        ("file", "+++ b/x.py"),
        ("hunk", "@@ -1,5 +1,5 @@"),
        ("removed", "old"),
        ("added", "new"),
        ("context", "context"),
    ]
    assert all(row.old is None and row.new is None for row in rows)


def test_text_without_diff_headers_is_shown_as_text() -> None:
    rows, parsed = build_rows("just some words\n")
    assert not parsed
    assert rows[-1].text.plain == "just some words"


def test_diff_text_is_made_safe() -> None:
    diff = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\x1b]52;c;ZXZpbA==\x07b\n+c\u202ed\re\n"
    rows, parsed = build_rows(diff)
    assert parsed
    assert code_rows(rows) == [("removed", 1, None, "ab"), ("added", None, 1, "c\\u202ed\\re")]


def test_a_file_name_with_an_escape_sequence_is_shown_escaped_not_dropped() -> None:
    name = "esc\x1b]0;X\x07.txt"
    parsed, _ = build_rows(f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+hi\n")
    assert parsed[0].text.plain == "esc\\x1b]0;X\\x07.txt  new file  +1 -0"
    fallback, ok = build_rows(f"+++ b/{name}\n@@ nonsense\n+hi\n")
    assert not ok
    assert [row.text.plain for row in fallback if row.kind == "file"] == [
        "+++ b/esc\\x1b]0;X\\x07.txt"]


class DiffApp(App[None]):
    def __init__(self, diff: str) -> None:
        super().__init__()
        self.diff = diff

    def compose(self) -> ComposeResult:
        yield DiffView(self.diff, id="diff")


def many_hunks(count: int) -> str:
    lines = ["--- a/big.py", "+++ b/big.py"]
    for i in range(count):
        start = 1 + i * 100
        lines += [f"@@ -{start},3 +{start},3 @@", " a = 1", f"-b = {i}", f"+b = {i + 1}", " c = 3"]
    return "\n".join(lines) + "\n"


async def test_hunk_selection_marks_and_scrolls() -> None:
    app = DiffApp(many_hunks(10))
    async with app.run_test(size=(60, 12)) as pilot:
        view = app.query_one(DiffView)
        assert view.hunk_count == 10
        assert view.selected_hunk == -1
        assert view.scroll_y == 0

        view.select_hunk(7)
        await pilot.pause()
        assert view.selected_hunk == 7
        start = next(y for y, row in enumerate(view.rows) if row.hunk == 7)
        await pilot.wait_for_scheduled_animations()
        assert view.scroll_y <= start < view.scroll_y + view.scrollable_content_region.height
        # The selected hunk's rows carry the margin bar, the others do not.
        line = view.render_line(start - round(view.scroll_y))
        assert line.text.startswith("▌")

        view.select_hunk(99)
        assert view.selected_hunk == 9
        view.select_hunk(-5)
        assert view.selected_hunk == 0


async def test_select_hunk_without_hunks_is_harmless() -> None:
    app = DiffApp("")
    async with app.run_test(size=(40, 5)):
        view = app.query_one(DiffView)
        assert view.hunk_count == 0
        view.select_hunk(0)
        assert view.selected_hunk == -1


async def test_rows_render_with_gutters() -> None:
    app = DiffApp(TWO_HUNKS)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        view = app.query_one(DiffView)
        lines = [view.render_line(y).text for y in range(len(view.rows))]
        assert lines[0].strip().startswith("src/app.py")
        assert lines[2].split() == ["1", "1", "import", "os"]
        assert lines[3].split() == ["2", "-", "x", "=", "1"]
        assert lines[4].split() == ["2", "+", "x", "=", "2"]
        assert all(len(line) == view.scrollable_content_region.width for line in lines)


def test_side_by_side_rows_pair_removed_with_added() -> None:
    view = DiffView(TWO_HUNKS)
    pairs = [
        (row.left.text.plain if row.left else None, row.right.text.plain if row.right else None)
        for row in view.split_rows if row.across is None
    ]
    assert pairs == [
        ("import os", "import os"),
        ("x = 1", "x = 2"),
        (None, "y = 3"),  # an added line with nothing facing it
        ("print(x)", "print(x)"),
        ("    a = 1", "    a = 1"),
        ("    b = 2", "    b = 3"),
    ]
    across = [row.across.kind for row in view.split_rows if row.across is not None]
    assert across == ["file", "hunk", "hunk", "note"]


async def test_side_by_side_renders_both_sides_in_the_width() -> None:
    app = DiffApp(TWO_HUNKS)
    async with app.run_test(size=(61, 16)) as pilot:
        view = app.query_one(DiffView)
        view.split = True
        await pilot.pause()
        assert view.virtual_size.height == len(view.split_rows)
        lines = [view.render_line(y).text for y in range(len(view.split_rows))]
        row = next(line for line in lines if "x = 1" in line)
        left, right = row.split("│")
        assert left.split() == ["2", "-", "x", "=", "1"] and right.split() == ["2", "+", "x", "=", "2"]
        assert all(len(line) == view.scrollable_content_region.width for line in lines)
        view.split = False
        await pilot.pause()
        assert view.virtual_size.height == len(view.rows)


async def test_hunks_can_be_left_out_and_taken_back() -> None:
    app = DiffApp(TWO_HUNKS)
    async with app.run_test(size=(60, 16)) as pilot:
        view = app.query_one(DiffView)
        assert view.kept_hunks == [0, 1]
        view.select_hunk(1)
        view.toggle_hunk()
        assert view.kept_hunks == [0]
        view.toggle_hunk(0)
        assert view.kept_hunks == []
        view.toggle_hunk(7)  # no such hunk: nothing happens
        view.toggle_hunk(1)
        assert view.kept_hunks == [1]
        await pilot.pause()


async def test_choosable_headers_show_what_is_kept() -> None:
    class ChoosableApp(DiffApp):
        def compose(self) -> ComposeResult:
            yield DiffView(self.diff, choosable=True)

    app = ChoosableApp(TWO_HUNKS)
    async with app.run_test(size=(60, 16)) as pilot:
        view = app.query_one(DiffView)
        view.toggle_hunk(1)
        await pilot.pause()
        headers = [view.render_line(y).text.strip() for y, row in enumerate(view.rows)
                   if row.kind == "hunk"]
        assert headers == ["✓ @@ -1,3 +1,4 @@", "✗ @@ -40,2 +41,2 @@ def main():"]
