"""The repo map on small repositories made here: ranking, focus, budget, files, cache."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from vibe_tui.code.repomap import count_tokens, make_repo_map
from vibe_tui.code.tag_cache import TagCache, cache_file
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.repo_map import REPO_MAP_TOOLS, build_map, discover_files, map_workspace, parse_focus

# Two parts that do not use each other: an order system in Python used from several
# files, and an invoice web client in TypeScript; plus one file in each other language.
REPO = {
    "app/models.py": (
        "class Order:\n    def total_price(self):\n        return compute_total(self)\n\n\n"
        "class Customer:\n    pass\n\n\n"
        "def compute_total(order):\n    return 0\n\n\n"
        "def unused_helper():\n    return 1\n"
    ),
    "app/views.py": "from app.models import Order, compute_total\n\n\ndef show(order: Order):\n    return compute_total(order)\n",
    "app/admin.py": "from app.models import Order, Customer\n\n\nclass OrderAdmin(Order):\n    pass\n\n\nclass CustomerAdmin(Customer):\n    pass\n",
    "app/reports.py": "from app.models import compute_total, Order\n\n\ndef report(orders: list[Order]):\n    return [compute_total(o) for o in orders]\n",
    "web/src/api.ts": (
        "export class InvoiceClient {\n  fetchAll(): Invoice[] { return []; }\n}\n\n"
        "export interface Invoice { id: number }\n\n"
        "export function fetchInvoices(client: InvoiceClient): Invoice[] {\n  return client.fetchAll();\n}\n"
    ),
    "web/src/page.tsx": (
        "import { fetchInvoices, InvoiceClient } from './api';\n\n"
        "export function InvoicePage() {\n  const rows = fetchInvoices(new InvoiceClient());\n"
        "  return <ul>{rows.length}</ul>;\n}\n"
    ),
    "web/src/list.js": "function renderInvoices(client) {\n  return fetchInvoices(client);\n}\n",
    "server/main.go": "package main\n\nfunc main() {\n\tStartLedger()\n}\n",
    "server/ledger.go": "package main\n\ntype Ledger struct{}\n\nfunc StartLedger() *Ledger {\n\treturn &Ledger{}\n}\n",
    "crates/core/src/lib.rs": "pub struct Engine;\n\npub fn start_engine() -> Engine {\n    Engine\n}\n",
    "java/Billing.java": "public class Billing {\n    public int chargeCustomer() { return 0; }\n}\n",
    "native/hash.c": "unsigned int hash_bytes(const char *data, int size) {\n    return size;\n}\n",
    "native/table.cpp": "class HashTable {\npublic:\n    int lookupKey(int key) { return hash_bytes(0, key); }\n};\n",
    "lib/mailer.rb": "class Mailer\n  def deliver_now\n    true\n  end\nend\n",
    "scripts/deploy.sh": "deploy_service() {\n  echo deploying\n}\n\ndeploy_service\n",
}


def make_repo(root: Path, files: dict[str, str | bytes] = REPO) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def headings(text: str) -> list[str]:
    return re.findall(r"^(\S+):$", text, flags=re.MULTILINE)


def test_the_map_shows_definitions_of_every_language_with_line_numbers(tmp_path: Path):
    text = build_map(make_repo(tmp_path), max_tokens=4096)
    for line in [
        "     1\tclass Order:",
        "    10\tdef compute_total(order):",
        "     1\texport class InvoiceClient {",
        "     5\tfunc StartLedger() *Ledger {",
        "     3\tpub fn start_engine() -> Engine {",
        "     2\t    public int chargeCustomer() { return 0; }",
        "     1\tunsigned int hash_bytes(const char *data, int size) {",
        "     1\tclass HashTable {",
        "     2\t  def deliver_now",
        "     1\tdeploy_service() {",
    ]:
        assert line in text
    assert set(headings(text)) >= {"app/models.py", "web/src/api.ts", "server/ledger.go", "scripts/deploy.sh"}


def test_a_method_is_shown_under_its_class(tmp_path: Path):
    # chargeCustomer is worth showing before Billing: the class line comes along.
    text = build_map(make_repo(tmp_path), focus_idents={"chargeCustomer"}, max_tokens=80)
    block = text.split("java/Billing.java:\n", 1)[1]
    assert block.startswith("     1\tpublic class Billing {\n     2\t    public int chargeCustomer()")


def test_the_most_used_definitions_come_first(tmp_path: Path):
    text = build_map(make_repo(tmp_path), max_tokens=4096)
    assert headings(text)[0] == "app/models.py"
    assert text.index("class Order:") < text.index("def unused_helper():")


def test_the_ranking_follows_the_focus(tmp_path: Path):
    workspace = make_repo(tmp_path)
    unfocused = build_map(workspace, max_tokens=120)
    by_file = build_map(workspace, focus_files={"web/src/page.tsx"}, max_tokens=120)
    by_name = build_map(workspace, focus_idents={"StartLedger"}, max_tokens=120)
    by_text = build_map(workspace, focus_text="Why does `deliver_now` in lib/mailer.rb fail?", max_tokens=120)
    assert headings(unfocused)[0] == "app/models.py"
    # page.tsx uses api.ts: the file it leans on comes first.
    assert headings(by_file)[0] == "web/src/api.ts"
    assert headings(by_name)[0] == "server/ledger.go"
    assert headings(by_text)[0] == "lib/mailer.rb"
    assert "closest to the focus first" in by_name and "most referenced first" in unfocused


@pytest.mark.parametrize("budget", [40, 64, 100, 200, 400, 1024])
def test_the_budget_is_kept(tmp_path: Path, budget: int):
    result = map_workspace(make_repo(tmp_path, {**REPO, **many_files(60)}), max_tokens=budget)
    assert result.tokens == count_tokens(result.text) <= budget
    if budget >= 100:
        assert result.tokens > budget * 0.75  # and filled: the binary search found the edge


def test_more_budget_shows_more(tmp_path: Path):
    workspace = make_repo(tmp_path, {**REPO, **many_files(60)})
    shown = [map_workspace(workspace, max_tokens=budget).definitions_shown for budget in (100, 300, 1000)]
    assert shown[0] < shown[1] < shown[2]


def test_a_budget_too_small_for_anything_gives_an_empty_map(tmp_path: Path):
    assert map_workspace(make_repo(tmp_path), max_tokens=5).text == ""


def many_files(count: int) -> dict[str, str]:
    return {
        f"pkg/module_{n}.py": f"from app.models import Order\n\n\ndef function_number_{n}(order: Order):\n    return {n}\n"
        for n in range(count)
    }


def test_broken_binary_and_undecodable_files_do_not_stop_the_map(tmp_path: Path):
    broken = {
        "app/broken.py": "def fine_before():\n    return 1\n\ndef broken(:\n    pass\n\nclass AfterTheMess:\n    pass\n",
        "app/swallowed.py": "def only_this():\n    return 1\n\nx = ((\n\nclass LostInTheError:\n    pass\n",
        "app/blob.py": b"\x00\x01\x02binary" * 100,
        "app/latin.py": "def caf\xe9_owner():\n    return 'd\xe9j\xe0'\n".encode("latin-1"),
        "web/src/unterminated.ts": "export function half(\n",
    }
    text = build_map(make_repo(tmp_path, {**REPO, **broken}), max_tokens=4096)
    assert "class Order:" in text
    assert "def fine_before():" in text and "class AfterTheMess:" in text
    assert "def only_this():" in text  # what tree-sitter could place before the mess
    assert "app/blob.py" not in text


def test_gitignored_vendored_generated_and_hidden_files_are_left_out(tmp_path: Path):
    extra = {
        ".gitignore": "generated/\n*.gen.py\n",
        "web/.gitignore": "out/\n",
        "generated/schema.py": "class Schema:\n    pass\n",
        "app/models.gen.py": "class GeneratedModel:\n    pass\n",
        "web/out/app.js": "function built() {}\n",
        "node_modules/left/index.js": "function leftPad() {}\n",
        "web/vendor/jquery.js": "function jQuery() {}\n",
        "third_party/lib.c": "int vendored(void) { return 0; }\n",
        "dist/bundle.js": "function bundled() {}\n",
        "web/src/app.min.js": "function minified(){}\n",
        "proto/api_pb2.py": "class Generated:\n    pass\n",
        ".venv/lib/site.py": "def venv_thing():\n    pass\n",
        "notes.md": "# not code\n",
    }
    workspace = make_repo(tmp_path, {**REPO, **extra})
    files, truncated = discover_files(workspace)
    assert not truncated
    assert set(files) == set(REPO)
    text = build_map(workspace, max_tokens=4096)
    for hidden in ("Schema", "GeneratedModel", "built", "leftPad", "jQuery", "vendored", "bundled", "minified", "venv_thing"):
        assert hidden not in text


def test_the_cache_makes_a_second_map_parse_nothing(tmp_path: Path):
    workspace = make_repo(tmp_path / "repo")
    first = map_workspace(workspace)
    assert first.files_parsed == len(REPO)
    assert cache_file(workspace).is_file()
    assert cache_file(workspace).is_relative_to(Path(os.environ["VIBE_TUI_HOME"]) / "cache")
    TagCache.forget_remembered()  # as a new process would: only the database is left
    second = map_workspace(workspace)
    assert second.files_parsed == 0
    assert second.text == first.text
    (workspace / "app/views.py").write_text("def renamed_view():\n    return 1\n")
    third = map_workspace(workspace)
    assert third.files_parsed == 1
    assert "renamed_view" in build_map(workspace, max_tokens=4096)


def test_a_corrupt_cache_is_started_again(tmp_path: Path):
    workspace = make_repo(tmp_path / "repo")
    database = cache_file(workspace)
    database.parent.mkdir(parents=True, exist_ok=True)
    database.write_bytes(b"this is not a database" * 100)
    TagCache.forget_remembered()
    assert map_workspace(workspace).files_parsed == len(REPO)
    TagCache.forget_remembered()
    assert map_workspace(workspace).files_parsed == 0


def test_parse_focus_splits_files_from_names():
    files = ["app/models.py", "web/src/api.ts", "lib/models.py"]
    focus_files, idents = parse_focus("Fix `Order.total_price` in app/models.py, see api.ts (InvoiceClient)", files)
    assert focus_files == {"app/models.py", "web/src/api.ts"}
    assert {"Order", "total_price", "InvoiceClient", "models"} <= idents
    assert parse_focus("models", files)[0] == set()  # a bare word names no file
    assert parse_focus("models.py", files)[0] == {"app/models.py", "lib/models.py"}


def test_parse_focus_on_prose_keeps_only_code_like_words():
    prose = "Why does the run() in Cart fail? See `checkout`, OrderTotal and parse_price in lib/models.py."
    focus_files, idents = parse_focus(prose, ["lib/models.py"], every_word=False)
    assert focus_files == {"lib/models.py"}
    assert idents == {"run", "checkout", "OrderTotal", "parse_price", "lib", "models", "py"}
    assert {"Why", "the", "fail", "Cart"} <= parse_focus(prose, [], every_word=True)[1]


async def test_the_tool(tmp_path: Path):
    (tool,) = REPO_MAP_TOOLS
    assert tool.name == "repo_map" and tool.kind == "read"
    ctx = ToolContext(make_repo(tmp_path / "repo"))
    request = tool.precheck({"focus": "StartLedger", "max_tokens": 200}, ctx)
    assert request.paths == (ctx.workspace,)
    output = await tool.run({"focus": "StartLedger", "max_tokens": 200}, ctx)
    assert headings(output.text)[0] == "server/ledger.go"
    assert output.meta["tokens"] <= 200 and output.meta["files"] == len(REPO)
    with pytest.raises(ToolError, match="max_tokens"):
        tool.precheck({"max_tokens": 10}, ctx)
    with pytest.raises(ToolError):
        tool.precheck({"focus": 3}, ctx)
    empty = ToolContext(tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    assert "No source files" in (await tool.run({}, empty)).text


def test_make_repo_map_maps_only_the_files_given(tmp_path: Path):
    workspace = make_repo(tmp_path)
    result = make_repo_map(workspace, ["app/models.py", "app/views.py", "missing.py"], max_tokens=4096)
    assert result.files_total == 2
    assert set(headings(result.text)) == {"app/models.py", "app/views.py"}


async def test_repo_map_auto_puts_a_map_in_the_first_request_only(fake_llm, tmp_path: Path):
    """``[repo_map] auto = true``: the first request carries a map focused on the task;
    the screen shows only the user's words; a resumed history sends the same request."""
    from engine_helpers import make_session, of_type, run_turn
    from vibe_tui.config.settings import load_config
    from vibe_tui.core import events as ev
    from vibe_tui.core.session import Session
    from vibe_tui.testing.script import text

    (tmp_path / "billing.py").write_text("def compute_invoice(order):\n    return order.total\n")
    (tmp_path / "shipping.py").write_text("def ship(order):\n    return compute_invoice(order)\n")
    config_file = tmp_path / "config.toml"
    config_file.write_text("[repo_map]\nauto = true\nmax_tokens = 512\n")
    loaded = load_config(config_file)
    assert loaded.repo_map_auto and loaded.repo_map_tokens == 512
    fake_llm.push(text("It is in billing.py."), text("Done."))
    session = make_session(fake_llm, tmp_path, repo_map_auto=True, repo_map_tokens=512)
    await run_turn(session, "where is compute_invoice defined?")
    await run_turn(session, "thanks")
    first, second = fake_llm.requests[0]["messages"], fake_llm.requests[1]["messages"]
    assert "billing.py" in first[1]["content"] and "def compute_invoice" in first[1]["content"]
    assert first[1]["content"].endswith("where is compute_invoice defined?")
    assert second[1] == first[1]  # the start of the conversation stays byte-identical
    assert second[-1] == {"role": "user", "content": "thanks"}
    assert [m.text for m in of_type(session, ev.UserMessage)] == [
        "where is compute_invoice defined?", "thanks"]
    await session.close()
    resumed = Session.resume(session.config, tmp_path, session.store_path)
    assert resumed.messages == session.messages
    await resumed.close()


