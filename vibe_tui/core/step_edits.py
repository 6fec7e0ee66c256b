"""A small model's search/replace step, checked against the file before it is applied.

Small models copy lines with the wrong indentation or trailing spaces more often than with
the wrong words (evals/README.md). A search text that is not in the file exactly but
matches one place line for line once spaces are set aside is taken as that place, and the
replacement is re-indented by the same amount; anything less certain goes back to the
model as an error it can act on.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Located:
    old: str  # the file's own text to replace
    new: str
    replace_all: bool = False
    note: str | None = None  # what was adjusted, for the model


class NotLocated(Exception):
    pass


def locate(content: str, search: str, replace: str) -> Located:
    """Where ``search`` is in ``content``; raises NotLocated with the reason."""
    if not search.strip():
        raise NotLocated("search is empty: copy the lines to change from the file")
    count = content.count(search)
    if count == 1:
        return Located(search, replace)
    if count > 1:
        if "\n" not in search.strip():
            # One line or a name: every occurrence is meant (a rename, a repeated value).
            return Located(search, replace, replace_all=True,
                           note=f"replaced all {count} occurrences")
        raise NotLocated(f"search occurs {count} times in the file: add a line around it "
                         "that makes it unique")
    return _by_lines(content, search, replace)


def _by_lines(content: str, search: str, replace: str) -> Located:
    lines = content.splitlines()
    wanted = [line.strip() for line in search.strip("\n").splitlines()]
    places = [start for start in range(len(lines) - len(wanted) + 1)
              if [line.strip() for line in lines[start:start + len(wanted)]] == wanted]
    if len(places) != 1:
        reason = "not in the file" if not places else f"in {len(places)} places"
        raise NotLocated(f"search is {reason}: copy whole lines exactly as the file has them "
                         "(read the file first)")
    start = places[0]
    found = lines[start:start + len(wanted)]
    shift = _indent(found[0]) - _indent(search.strip("\n").splitlines()[0])
    return Located("\n".join(found), _reindent(replace.strip("\n"), shift),
                   note="matched with the file's indentation")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _reindent(text: str, shift: int) -> str:
    if shift == 0:
        return text
    lines = []
    for line in text.splitlines():
        if shift > 0:
            lines.append(" " * shift + line if line.strip() else line)
        else:
            cut = min(-shift, _indent(line))
            lines.append(line[cut:])
    return "\n".join(lines)
