"""The answer names the three variables, a task call was made, nothing changed."""

import json
import os
import subprocess
import sys

answer = open(os.environ["EVAL_ANSWER"], encoding="utf-8").read()
missing = [name for name in ("RELAY_INTAKE_URL", "RELAY_MAX_RETRIES", "RELAY_OUTBOX_DIR")
           if name not in answer]
if missing:
    sys.exit(f"the answer does not name {', '.join(missing)}")
tools = []
with open(os.environ["EVAL_EVENTS"], encoding="utf-8") as handle:
    for line in handle:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "tool_call" and "parent_call_id" not in event:
            tools.append(event.get("tool"))
if "task" not in tools:
    sys.exit(f"no sub-agent was used (main agent's tools: {tools})")
status = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout
if status.strip():
    sys.exit(f"files changed:\n{status}")
print("ok")
