"""sed: read-only only as ``sed -n`` with ``p`` commands; everything else may write files
(``w``, ``-i``) or run commands (``e``, ``s///e``)."""

from __future__ import annotations

# sed: only printing (-n with p commands); s///e, e, w, W, r, R and -i write or run.
_SED_FLAGS = frozenset("nrEsuz")
_SED_LONG_FLAGS = frozenset({"--quiet", "--silent", "--regexp-extended", "--separate",
                             "--unbuffered", "--null-data", "--posix", "--debug", "--sandbox"})


def check_sed(name: str, args: list[str]) -> str | None:
    parsed = parse_sed_args(args)
    if parsed is None or not parsed[2] or not parsed[0]:
        return _sed_refusal(name)
    if not all(_sed_prints_only(script) for script in parsed[0]):
        return _sed_refusal(name)
    return None


def _sed_refusal(name: str) -> str:
    return f"{name} may write files or run commands (only {name} -n with p commands is read-only)"


def parse_sed_args(args: list[str]) -> tuple[list[str], list[str], bool] | None:
    """(scripts, file operands, quiet), or None for an option that is not plain reading."""
    scripts: list[str] = []
    operands: list[str] = []
    quiet = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 2
            continue
        if arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif arg in ("-n", "--quiet", "--silent"):
            quiet = True
        elif arg.startswith("--"):
            if arg not in _SED_LONG_FLAGS:
                return None
        elif arg.startswith("-") and len(arg) > 1:
            letters = arg[1:]
            if "e" in letters:  # -ne SCRIPT: the script is the next word (or the rest)
                head, _, rest = letters.partition("e")
                if set(head) - _SED_FLAGS:
                    return None
                quiet = quiet or "n" in head
                if rest:
                    scripts.append(rest)
                elif i + 1 < len(args):
                    scripts.append(args[i + 1])
                    i += 1
                else:
                    return None
            elif set(letters) - _SED_FLAGS:
                return None  # -i, -f, -l, and anything not known
            else:
                quiet = quiet or "n" in letters
        else:
            operands.append(arg)
        i += 1
    if not scripts and operands:
        scripts.append(operands.pop(0))
    return scripts, operands, quiet


def _sed_prints_only(script: str) -> bool:
    """Each command is ``[address[,address]][!]p`` (addresses: N, $, N~M, /regex/[I])."""
    commands = [c.strip() for c in script.replace("\n", ";").split(";")]
    return all(_sed_print_command(c) for c in commands if c)


def _sed_print_command(command: str) -> bool:
    rest = _sed_address(command)
    if rest is not None and rest.startswith(","):
        rest = _sed_address(rest[1:].lstrip())
    if rest is None:
        rest = command  # no address: the command applies to every line
    rest = rest.strip()
    if rest.startswith("!"):
        rest = rest[1:].strip()
    return rest == "p"


def _sed_address(text: str) -> str | None:
    """What follows one address at the start of ``text``, or None when there is none."""
    if text.startswith("$"):
        return text[1:]
    if text[:1].isdigit():
        end = len(text) - len(text.lstrip("0123456789~"))
        return text[end:]
    if text.startswith("/"):
        i = 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "/":
                rest = text[i + 1:]
                return rest[1:] if rest[:1] in ("I", "M") else rest
            i += 1
    return None
