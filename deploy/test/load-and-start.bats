#!/usr/bin/env bats
# deploy/load-and-start.sh: loads the image archive, then starts exactly like start.sh.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

setup() { setup_package; }

load_and_start() { run "$PKG/deploy/load-and-start.sh"; }

@test "default archive: svc-images.tar.gz in the package directory (parent of deploy/)" {
  : >"$PKG/svc-images.tar.gz"
  load_and_start
  assert_status 0
  assert_called "^docker load -i $PKG/svc-images.tar.gz$"
  # Loading comes before the start, and the start is the full start.sh sequence.
  load_line=$(grep -n '^docker load' "$STUB_LOG" | cut -d: -f1)
  up_line=$(grep -n 'compose .* up' "$STUB_LOG" | head -n 1 | cut -d: -f1)
  ((load_line < up_line)) || fail_with "load did not come before up"
  assert_called 'volume create .*svc_db_data'
  assert_called 'up -d --no-build svc_db$'
  assert_called '^curl http://127.0.0.1:80/api/heartbeat$'
  assert_output_has "heartbeat OK"
  assert_secret_kept
}

@test "a busy port stops the start before the archive is loaded" {
  : >"$PKG/svc-images.tar.gz"
  export STUB_SS_BUSY="tcp:80"
  load_and_start
  assert_failure
  assert_output_has "Web port (WEB_PORT) 80/tcp is in use"
  refute_output_has "loading images"
  refute_started
}

@test "IMAGE_ARCHIVE overrides the archive path" {
  mkdir -p "$BATS_TEST_TMPDIR/media"
  export IMAGE_ARCHIVE="$BATS_TEST_TMPDIR/media/release-images.tar.gz"
  : >"$IMAGE_ARCHIVE"
  : >"$PKG/svc-images.tar.gz"
  load_and_start
  assert_status 0
  assert_called "^docker load -i $IMAGE_ARCHIVE$"
  refute_called "load -i $PKG/svc-images.tar.gz"
}

@test "missing archive: clear error naming the path, nothing loaded or started" {
  load_and_start
  assert_failure
  assert_output_has "image archive not found or not readable: $PKG/svc-images.tar.gz"
  assert_output_has "set IMAGE_ARCHIVE"
  refute_started
}

@test "missing IMAGE_ARCHIVE file: clear error" {
  export IMAGE_ARCHIVE="$BATS_TEST_TMPDIR/nowhere.tar.gz"
  load_and_start
  assert_failure
  assert_output_has "image archive not found or not readable: $IMAGE_ARCHIVE"
  refute_started
}

@test "missing DB_ROOT_PASSWORD, nothing loaded, no docker call" {
  : >"$PKG/svc-images.tar.gz"
  unset DB_ROOT_PASSWORD
  load_and_start
  assert_failure
  assert_output_has "DB_ROOT_PASSWORD is not set"
  [[ ! -s $STUB_LOG ]] || fail_with "docker was called"
}

@test "docker load fails: stops before volumes and start" {
  : >"$PKG/svc-images.tar.gz"
  export STUB_LOAD_FAIL=1
  load_and_start
  assert_failure
  assert_output_has "docker load failed"
  refute_called 'volume create'
  refute_called 'compose .* up'
}

@test "db never healthy after load: bounded failure" {
  : >"$PKG/svc-images.tar.gz"
  export STUB_DB_HEALTH=starting SVC_DB_WAIT_TRIES=3
  load_and_start
  assert_failure
  assert_output_has "svc_db is not healthy after 3 checks"
  [[ $(call_count '^docker inspect .*RestartCount.*cid_svc_db$') -eq 3 ]] || fail_with "expected 3 inspections"
  assert_secret_kept
}
