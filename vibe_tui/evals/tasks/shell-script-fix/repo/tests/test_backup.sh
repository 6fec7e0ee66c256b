#!/usr/bin/env bash
# Runs scripts/backup.sh on sample files; exit 0 when every file was copied intact.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/in"
printf 'alpha\n' > "$work/in/notes.txt"
printf 'beta\n' > "$work/in/meeting notes.txt"
printf 'gamma\n' > "$work/in/q3 report final.csv"

bash "$here/scripts/backup.sh" "$work/in" "$work/out" nightly

failed=0
for file in "$work/in"/*; do
  name=$(basename "$file")
  if ! cmp -s "$file" "$work/out/backup-nightly/$name"; then
    echo "FAIL: '$name' was not backed up" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "ok: all files backed up"