async def test_without_repo_map_auto_the_first_request_is_the_prompt(fake_llm, tmp_path: Path):
    from engine_helpers import make_session, run_turn
    from vibe_tui.testing.script import text

    (tmp_path / "billing.py").write_text("def compute_invoice(order):\n    return 1\n")
    fake_llm.push(text("ok"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "hello")
    assert fake_llm.requests[0]["messages"][1] == {"role": "user", "content": "hello"}
    await session.close()


async def test_the_embedded_model_gets_a_map_unless_the_user_turned_it_off(
        fake_llm, tmp_path: Path):
    """Unset ``[repo_map] auto`` means on for the local model, which guesses paths
    otherwise; an explicit ``auto = false`` wins."""
    from engine_helpers import make_session, run_turn
    from vibe_tui.testing.script import text

    (tmp_path / "billing.py").write_text("def compute_invoice(order):\n    return 1\n")
    fake_llm.push(text("ok"), text("ok"))
    local = make_session(fake_llm, tmp_path, local_model=True, small_model=False, context_window=8192)
    await run_turn(local, "where is the invoice computed?")
    assert "def compute_invoice" in fake_llm.requests[0]["messages"][1]["content"]
    await local.close()
    turned_off = make_session(fake_llm, tmp_path, local_model=True, small_model=False, repo_map_auto=False)
    await run_turn(turned_off, "hello")
    assert fake_llm.requests[1]["messages"][1] == {"role": "user", "content": "hello"}
    await turned_off.close()


def test_the_first_request_overview_names_every_file_of_a_small_project(tmp_path: Path):
    """Config and data files have no definitions: without the list, a model looking
    for a value in config/prod.toml would only see the code."""
    from vibe_tui.tools import repo_map

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "prod.toml").write_text("port = 8443\n")
    (tmp_path / "app.py").write_text("def load():\n    return 1\n")
    text = repo_map.first_request_overview(tmp_path, 512, "which port in production?")
    assert text.startswith("Files (2): app.py, config/prod.toml\n\nRepo map of 1 source files")
    assert "def load" in text
    for number in range(repo_map.OVERVIEW_MAX_FILES):
        (tmp_path / "config" / f"extra{number}.toml").write_text("")
    text = repo_map.first_request_overview(tmp_path, 512, "which port in production?")
    assert text.startswith("Top level: app.py, config/\n\nRepo map")


def test_a_map_made_before_is_read_back_until_a_file_changes(tmp_path: Path):
    """A new session on an unchanged repository reads the rendered map from disk; any
    change to a file, the focus or the budget makes it anew."""
    from vibe_tui.code import repomap

    (tmp_path / "billing.py").write_text("def compute_invoice(order):\n    return 1\n")
    (tmp_path / "shipping.py").write_text("def ship(order):\n    return compute_invoice(order)\n")
    first = map_workspace(tmp_path, (), (), 512)
    repomap._recent_rankings = repomap._RecentRankings(size=4)  # as in a new process
    calls = []
    real_rank = repomap.rank
    repomap.rank = lambda *args: calls.append(args) or real_rank(*args)
    try:
        again = map_workspace(tmp_path, (), (), 512)
        assert again.text == first.text and again.files_parsed == 0 and calls == []
        map_workspace(tmp_path, (), (), 256)
        assert len(calls) == 1  # another budget
        (tmp_path / "billing.py").write_text("def compute_total(order):\n    return 2\n")
        changed = map_workspace(tmp_path, (), (), 512)
        assert "compute_total" in changed.text and len(calls) == 2
    finally:
        repomap.rank = real_rank
