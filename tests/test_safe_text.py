"""safe(): no escape sequence or control character from the model reaches the terminal."""

from __future__ import annotations

import pytest
from rich.text import Text

from vibe_tui.safe_text import plain, safe, safe_name


def assert_inert(text: str) -> None:
    """No ESC, no C0 other than newline/tab, no DEL, no C1, no bidi override or isolate."""
    for char in text:
        code = ord(char)
        assert char in "\n\t" or not (code < 0x20 or 0x7F <= code <= 0x9F), repr(text)
        assert not (0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069), repr(text)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("copy\x1b]52;c;ZXZpbA==\x07me", "copyme", id="osc52-clipboard-bel"),
        pytest.param("x\x1b]52;c;ZXZpbA==\x1b\\y", "xy", id="osc52-clipboard-st"),
        pytest.param(
            "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\",
            "click here",
            id="osc8-link",
        ),
        pytest.param("\x1b]0;pwned\x07title", "title", id="window-title"),
        pytest.param("\x1b]2;pwned\x1b\\", "", id="window-title-st"),
        pytest.param("\x1b[2J\x1b[Hclear", "clear", id="cursor-moves"),
        pytest.param("ask\x1b[6n", "ask", id="dsr"),
        pytest.param("\x1b[31mred\x1b[0m", "red", id="sgr-colour"),
        pytest.param("\x1b[?1049hscreen", "screen", id="private-mode"),
        pytest.param("a\x1bP$q m\x1b\\b", "ab", id="decrqss"),
        pytest.param("a\x1b_apc payload\x1b\\b", "ab", id="apc"),
        pytest.param("a\x1b^pm payload\x1b\\b", "ab", id="pm"),
        pytest.param("a\x1bXsos payload\x1b\\b", "ab", id="sos"),
        pytest.param("reset\x1bc", "reset", id="ris"),
        pytest.param("save\x1b7\x1b8", "save", id="save-restore-cursor"),
        pytest.param("\x1b(0charset", "charset", id="charset"),
        pytest.param("lone\x1b", "lone", id="lone-esc"),
        pytest.param("\x9b31mred", "red", id="c1-csi"),
        pytest.param("\x9d0;pwned\x9ctitle", "title", id="c1-osc"),
        pytest.param("\x90$q m\x9cafter", "after", id="c1-dcs"),
        pytest.param("\x1b]0;unterminated\nnext line", "\nnext line", id="unterminated-osc"),
    ],
)
def test_escape_sequences_are_removed(raw: str, expected: str) -> None:
    assert safe(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("ding\x07", "ding\\x07", id="bel"),
        pytest.param("back\x08space", "back\\x08space", id="backspace"),
        pytest.param("nul\x00", "nul\\x00", id="nul"),
        pytest.param("vt\x0bff\x0c", "vt\\x0bff\\x0c", id="vt-ff"),
        pytest.param("del\x7f", "del\\x7f", id="del"),
        pytest.param("nel\x85", "nel\\x85", id="c1-nel"),
        pytest.param("st\x9c", "st\\x9c", id="c1-lone-st"),
    ],
)
def test_control_characters_are_shown_escaped(raw: str, expected: str) -> None:
    assert safe(raw) == expected


@pytest.mark.parametrize("code", [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
def test_bidi_overrides_and_isolates_are_shown_escaped(code: int) -> None:
    assert safe(f"user{chr(code)}txt.exe") == f"user\\u{code:04x}txt.exe"


def test_bidi_marks_stay() -> None:
    text = "abc\u200edef\u200f\u061c"
    assert safe(text) == text


def test_carriage_returns_become_newlines() -> None:
    assert safe("a\r\nb") == "a\nb"
    assert safe("10%\r50%\r100%\n") == "10%\n50%\n100%\n"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ascii text",
        "tabs\tand\nnewlines\n",
        "unicode: naïve café Ωμέγα 日本語 עברית",
        "emoji: 🎉 👩‍💻 🇫🇷",
        "[bold]not markup[/bold] and $variables and \\backslashes",
    ],
)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert safe(text) == text


def test_plain_text_is_returned_unchanged_as_the_same_object() -> None:
    # The fast path: a streamed delta with nothing to clean costs one scan, no copy.
    text = "nothing to clean here " * 10
    assert safe(text) is text


def test_output_is_always_inert() -> None:
    nasty = "".join(chr(c) for c in range(0xA0)) + "\u202e\u2066\u2069" + "\x1b]52;c;x"
    assert_inert(safe(nasty))
    assert_inert(safe("\x1b" * 5 + "\x9b" * 5 + "\x1b[" * 5))


def test_plain_never_interprets_markup() -> None:
    text = plain("[bold red]hi[/] \x1b[31m")
    assert isinstance(text, Text)
    assert text.plain == "[bold red]hi[/] "
    assert not text.spans


# ---- names, paths and commands the user decides on ------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("esc\x1b]0;X\x07.txt", "esc\\x1b]0;X\\x07.txt", id="osc-title"),
        pytest.param("a\x1b[31mred.py", "a\\x1b[31mred.py", id="csi"),
        pytest.param("c1\x9d0;X\x9c.txt", "c1\\x9d0;X\\x9c.txt", id="c1-osc"),
        pytest.param("user\u202etxt.exe", "user\\u202etxt.exe", id="bidi"),
        pytest.param("two\nlines.txt", "two\\nlines.txt", id="newline"),
        pytest.param("tab\tcr\r.txt", "tab\\tcr\\r.txt", id="tab-cr"),
    ],
)
def test_a_name_shows_every_control_escaped_and_drops_nothing(raw: str, expected: str) -> None:
    assert safe_name(raw) == expected
    assert_inert(safe_name(raw))


def test_a_command_keeps_its_lines_and_shows_its_sequences() -> None:
    command = "printf '\x1b]52;c;ZXZpbA==\x07'\n\techo \u202edone\r"
    assert safe_name(command, multiline=True) == (
        "printf '\\x1b]52;c;ZXZpbA==\\x07'\n\techo \\u202edone\\r")


def test_an_ordinary_name_is_returned_unchanged() -> None:
    name = "src/naïve café/日本語 [bold].py"
    assert safe_name(name) is name
