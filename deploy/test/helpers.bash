# shellcheck shell=bash
# shellcheck disable=SC2154 # status and output are set by bats' run
# Common setup for the deploy tests: a throwaway package directory holding copies of compose.yaml
# and deploy/*.sh, the stand-ins of test/stubs first on PATH, and a random DB_ROOT_PASSWORD
# made at run time (no password is written in any file).

TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
DEPLOY_DIR=$(cd "$TEST_DIR/.." && pwd -P)
REPO_ROOT=$(cd "$DEPLOY_DIR/.." && pwd -P)
STUBS="$TEST_DIR/stubs"

setup_package() {
  # Parameters from the caller's environment must not leak into a test.
  unset WEB_PORT WEB_HTTPS_PORT WEB_TLS_CERT WEB_TLS_KEY DB_PORT DISCOVERY_PORT DISCOVERY_HOST DISCOVERY_HTTP_BASE_URL IMAGE_ARCHIVE \
    ADMIN_INITIAL_PASSWORD SVC_VERSION SVC_SUBNET TRUSTED_NETWORKS COMPOSE_PROJECT_NAME SVC_PROJECT \
    SERVER_HTTP_PORT DB_USER DB_DATABASE DB_PASSWORD \
    SVC_MAX_RESTARTS SVC_LOG_TAIL DB_IMAGE
  unset "${!STUB_@}"

  PKG="$BATS_TEST_TMPDIR/pkg"
  mkdir -p "$PKG/deploy"
  cp "$DEPLOY_DIR"/*.sh "$PKG/deploy/"
  cp "$REPO_ROOT/compose.yaml" "$PKG/"

  export STUB_LOG="$BATS_TEST_TMPDIR/calls.log"
  export STUB_STATE_DIR="$BATS_TEST_TMPDIR/state"
  mkdir -p "$STUB_STATE_DIR"
  : >"$STUB_LOG"
  : >"$STUB_STATE_DIR/volumes"
  export PATH="$STUBS:$PATH"

  export SVC_POLL_INTERVAL=0 SVC_DB_WAIT_TRIES=5 SVC_HEARTBEAT_TRIES=3

  DB_ROOT_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  DB_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  export DB_ROOT_PASSWORD DB_PASSWORD
  SECRET=$DB_ROOT_PASSWORD
  SECRET2=$DB_PASSWORD
}

# Lines of the stub call log matching an extended regex.
calls() { grep -E -- "$1" "$STUB_LOG" || true; }
call_count() { grep -cE -- "$1" "$STUB_LOG" || true; }

fail_with() {
  printf '%s\n' "$1" "--- output ---" "${output:-}" >&2
  if [[ -n ${STUB_LOG:-} ]]; then
    echo "--- calls ---" >&2
    cat "$STUB_LOG" >&2
  fi
  return 1
}
assert_status() { [[ $status -eq $1 ]] || fail_with "expected status $1, got $status"; }
assert_failure() { [[ $status -ne 0 ]] || fail_with "expected a non-zero status"; }
assert_output_has() { [[ $output == *"$1"* ]] || fail_with "output lacks: $1"; }
refute_output_has() { [[ $output != *"$1"* ]] || fail_with "output has: $1"; }
assert_called() { [[ -n $(calls "$1") ]] || fail_with "no call matches: $1"; }
refute_called() { [[ -z $(calls "$1") ]] || fail_with "unexpected call matching: $1"; }

# Nothing that starts or changes anything ran.
refute_started() {
  refute_called 'compose .* up'
  refute_called 'volume create'
  refute_called '^docker load'
}

# The password is in no output, no stub argument, no file the run left behind.
assert_secret_kept() {
  [[ $output != *"$SECRET"* ]] || fail_with "DB_ROOT_PASSWORD appears in the output"
  if grep -rqF -- "$SECRET" "$BATS_TEST_TMPDIR"; then fail_with "DB_ROOT_PASSWORD appears in a file under the test directory"; fi
  [[ $output != *"$SECRET2"* ]] || fail_with "DB_PASSWORD appears in the output"
  if grep -rqF -- "$SECRET2" "$BATS_TEST_TMPDIR"; then fail_with "DB_PASSWORD appears in a file under the test directory"; fi
}
