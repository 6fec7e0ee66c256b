"""What the loop reads before its next model call: lines the user typed while a turn ran,
and the session's own notes (a revert, a rewind) that the model must hear of."""

from __future__ import annotations


class Steering:
    def __init__(self) -> None:
        self._lines: list[str] = []
        self._typed: list[str] = []  # the user's own lines among them, not yet read

    def typed(self, text: str) -> None:
        self._lines.append(text)
        self._typed.append(text)

    def note(self, *texts: str) -> None:
        self._lines.extend(texts)

    def take(self) -> list[str]:
        taken, self._lines, self._typed = self._lines, [], []
        return taken

    def __bool__(self) -> bool:
        return bool(self._lines)

    def drop_typed(self) -> list[str]:
        """The user's lines the stopped turn never read: they go with it (a later turn must
        not receive them after a newer message); the session's notes stay."""
        dropped, self._typed = self._typed, []
        for text in dropped:
            self._lines.remove(text)
        return dropped
