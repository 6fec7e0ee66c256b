"""The settings screen: providers and models (``/settings``, the command palette).

Left, the providers; right, the chosen one's key status, a key input (stored 0600,
never shown again), its base URL, a searchable model picker, a context-window override,
Test (a one-token request: latency or the provider's own error) and Apply. Apply points
the running session at the choice from its next model call (history kept), saves it to
``config.toml`` and dismisses with a ``SettingsResult`` the app notes in the
conversation. What is typed for one provider is kept while browsing the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from vibe_tui.config import providers as catalogue
from vibe_tui.config.credentials import store_key, stored_keys
from vibe_tui.config.settings import CLEAR
from vibe_tui.config.toml_edit import save_model_choice
from vibe_tui.config.providers import PROVIDERS, PROVIDERS_BY_ID, Provider
from vibe_tui.core import model_listing
from vibe_tui.core.model_listing import ProviderError
from vibe_tui.widgets.model_picker import ModelPicker

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

# OpenAI-compatible servers take any key; sending none would let LiteLLM send
# $OPENAI_API_KEY, a real OpenAI key, to whatever server the base URL names.
PLACEHOLDER_KEY = "sk-no-key"
LOCAL_CONTEXT = 8192  # the embedded server's window (local_model.CONTEXT_SIZE)


@dataclass
class Draft:
    """What was typed for one provider, kept while browsing the others."""

    base_url: str = ""
    model: str = ""
    context_window: str = ""
    key: str = ""


@dataclass(frozen=True)
class Choice:
    provider: Provider
    model: str  # a LiteLLM model string; the bare name for the local model
    api_base: str | None
    typed_key: str | None
    context_window: int | None


@dataclass(frozen=True)
class SettingsResult:
    provider: str
    model: str
    api_base: str | None
    context_window: int | None
    key_stored: bool = False
    saved_to: Path | None = None
    save_error: str | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the conversation (never the key)."""
        label = PROVIDERS_BY_ID[self.provider].label
        parts = [f"model: {self.model} ({label}) from the next model call"]
        if self.api_base:
            parts.append(f"base URL {self.api_base}")
        if self.context_window:
            parts.append(f"context window {self.context_window:,} tokens")
        if self.key_stored:
            parts.append("key stored (file mode 0600)")
        parts.append(f"saved to {self.saved_to}" if self.saved_to
                     else f"not saved: {self.save_error}")
        return " · ".join(parts + self.notes)


