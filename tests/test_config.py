"""The user's config file: values, permission rules, and refusals of bad input."""

from __future__ import annotations

import pytest

from vibe_tui.config.paths import config_dir
from vibe_tui.config.settings import Config, load_config


def write_config(text: str):
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_missing_file_gives_defaults():
    assert load_config() == Config()


def test_values_and_permission_rules_are_read():
    write_config('model = "openai/gpt-4.1"\nmode = "accept-edits"\nmax_steps = 12\n'
                 'future_key = 1\n[permissions]\nallow = ["Bash(npm test:*)"]\n'
                 'deny = ["Read(./.env)"]\n')
    config = load_config()
    assert (config.model, config.mode, config.max_steps) == ("openai/gpt-4.1", "accept-edits", 12)
    assert config.allow == ["Bash(npm test:*)"] and config.deny == ["Read(./.env)"]


def test_overrides_keep_unset_values():
    config = Config(model="a", max_steps=5).with_overrides(model="b", max_steps=None)
    assert (config.model, config.max_steps) == ("b", 5)


@pytest.mark.parametrize("text, message", [
    ('mode = "reckless"\n', "mode must be one of"),
    ('[permissions]\ndeny = ["Bash(rm:*"]\n', "deny rule 'Bash(rm:*' is not valid"),
])
def test_bad_values_are_refused_with_the_file_named(text, message):
    path = write_config(text)
    with pytest.raises(ValueError) as raised:
        load_config()
    assert message in str(raised.value) and str(path) in str(raised.value)


def test_sandbox_secrets_settings_reach_the_commands_context(tmp_path):
    from vibe_tui.core.session import Session

    write_config('[sandbox]\npass_env = ["GITHUB_TOKEN"]\nhide = ["~/work/secrets"]\n')
    config = load_config()
    assert config.sandbox_pass_env == ["GITHUB_TOKEN"]
    assert config.sandbox_hide == ["~/work/secrets"]
    session = Session(config, tmp_path)
    assert session.tool_context.pass_env == ("GITHUB_TOKEN",)
    assert session.tool_context.hide_paths == ("~/work/secrets",)


@pytest.mark.parametrize("text", ['[sandbox]\npass_env = "GITHUB_TOKEN"\n',
                                  '[sandbox]\nhide = [1]\n'])
def test_sandbox_lists_must_be_lists_of_strings(text):
    path = write_config(text)
    with pytest.raises(ValueError, match=f"{path}.*must be a list of strings"):
        load_config()
