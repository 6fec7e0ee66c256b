"""A searchable model picker: type to filter the provider's models, then Down and Enter
(or a click) picks one; or keep whatever was typed: free text is a model too. A name put
in the field from outside (the model in use, a pick) lists every model with it
highlighted; only what the user types narrows the list."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

MAX_SHOWN = 200  # LiteLLM knows hundreds of Bedrock models; a list that long helps nobody


def filter_models(models: list[str], query: str) -> list[str]:
    """Models containing every word of ``query``; those whose name starts with it first."""
    words = query.lower().split()
    hits = [m for m in models if all(word in m.lower() for word in words)]
    first = query.strip().lower()
    return sorted(hits, key=lambda m: (not m.lower().split("/", 1)[-1].startswith(first),
                                       not m.lower().startswith(first)))[:MAX_SHOWN]


class ModelPicker(Vertical):
    DEFAULT_CSS = """
    ModelPicker {
        height: auto;
        #model-input { width: 1fr; }
        #model-options { height: 8; border: round $accent 40%; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.models: list[str] = []
        self._shown: list[str] = []
        self._preset = ""  # the name last put in the field for the user, not typed by them

    def compose(self) -> ComposeResult:
        yield Input(placeholder="model: type to search, or any model name", id="model-input")
        yield OptionList(id="model-options")

    @property
    def value(self) -> str:
        return self.query_one("#model-input", Input).value.strip()

    @value.setter
    def value(self, model: str) -> None:
        self._preset = model.strip()
        self.query_one("#model-input", Input).value = model

    def set_models(self, models: list[str]) -> None:
        self.models = models
        self._refilter()

    @on(Input.Changed, "#model-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._refilter()

    def _refilter(self) -> None:
        options = self.query_one("#model-options", OptionList)
        current = self.value
        searching = current != self._preset
        self._shown = filter_models(self.models, current if searching else "")
        if not searching and current in self.models and current not in self._shown:
            self._shown = [current, *self._shown[:MAX_SHOWN - 1]]
        options.set_options(Option(name) for name in self._shown)
        if not searching and current in self._shown:
            options.highlighted = self._shown.index(current)

    def on_key(self, event: events.Key) -> None:
        """Down from the search box goes into the list; Enter there picks a model."""
        options = self.query_one("#model-options", OptionList)
        if event.key == "down" and self.query_one("#model-input", Input).has_focus \
                and self._shown:
            options.focus()
            if self.value != self._preset or options.highlighted is None:
                options.highlighted = 0  # the best match; else stay on the model in use
            event.stop()

    @on(OptionList.OptionSelected, "#model-options")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.value = self._shown[event.option_index]
        self.query_one("#model-input", Input).focus()
