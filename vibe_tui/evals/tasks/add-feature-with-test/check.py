"""truncate_words behaves as asked, a test for it exists, and the whole suite passes."""

import ast
import subprocess
import sys

sys.path.insert(0, ".")
try:
    from textutils.strings import truncate_words
except ImportError as exc:
    sys.exit(f"textutils.strings has no truncate_words: {exc}")

CASES = [
    (("the quick brown fox", 2), "the quick..."),
    (("the quick brown fox", 4), "the quick brown fox"),
    (("the quick brown fox", 10), "the quick brown fox"),
    (("one", 1), "one"),
    (("", 3), ""),
]
for args, expected in CASES:
    got = truncate_words(*args)
    if got != expected:
        sys.exit(f"truncate_words{args!r} returned {got!r}, expected {expected!r}")

tree = ast.parse(open("tests/test_strings.py", encoding="utf-8").read())
tests = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test")]
if not any("truncate_words" in ast.unparse(test) for test in tests):
    sys.exit("tests/test_strings.py has no test that calls truncate_words")
if not {"test_slugify", "test_initials"} <= {test.name for test in tests}:
    sys.exit("the existing tests were removed")
result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
sys.exit(result.returncode)
