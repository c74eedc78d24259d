#!/usr/bin/env bats
# deploy/test/engine-e2e.sh's guards, against the stand-in docker: it skips with its reason where
# no engine answers, and never runs over an engine holding svc data. The test itself runs on a
# real engine (docs/testing.md, "The engine test").
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design
# shellcheck disable=SC2016 # patterns of the script's own text, never expanded

load helpers

setup() { setup_package; }

@test "no engine: SKIPPED with the reason, exit 0; exit 1 when SVC_E2E_REQUIRED=1" {
  export STUB_ENGINE=down
  run "$TEST_DIR/engine-e2e.sh"
  assert_status 0
  assert_output_has "SKIPPED: engine end-to-end test: no container engine answers 'docker info'"
  SVC_E2E_REQUIRED=1 run "$TEST_DIR/engine-e2e.sh"
  assert_status 1
  refute_called 'compose .* (up|build)'
}

@test "no Compose v2: SKIPPED with the reason" {
  export STUB_COMPOSE=missing
  run "$TEST_DIR/engine-e2e.sh"
  assert_status 0
  assert_output_has "'docker compose' (Compose v2) is not available"
}

@test "a good neighbour: ports picked free and distinct, never one in use" {
  # shellcheck source-path=SCRIPTDIR source=engine-e2e-lib.bash
  source "$TEST_DIR/engine-e2e-lib.bash"
  local busy ports p
  busy=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  read -ra ports <<<"$(free_ports 5)"
  ((${#ports[@]} == 5)) || fail_with "expected 5 ports, got ${ports[*]}"
  [[ $(printf '%s\n' "${ports[@]}" | sort -u | wc -l) == 5 ]] || fail_with "ports repeat: ${ports[*]}"
  for p in "${ports[@]}"; do
    ((p >= 20000 && p <= 32000)) || fail_with "port $p outside 20000-32000"
    [[ -z $(ss -Hlntu "sport = :$p") ]] || fail_with "port $p is in use"
    [[ $p != "$busy" ]] || fail_with "a port in use was picked"
  done
}

@test "the build copy has git's modes and one fixed time whatever the umask and checkout time" {
  # shellcheck source-path=SCRIPTDIR source=engine-e2e-lib.bash
  source "$TEST_DIR/engine-e2e-lib.bash"
  repo=$BATS_TEST_TMPDIR/repo
  mkdir -p "$repo/sub"
  git -C "$repo" init -q
  (umask 0002 && echo a >"$repo/sub/file" && printf '#!/bin/sh\n' >"$repo/run.sh" && chmod 0775 "$repo/run.sh")
  echo junk >"$repo/untracked"
  git -C "$repo" add sub/file run.sh
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm one
  local dest=$BATS_TEST_TMPDIR/copy rev=$BATS_TEST_TMPDIR/rev
  (umask 0002 && stable_copy "$dest" && stable_copy "$rev" HEAD)
  local d
  for d in "$dest" "$rev"; do
    [[ $(stat -c %a "$d/sub/file") == 644 ]] || fail_with "$d/sub/file is $(stat -c %a "$d/sub/file")"
    [[ $(stat -c %a "$d/run.sh") == 755 ]] || fail_with "$d/run.sh is $(stat -c %a "$d/run.sh")"
    [[ $(stat -c %a "$d/sub") == 755 ]] || fail_with "$d/sub is $(stat -c %a "$d/sub")"
    [[ $(stat -c %Y "$d/sub/file") == 946684800 && $(stat -c %Y "$d/sub") == 946684800 ]] || fail_with "times differ in $d"
  done
  [[ ! -e $dest/untracked ]] || fail_with "an untracked file was copied"
}

@test "it removes only what it made: its own project, volumes and image tags" {
  local f=$TEST_DIR/engine-e2e.sh
  grep -q 'export SVC_PROJECT=svc-e2e-\$run_id' "$f" || fail_with "no project name of its own"
  # Every removal names this run's project or tags, never svc's.
  run grep -nE 'docker (volume|image) rm|compose .*down' "$f"
  refute_output_has 'svc_db_data'
  refute_output_has 'svc_server_data'
  refute_output_has 'podman-recipe.sh cleanup'
  grep -q 'built_images+=("svc/server:\$new_version"' "$f" || fail_with "the images it built are not removed"
}
