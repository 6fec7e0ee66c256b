"""config/app.json: the three requested changes, valid JSON, nothing else touched."""

import json
import subprocess
import sys

original = json.loads(subprocess.run(["git", "show", "HEAD:config/app.json"],
                                     capture_output=True, text=True, check=True).stdout)
try:
    with open("config/app.json", encoding="utf-8") as handle:
        edited = json.load(handle)
except (OSError, json.JSONDecodeError) as exc:
    sys.exit(f"config/app.json does not load: {exc}")

expected = json.loads(json.dumps(original))
expected["features"]["beta_search"] = True
expected["http"]["timeout_seconds"] = 30
problems = []
locales = edited.get("locales")
if not isinstance(locales, list) or sorted(locales) != sorted(original["locales"] + ["fr"]):
    problems.append(f"locales should be the old ones plus 'fr', got {locales!r}")
edited = dict(edited, locales=original["locales"])
expected["locales"] = original["locales"]
if edited != expected:
    problems.append("other settings changed, or a requested change is missing")
changed = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout
if any(not line.endswith("config/app.json") for line in changed.splitlines()):
    problems.append(f"files other than config/app.json changed:\n{changed}")
if problems:
    sys.exit("\n".join(problems))
print("ok")
