#!/usr/bin/env bash
# No calc_area left in any Python file, compute_area defined once and used, tests green.
set -u
if grep -rn --include='*.py' 'calc_area' .; then echo "calc_area is still there"; exit 1; fi
[ "$(grep -rn --include='*.py' 'def compute_area' . | wc -l)" -eq 1 ] || { echo "compute_area is not defined exactly once"; exit 1; }
for file in geometry/__init__.py geometry/report.py geometry/cli.py tests/test_shapes.py; do
  grep -q 'compute_area' "$file" || { echo "$file does not use compute_area"; exit 1; }
done
python -m pytest -q -p no:cacheprovider
