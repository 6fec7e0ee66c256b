"""Which words of a read-only command name files (policy/operands.py, policy/options.py).

Each row is a command and the words that must be checked as paths: exactly those, so a
row also shows what is no longer checked (a pattern, a count, a format). The principle the
rows hold: when the reading is in doubt, more words are paths, never fewer."""

from __future__ import annotations

import shlex

import pytest

from vibe_tui.policy.operands import path_words
from vibe_tui.policy.options import TEXT, paths_of, program


@pytest.mark.parametrize(("command", "paths"), [
    # `--` ends the options: what follows is an operand, even -x
    ("grep -- '-\\|' /proc/self/environ", ["/proc/self/environ"]),
    ("grep -hr -- -x /etc", ["/etc"]),
    ("cat -- -notes", ["./-notes"]),  # written so that no reader takes it for an option
    # -e and -f give the patterns: every operand is a file; -f's value is one too
    ("grep -e x -- /etc/passwd", ["/etc/passwd"]),
    ("grep -ePAT /etc/passwd", ["/etc/passwd"]),
    ("grep -ie PAT f", ["f"]),
    ("grep -f /etc/passwd a.txt", ["/etc/passwd", "a.txt"]),
    ("grep -f-p a.txt", ["./-p", "a.txt"]),
    ("grep -e TODO -e FIXME README.md", ["README.md"]),
    # long options: --opt=value, --opt value, unambiguous prefixes
    ("grep --regexp=x /etc/passwd", ["/etc/passwd"]),
    ("grep --regexp x /etc/passwd", ["/etc/passwd"]),
    ("grep --reg=x /etc/passwd", ["/etc/passwd"]),
    ("grep --file=p.txt src", ["p.txt", "src"]),  # exact, not --files-with-matches
    ("grep --e=x /etc/passwd", ["x", "/etc/passwd"]),  # ambiguous: every word counts
    ("grep --exclude-from=/etc/x TODO .", ["/etc/x", "."]),
    ("grep --include=*.py -rn TODO .", ["."]),
    # values in the cluster or the next word; counts that are numbers are not files
    ("grep -A3 -B 2 -C1 TODO src/app.py", ["src/app.py"]),
    ("grep -m /etc/passwd TODO f", ["/etc/passwd", "f"]),  # not a count: checked
    ("head -n 5 -- /etc/passwd", ["/etc/passwd"]),
    ("head -5 README.md", ["README.md"]),
    ("tail -n +2 data.csv", ["data.csv"]),
    # options after operands count (GNU), and the POSIX reading is checked too
    ("grep x a.txt -e y", ["x", "a.txt", "./-e", "y"]),
    ("ls src -la", ["src", "./-la"]),
    # an option not in the table: its value and the next word count, the pattern too
    ("grep --frobnicate PAT /etc/passwd", ["PAT", "/etc/passwd"]),
    ("grep -J x f", ["x", "f"]),
    # optional values attach: --color auto leaves auto an operand
    ("ls --color auto", ["auto"]),
    ("ls --color=auto src", ["src"]),
    # each program's own options
    ("sort -k2 -t, data.csv", ["data.csv"]),
    ("sort -T /tmp a.txt", ["/tmp", "a.txt"]),  # where it writes temporary files
    ("sort --random-source=/dev/urandom a", ["/dev/urandom", "a"]),
    ("cut -d, -f1 data.csv", ["data.csv"]),
    ("stat -c %s /etc/passwd", ["/etc/passwd"]),
    ("diff --from-file=/etc/passwd a b", ["/etc/passwd", "a", "b"]),
    ("diff -u -L old -L new a b", ["a", "b"]),
    ("du -X /etc/ex --exclude=*.o src", ["/etc/ex", "src"]),
    ("file -m a.mgc:/etc/magic x", ["a.mgc", "/etc/magic", "x"]),
    ("fmt -p /etc/passwd", ["/etc/passwd"]),  # a flag to BSD fmt
    ("ls -I /etc", ["/etc"]),  # a flag to BSD ls
    ("strings @/etc/passwd", ["@/etc/passwd", "/etc/passwd"]),  # @FILE: more arguments
    ("date -f /etc/shadow", ["/etc/shadow"]),
    ("realpath --relative-to=/etc x", ["/etc", "x"]),
    ("wc -l --files0-from=/etc/list", ["/etc/list"]),
    ("man -M a:/etc ls", ["a", "/etc", "ls"]),
    ("tree -PI a b /etc", ["/etc"]),  # tree: a cluster's values are the next words
    ("tree -L2 src", ["src"]),
    ("echo /etc/passwd", []),
    ("test -f /etc/shadow", ["/etc/shadow"]),
    ("find . -name '.*' -newer /etc/passwd", [".", "/etc/passwd"]),
    ("find src -newermt 2024-01-01 -type f", ["src"]),
    ("python3 /etc/x", ["/etc/x"]),  # not known here: every word as it stands
    # ripgrep: no abbreviations; --files takes no pattern
    ("rg -n main src", ["src"]),
    ("rg -- PAT /etc/shadow", ["/etc/shadow"]),
    ("rg -e x /etc", ["/etc"]),
    ("rg --files /etc", ["/etc"]),
    ("rg --ignore-file /etc/passwd x", ["/etc/passwd"]),
    ("rg -g '*.py' -t py -j2 TODO", []),
    ("rg --reg x /etc", ["x", "/etc"]),
    # git: revisions and paths are operands; a few values are known text
    ("git grep -n TODO", []),
    ("git grep -e x -- /etc", ["/etc"]),
    ("git grep --line x -- /etc", ["./--", "/etc"]),  # not permuted: -- is an operand
    ("git --no-pager log --grep=/api/ -n 5 -- src", ["src"]),
    ("git log --auth=x /etc", ["x", "/etc"]),  # no abbreviations in git log
    ("git log -S/api/ --oneline HEAD", ["HEAD"]),
    ("git log --format /etc", ["/etc"]),  # --format X is not --format=X
    ("git show HEAD:README.md", ["HEAD:README.md"]),
    ("git --version", []),
])
def test_path_words(command: str, paths: list[str]) -> None:
    argv = shlex.split(command)
    assert path_words(argv[0], argv[1:]) == paths


def test_a_program_in_getopt_notation() -> None:
    prog = program("ab:c::", "alpha beta=/b gamma=?/c", {"b": TEXT})
    assert paths_of(prog, ["-ab", "x", "f"]) == ["f"]
    assert paths_of(prog, ["-abx", "f"]) == ["f"]
    assert paths_of(prog, ["-c", "x"]) == ["x"]  # optional: only attached
    assert paths_of(prog, ["-cx", "f"]) == ["x", "f"]  # a value not described is a path
    assert paths_of(prog, ["--be", "x", "f"]) == ["f"]
    assert paths_of(prog, ["--gamma", "x"]) == ["x"]
    assert paths_of(prog, ["--alpha=x", "f"]) == ["x", "f"]  # getopt refuses; checked


def test_every_program_on_the_read_only_list_is_read_here() -> None:
    from vibe_tui.policy.operands import GIT, NO_FILES, PROGRAMS
    from vibe_tui.policy.shell.git import GIT_READ_ONLY
    from vibe_tui.policy.shell.programs import READ_ONLY

    known = set(PROGRAMS) | NO_FILES | {"git", "find", "test", "sed"}
    # A program that takes any word (not only --version) needs its options described.
    assert {n for n, check in READ_ONLY.items() if n not in known and check(n, ["x"]) is None} \
        == set()
    assert set(GIT_READ_ONLY) <= set(GIT)
