#!/usr/bin/env bash
# Copy every regular file of SOURCE into DEST/backup-<label>/, keeping the names.
# Usage: backup.sh SOURCE DEST LABEL
set -u

if [ $# -ne 3 ]; then
  echo "usage: backup.sh SOURCE DEST LABEL" >&2
  exit 2
fi

source_dir=$1
target="$2/backup-$3"
mkdir -p "$target"

count=0
for name in $(ls $source_dir); do
  if [ -f $source_dir/$name ]; then
    cp $source_dir/$name $target/
    count=$((count + 1))
  fi
done
echo "copied $count files to $target"
