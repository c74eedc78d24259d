#!/usr/bin/env bats
# compose.ha.yaml (three Galera nodes, two svc_server replicas) validated by docker-compose v1
# 'config', as compose.bats does for compose.yaml.
# shellcheck disable=SC2016 # the checks are python expressions, quoted literally

load helpers

setup() {
  command -v docker-compose >/dev/null 2>&1 || skip "docker-compose not installed"
  python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
  unset DB_USER DB_DATABASE DB_IMAGE SVC_VERSION WEB_PORT
  DB_ROOT_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  DB_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  export DB_ROOT_PASSWORD DB_PASSWORD
  CONFIG="$BATS_TEST_TMPDIR/config.yaml"
}

ha_config() {
  sed '/^name:/d' "$REPO_ROOT/compose.ha.yaml" |
    docker-compose -p svc-ha --project-directory "$REPO_ROOT" -f - config
}

check() {
  python3 - "$CONFIG" "$1" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    print("check failed:", sys.argv[2], file=sys.stderr)
    sys.exit(1)
PY
}

@test "compose.ha.yaml: the replicas sign in as svc, never root; the nodes create that account" {
  ha_config >"$CONFIG"
  for s in svc_server_1 svc_server_2; do
    check "c['services']['$s']['environment']['DB_USER'] == 'svc'"
    check "c['services']['$s']['environment']['DB_PASSWORD'] == '$DB_PASSWORD'"
    check "'DB_ROOT_PASSWORD' not in c['services']['$s']['environment']"
  done
  for n in svc_galera_1 svc_galera_2 svc_galera_3; do
    check "c['services']['$n']['environment']['MARIADB_USER'] == 'svc'"
    check "c['services']['$n']['environment']['MARIADB_PASSWORD'] == '$DB_PASSWORD'"
  done
}

@test "compose.ha.yaml refuses to start without the svc account's password" {
  unset DB_PASSWORD
  run ha_config
  [ "$status" -ne 0 ]
  [[ $output == *"DB_PASSWORD is not set"* ]] || fail_with "said: $output"
}
