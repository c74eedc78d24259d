#!/usr/bin/env bats
# Static checks of the deploy files: shellcheck, no literal secrets, example.env completeness.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

@test "shellcheck: deploy scripts, test stubs and runner are clean" {
  command -v shellcheck >/dev/null 2>&1 || skip "shellcheck not installed"
  run shellcheck -x "$DEPLOY_DIR"/*.sh "$TEST_DIR"/*.sh "$TEST_DIR"/stubs/* "$TEST_DIR"/*.bash
  [[ $status -eq 0 ]] || fail_with "shellcheck found problems"
}

@test "shellcheck: bats files are clean" {
  command -v shellcheck >/dev/null 2>&1 || skip "shellcheck not installed"
  run shellcheck -x "$TEST_DIR"/*.bats
  [[ $status -eq 0 ]] || fail_with "shellcheck found problems"
}

@test "scripts are executable and use strict mode" {
  local f
  for f in start.sh load-and-start.sh status.sh build-images.sh; do
    [[ -x $DEPLOY_DIR/$f ]] || fail_with "$f is not executable"
    grep -qx 'set -euo pipefail' "$DEPLOY_DIR/$f" || fail_with "$f lacks set -euo pipefail"
  done
}

# The same pattern the repository's before-stop check uses, applied to every line, not only
# to added ones.
@test "no literal secret in compose.yaml or deploy/" {
  run grep -rnE "(PASSWORD|SECRET|KEY)[A-Z_]*[=:][[:space:]]*[\"']?[A-Za-z0-9!@#%^&*]{6,}" \
    "$REPO_ROOT/compose.yaml" "$DEPLOY_DIR"
  [[ $status -eq 1 ]] || fail_with "possible literal secret"
}

@test "example.env names every variable compose.yaml reads and every seed parameter" {
  local env="$DEPLOY_DIR/example.env" v
  # $${NAME} is escaped: the container's shell expands it, compose does not read it.
  for v in $(grep -oE '(^|[^$])\$\{[A-Z_]+' "$REPO_ROOT/compose.yaml" | sed -E 's/.*\$\{//' | sort -u) \
    DB_ROOT_PASSWORD DB_PASSWORD DB_USER SERVER_HTTP_PORT SVC_PROJECT DB_DATABASE WEB_PORT DB_PORT DISCOVERY_HOST DISCOVERY_HTTP_BASE_URL \
    DISCOVERY_PORT DISCOVERY_TIMEOUT SVC_PUSH_WORKER SVC_PUSH_INTERVAL SVC_DISCOVERY_WORKER \
    PANEL_URL HEARTBEAT_TIMEOUT IMAGE_ARCHIVE TRUSTED_NETWORKS ADMIN_INITIAL_PASSWORD; do
    grep -qE "^#? ?$v=" "$env" || fail_with "example.env lacks $v"
  done
}

@test "example.env gives no value to secrets" {
  run grep -nE '^#? ?(DB_ROOT_PASSWORD|DB_PASSWORD|ADMIN_INITIAL_PASSWORD)=.+' "$DEPLOY_DIR/example.env"
  [[ $status -eq 1 ]] || fail_with "a secret has a value in example.env"
}

@test "example.env sourced after exporting the password leaves the password set" {
  run bash -c 'export DB_ROOT_PASSWORD=kept DB_PASSWORD=kept2; set -a; . "$1"; set +a; [[ $DB_ROOT_PASSWORD == kept && $DB_PASSWORD == kept2 ]]' _ "$DEPLOY_DIR/example.env"
  [[ $status -eq 0 ]] || fail_with "sourcing example.env cleared DB_ROOT_PASSWORD"
}
