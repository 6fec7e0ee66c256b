"""MCP: which servers are read from which files, trust, and what the policy says of calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vibe_tui.config.paths import config_dir
from vibe_tui.config.trusted_folders import trust
from vibe_tui.mcp import load_server_specs
from vibe_tui.policy import PolicyContext
from vibe_tui.policy.decide import decide
from vibe_tui.policy.types import McpRequest
from vibe_tui.tools.mcp import McpTool, render_result, tool_name
from vibe_tui.tools.base import ToolContext, ToolError

USER_TOML = """
[mcp.servers.git]
command = "mcp-server-git"
args = ["-r", "."]
env = { GIT_PAGER = "cat" }
timeout = 5

[mcp.servers.docs]
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
"""


def user_config(text: str) -> Path:
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_user_servers_stdio_and_http(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCS_TOKEN", "s3cret")
    user_config(USER_TOML)
    specs, problems = load_server_specs(tmp_path)
    assert problems == []
    git, docs = specs
    assert (git.transport, git.command, git.args, git.timeout_s) == ("stdio", "mcp-server-git",
                                                                     ("-r", "."), 5.0)
    assert dict(git.env) == {"GIT_PAGER": "cat"} and git.cwd == str(tmp_path)
    assert docs.transport == "http" and dict(docs.headers) == {"Authorization": "Bearer s3cret"}
    assert "s3cret" not in docs.describe()  # a token is never shown


def test_project_servers_count_only_once_trusted(tmp_path):
    user_config('[mcp.servers.git]\ncommand = "user-git"\n')
    (tmp_path / ".vibe").mkdir()
    (tmp_path / ".vibe" / "config.toml").write_text(
        '[mcp.servers.lint]\ncommand = "lint-server"\n[mcp.servers.git]\ncommand = "evil"\n')
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}))
    specs, problems = load_server_specs(tmp_path)
    assert [s.name for s in specs] == ["git"]
    assert any(".mcp.json" in p and "not trusted" in p for p in problems)
    trust(tmp_path)
    specs, problems = load_server_specs(tmp_path)
    by_name = {s.name: s for s in specs}
    assert list(by_name) == ["git", "lint", "fetch", "web"]
    assert by_name["git"].command == "user-git"  # the user's own entry wins
    assert any("'git' is already defined" in p for p in problems)
    assert by_name["web"].transport == "http" and by_name["fetch"].args == ("mcp-server-fetch",)


@pytest.mark.parametrize(("table", "message"), [
    ('command = ""', "command must be a non-empty string"),
    ('command = "x"\nargs = "not a list"', "args must be a list"),
    ('url = "ftp://x"', "url must start with http"),
    ('type = "sse"\nurl = "http://127.0.0.1:9/sse"', "SSE transport is not supported"),
    ('command = "x"\ntimeout = 0', "timeout must be a number"),
    ('command = "${NOPE_NOT_SET_VAR}"', "NOPE_NOT_SET_VAR"),
])
def test_a_bad_entry_is_reported_and_the_others_kept(tmp_path, table, message):
    user_config(f'[mcp.servers.bad]\n{table}\n[mcp.servers.good]\ncommand = "ok"\n')
    specs, problems = load_server_specs(tmp_path)
    assert [s.name for s in specs] == ["good"]
    assert len(problems) == 1 and message in problems[0] and "'bad'" in problems[0]


def test_disabled_servers_are_kept_off(tmp_path):
    user_config('[mcp.servers.a]\ncommand = "x"\nenabled = false\n')
    (specs, _) = load_server_specs(tmp_path)
    assert specs[0].enabled is False


def test_tool_names_are_provider_safe():
    assert tool_name("git", "git_status") == "mcp__git__git_status"
    assert tool_name("my.server", "do it") == "mcp__my_server__do_it"
    assert tool_name("a__b", "c") == "mcp__a_b__c"  # no '__' inside a part
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long != tool_name("s" * 40, "t" * 41)


# -- the policy --------------------------------------------------------------------------


def mcp_request(tool: str = "git_status", hints=("read-only",)) -> McpRequest:
    return McpRequest(tool=f"mcp__git__{tool}", kind="exec", args={}, server="git", hints=hints)


def ctx(tmp_path, mode="default", **rules) -> PolicyContext:
    return PolicyContext(mode=mode, workspace=tmp_path, **rules)


def test_an_mcp_call_asks_whatever_the_server_hints(tmp_path):
    decision = decide(mcp_request(), ctx(tmp_path))
    assert decision.action == "ask" and decision.grant == "mcp__git__git_status"
    assert "MCP server git" in decision.reason and "read-only" in decision.reason


@pytest.mark.parametrize("rule", ["mcp__git__git_status", "mcp__git__*", "mcp__git"])
def test_allow_rules_for_a_tool_or_a_server(tmp_path, rule):
    assert decide(mcp_request(), ctx(tmp_path, allow=[rule])).action == "allow"
    assert decide(mcp_request(), ctx(tmp_path, allow=["mcp__other__*"])).action == "ask"


def test_deny_wins_over_allow_grants_and_yolo(tmp_path):
    deny = ["mcp__git__git_status"]
    for mode in ("default", "yolo"):
        decision = decide(mcp_request(), ctx(tmp_path, mode, allow=["mcp__git__*"], deny=deny,
                                             grants={"mcp__git__git_status"}))
        assert decision.action == "deny"
    assert decide(mcp_request(), ctx(tmp_path, "yolo")).action == "allow"
    assert decide(mcp_request(), ctx(tmp_path, grants={"mcp__git__git_status"})).action == "allow"


def test_plan_mode_denies_mcp_calls_even_read_only_ones(tmp_path):
    decision = decide(mcp_request(), ctx(tmp_path, "plan"))
    assert decision.action == "deny" and "read-only" in decision.reason


# -- results -----------------------------------------------------------------------------


class Block:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def test_results_keep_text_and_describe_the_rest():
    result = Block(content=[
        Block(type="text", text="hello"),
        Block(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        Block(type="resource_link", uri="file:///x.txt", name="x", mime_type=None,
              description=None),
        Block(type="resource", resource=Block(uri="mem://a", mime_type="text/plain", text="body")),
        Block(type="resource", resource=Block(uri="mem://b", mime_type="application/zip",
                                              blob="AAAA")),
    ], structured_content={"sum": 3}, is_error=False)
    text = render_result(result)
    assert text.splitlines()[0] == "hello"
    assert "[image: image/png, 8 bytes]" in text and "iVBOR" not in text
    assert "[resource link: file:///x.txt (x)]" in text
    assert "[resource mem://a (text/plain)]\nbody" in text
    assert "[resource mem://b: application/zip, 3 bytes, not shown]" in text
    assert '"sum": 3' in text


def test_structured_content_is_not_repeated_when_a_text_block_says_it():
    result = Block(content=[Block(type="text", text='{"sum": 3}')],
                   structured_content={"sum": 3})
    assert render_result(result) == '{"sum": 3}'


async def test_the_adapter_checks_required_arguments_and_caps_output(tmp_path):
    async def caller(tool, args):
        return Block(content=[Block(type="text", text="x" * 200_000)], structured_content=None,
                     is_error=False)

    tool = McpTool("s", "t", "does t", {"type": "object", "required": ["q"],
                                        "properties": {"q": {"type": "string"}}}, caller)
    context = ToolContext(workspace=tmp_path)
    with pytest.raises(ToolError, match="missing required argument"):
        tool.precheck({}, context)
    output = await tool.run({"q": "a"}, context)
    assert len(output.text) < 70_000 and "characters of MCP output cut" in output.text
