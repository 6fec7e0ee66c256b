"""Set-up wizard: asks a few questions in the terminal and writes settings.json."""

import json
import sys


def ask(question: str, default: str = "") -> str:
    suffix = f" [{default}]" if default else ""
    answer = input(f"{question}{suffix}: ").strip()
    return answer or default


def main() -> int:
    if not sys.stdin.isatty():
        print("configure.py asks questions: run it in a terminal (stdin is not a tty)",
              file=sys.stderr)
        return 1
    print("orchid-service set-up")
    name = ask("Project name")
    while True:
        port = ask("Port", "8000")
        if port.isdigit() and 0 < int(port) < 65536:
            break
        print("please enter a port number between 1 and 65535")
    cache = ask("Enable the cache? (y/n)", "n").lower().startswith("y")
    settings = {"name": name, "port": int(port), "cache": cache,
                "written_by": "configure.py"}
    with open("settings.json", "w", encoding="utf-8") as handle:
        json.dump(settings, handle, indent=2)
    print(f"wrote settings.json for {name!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
