"""settings.json written by the wizard (run in a terminal) with the requested answers."""

import json
import os
import sys

try:
    with open("settings.json", encoding="utf-8") as handle:
        settings = json.load(handle)
except (OSError, json.JSONDecodeError) as exc:
    sys.exit(f"no usable settings.json: {exc}")
expected = {"name": "orchid", "port": 9000, "cache": True, "written_by": "configure.py"}
if settings != expected:
    sys.exit(f"settings.json is {settings!r}, expected {expected!r}")
started = []
with open(os.environ["EVAL_EVENTS"], encoding="utf-8") as handle:
    for line in handle:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "tool_call" and event.get("tool") == "interactive_start":
            started.append(event.get("args", {}).get("command", ""))
if not any("configure.py" in command for command in started):
    sys.exit("configure.py was never started with interactive_start")
print("ok")
