"""decide: the order of deny rules, git guard, modes, ask/allow rules, grants and kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

from vibe_tui.policy import MODES, Decision, PolicyContext
from vibe_tui.policy.decide import decide
from vibe_tui.policy.types import ToolRequest

WS = Path("/work/project")


def bash(command: str) -> ToolRequest:
    return ToolRequest("bash", "exec", {"command": command}, command=command)


def read(rel: str, tool: str = "read_file") -> ToolRequest:
    return ToolRequest(tool, "read", {"path": rel}, paths=(WS / rel,))


def edit(rel: str, tool: str = "edit_file") -> ToolRequest:
    return ToolRequest(tool, "edit", {"path": rel}, paths=(WS / rel,))


def ctx(mode: str = "default", **rules) -> PolicyContext:
    return PolicyContext(mode=mode, workspace=WS, **rules)  # type: ignore[arg-type]


CASES = [
    # (description, request, context, action)
    # by kind, default mode
    ("read", read("a.py"), ctx(), "allow"),
    ("list_dir", read("src", tool="list_dir"), ctx(), "allow"),
    ("edit asks", edit("a.py"), ctx(), "ask"),
    ("write asks", edit("a.py", tool="write_file"), ctx(), "ask"),
    ("read-only command", bash("ls -la"), ctx(), "allow"),
    ("read-only pipeline", bash("git log --oneline | head -5"), ctx(), "allow"),
    ("read-only chain", bash("grep -rn foo src && wc -l x"), ctx(), "allow"),
    ("other command asks", bash("npm test"), ctx(), "ask"),
    ("redirect asks", bash("ls > out"), ctx(), "ask"),
    ("substitution asks", bash("echo $(rm -rf x)"), ctx(), "ask"),
    ("chain asks", bash("ls; rm -rf x"), ctx(), "ask"),
    ("unparseable asks", bash("ls ("), ctx(), "ask"),
    ("exec tool without command asks", ToolRequest("mcp__s__t", "exec", {}), ctx(), "ask"),
    # accept-edits
    ("accept-edits allows edits", edit("a.py"), ctx("accept-edits"), "allow"),
    ("accept-edits asks for commands", bash("npm test"), ctx("accept-edits"), "ask"),
    ("accept-edits allows read-only commands", bash("git status"), ctx("accept-edits"), "allow"),
    # plan
    ("plan allows reads", read("a.py"), ctx("plan"), "allow"),
    ("plan allows read-only commands", bash("git diff"), ctx("plan"), "allow"),
    ("plan denies edits", edit("a.py"), ctx("plan"), "deny"),
    ("plan denies other commands", bash("npm test"), ctx("plan"), "deny"),
    ("plan denies despite an allow rule", bash("npm test"), ctx("plan", allow=["Bash(npm test:*)"]),
     "deny"),
    ("plan denies despite a grant", edit("a.py"), ctx("plan", grants={"Edit"}), "deny"),
    ("plan denies a .git edit", edit(".git/config"), ctx("plan"), "deny"),
    # yolo
    ("yolo allows commands", bash("rm -rf build"), ctx("yolo"), "allow"),
    ("yolo allows edits", edit("a.py"), ctx("yolo"), "allow"),
    ("yolo ignores ask rules", bash("git push"), ctx("yolo", ask=["Bash(git push:*)"]), "allow"),
    # deny rules win everywhere
    *[(f"deny wins in {mode}", bash("rm -rf x"), ctx(mode, deny=["Bash(rm:*)"]), "deny")
      for mode in MODES],
    ("deny beats allow", bash("rm -rf x"), ctx(allow=["Bash(rm:*)"], deny=["Bash(rm:*)"]), "deny"),
    ("deny beats grant", bash("rm x"), ctx(deny=["Bash(rm:*)"], grants={"Bash(rm:*)"}), "deny"),
    ("deny inside substitution", bash("echo $(rm -rf x)"), ctx("yolo", deny=["Bash(rm:*)"]), "deny"),
    ("deny after a wrapper", bash("sudo rm -rf /"), ctx("yolo", deny=["Bash(rm:*)"]), "deny"),
    ("deny inside bash -c", bash("bash -c 'rm x'"), ctx("yolo", deny=["Bash(rm:*)"]), "deny"),
    ("deny of a computed name", bash("$X -rf /"), ctx("yolo", deny=["Bash(rm:*)"]), "deny"),
    ("deny leaves others alone", bash("ls"), ctx(deny=["Bash(rm:*)"]), "allow"),
    ("Read(./.env) blocks read_file", read(".env"), ctx(deny=["Read(./.env)"]), "deny"),
    ("Read(./.env) blocks it in yolo", read(".env"), ctx("yolo", deny=["Read(./.env)"]), "deny"),
    ("Read(./.env) blocks cat .env", bash("cat .env"), ctx("yolo", deny=["Read(./.env)"]), "deny"),
    ("Read(./.env) blocks editing it", edit(".env"), ctx("yolo", deny=["Read(./.env)"]), "deny"),
    ("Read(./.env) leaves others", read("a.py"), ctx(deny=["Read(./.env)"]), "allow"),
    ("Edit deny", edit("src/a.py"), ctx("accept-edits", deny=["Edit(src/**)"]), "deny"),
    # git settings and hooks always ask
    ("edit .git/config asks in yolo", edit(".git/config"), ctx("yolo"), "ask"),
    ("edit .git/config asks with allow rule", edit(".git/config"), ctx(allow=["Edit"]), "ask"),
    ("edit .git/config asks with grant", edit(".git/config"), ctx(grants={"Edit"}), "ask"),
    ("edit hook asks in accept-edits", edit(".git/hooks/pre-commit"), ctx("accept-edits"), "ask"),
    ("edit .gitmodules asks", edit(".gitmodules"), ctx("yolo"), "ask"),
    ("edit .gitattributes asks", edit("sub/.gitattributes"), ctx("accept-edits"), "ask"),
    ("edit nested repo hook asks", edit("vendor/x/.git/hooks/post-checkout"), ctx("yolo"), "ask"),
    ("edit .gitignore is ordinary", edit(".gitignore"), ctx("accept-edits"), "allow"),
    ("command writing a hook asks in yolo", bash("cp evil .git/hooks/pre-commit"), ctx("yolo"), "ask"),
    ("redirect into .git asks", bash("echo x > .git/config"), ctx("yolo"), "ask"),
    ("git config asks in yolo", bash("git config core.hooksPath x"), ctx("yolo"), "ask"),
    ("git config asks with allow rule", bash("git config core.pager x"), ctx(allow=["Bash"]), "ask"),
    ("git -C . config asks", bash("git -C . config x y"), ctx("yolo"), "ask"),
    ("git config in bash -c asks", bash("bash -c 'git config x y'"), ctx("yolo"), "ask"),
    ("wildcard .gi? asks", bash("cp evil .gi?/hooks/pre-commit"), ctx("yolo"), "ask"),
    ("reading .git is fine", bash("cat .git/HEAD"), ctx(), "allow"),
    # edits outside the workspace (tools refuse them; the policy is the backstop)
    ("edit outside denied in yolo", ToolRequest("write_file", "edit", {"path": "/etc/x"},
                                                paths=(Path("/etc/x"),)), ctx("yolo"), "deny"),
    ("edit of a sibling folder denied", ToolRequest("write_file", "edit", {"path": "../p2/x"},
                                                    paths=(Path("/work/project2/x"),)),
     ctx("accept-edits"), "deny"),
    # ask rules
    ("ask rule beats allow rule", bash("git push"),
     ctx(allow=["Bash(git push:*)"], ask=["Bash(git push:*)"]), "ask"),
    ("ask rule on a read", read(".env"), ctx(ask=["Read(.env)"]), "ask"),
    ("ask rule inside a chain", bash("ls && git push"), ctx(ask=["Bash(git push:*)"]), "ask"),
    # allow rules and grants
    ("allow rule", bash("npm test"), ctx(allow=["Bash(npm test:*)"]), "allow"),
    ("allow rule prefix", bash("npm test -- --watch"), ctx(allow=["Bash(npm test:*)"]), "allow"),
    ("allow rule word boundary", bash("npm testify"), ctx(allow=["Bash(npm test:*)"]), "ask"),
    ("allow rule does not cover a chain", bash("npm test && rm -rf /"),
     ctx(allow=["Bash(npm test:*)"]), "ask"),
    ("allow rule does not cover a redirect", bash("npm test > ~/.bashrc"),
     ctx(allow=["Bash(npm test:*)"]), "ask"),
    ("two allow rules cover a chain", bash("npm test && git add ."),
     ctx(allow=["Bash(npm test:*)", "Bash(git add:*)"]), "allow"),
    ("Edit allow rule", edit("a.py"), ctx(allow=["Edit"]), "allow"),
    ("Edit allow rule with path", edit("src/a.py"), ctx(allow=["Edit(src/**)"]), "allow"),
    ("Edit allow rule elsewhere", edit("docs/a.md"), ctx(allow=["Edit(src/**)"]), "ask"),
    ("grant allows", bash("npm test"), ctx(grants={"Bash(npm test:*)"}), "allow"),
    ("Edit grant allows", edit("a.py"), ctx(grants={"Edit"}), "allow"),
    ("grant does not cover a chain", bash("npm test; curl x | sh"),
     ctx(grants={"Bash(npm test:*)"}), "ask"),
    ("malformed rules are skipped", bash("npm test"), ctx(allow=["Bash(npm test:*"]), "ask"),
]


@pytest.mark.parametrize(("request_", "context", "action"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_decide(request_: ToolRequest, context: PolicyContext, action: str) -> None:
    assert decide(request_, context).action == action


@pytest.mark.parametrize(("request_", "context", "expected"), [
    (bash("rm x"), ctx("yolo", deny=["Bash(rm:*)"]), Decision("deny", "denied by rule Bash(rm:*)")),
    (edit("a.py"), ctx(), Decision("ask", "edits ask in default mode", grant="Edit")),
    (edit("a.py"), ctx("plan"), Decision("deny", "plan mode: only reading is allowed")),
    (bash("npm test"), ctx(allow=["Bash(npm test:*)"]),
     Decision("allow", "allowed by rule Bash(npm test:*)")),
    (bash("npm run build"), ctx(), Decision("ask", "npm is not a known read-only command",
                                            grant="Bash(npm run build:*)")),
    (bash("ls > out"), ctx(), Decision("ask", "redirects output to a file", grant=None)),
    (bash("ls; rm -rf x"), ctx(), Decision("ask", "chains a command that is not read-only: rm",
                                           grant="Bash(rm:*)")),
])
def test_decision_reasons_and_grants(request_: ToolRequest, context: PolicyContext,
                                     expected: Decision) -> None:
    assert decide(request_, context) == expected


def test_git_guard_offers_no_grant() -> None:
    decision = decide(edit(".git/hooks/pre-commit"), ctx())
    assert decision.action == "ask"
    assert decision.grant is None
    assert "git" in decision.reason


def test_an_always_answer_is_honoured_next_time() -> None:
    first = decide(bash("npm run build -- --prod"), ctx())
    assert first.action == "ask" and first.grant is not None
    again = decide(bash("npm run build"), ctx(grants={first.grant}))
    assert again.action == "allow"



# -- files that run programs later, under every spelling a file system folds -------------

PROTECTED = [
    ".git/config", ".GIT/config", ".Git/hooks/pre-commit", ".git./config", ".git /hooks/x",
    "git~1/config", "GIT~1/hooks/x", ".git::$INDEX_ALLOCATION/hooks/x", ".g\u200cit/config",
    ".gi\u200dt/config", "\ufeff.git/config", ".git\u202e/config", "sub/.git/config",
    ".gitmodules", ".GitModules", "gitmod~1", "gi7eba~2", ".gitattributes", "a/.gitattributes.",
    ".gitconfig", ".envrc", ".bashrc", "sub/.zshrc", ".profile", ".vscode/tasks.json",
    ".VSCODE/settings.json", ".vscode/launch.json", ".github/workflows/ci.yml",
    ".github/workflows/sub/x.yml", ".husky/pre-commit", ".vibe/config.toml", ".mcp.json",
    ".cursor/mcp.json", ".claude/settings.json", ".npmrc", ".yarnrc.yml", "x.code-workspace",
]
ORDINARY = [".gitignore", ".github/ISSUE_TEMPLATE/bug.md", ".vscode/extensions.json",
            "src/git.py", "docs/.github.md", "gitmodules.txt", "git~x/config", ".env"]


@pytest.mark.parametrize("path", PROTECTED)
@pytest.mark.parametrize("mode", ["default", "accept-edits", "yolo"])
def test_protected_files_ask_in_every_mode(path: str, mode: str) -> None:
    decision = decide(edit(path), ctx(mode, allow=["Edit"], grants={"Edit"}))
    assert decision.action == "ask", decision
    assert decision.grant is None


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_files_are_not_protected(path: str) -> None:
    assert decide(edit(path), ctx("accept-edits")).action == "allow"


def test_a_deny_rule_still_wins_over_the_guard() -> None:
    assert decide(edit(".envrc"), ctx("yolo", deny=["Edit(.envrc)"])).action == "deny"


@pytest.mark.parametrize("command", [
    "echo x > .GIT/config", "cp hook git~1/hooks/pre-commit", "cd .git && echo x > config",
    "echo '{}' | sed 'w .vscode/settings.json'", "echo 'eval x' >> .envrc",
    "mkdir -p .github/workflows && cp a .github/workflows/ci.yml", "cd .vibe && rm config.toml",
    "bash -c 'echo x > .git/hooks/post-merge'", "git submodule update --init",
    "git init --template=tpl", "echo x > .[g]it/config",
])
def test_commands_changing_protected_files_ask_in_yolo(command: str) -> None:
    assert decide(bash(command), ctx("yolo")).action == "ask"


@pytest.mark.parametrize("command", ["git add .gitignore", "echo x > notes.md", "npm test",
                                     "git commit -m 'update the config docs'"])
def test_ordinary_commands_run_in_yolo(command: str) -> None:
    assert decide(bash(command), ctx("yolo")).action == "allow"


# -- reading outside the workspace ------------------------------------------------------


@pytest.mark.parametrize("command", ["cat /etc/shadow", "cat ~/.ssh/id_rsa", "grep -r x /"])
def test_reading_outside_asks_even_in_plan_mode(command: str) -> None:
    assert decide(bash(command), ctx()).action == "ask"
    assert decide(bash(command), ctx("plan")).action == "ask"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A workspace with links out (as a cloned repository may hold) and one inside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("key")
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "a.txt").write_text("a")
    (workspace / "notes.txt").symlink_to(outside / "secret")
    (workspace / "sub" / "out").symlink_to(outside)
    (workspace / "inside").symlink_to(workspace / "a.txt")
    return workspace


def run_in(workspace: Path, command: str, cwd: Path | None = None, mode: str = "default"):
    request = ToolRequest("bash", "exec", {"command": command}, command=command,
                          cwd=cwd or workspace)
    return decide(request, PolicyContext(mode=mode, workspace=workspace))  # type: ignore[arg-type]


@pytest.mark.parametrize("command", [
    "cat notes.txt", "cat *.txt", "ls sub/out/", "cat sub/out/secret", "cd sub && cat out/secret",
    "cd sub/out && cat secret", "wc -l */out/*", "grep -n x --file=notes.txt a.txt",
])
def test_links_out_of_the_workspace_ask(linked: Path, command: str) -> None:
    decision = run_in(linked, command)
    assert decision.action == "ask"
    assert "outside the workspace" in decision.reason and decision.grant is None
    assert run_in(linked, command, mode="plan").action == "ask"


@pytest.mark.parametrize("command", ["cat inside", "cat a.txt", "ls sub", "grep -rn x .",
                                     "sed -n '/notes.txt/p' a.txt"])
def test_links_inside_the_workspace_are_fine(linked: Path, command: str) -> None:
    assert run_in(linked, command).action == "allow"


def test_relative_paths_start_where_the_command_runs(linked: Path) -> None:
    assert run_in(linked, "cat out/secret", cwd=linked / "sub").action == "ask"
    assert run_in(linked, "cat out/secret").action == "allow"  # no such path at the root


def test_a_deny_rule_sees_through_a_link_in_a_command(linked: Path) -> None:
    (linked / ".env").write_text("SECRET=1")
    (linked / "env-link").symlink_to(linked / ".env")
    request = ToolRequest("bash", "exec", {"command": "cat env-link"}, command="cat env-link",
                          cwd=linked)
    policy = PolicyContext(mode="yolo", workspace=linked, deny=["Read(./.env)"])
    assert decide(request, policy).action == "deny"
