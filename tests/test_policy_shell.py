"""analyse_command: which shell commands are read-only, why others are not, what to grant."""

from __future__ import annotations

import time

import pytest

from vibe_tui.policy import analyse_command
from vibe_tui.policy.shell.reach import reachable_commands, static_words

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
    "cd src",
    "cd src && ls",
    "sed -n '1,5p' a.py",
    "sed -n 10p a.py",
    "sed -n '$p' a.py",
    "sed -ne '/start/,/end/p' a.py",
    "sed -n -e 1p -e '3,4p' a.py",
    "sed -nE '/a\\/b/Ip' a.py",
    "sed -n '2!p' a.py",
    "base64 a.bin",
    "base64 -d -w0 a.b64",
    "man ls",
    "man 3 printf",
    "git diff --text",
    "git log --no-ext-diff -p",
    "git diff --exit-code",
    "git log --exclude=refs/x --all",
    "wc -l *.py",
    "grep -rn /api/ src",
    "rg -n '/usr/bin' src",
    "echo /etc/passwd",
    "tr / _",
    "tac a.py | rev",
    "seq 1 10 | paste -sd+",
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
    ("rm -rf x", "rm deletes files"),
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
    ("cd /", "reaches outside the workspace: /"),
    ("cd", "may leave the workspace"),
    ("cd -", "may leave the workspace"),
    ("cd ..", "reaches outside the workspace"),
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
    ("less x", "less can run shell commands"),
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
    # sed: only -n with p commands (CVE-2025-66032, CVE-2025-64755)
    ("sed 's/a/b/' a", "only sed -n with p commands"),
    ("sed 's/a/b/e' a", "only sed -n with p commands"),
    ("sed -n 's/a/b/p' a", "only sed -n with p commands"),
    ("sed -n '1p;w out' a", "only sed -n with p commands"),
    ("sed -n '1e id' a", "only sed -n with p commands"),
    ("sed -n 'r /etc/passwd' a", "only sed -n with p commands"),
    ("sed -ni 1p a", "only sed -n with p commands"),
    ("sed -n --in-place 1p a", "only sed -n with p commands"),
    ("sed -n -f script a", "only sed -n with p commands"),
    ("sed -en a", "only sed -n with p commands"),
    ("sed -n 1p /etc/passwd", "reaches outside the workspace: /etc/passwd"),
    # man runs pagers and browsers it is told to
    ("man --html=firefox ls", "man --html can run other programs"),
    ("man --htm=x ls", "man --html"),
    ("man -P 'sh -c id' ls", "man -P"),
    ("man -Hfirefox ls", "man -H"),
    ("base64 -o out a", "base64 -o"),
    ("base64 --output=out a", "base64 --output"),
    # git options that run programs or write, also abbreviated (git accepts prefixes)
    ("git log --outp=x", "git log --output"),
    ("git diff --ext", "git diff --ext-diff"),
    ("git show --textconv HEAD", "git show --textconv"),
    ("git log --textc", "git log --textconv"),
    ("git ls-files --exec-path=x", "git ls-files --exec-path"),
    ("git grep --open-files-in-pager=vim x", "--open-files-in-pager"),
    ("git ls-remote --upload-pa=id origin", "git ls-remote --upload-pack can write files or run"),
    # following links out of the workspace, and reading file lists
    ("grep -R x .", "grep -R follows symbolic links"),
    ("grep --dereference-recursive x .", "follows symbolic links"),
    ("rg -L x", "rg -L follows symbolic links"),
    ("rg --follow x", "follows symbolic links"),
    ("diff -r a b", "diff -r follows symbolic links"),
    ("wc --files0-from=list", "reads file names from a file"),
    ("sort --files0-from=list", "sort --files0-from"),
    ("grep -rn x *.py", "wildcard"),
    ("cat ~root/x", "reaches outside the workspace"),
    # programs that escape to a shell, run code, write, or talk to the network
    ("more x", "more can run shell commands"),
    ("vi x", "vi can run shell commands"),
    ("awk '{print}' x", "awk runs a program"),
    ("perl -ne print x", "perl runs a program"),
    ("jq . x.json", "jq runs a program"),
    ("tee out", "tee writes files"),
    ("tar xf a.tar", "tar writes files"),
    ("unzip a.zip", "unzip writes files"),
    ("cp a b", "cp writes files"),
    ("mv a b", "mv writes files"),
    ("curl example.com", "curl contacts the network"),
    ("ping -c1 x.example", "ping contacts the network"),
    ("nslookup x.example", "nslookup contacts the network"),
    ("printenv", "environment variables"),
    ("date -f /etc/shadow", "reaches outside the workspace: /etc/shadow"),
    ("find -files0-from list", "find -files0-from"),
    ("pushd src", "changes the shell's state (pushd)"),
    # what the screen shows must be what bash runs
    ("ls\u200b; rm x", "invisible or unusual character (U+200B)"),
    ("echo \u202eabc", "U+202E"),
    ("ls\u00a0-la", "U+00A0"),
    ("ls\u2028rm", "U+2028"),
    ("ls\x85", "control character"),
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
    ("pytest tests/a.py", "Bash(pytest:*)"),
    ("npm run test", "Bash(npm run test:*)"),
    ("uv run pytest -q", "Bash(uv run pytest:*)"),
    ("npx jest --watch", "Bash(npx jest:*)"),
    ("tee out", "Bash(tee:*)"),
    # a dangerous option or a path outside asks every time: an "always" would hide it
    ("sort -o f x", None),
    ("git log --output=x", None),
    ("find . -delete", None),
    ("cat /etc/passwd", None),
    ("cat /etc/passwd && npm test", None),
    ("sed -i s/a/b/ x", None),
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


@pytest.mark.parametrize(("command", "paths"), [
    ("cat a b", [["a", "b"]]),
    ("grep -rn pattern src", [["src"]]),
    ("grep -e pattern src", [["src"]]),  # -e gives the pattern: every operand is a file
    ("grep -- -x f", [["f"]]),  # -x is the pattern
    ("sed -n '/x/p' f g", [["f", "g"]]),
    ("echo /etc/passwd", [[]]),
    ("cd src && ls -la sub", [["src"], ["sub"]]),
])
def test_path_words_are_what_names_files(command: str, paths: list[list[str]]) -> None:
    assert analyse_command(command).path_words == paths


def test_reading_outside_is_the_only_problem() -> None:
    assert analyse_command("cat /etc/passwd").outside_only
    assert analyse_command("ls && cat ~/.ssh/id_rsa").outside_only
    assert not analyse_command("cat /etc/passwd && rm x").outside_only
    assert not analyse_command("rm x").outside_only


def test_analysis_is_cached() -> None:
    assert analyse_command("git status") is analyse_command("git status")
