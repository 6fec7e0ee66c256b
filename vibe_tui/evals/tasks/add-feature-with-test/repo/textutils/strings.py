"""Small string helpers."""

import re


def slugify(text: str) -> str:
    """Lower-case words joined by hyphens: "Hello, World!" -> "hello-world"."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)


def initials(name: str) -> str:
    """"Ada Lovelace" -> "AL"."""
    return "".join(part[0].upper() for part in name.split())
