"""Permission rules: parsing, Bash prefix rules, path globs, allow versus deny sense."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vibe_tui.policy import Rule, parse_rule, rule_matches
from vibe_tui.policy.rules import allowing_rule
from vibe_tui.policy.types import ToolRequest

WS = Path("/work/project")


def bash(command: str) -> ToolRequest:
    return ToolRequest("bash", "exec", {"command": command}, command=command)


def read(rel: str, tool: str = "read_file") -> ToolRequest:
    return ToolRequest(tool, "read", {"path": rel}, paths=(WS / rel,))


def edit(rel: str, tool: str = "edit_file") -> ToolRequest:
    return ToolRequest(tool, "edit", {"path": rel}, paths=(WS / rel,))


@pytest.mark.parametrize(("text", "rule"), [
    ("Bash", Rule("Bash")),
    ("Bash(npm test:*)", Rule("Bash", "npm test:*")),
    ("  Bash( git status )  ", Rule("Bash", "git status")),
    ("Bash()", Rule("Bash")),
    ("Bash(*)", Rule("Bash")),
    ("Read(./.env)", Rule("Read", "./.env")),
    ("Edit(src/**)", Rule("Edit", "src/**")),
    ("read_file", Rule("read_file")),
    ("mcp__server__tool", Rule("mcp__server__tool")),
    ("Bash(echo (a))", Rule("Bash", "echo (a)")),
])
def test_parse_rule(text: str, rule: Rule) -> None:
    assert parse_rule(text) == rule


@pytest.mark.parametrize("text", ["", "(x)", "Bash(npm", "9lives", "Bash x", "Ba sh(x)"])
def test_parse_rule_rejects_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rule(text)


@pytest.mark.parametrize("text", ["Bash", "Bash(npm test:*)", "Read(./.env)", "mcp__s__t"])
def test_rule_text_round_trips(text: str) -> None:
    assert str(parse_rule(text)) == text


ALLOW_BASH = [
    # (rule, command, matches)
    ("Bash", "rm -rf /", True),  # bare family: every call
    ("Bash(npm test:*)", "npm test", True),
    ("Bash(npm test:*)", "npm test --watch", True),
    ("Bash(npm test:*)", "npm testify", False),  # whole words only
    ("Bash(npm test:*)", "npm", False),
    ("Bash(npm test:*)", "npm run test", False),
    ("Bash(npm test:*)", "'npm' \"test\" x", True),  # quoting does not change the words
    ("Bash(npm test)", "npm test", True),
    ("Bash(npm test)", "npm test --watch", False),  # exact without :*
    ("Bash(npm test:*)", "npm test && rm -rf /", False),  # chained command not covered
    ("Bash(npm test:*)", "npm test; rm -rf /", False),
    ("Bash(npm test:*)", "npm test | sh", False),
    ("Bash(npm test:*)", "npm test && ls -la", True),  # the rest is read-only
    ("Bash(npm test:*)", "npm test > ~/.bashrc", False),  # redirection
    ("Bash(npm test:*)", "npm test $(rm -rf /)", False),  # substitution
    ("Bash(npm test:*)", "npm test `id`", False),
    ("Bash(npm test:*)", "npm test $FLAGS", False),  # expansion
    ("Bash(npm test:*)", "FOO=1 npm test", False),  # assignment
    ("Bash(npm test:*)", "(npm test)", False),
    ("Bash(npm test:*)", "npm test &", False),
    ("Bash(npm test:*)", "npm test\rrm x", False),
    ("Bash(npm test:*)", "timeout 5 npm test", False),
    ("Bash(rm:*)", "/bin/rm x", False),  # allow compares the name exactly
    ("Bash(git commit:*)", "git commit -m 'fix: x'", True),
    ("Bash(git commit -m:*)", "git commit -m x", True),
    ("Bash(python -m pytest:*)", "python -m pytest -q tests", True),
    ("bash(npm test:*)", "npm test", True),  # the tool's own name works too
    ("Read", "cat x", False),  # another family
    ("Edit(src/**)", "npm test", False),
]


@pytest.mark.parametrize(("rule", "command", "matches"), ALLOW_BASH)
def test_bash_rules_allow(rule: str, command: str, matches: bool) -> None:
    assert rule_matches(parse_rule(rule), bash(command), WS, "allow") is matches


DENY_BASH = [
    ("Bash(rm:*)", "rm -rf x", True),
    ("Bash(rm:*)", "ls && rm -rf x", True),
    ("Bash(rm:*)", "echo $(rm -rf x)", True),  # inside a substitution
    ("Bash(rm:*)", "echo \"`rm -rf x`\"", True),
    ("Bash(rm:*)", "cat <(rm x)", True),
    ("Bash(rm:*)", "(cd x && rm y)", True),  # inside a subshell
    ("Bash(rm:*)", "f() { rm y; }; f", True),
    ("Bash(rm:*)", "if true; then rm y; fi", True),
    ("Bash(rm:*)", "sudo rm -rf /", True),  # after wrappers
    ("Bash(rm:*)", "env FOO=1 rm x", True),
    ("Bash(rm:*)", "timeout -s KILL 5 rm x", True),
    ("Bash(rm:*)", "find . -name x | xargs rm", True),
    ("Bash(rm:*)", "find . -exec rm {} \\;", True),
    ("Bash(rm:*)", "nice -n 5 nohup rm x", True),
    ("Bash(rm:*)", "bash -c 'rm x'", True),  # inside a shell's script
    ("Bash(rm:*)", "sh -lc \"ls; rm x\"", True),
    ("Bash(rm:*)", "eval rm x", True),
    ("Bash(rm:*)", "/bin/rm x", True),  # by path
    ("Bash(rm:*)", "\\rm x", True),
    ("Bash(rm:*)", "r'm' x", True),  # quoting
    ("Bash(rm:*)", "$CMD x", True),  # the name is computed: cannot rule it out
    ("Bash(rm:*)", "r? x", True),  # a wildcard name could be rm
    ("Bash(rm:*)", "rm x (", True),  # unparseable: cannot rule it out
    ("Bash(rm:*)", "ls\rrm x", True),
    ("Bash(rm:*)", "bash -c \"$X\"", True),
    ("Bash(rm:*)", "ls -la", False),
    ("Bash(rm:*)", "echo rm", False),  # an argument, not a command
    ("Bash(rm:*)", "grep -r rm src", False),
    ("Bash(rm:*)", "rmdir x", False),  # whole words
    ("Bash(rm -rf:*)", "rm x", False),
    ("Bash(rm -rf:*)", "rm -rf x", True),
    ("Bash(rm -rf:*)", "rm $FLAGS x", True),  # the computed word could be -rf
    ("Bash(git push)", "git push", True),
    ("Bash(git push)", "git push origin", False),
    ("Bash(git push)", "git push $EMPTY", True),  # could expand to nothing
    ("Bash", "ls", True),
]


@pytest.mark.parametrize(("rule", "command", "matches"), DENY_BASH)
def test_bash_rules_deny(rule: str, command: str, matches: bool) -> None:
    assert rule_matches(parse_rule(rule), bash(command), WS, "deny") is matches


PATHS = [
    # (rule, request, allow-sense match, deny-sense match)
    ("Read(./.env)", read(".env"), True, True),
    ("Read(./.env)", read("sub/.env"), False, False),  # ./ anchors at the workspace
    ("Read(.env)", read("sub/.env"), True, True),  # no slash: any depth
    ("Read(.env)", read(".env.example"), False, False),
    ("Read(src/**)", read("src/a/b.py"), True, True),
    ("Read(src/**)", read("lib/src/a.py"), False, False),
    ("Read(src)", read("src/a.py"), True, True),  # a folder covers what is in it
    ("Read(secrets/)", read("secrets", tool="list_dir"), False, True),  # may be the folder
    ("Read(**/*.key)", read("a/b/c.key"), True, True),
    ("Read(**/*.key)", read("c.key"), True, True),
    ("Read(*.key)", read("deep/c.key"), True, True),
    ("Read(/src/*.py)", read("src/a.py"), True, True),
    ("Read(/src/*.py)", read("src/x/a.py"), False, False),
    ("Read(./.env)", read(".env", tool="grep"), True, True),
    ("Read(./.env)", edit(".env"), False, True),  # a Read deny guards edits too
    ("Read", read("anything"), True, True),
    ("Read", edit("anything"), False, False),
    ("Edit", edit("a.py", tool="write_file"), True, True),
    ("Edit(src/**)", edit("src/a.py"), True, True),
    ("Edit(src/**)", edit("docs/a.md"), False, False),
    ("Edit(src/**)", read("src/a.py"), False, False),
    ("read_file(./.env)", read(".env"), True, True),
    ("read_file(./.env)", read(".env", tool="list_dir"), False, False),
    ("Read(//work/project/.env)", read(".env"), True, True),  # absolute
    ("Read(//etc/**)", read(".env"), False, False),
]


@pytest.mark.parametrize(("rule", "request_", "allow", "deny"), PATHS)
def test_path_rules(rule: str, request_: ToolRequest, allow: bool, deny: bool) -> None:
    assert rule_matches(parse_rule(rule), request_, WS, "allow") is allow
    assert rule_matches(parse_rule(rule), request_, WS, "deny") is deny


def test_home_path_rule() -> None:
    home = Path(os.path.expanduser("~"))
    request = ToolRequest("read_file", "read", {"path": "x"}, paths=(home / ".ssh" / "id_rsa",))
    assert rule_matches(parse_rule("Read(~/.ssh/**)"), request, WS, "deny")
    assert not rule_matches(parse_rule("Read(~/.aws/**)"), request, WS, "deny")


def test_deny_also_holds_for_the_name_of_a_symlink() -> None:
    # .env is a link to config/secret: the resolved path alone would slip past the rule.
    request = ToolRequest("read_file", "read", {"path": ".env"}, paths=(WS / "config" / "secret",))
    assert rule_matches(parse_rule("Read(./.env)"), request, WS, "deny")
    assert not rule_matches(parse_rule("Read(./.env)"), request, WS, "allow")


@pytest.mark.parametrize(("command", "matches"), [
    ("cat .env", True),
    ("cat ./.env", True),
    ("grep KEY sub/../.env", True),
    ("cat .env.example", False),
    ("ls", False),
])
def test_read_deny_checks_the_words_of_commands(command: str, matches: bool) -> None:
    assert rule_matches(parse_rule("Read(./.env)"), bash(command), WS, "deny") is matches
    assert not rule_matches(parse_rule("Read(./.env)"), bash(command), WS, "allow")


@pytest.mark.parametrize(("rule", "sense", "matches"), [
    ("mcp__s__t", "allow", True),
    ("mcp__s__t(x)", "allow", False),  # a specifier we cannot read never allows
    ("mcp__s__t(x)", "deny", True),  # ... and always denies
    ("mcp__s__other", "deny", False),
])
def test_other_tools(rule: str, sense: str, matches: bool) -> None:
    request = ToolRequest("mcp__s__t", "exec", {})
    assert rule_matches(parse_rule(rule), request, WS, sense) is matches  # type: ignore[arg-type]


@pytest.mark.parametrize(("rules", "command", "allowed_by"), [
    (["Bash(npm test:*)", "Bash(git add:*)"], "npm test && git add .", "Bash(npm test:*)"),
    (["Bash(git add:*)", "Bash(npm test:*)"], "npm test && git add .", "Bash(npm test:*)"),
    (["Bash(npm test:*)"], "npm test && git add .", None),
    (["Bash(npm test:*)", "Bash(git add:*)"], "npm test && git add . > log", None),
    (["Bash(npm test:*)"], "ls", None),  # read-only anyway: no rule needed
    (["Bash"], "anything at all > x", "Bash"),
])
def test_several_rules_cover_a_chain_together(rules: list[str], command: str,
                                              allowed_by: str | None) -> None:
    rule = allowing_rule([parse_rule(r) for r in rules], bash(command), WS)
    assert (str(rule) if rule else None) == allowed_by


@pytest.mark.parametrize(("rule", "request_", "allow", "deny"), [
    # Denying ignores letter case: on macOS and Windows .ENV is .env.
    ("Read(./.env)", read(".ENV"), False, True),
    ("Read(**/*.key)", read("certs/Server.KEY"), False, True),
    ("Edit(src/**)", edit("SRC/a.py"), False, True),
    # Write is Claude Code's other name for the edit tools.
    ("Write(docs/**)", edit("docs/a.md", tool="write_file"), True, True),
    ("Write(docs/**)", edit("src/a.md"), False, False),
])
def test_case_folding_and_write_rules(rule: str, request_: ToolRequest, allow: bool,
                                      deny: bool) -> None:
    parsed = parse_rule(rule)
    assert rule_matches(parsed, request_, WS, "allow") is allow
    assert rule_matches(parsed, request_, WS, "deny") is deny


@pytest.mark.parametrize(("url", "matches"), [
    ("https://example.com/a", True),
    ("https://docs.example.com/a", True),
    ("https://EXAMPLE.com./a", True),
    ("https://example.com.evil.net/a", False),
    ("https://notexample.com/", False),
])
def test_webfetch_domain_rules(url: str, matches: bool) -> None:
    request = ToolRequest("web_fetch", "read", {"url": url})
    assert rule_matches(parse_rule("WebFetch(domain:example.com)"), request, WS) is matches


def test_a_read_deny_follows_links_in_commands(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SECRET=1")
    (tmp_path / "innocent.txt").symlink_to(tmp_path / ".env")
    request = ToolRequest("bash", "exec", {"command": "cat innocent.txt"},
                          command="cat innocent.txt", cwd=tmp_path)
    assert rule_matches(parse_rule("Read(./.env)"), request, tmp_path, "deny")
    assert not rule_matches(parse_rule("Read(./.env)"), bash("cat other.txt"), tmp_path, "deny")
