#!/usr/bin/env bats
# deploy/test/engine-e2e.sh's guards, against the stand-in docker: it skips with its reason where
# no engine answers, and never runs over an engine holding svc data. The test itself runs on a
# real engine (docs/testing.md, "The engine test").
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

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

@test "an existing svc volume stops it before anything is built or removed" {
  echo svc_db_data >>"$STUB_STATE_DIR/volumes"
  run "$TEST_DIR/engine-e2e.sh"
  assert_status 1
  assert_output_has "volume svc_db_data exists"
  refute_called 'compose .* build'
  refute_called '^docker (image|volume) rm'
}
