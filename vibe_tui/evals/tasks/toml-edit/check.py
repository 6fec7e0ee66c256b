"""pyproject.toml: version, a new dependency and ruff's line length; valid TOML, rest kept."""

import json
import subprocess
import sys
import tomllib

original = tomllib.loads(subprocess.run(["git", "show", "HEAD:pyproject.toml"],
                                        capture_output=True, text=True, check=True).stdout)
try:
    with open("pyproject.toml", "rb") as handle:
        edited = tomllib.load(handle)
except (OSError, tomllib.TOMLDecodeError) as exc:
    sys.exit(f"pyproject.toml does not load: {exc}")

problems = []
project = edited.get("project", {})
if project.get("version") != "1.3.0":
    problems.append(f"version should be 1.3.0, got {project.get('version')!r}")
deps = [d.replace(" ", "") for d in project.get("dependencies", [])]
if sorted(deps) != sorted(original["project"]["dependencies"] + ["httpx>=0.27"]):
    problems.append(f"dependencies should be the old ones plus httpx>=0.27, got {deps!r}")
if edited.get("tool", {}).get("ruff", {}).get("line-length") != 100:
    problems.append("tool.ruff.line-length should be 100")
expected = json.loads(json.dumps(original))
expected["project"]["version"] = "1.3.0"
expected["tool"]["ruff"]["line-length"] = 100
rest = json.loads(json.dumps(edited))
rest.get("project", {})["dependencies"] = original["project"]["dependencies"]
if not problems and rest != expected:
    problems.append("other settings changed")
if problems:
    sys.exit("\n".join(problems))
print("ok")
