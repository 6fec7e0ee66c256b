#!/usr/bin/env bash
# Tests green, tests untouched, and the 2,750-line file changed in a few lines only.
set -u
git diff --quiet HEAD -- tests || { echo "the tests were changed"; exit 1; }
changed=$(git diff --numstat HEAD -- legacy/billing.py | awk '{print $1 + $2}')
[ -n "$changed" ] && [ "$changed" -le 6 ] || { echo "legacy/billing.py: ${changed:-0} lines changed (expected 1 to 6)"; exit 1; }
python -m pytest -q -p no:cacheprovider
