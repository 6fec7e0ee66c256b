"""Syntax checks: which files are checked, and where problems are reported."""

from __future__ import annotations

import pytest

from vibe_tui.code import SyntaxProblem, language_for, language_name, syntax_errors

# (file name, clean source, broken source) for every supported grammar.
LANGUAGE_SAMPLES = [
    ("m.py", "def f(x):\n    return x\n", "def f(x:\n    return x\n"),
    ("m.pyi", "def f(x: int) -> int: ...\n", "def f(x: int -> int: ...\n"),
    ("m.js", "function f(a) { return a; }\n", "function f(a { return a; }\n"),
    ("m.mjs", "export const a = 1;\n", "export const = 1;\n"),
    ("m.cjs", "module.exports = { a: 1 };\n", "module.exports = { a: 1 ;\n"),
    ("m.jsx", "const a = <div>{x}</div>;\n", "const a = <div>{x</div>;\n"),
    ("m.ts", "let x: number = 1;\n", "let x: number = ;\n"),
    ("m.tsx", "const a = <A<string> x={1} />;\n", "const a = <A x={1} ;\n"),
    ("m.go", "package main\n\nfunc main() {}\n", "package main\n\nfunc main() {\n"),
    ("m.rs", "fn main() { let x = 1; }\n", "fn main() { let x = ; }\n"),
    ("M.java", "class A { void f() {} }\n", "class A { void f( {} }\n"),
    ("m.c", "int main(void) { return 0; }\n", "int main(void) { return 0 }\n"),
    ("m.h", "int f(int a);\n", "int f(int a;\n"),
    ("m.cc", "int main() { return 0; }\n", "int main() { return 0 }\n"),
    ("m.cpp", "namespace n { int a; }\n", "namespace n { int a }\n"),
    ("m.cxx", "int a = 1;\n", "int a = ;\n"),
    ("m.hpp", "class A { int a; };\n", "class A { int a; \n"),
    ("m.hh", "struct S { int a; };\n", "struct S { int a };\n"),
    ("m.rb", "def f\n  1\nend\n", "def f\n  1\n"),
    ("m.sh", "if true; then echo hi; fi\n", "if true; then echo hi\n"),
    ("m.bash", "for a in 1 2; do echo $a; done\n", "for a in 1 2; do echo $a\n"),
    ("m.toml", "[tool]\na = 1\n", "[tool\na = 1\n"),
    ("m.yml", "a: 1\nb: [1, 2]\n", "a: [1, 2\n"),
    ("m.yaml", "a:\n  - 1\n", "a: {b: 1\n"),
    ("m.html", "<p>hi</p>\n", "<p <b>hi</p>\n"),
    ("m.css", "a { color: red; }\n", "a { color: red;\n"),
]


@pytest.mark.parametrize(("name", "clean", "broken"), LANGUAGE_SAMPLES)
def test_each_language_parses_clean_and_flags_broken(name: str, clean: str, broken: str) -> None:
    assert syntax_errors(name, clean) == []
    problems = syntax_errors(name, broken)
    assert problems, f"{name}: broken sample not flagged"
    assert all(problem.line >= 1 and problem.column >= 1 for problem in problems)


@pytest.mark.parametrize("name", ["notes.txt", "Makefile", "data.csv", "README.md", "x.unknown"])
def test_unsupported_files_return_none(name: str) -> None:
    assert syntax_errors(name, "anything (((") is None
    assert language_for(name) is None


def test_language_is_chosen_by_extension_with_paths_and_case() -> None:
    assert language_name("src/pkg/Mod.PY") == "python"
    assert language_name("/abs/app.tsx") == "tsx"
    assert language_name("app.ts") == "typescript"
    assert language_name("a.h") == "c"
    assert language_name("a.hpp") == "cpp"


def test_languages_are_loaded_once() -> None:
    assert language_for("a.py") is language_for("b.py")
    assert language_for("a.ts") is not language_for("a.tsx")


def test_missing_token_reports_position_and_name() -> None:
    problems = syntax_errors("m.py", "def f(:\n    pass\n")
    assert problems == [SyntaxProblem(1, 7, "missing ')'")]
    assert str(problems[0]) == "line 1 column 7 (missing ')')"


def test_error_node_reports_unexpected_text() -> None:
    problems = syntax_errors("m.rs", "fn main() {\n    let x = ;\n}\n")
    assert problems is not None and len(problems) == 1
    assert (problems[0].line, problems[0].column) == (2, 11)
    assert problems[0].description == "unexpected '='"


def test_columns_count_characters_not_bytes() -> None:
    # 'é' and '→' are 2 and 3 bytes in UTF-8; the column must still count them as one.
    problems = syntax_errors("m.ts", "const é = '→'; let x: number = ;\n")
    assert problems is not None
    assert problems[0].column == len("const é = '→'; let x: number ") + 1


def test_problems_are_sorted_by_position() -> None:
    problems = syntax_errors("m.go", "package main\nfunc a() { x := }\nfunc b() { y := }\n")
    assert problems is not None and len(problems) >= 2
    positions = [(problem.line, problem.column) for problem in problems]
    assert positions == sorted(positions)
    assert positions[0][0] == 2


def test_python_indentation_errors_are_found() -> None:
    # Tree-sitter's Python grammar accepts this; the ast module does not.
    problems = syntax_errors("m.py", "def f():\nreturn 1\n")
    assert problems is not None and problems[0].line == 2
    assert "indent" in problems[0].description


def test_python_syntax_newer_than_the_interpreter_is_not_reported() -> None:
    assert syntax_errors("m.py", "type Pair[T] = tuple[T, T]\n\ndef f[T](x: T) -> T:\n    return x\n") == []


def test_json_is_checked_with_line_and_column() -> None:
    assert syntax_errors("data.json", '{"a": [1, 2]}\n') == []
    problems = syntax_errors("conf/data.JSON", '{\n  "a": 1,\n  "b": 2,\n}\n')
    assert problems is not None and len(problems) == 1
    assert (problems[0].line, problems[0].column) == (4, 1)
    assert "double quotes" in problems[0].description


def test_empty_text_is_clean_for_code() -> None:
    assert syntax_errors("m.py", "") == []
    assert syntax_errors("empty.json", "") != []  # an empty JSON document is not valid
