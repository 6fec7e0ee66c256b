"""analyse_command: which shell commands are read-only, why others are not, what to grant."""

from __future__ import annotations

import time

import pytest

from vibe_tui.policy import analyse_command
from vibe_tui.policy.shell import reachable_commands, static_words

READ_ONLY = [
    "ls",
    "ls -la",
    "ls -la src",
    "ls *.py",
    "pwd",
    "git status",
    "git status --porcelain",
    "git diff",
    "git diff --stat HEAD~1",
    "git log --oneline | head -5",
    "git log --oneline main..feature",
    "git log HEAD@{1}",
    "git show HEAD:README.md",
    "git branch",
    "git branch -a -vv",
    "git branch --list 'feat*'",
    "git branch --contains HEAD",
    "git tag",
    "git tag -l 'v*'",
    "git remote -v",
    "git ls-files",
    "git rev-parse HEAD",
    "git blame README.md",
    "git grep -n TODO",
    "git describe --tags",
    "git shortlog -sn",
    "git --no-pager log -1",
    "git --version",
    "grep -rn foo src && wc -l x",
    "grep -rn 'a|b' src || true",
    "rg -n TODO src",
    "rg -tpy foo",
    "find . -name '*.py' -type f",
    "find src -maxdepth 2 -print",
    "cat README.md | sort | uniq -c | sort -rn | head",
    "head -n 20 a.py; tail -n 5 a.py",
    "wc -l a.py\nwc -c b.py",
    "echo hello",
    'echo "a b" \'c d\'',
    "echo \"it's\"",
    "e'c'ho hi",
    "echo a\\ b",
    "stat a.py",
    "du -sh src",
    "tree -L 2",
    "file a.py",
    "date +%Y",
    "uname -a",
    "which python",
    "diff a b",
    "cmp a b",
    "sha256sum a.py",
    "basename src/a.py",
    "sort a.txt",
    "cut -d, -f1 a.csv",
    "tr a-z A-Z",
    "nl a.py",
    "python --version",
    "node --version",
    "ls # a comment",
    "ls \\\n  -la",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only(command: str) -> None:
    analysis = analyse_command(command)
    assert analysis.read_only, analysis.reason
    assert analysis.plain
    assert analysis.grant is None


NOT_READ_ONLY = [
    # (command, words expected in the reason)
    ("ls > out", "redirects output to a file"),
    ("ls >> out", "redirects output to a file"),
    ("cat x 2>/dev/null", "redirects output to a file"),
    ("ls 2>&1", "redirects a file descriptor"),
    ("cat < x", "reads a file through a redirection"),
    (">out ls", "redirects output to a file"),
    ("echo $(rm -rf x)", "command substitution"),
    ('echo "$(rm -rf x)"', "command substitution"),
    ("echo `id`", "command substitution"),
    ("cat <(ls)", "process substitution"),
    ("echo $HOME", "expands a variable"),
    ("echo ${IFS}", "expands a variable"),
    ('echo "a $x"', "expands a variable"),
    ("echo $((1+2))", "arithmetic expansion"),
    ("echo {a,b}", "brace expansion"),
    ("echo x{a,b}y", "brace expansion"),
    ("echo {1..3}", "brace expansion"),
    ("ls; rm -rf x", "chains a command that is not read-only: rm"),
    ("ls && rm -rf x", "chains a command that is not read-only: rm"),
    ("ls | sh", "chains a command that is not read-only: sh"),
    ("rm -rf x", "rm is not a known read-only command"),
    ("FOO=1 ls", "sets a variable"),
    ("FOO=1", "sets a variable"),
    ("export FOO=1", "declares shell variables"),
    ("(ls)", "subshell"),
    ("{ ls; }", "groups commands"),
    ("f() { ls; }", "defines a shell function"),
    ("if true; then ls; fi", "control flow"),
    ("for f in a; do ls; done", "loop"),
    ("[[ -f x ]]", "test expression"),
    ("! ls", "negates"),
    ("ls &", "background"),
    ("ls |& cat", "|&"),
    ("cat <<EOF\nx\nEOF", "here-document"),
    ("cat <<< x", "here-string"),
    ("echo $'\\x41'", "$'...' quoting"),
    ('echo $"x"', "$"),
    ("ls\x00", "NUL byte"),
    ("ls\rrm -rf x", "control character"),
    ("ls\x1b[2J", "control character"),
    ("", "empty command"),
    ("   \n ", "empty command"),
    ("# only a comment", "empty command"),
    ("ls (", "could not be parsed"),
    ("echo 'unterminated", "could not be parsed"),
    ("ls &&", "could not be parsed"),
    ("ls ;;", "operator"),
    ("env rm x", "runs another command through env"),
    ("xargs rm", "runs another command through xargs"),
    ("sudo ls", "runs another command through sudo"),
    ("timeout 5 ls", "runs another command through timeout"),
    ("nice ls", "through nice"),
    ("nohup ls", "through nohup"),
    ("time ls", "through time"),
    ("command ls", "through command"),
    ("builtin echo x", "through builtin"),
    ("exec ls", "through exec"),
    ("bash -c ls", "runs a shell script through bash"),
    ("sh -c ls", "through sh"),
    ("eval ls", "through eval"),
    ("cd /", "changes the directory"),
    ("cd src", "changes the directory"),
    ("alias ls=rm", "changes the shell's state (alias)"),
    ("history", "history"),
    ("find . -delete", "find -delete"),
    ("find . -exec rm {} \\;", "find -exec"),
    ("find . -execdir rm {} +", "find -execdir"),
    ("find . -ok rm {} \\;", "find -ok"),
    ("find . -fprintf out %p", "find -fprintf"),
    ("find . -fls out", "find -fls"),
    ("git -c core.pager=evil log", "git -c"),
    ("git -C /tmp status", "git -C"),
    ("git --git-dir=x log", "git --git-dir=x"),
    ("git --exec-path=x status", "git --exec-path"),
    ("git branch -D x", "git branch -D"),
    ("git branch -vd x", "git branch -d"),
    ("git branch --delete x", "git branch --delete"),
    ("git branch --set-upstream-to=origin/x", "--set-upstream-to"),
    ("git branch new-feature", "creates a branch"),
    ("git tag v1", "creates a tag"),
    ("git tag -d v1", "git tag -d"),
    ("git remote add o url", "git remote add"),
    ("git log --output=x", "git log --output"),
    ("git diff --ext-diff", "--ext-diff"),
    ("git grep -O vim foo", "git grep -O"),
    ("git commit -m x", "git commit is not a read-only git command"),
    ("git push", "git push"),
    ("git config user.name x", "git config"),
    ("rg --pre evil x", "rg --pre "),
    ("rg --pre=evil x", "rg --pre "),
    ("rg --pre-glob '*' x", "rg --pre-glob"),
    ("rg -z x", "rg -z"),
    ("rg --search-zip x", "rg --search-zip"),
    ("rg foo *", "wildcard"),
    ("find *", "wildcard"),
    ("sort -o f x", "sort -o"),
    ("sort -ro f x", "sort -o"),
    ("sort --output=f x", "sort --output"),
    ("sort --out=f x", "sort --output"),
    ("sort --compress-program=sh x", "--compress-program"),
    ("tree -o out", "tree -o"),
    ("tree -R -H . ", "tree -R"),
    ("file -C -m x", "file -C"),
    ("date -s 2020-01-01", "date -s"),
    ("uniq in out", "writes the second one"),
    ("printf '%s' x", "printf is not a known read-only command"),
    ("less x", "less is not"),
    ("python x.py", "python is not a known read-only command"),
    ("npm test", "npm is not"),
    ("/bin/ls", "/bin/ls is not a known read-only command"),
    ("./ls", "./ls is not"),
    ("cat /etc/passwd", "reaches outside the workspace: /etc/passwd"),
    ("cat ../secret", "reaches outside the workspace"),
    ("cat src/../../x", "reaches outside the workspace"),
    ("cat ~/.ssh/id_rsa", "reaches outside the workspace"),
    ("ls ~", "reaches outside the workspace"),
    ("grep --file=/etc/x y", "reaches outside the workspace"),
    ("grep -f/etc/x y", "reaches outside the workspace"),
    ("ls .*", "reaches outside the workspace"),
]


@pytest.mark.parametrize(("command", "reason"), NOT_READ_ONLY)
def test_not_read_only(command: str, reason: str) -> None:
    analysis = analyse_command(command)
    assert not analysis.read_only
    assert reason in analysis.reason


@pytest.mark.parametrize(("command", "argv"), [
    ("ls -la src", [["ls", "-la", "src"]]),
    ("git log --oneline | head -5", [["git", "log", "--oneline"], ["head", "-5"]]),
    ("a && b; c | d || e", [["a"], ["b"], ["c"], ["d"], ["e"]]),
    ("echo 'a b' \"c\\\"d\" e\\ f", [["echo", "a b", 'c"d', "e f"]]),
    ("e'c'\"h\"o x", [["echo", "x"]]),
    ("echo '$HOME' \"\\$x\"", [["echo", "$HOME", "$x"]]),
    ("ls > out", []),  # not plain: no argv offered
])
def test_commands_are_the_argv_bash_sees(command: str, argv: list[list[str]]) -> None:
    assert analyse_command(command).commands == argv


@pytest.mark.parametrize(("command", "grant"), [
    ("npm test", "Bash(npm test:*)"),
    ("npm test -- --watch", "Bash(npm test:*)"),
    ("npm run build", "Bash(npm run build:*)"),
    ("python -m pytest -q", "Bash(python -m pytest:*)"),
    ("python3 -m pytest", "Bash(python3 -m pytest:*)"),
    ("git commit -m x", "Bash(git commit:*)"),
    ("git push origin main", "Bash(git push:*)"),
    ("cargo test", "Bash(cargo test:*)"),
    ("rm -rf build", "Bash(rm:*)"),
    ("make", "Bash(make)"),
    ("ls && npm test", "Bash(npm test:*)"),  # only the command that needs it
    ("npm test && npm test -- x", "Bash(npm test:*)"),
    ("npm install && npm test", None),  # two different grants: none covers both
    ("python -c 'import os'", None),  # inline code: no prefix names it
    ("git -C x status", None),
    ("sudo rm x", None),  # a wrapper grant would grant everything
    ("bash -c 'rm x'", None),
    ("env X=1 npm test", None),
    ("/usr/bin/rm x", None),
    ("npm test > log", None),  # not plain commands
    ("echo $(npm test)", None),
    ("ls", None),  # read-only: nothing to grant
])
def test_grant(command: str, grant: str | None) -> None:
    assert analyse_command(command).grant == grant


def test_problems_line_up_with_commands() -> None:
    analysis = analyse_command("ls && rm x | wc -l")
    assert analysis.commands == [["ls"], ["rm", "x"], ["wc", "-l"]]
    assert [p is None for p in analysis.problems] == [True, False, True]


@pytest.mark.parametrize(("command", "expected"), [
    ("echo $(rm -rf x)", ["rm", "-rf", "x"]),
    ("(cd x && rm y)", ["rm", "y"]),
    ("f() { rm y; }", ["rm", "y"]),
    ("sudo rm -rf /", ["rm", "-rf", "/"]),
    ("env FOO=1 timeout -s KILL 5 rm x", ["rm", "x"]),
    ("xargs -0 rm", ["rm"]),
    ("find . -exec rm {} \\;", ["rm", "{}", ";"]),
    ("bash -c 'ls && rm x'", ["rm", "x"]),
    ("sudo sh -c \"rm x\"", ["rm", "x"]),
    ("eval rm x", ["rm", "x"]),
    ("cat x | xargs rm", ["rm"]),
    ("r\"m\" x", ["rm", "x"]),
    ("\\rm x", ["rm", "x"]),
])
def test_reachable_commands_find_hidden_commands(command: str, expected: list[str]) -> None:
    found = reachable_commands(command)
    assert found is not None
    assert expected in found


@pytest.mark.parametrize("command", [
    "rm x (",  # unparseable
    "ls\rrm x",  # parser and bash split differently
    "bash -c \"$X\"",  # the script is computed
    "eval \"$(curl x)\"",
    "bash -c 'rm x ('",
])
def test_reachable_commands_unknown(command: str) -> None:
    assert reachable_commands(command) is None


def test_reachable_commands_mark_computed_words() -> None:
    assert reachable_commands("$CMD -rf x") == [[None, "-rf", "x"]]
    assert reachable_commands("rm r*") == [["rm", None]]


def test_static_words_include_redirect_targets_and_heredocs() -> None:
    words = static_words("cat > .git/hooks/pre-commit <<EOF\ngit config x\nEOF")
    assert words is not None
    assert ".git/hooks/pre-commit" in words
    assert any("git config" in w for w in words)


def test_long_chains_do_not_recurse() -> None:
    command = " && ".join(["ls"] * 5000)
    started = time.monotonic()
    assert analyse_command(command).read_only
    assert reachable_commands(command) is not None
    assert time.monotonic() - started < 10  # a sanity bound, not a benchmark


@pytest.mark.parametrize("command", [
    "eval " * 30 + "rm x",  # nested deeper than the reader goes
    "env " + "bash -c ls " * 60,  # more scripts than the budget
    "xargs " + "x " * 1000,  # every tail of a huge wrapper call
])
def test_nested_and_wide_commands_have_a_budget(command: str) -> None:
    # Past the budget the answer is "unknown", which deny rules treat as a match.
    started = time.monotonic()
    assert reachable_commands(command) is None
    assert time.monotonic() - started < 10
