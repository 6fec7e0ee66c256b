"""The program tables: the read-only list with each program's argument check, the
programs that run other commands or shell scripts, and the programs often taken for
harmless with what they can do. Extend here."""

from __future__ import annotations

from vibe_tui.policy.shell.checks import Checker, Problem, all_of, anything, forbid
from vibe_tui.policy.shell.git import check_git
from vibe_tui.policy.shell.sed import check_sed


def _version_only(name: str, args: list[str]) -> str | None:
    return None if args == ["--version"] else not_listed(name)


def _uniq(name: str, args: list[str]) -> str | None:
    operands = [a for a in args if a == "-" or not a.startswith("-")]
    return "uniq with two file names writes the second one" if len(operands) > 1 else None


def _cd(name: str, args: list[str]) -> str | None:
    """cd inside the workspace only changes where later words of the same script point
    (and the path checks see those); cd alone goes home and cd - goes back: outside."""
    if len(args) != 1 or args[0].startswith("-"):
        return Problem("cd without one folder of the workspace may leave the workspace",
                       outside=True)
    return None


_FILE_LIST_FROM = ("--files0-from",)  # file names read from a file: anything, anywhere

# argv[0] -> checker of the arguments. Extend here; anything absent is not read-only.
READ_ONLY: dict[str, Checker] = {
    **{name: anything for name in (
        "ls", "cat", "head", "tail", "pwd", "echo", "stat", "which", "whoami", "uname",
        "basename", "dirname", "realpath", "readlink", "cut", "tr", "cmp", "nl", "true",
        "false", "test", "sha256sum", "sha1sum", "sha512sum", "md5sum", "tac", "rev", "seq",
        "id", "paste", "column", "comm", "join", "fold", "fmt", "expr", "numfmt", "od",
        "hexdump", "strings",
    )},
    "wc": forbid(long=_FILE_LIST_FROM, what="reads file names from a file"),
    "du": forbid(long=_FILE_LIST_FROM, what="reads file names from a file"),
    "df": anything,
    # -R and diff -r follow links while they walk, and a link can point out of the workspace.
    "grep": forbid(short="R", long=("--dereference-recursive",),
                    what="follows symbolic links, which can lead outside the workspace"),
    "diff": forbid(short="r", long=("--recursive",),
                    what="follows symbolic links, which can lead outside the workspace"),
    "find": forbid(exact=("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls",
                           "-files0-from"),  # starting points read from a file: anywhere
                    prefixes=("-fprint",)),
    "rg": all_of(
        forbid(short="z",  # -z runs decompressors
                long=("--pre", "--pre-glob", "--search-zip", "--hostname-bin")),
        forbid(short="L", long=("--follow",),
                what="follows symbolic links, which can lead outside the workspace")),
    "sort": forbid(short="o", long=("--output", "--compress-program", *_FILE_LIST_FROM)),
    "tree": forbid(short="oR"),  # -R writes 00Tree.html in every folder
    "file": forbid(short="C", long=("--compile",)),
    "date": forbid(short="s", long=("--set",), what="sets the clock"),
    "base64": forbid(short="o", long=("--output",)),  # BSD base64 -o writes a file
    # man --html=CMD and -P CMD run CMD (CVE-2025-66032); -C reads another config.
    "man": forbid(short="PHXTtZpC", long=(
        "--pager", "--html", "--gxditview", "--troff-device", "--troff", "--ditroff",
        "--preprocessor", "--config-file"), what="can run other programs"),
    "sed": check_sed,
    "uniq": _uniq,
    "cd": _cd,
    "git": check_git,
    **{name: _version_only for name in (
        "python", "python3", "node", "npm", "pnpm", "yarn", "cargo", "rustc", "uv",
        "pip", "pip3", "ruby", "deno", "bun", "go", "java", "tsc",
    )},
}

# Programs that run another command: the policy cannot vouch for what that one does.
WRAPPERS = frozenset({
    "env", "xargs", "sudo", "doas", "nice", "ionice", "timeout", "nohup", "time", "command",
    "builtin", "exec", "stdbuf", "setsid", "chroot", "watch", "strace", "ltrace", "flock",
    "taskset", "chrt", "fakeroot", "runuser", "unbuffer", "find", "parallel", "pkexec",
    "unshare", "nsenter", "systemd-run", "firejail", "bwrap", "busybox", "toybox", "script",
    "proxychains", "proxychains4", "torsocks", "xvfb-run", "dbus-run-session", "catchsegv",
})
# Programs that run shell scripts: from files, or given as an argument (SCRIPT_SHELLS -c).
SCRIPT_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "su", "tcsh",
                            "csh", "yash", "ash"})
SHELLS = SCRIPT_SHELLS | {"eval", "ssh", "source", "."}
_SHELL_STATE = frozenset({"pushd", "popd", "export", "alias", "unalias", "history",
                          "set", "shopt", "unset", "trap", "umask", "ulimit", "hash",
                          "enable", "bind", "complete", "readonly", "declare", "typeset",
                          "local", "fc", "disown"})

# Programs often taken for harmless, with what they can do; all of them ask.
_RISKS: dict[str, str] = {
    **{name: "can run shell commands from inside (!command)" for name in (
        "less", "more", "most", "pg", "vi", "vim", "nvim", "view", "vimdiff", "ex", "ed",
        "nano", "pico", "emacs", "joe", "mc", "ftp")},
    **{name: "runs a program given on its command line, which can do anything" for name in (
        "awk", "gawk", "mawk", "nawk", "perl", "jq", "lua", "php", "tclsh", "Rscript",
        "osascript")},
    **{name: "deletes files" for name in ("rm", "rmdir", "shred", "unlink")},
    **{name: "writes files" for name in (
        "tee", "cp", "mv", "ln", "mkdir", "touch", "chmod", "chown", "chgrp",
        "install", "dd", "truncate", "rsync", "patch", "tar", "unzip", "zip",
        "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "cpio", "xxd",
        "split", "csplit", "mktemp", "mkfifo", "mknod", "sponge")},
    **{name: "contacts the network, which can send data away" for name in (
        "curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "sftp", "telnet", "ping",
        "ping6", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "ssh-keyscan",
        "aria2c", "http", "https")},
    "printenv": "prints environment variables, which often hold secrets",
    "crontab": "schedules commands",
    "at": "schedules commands",
    "kill": "stops processes",
    "pkill": "stops processes",
    "killall": "stops processes",
    "xdg-open": "opens files with other programs",
    "open": "opens files with other programs",
}


def not_listed(name: str) -> Problem:
    if name in SHELLS:
        return Problem(f"runs a shell script through {name}", covered_by_rule=True)
    if name in WRAPPERS:
        return Problem(f"runs another command through {name}", covered_by_rule=True)
    if name in _SHELL_STATE:
        return Problem(f"changes the shell's state ({name})", covered_by_rule=True)
    if name in _RISKS:
        return Problem(f"{name} {_RISKS[name]}", grantable=True)
    return Problem(f"{name} is not a known read-only command", grantable=True)


# Listed programs whose options, even when a file name poses as one, at worst count or
# measure files (wc --files0-from): `wc -l *.py` is too common to ask about.
GLOB_SAFE = frozenset({"wc", "du"})
