#!/usr/bin/env bash
# Hidden check: the repository's test, then names the test does not try.
set -u
git diff --quiet HEAD -- tests || { echo "the test was changed"; exit 1; }
bash tests/test_backup.sh || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in dir"
printf '1\n' > "$work/in dir/plain.txt"
printf '2\n' > "$work/in dir/two  spaces.txt"
printf '3\n' > "$work/in dir/-dash.txt"
mkdir "$work/in dir/sub"
bash scripts/backup.sh "$work/in dir" "$work/out dir" "x" >/dev/null || { echo "backup.sh failed"; exit 1; }
for name in plain.txt "two  spaces.txt" -dash.txt; do
  cmp -s "$work/in dir/$name" "$work/out dir/backup-x/$name" || { echo "missing: $name"; exit 1; }
done
[ ! -e "$work/out dir/backup-x/sub" ] || { echo "copied a folder"; exit 1; }
echo "ok"
