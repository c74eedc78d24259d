#!/usr/bin/env bash
# Runs every deploy test (deploy/test/*.bats). Exit status: non-zero when a test fails.
# Tools: bats (runs the tests), shellcheck (lint.bats) and docker-compose v1 (compose.bats)
# from apt: apt-get install -y bats shellcheck docker-compose
# A missing tool is reported on a loud SKIPPED line; that is a failure only when CI=true.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

missing=()
for tool in bats shellcheck docker-compose; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
skipped_rc=0
if ((${#missing[@]} > 0)); then
  echo "!!!!! SKIPPED: deploy tests need ${missing[*]} (apt-get install -y ${missing[*]}); the tests needing them did not run !!!!!" >&2
  [[ ${CI:-} == true ]] && skipped_rc=1
fi
if [[ " ${missing[*]} " == *" bats "* ]]; then exit "$skipped_rc"; fi

tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
bats --tap "$here"/*.bats | tee "$tap"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^ok [0-9]+ ' "$tap")
skipped=$(grep -cE '^ok [0-9]+ .*# skip' "$tap")
failed=$(grep -cE '^not ok [0-9]+ ' "$tap")
if ((${#missing[@]} > 0)); then
  echo "!!!!! SKIPPED: ${missing[*]} missing; the tests needing them did not run !!!!!" >&2
fi
echo "deploy: $((passed - skipped)) passed, $failed failed, $skipped skipped"
if ((rc != 0)); then exit "$rc"; fi
exit "$skipped_rc"