class SettingsScreen(ModalScreen[SettingsResult | None]):
    """Dismisses with what was applied, or None when closed without applying."""

    AUTO_FOCUS = "#providers"
    BINDINGS = [
        Binding("escape", "cancel", "close"),
        Binding("ctrl+t", "test", "test"),
        Binding("ctrl+s", "apply", "apply"),
    ]
    DEFAULT_CSS = """
    SettingsScreen {
        align: center middle;
        #dialog {
            width: 100%;
            max-width: 120;
            height: 100%;
            max-height: 44;
            margin: 0 1;
            padding: 0 1;
            background: $surface;
            border: round $primary;
            border-title-style: bold;
        }
        #providers { width: 30; height: 1fr; border: round $primary 40%; }
        #details { width: 1fr; height: 1fr; padding: 0 0 0 1; }
        #details Label { margin-top: 1; color: $text-muted; }
        #provider-name { text-style: bold; }
        #key-status.-missing { color: $warning; }
        #models-status, #hint { color: $text-muted; }
        #buttons { height: auto; margin-top: 1; }
        #buttons Button { margin-right: 1; }
        #test-result { height: auto; margin-top: 1; }
        #test-result.-ok { color: $success; }
        #test-result.-failed { color: $error; }
        #message { height: auto; color: $error; }
        #message.-info { color: $text-muted; }
    }
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.provider: Provider | None = None
        self.drafts: dict[str, Draft] = {p.id: Draft() for p in PROVIDERS}
        self._seed_current_draft()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Settings · providers and models"
            with Horizontal():
                yield OptionList(*(Option(p.label, id=p.id) for p in PROVIDERS), id="providers")
                # Not a focus stop itself: Tab from the providers goes to the key field.
                with VerticalScroll(id="details", can_focus=False):
                    yield Static(id="provider-name")
                    yield Static(id="key-status")
                    yield Input(password=True, id="key",
                                placeholder="API key: paste one to store it (file mode 0600)")
                    yield Label("Base URL")
                    yield Input(id="base-url")
                    yield Label("Model")
                    yield ModelPicker(id="models")
                    yield Static(id="models-status")
                    yield Label("Context window override (tokens; empty: automatic)")
                    yield Input(id="context-window", type="integer", placeholder="automatic")
                    with Horizontal(id="buttons"):
                        yield Button("Test (Ctrl+T)", id="test")
                        yield Button("Apply (Ctrl+S)", id="apply", variant="primary")
                        yield Button("Cancel (Esc)", id="cancel")
                    yield Static(id="test-result")
                    yield Static(id="message")

    def on_mount(self) -> None:
        current = self._current_provider()
        self.query_one("#providers", OptionList).highlighted = PROVIDERS.index(current)
        self._show(current)

    # ---- which provider -----------------------------------------------------------------

    def _current_provider(self) -> Provider:
        config = self.session.config
        if config.local_model:
            return PROVIDERS_BY_ID["local"]
        if config.provider in PROVIDERS_BY_ID and config.provider != "local":
            return PROVIDERS_BY_ID[config.provider]
        return catalogue.provider_of(self.session.model, config.api_base)

    def _seed_current_draft(self) -> None:
        config = self.session.config
        provider = self._current_provider()
        window = (config.models.get(self.session.model) or {}).get("context_window")
        draft = self.drafts[provider.id]
        draft.context_window = str(window) if window else ""
        if provider.listing == "local":
            draft.model = config.local_model_name or self.session.model.split("/", 1)[-1]
            return
        draft.model = self.session.model
        draft.base_url = config.api_base or ""

    @on(OptionList.OptionHighlighted, "#providers")
    def _provider_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        chosen = PROVIDERS_BY_ID[event.option.id or ""]
        if chosen is not self.provider:
            self._show(chosen)

    def _show(self, provider: Provider) -> None:
        if self.provider is not None:
            self._keep_draft()
        self.provider = provider
        draft = self.drafts[provider.id]
        self.query_one("#provider-name", Static).update(
            Content(f"{provider.label}  ·  LiteLLM prefix {provider.prefix}/"))
        self._show_key_status()
        key = self.query_one("#key", Input)
        key.value, key.disabled = draft.key, not provider.takes_typed_key
        base = self.query_one("#base-url", Input)
        base.value = draft.base_url or (provider.base_url or "" if provider.needs_base_url
                                        or provider.listing == "ollama" else "")
        base.placeholder = provider.base_url or "https://… (your endpoint)"
        base.disabled = provider.listing == "local"
        self.query_one(ModelPicker).value = draft.model
        self.query_one("#context-window", Input).value = draft.context_window
        self._set_test_result("", None)
        self._say("")
        self._load_models()

    def _keep_draft(self) -> None:
        assert self.provider is not None
        self.drafts[self.provider.id] = Draft(
            base_url=self.query_one("#base-url", Input).value.strip(),
            model=self.query_one(ModelPicker).value,
            context_window=self.query_one("#context-window", Input).value.strip(),
            key=self.query_one("#key", Input).value.strip())

    def _show_key_status(self) -> None:
        assert self.provider is not None
        status, line = catalogue.key_status(self.provider)
        widget = self.query_one("#key-status", Static)
        widget.update(Content(line))
        widget.set_class(status == "missing", "-missing")

    # ---- model list ---------------------------------------------------------------------

    @on(Input.Submitted, "#base-url")
    @on(Input.Blurred, "#base-url")
    def _base_url_entered(self) -> None:
        self._load_models()

    @work(group="models", exclusive=True, exit_on_error=False)
    async def _load_models(self) -> None:
        provider = self.provider
        assert provider is not None
        status = self.query_one("#models-status", Static)
        picker = self.query_one(ModelPicker)
        status.update(Content("listing models…"))
        base = self.query_one("#base-url", Input).value.strip() or None
        try:
            models = await model_listing.list_models(provider, base, self._key_for(provider))
        except ProviderError as exc:
            picker.set_models([])
            status.update(Content(f"{exc} · type a model name instead"))
            return
        if provider is self.provider:
            picker.set_models(models)
            count = f"{len(models)} model" + ("" if len(models) == 1 else "s")
            status.update(Content(f"{count} · type to search; any name works"))

    # ---- reading the form ---------------------------------------------------------------

    def _key_for(self, provider: Provider, typed: str | None = None) -> str | None:
        """The key a request to ``provider`` carries: typed, else stored, else the one
        LiteLLM reads from the environment (None)."""
        typed = typed if typed is not None else self.query_one("#key", Input).value.strip()
        if typed and provider is self.provider:
            return typed
        try:
            stored = stored_keys().get(provider.id)
        except ValueError:
            stored = None
        status, _ = catalogue.key_status(provider)
        if stored and status == "stored":
            return stored
        if provider.prefix == "openai" and not provider.key_required:
            return PLACEHOLDER_KEY
        return None

    def _read_choice(self) -> Choice | str:
        """The form as a Choice, or what is wrong with it (a sentence)."""
        provider = self.provider
        assert provider is not None
        name = self.query_one(ModelPicker).value
        if not name:
            return "choose or type a model first"
        base = self.query_one("#base-url", Input).value.strip().rstrip("/") or None
        if provider.needs_base_url and not base:
            return f"{provider.label} needs a base URL, e.g. {provider.base_url or 'https://…'}"
        if base and not base.startswith(("http://", "https://")):
            return f"the base URL must start with http:// or https://, not {base!r}"
        if provider.listing == "ollama":
            base = (base or provider.base_url or "").removesuffix("/v1")
        raw_window = self.query_one("#context-window", Input).value.strip()
        try:
            window = int(raw_window) if raw_window else None
        except ValueError:
            return f"the context window must be a whole number of tokens, not {raw_window!r}"
        if window is not None and window < 1024:
            return f"a context window of {window} tokens is too small (1,024 at least)"
        model = name if provider.listing == "local" else catalogue.qualified(provider, name)
        typed = self.query_one("#key", Input).value.strip() or None
        return Choice(provider, model, None if provider.listing == "local" else base,
                      typed, window)

    async def _endpoint(self, choice: Choice) -> tuple[str, str | None, str | None]:
        """(model string, base URL, key) a request for ``choice`` goes to."""
        if choice.provider.listing != "local":
            return (choice.model, choice.api_base,
                    self._key_for(choice.provider, choice.typed_key or ""))
        self._say("starting the local model… (the first time it downloads about 1 GB)",
                  error=False)
        return await self.session.local_model_endpoint(choice.model)

    # ---- Test ---------------------------------------------------------------------------

    def action_test(self) -> None:
        self._run_test()

    @on(Button.Pressed, "#test")
    def _test_pressed(self) -> None:
        self._run_test()

    @work(group="test", exclusive=True, exit_on_error=False)
    async def _run_test(self) -> None:
        choice = self._read_choice()
        if isinstance(choice, str):
            self._say(choice)
            return
        self._say("")
        self._set_test_result(f"testing {choice.model}…", None)
        try:
            model, base, key = await self._endpoint(choice)
        except Exception as exc:  # the local model failing to start is a test result
            self._set_test_result(f"failed: {exc}", False)
            return
        outcome = await model_listing.check_model(model, base, key)
        self._set_test_result(f"{model}: {outcome.describe()}", outcome.ok)

    def _set_test_result(self, text: str, ok: bool | None) -> None:
        widget = self.query_one("#test-result", Static)
        widget.update(Content(text))
        widget.set_class(ok is True, "-ok")
        widget.set_class(ok is False, "-failed")

    def _say(self, text: str, *, error: bool = True) -> None:
        widget = self.query_one("#message", Static)
        widget.update(Content(text))
        widget.set_class(not error, "-info")

    # ---- Apply and Cancel ---------------------------------------------------------------

    def action_apply(self) -> None:
        self._run_apply()

    @on(Button.Pressed, "#apply")
    def _apply_pressed(self) -> None:
        self._run_apply()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    @work(group="apply", exclusive=True, exit_on_error=False)
    async def _run_apply(self) -> None:
        choice = self._read_choice()
        if isinstance(choice, str):
            self._say(choice)
            return
        key_stored = False
        try:
            if choice.typed_key:
                store_key(choice.provider.id, choice.typed_key)
                key_stored = True
            model, base, key = await self._endpoint(choice)
        except (OSError, ValueError, ProviderError) as exc:
            self._say(f"not applied: {exc}")
            return
        except Exception as exc:  # the local model could not start: say so, stay here
            self._say(f"not applied: the local model could not start: {exc}")
            return
        apply_to_session(self.session, choice, model, base, key)
        self.dismiss(save_choice(choice, model, key_stored))


def apply_to_session(session: Session, choice: Choice, model: str, api_base: str | None,
                     api_key: str | None) -> None:
    """Point the session at the choice from its next model call; the history stays.
    A hosted provider's key from the environment is left to LiteLLM (no ``api_key``)."""
    config = session.config
    local = choice.provider.listing == "local"
    overrides: dict[str, object] = dict(
        model=model, api_base=api_base or CLEAR, api_key=api_key or CLEAR,
        provider=choice.provider.id,
        local_model_name=choice.model if local else CLEAR)
    if choice.context_window:
        models = dict(config.models)
        models[model] = {**models.get(model, {}), "context_window": choice.context_window}
        overrides["models"] = models
    if local:
        # As the app boots it: greedy decoding, the server's own window, calls from text.
        overrides.update(local_model=True, temperature=0.0, context_window=LOCAL_CONTEXT)
    elif config.local_model:
        overrides.update(local_model=False, temperature=CLEAR, context_window=CLEAR)
    session.configure(**overrides)
    catalogue.remember_model(model)


def save_choice(choice: Choice, model: str, key_stored: bool) -> SettingsResult:
    local = choice.provider.listing == "local"
    result = dict(provider=choice.provider.id, model=model, api_base=choice.api_base,
                  context_window=choice.context_window, key_stored=key_stored)
    try:
        path = save_model_choice(
            provider=choice.provider.id, model=None if local else model,
            api_base=choice.api_base, context_window=None if local else choice.context_window,
            local_model_name=choice.model if local else None)
    except (OSError, ValueError) as exc:
        return SettingsResult(**result, save_error=str(exc))
    return SettingsResult(**result, saved_to=path)
