#!/usr/bin/env bats
# deploy/start.sh against the stand-in docker, curl, ss, ip and systemd-detect-virt.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

setup() { setup_package; }

start() { run "$PKG/deploy/start.sh"; }

@test "missing DB_ROOT_PASSWORD fails with the message before any docker call" {
  unset DB_ROOT_PASSWORD
  start
  assert_failure
  assert_output_has "DB_ROOT_PASSWORD is not set"
  assert_output_has "read -rs DB_ROOT_PASSWORD"
  [[ ! -s $STUB_LOG ]] || fail_with "docker was called"
}

@test "empty DB_ROOT_PASSWORD counts as missing" {
  export DB_ROOT_PASSWORD=""
  start
  assert_failure
  assert_output_has "DB_ROOT_PASSWORD is not set"
  refute_started
}

@test "fresh host: creates both volumes, db first, then all, heartbeat OK" {
  start
  assert_status 0
  assert_called '^docker volume create .*svc_db_data$'
  assert_called '^docker volume create .*svc_server_data$'
  # svc_db is started alone and waited for before the rest.
  first_up=$(calls 'compose .* up' | head -n 1)
  [[ $first_up == *"up -d --no-build svc_db" ]] || fail_with "first up was: $first_up"
  [[ $(call_count 'compose .* up -d --no-build$') -eq 1 ]] || fail_with "expected one full up"
  # Compose gets the password from its environment, never as an argument.
  assert_called 'env DB_ROOT_PASSWORD=<set>'
  assert_called '^curl http://127.0.0.1:80/api/heartbeat$'
  assert_output_has "heartbeat OK"
  assert_output_has "svc_db healthy"
  refute_called 'volume (rm|remove|prune)'
  refute_called 'compose .* (down|rm)'
  assert_secret_kept
}

@test "existing volumes are kept: no volume create, no removal" {
  printf '%s\n' svc_db_data svc_server_data >"$STUB_STATE_DIR/volumes"
  start
  assert_status 0
  refute_called 'volume create'
  refute_called 'volume (rm|remove|prune)'
  assert_output_has "volume svc_db_data exists: kept as it is"
}

@test "only the missing volume is created" {
  echo svc_db_data >"$STUB_STATE_DIR/volumes"
  start
  assert_status 0
  refute_called 'volume create .*svc_db_data'
  assert_called 'volume create .*svc_server_data'
}

@test "compose v2 missing: clear message, nothing started" {
  export STUB_COMPOSE=missing
  start
  assert_failure
  assert_output_has "'docker compose' (Compose v2) not found"
  refute_started
}

@test "compose v1-style version is refused" {
  export STUB_COMPOSE_VERSION=1.29.2
  start
  assert_failure
  assert_output_has "Compose v2 or later is required"
  refute_started
}

@test "container engine unreachable: clear message, nothing started" {
  export STUB_ENGINE=down
  start
  assert_failure
  assert_output_has "cannot reach the container engine"
  refute_started
}

@test "db healthy after a few checks: the wait polls until healthy" {
  export STUB_DB_HEALTH=starting,starting,healthy
  start
  assert_status 0
  [[ $(call_count '^docker inspect .*RestartCount.*cid_svc_db$') -eq 3 ]] || fail_with "expected 3 inspections"
}

@test "db never healthy: bounded failure with redacted db log, rest not started" {
  export STUB_DB_HEALTH=starting STUB_LOG_LEAK=1 SVC_DB_WAIT_TRIES=4
  start
  assert_failure
  assert_output_has "svc_db is not healthy after 4 checks"
  [[ $(call_count '^docker inspect .*RestartCount.*cid_svc_db$') -eq 4 ]] || fail_with "expected exactly 4 inspections"
  assert_output_has "last 30 log lines of svc_db"
  assert_output_has "stub log line of svc_db"
  # The stand-in log printed the password; the script shows it redacted.
  assert_output_has "leaked value [redacted]"
  [[ $(call_count 'compose .* up -d --no-build$') -eq 0 ]] || fail_with "all services were started"
  refute_called '^curl'
  assert_secret_kept
}

@test "wrong DB_ROOT_PASSWORD (health check output says Access denied): the password hint at once" {
  # svc_db is still 'starting' (its start period), but its health check could not sign in.
  export STUB_DB_HEALTH=starting SVC_DB_WAIT_TRIES=20 \
    STUB_DB_HEALTH_LOG="mysqladmin: connect to server at '127.0.0.1' failed,Uptime: nothing yet,mysqladmin: connect to server at '127.0.0.1' failed error: 'Access denied for user 'root'@'localhost' (using password: YES)'"
  start
  assert_failure
  assert_output_has "DB_ROOT_PASSWORD does not match the svc_db_data volume"
  assert_output_has "read -rs DB_ROOT_PASSWORD"
  # Stopped at the third check, the first whose output says Access denied; nothing else started.
  [[ $(call_count '^docker inspect .*RestartCount.*cid_svc_db$') -eq 3 ]] || fail_with "expected 3 checks"
  [[ $(call_count 'compose .* up -d --no-build$') -eq 0 ]] || fail_with "all services were started"
  refute_called '^curl'
  assert_secret_kept
}

@test "health check output without Access denied keeps waiting until healthy" {
  export STUB_DB_HEALTH=starting,starting,healthy \
    STUB_DB_HEALTH_LOG="mysqladmin: connect to server at '127.0.0.1' failed error: 'Can't connect to MySQL server on '127.0.0.1' (115)'"
  start
  assert_status 0
  refute_output_has "does not match the svc_db_data volume"
  assert_output_has "heartbeat OK"
}

@test "db container exits: fails at once" {
  export STUB_DB_HEALTH=starting STUB_DB_STATUS=exited
  start
  assert_failure
  assert_output_has "state: exited"
  [[ $(call_count '^docker inspect .*RestartCount.*cid_svc_db$') -eq 1 ]] || fail_with "expected one inspection"
}

@test "heartbeat never answers: bounded retries, non-zero, server and web logs" {
  export STUB_HEARTBEAT=fail SVC_HEARTBEAT_TRIES=3
  start
  assert_failure
  [[ $(call_count '^curl .*/api/heartbeat$') -eq 3 ]] || fail_with "expected 3 heartbeat tries"
  assert_output_has "no heartbeat with state=1"
  assert_output_has "stub log line of svc_server"
  assert_output_has "stub log line of svc_web"
  assert_secret_kept
}

@test "heartbeat with state 0 is a failure" {
  export STUB_HEARTBEAT=state0
  start
  assert_failure
  assert_output_has "no heartbeat with state=1"
}

@test "heartbeat succeeds after failed tries" {
  export STUB_HEARTBEAT=fail,state0,ok SVC_HEARTBEAT_TRIES=5
  start
  assert_status 0
  [[ $(call_count '^curl .*/api/heartbeat$') -eq 3 ]] || fail_with "expected 3 heartbeat tries"
  assert_output_has "heartbeat OK"
}

@test "WEB_PORT moves the heartbeat URL" {
  export WEB_PORT=8080
  start
  assert_status 0
  assert_called '^curl http://127.0.0.1:8080/api/heartbeat$'
}

@test "compose cannot bring all services up: non-zero with logs" {
  export STUB_UP_ALL_RC=1
  start
  assert_failure
  assert_output_has "compose could not bring all services up"
  assert_output_has "stub log line of svc_server"
}

# A real UDP socket on a free port, held by a background python3 until the test ends; prints
# the port. With "reuse" it sets SO_REUSEADDR, as svc_server and the simulator do.
udp_listener() { # reuse|exclusive
  local ready=$BATS_TEST_TMPDIR/udp.port
  python3 - "$1" "$ready" <<'PY' >/dev/null 2>&1 &
import socket, sys, time, os
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if sys.argv[1] == "reuse":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 0))
open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(120)
PY
  echo $! >"$BATS_TEST_TMPDIR/udp.pid"
  local i
  for ((i = 0; i < 100; i++)); do [[ -s $ready ]] && break; sleep 0.05; done
  cat "$ready"
}
teardown() {
  if [[ -s $BATS_TEST_TMPDIR/udp.pid ]]; then kill "$(cat "$BATS_TEST_TMPDIR/udp.pid")" 2>/dev/null || true; fi
}

@test "busy ports stop the first start before anything changes" {
  DISCOVERY_PORT=$(udp_listener exclusive)
  export DISCOVERY_PORT STUB_SS_BUSY="tcp:80 tcp:3306 tcp:8000 udp:$DISCOVERY_PORT"
  start
  assert_failure
  assert_output_has "Web port (WEB_PORT) 80/tcp is in use"
  assert_output_has "database loopback port (DB_PORT) 3306/tcp is in use"
  assert_output_has "server loopback HTTP port (SERVER_HTTP_PORT) 8000/tcp is in use"
  assert_output_has "discovery port (DISCOVERY_PORT) $DISCOVERY_PORT/udp is in use"
  refute_started
}

@test "a discovery port shared with a SO_REUSEADDR listener (the simulator) warns and starts" {
  command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
  DISCOVERY_PORT=$(udp_listener reuse)
  export DISCOVERY_PORT STUB_SS_BUSY="udp:$DISCOVERY_PORT"
  start
  assert_status 0
  assert_output_has "discovery port (DISCOVERY_PORT) $DISCOVERY_PORT/udp has a listener already; svc_server shares the port"
  assert_output_has "it allows sharing (SO_REUSEADDR"
  refute_output_has "is in use"
  assert_called 'compose .* up -d --no-build$'
}

@test "the server's loopback port 8000 alone being busy stops the start" {
  export STUB_SS_BUSY="tcp:8000"
  start
  assert_failure
  assert_output_has "server loopback HTTP port (SERVER_HTTP_PORT) 8000/tcp is in use"
  assert_output_has "choose others (WEB_PORT, DB_PORT, SERVER_HTTP_PORT, DISCOVERY_PORT)"
  refute_output_has "Web port (WEB_PORT) 80/tcp is in use"
  refute_started
}

@test "ports checked are the configured ones, plus the server's 8000" {
  export WEB_PORT=8081 DB_PORT=13306 DISCOVERY_PORT=20786
  start
  assert_status 0
  assert_called '^ss -Hlnt sport = :8081$'
  assert_called '^ss -Hlnt sport = :13306$'
  assert_called '^ss -Hlnt sport = :8000$'
  assert_called '^ss -Hlnu sport = :20786$'
  assert_output_has "ports free: 8081/tcp, 13306/tcp (loopback), 8000/tcp (loopback), 20786/udp"
}

@test "WEB_PORT or DB_PORT on the server's 8000, or equal to each other, is refused" {
  local case message
  for case in "8000 3306 must not be 8000" "80 8000 must not be 8000" "8080 8080 must differ"; do
    read -r WEB_PORT DB_PORT message <<<"$case"
    export WEB_PORT DB_PORT
    start
    assert_failure
    assert_output_has "WEB_PORT and DB_PORT $message"
    refute_started
  done
}

@test "SERVER_HTTP_PORT moves the server port the checks use" {
  export SERVER_HTTP_PORT=18123 STUB_SS_BUSY="tcp:8000"
  start
  assert_status 0
  assert_called '^ss -Hlnt sport = :18123$'
  refute_called '^ss -Hlnt sport = :8000$'
  export WEB_PORT=18123
  start
  assert_failure
  assert_output_has "WEB_PORT and DB_PORT must not be 18123"
}

@test "running stack, a mistyped DB_ROOT_PASSWORD is refused before anything is recreated" {
  export STUB_RUNNING=1 STUB_DB_ROOT_WRONG=1
  start
  assert_failure
  assert_output_has "DB_ROOT_PASSWORD does not match the svc_db_data volume"
  assert_output_has "the running services were left as they are"
  refute_called 'compose .* up'
  refute_called 'volume create'
  # The password went to the database on stdin, never as an argument.
  assert_called '^docker exec -i cid_svc_db sh -c .*mysqladmin.* _ root$'
  assert_secret_kept
}

@test "running stack, a mistyped DB_PASSWORD is refused before anything is recreated" {
  export STUB_RUNNING=1 STUB_DB_USER_WRONG=1
  start
  assert_failure
  assert_output_has "DB_PASSWORD does not match the database account 'svc'"
  refute_called 'compose .* up'
  assert_secret_kept
}

@test "running stack, right passwords: checked, then started as before" {
  export STUB_RUNNING=1
  start
  assert_status 0
  assert_output_has "passwords match the running database"
  assert_called 'compose .* up -d --no-build$'
}

@test "missing DB_PASSWORD, or the root password again, is refused before any docker call" {
  unset DB_PASSWORD
  start
  assert_failure
  assert_output_has "DB_PASSWORD is not set"
  assert_output_has "read -rs DB_PASSWORD"
  [[ ! -s $STUB_LOG ]] || fail_with "docker was called"
  export DB_PASSWORD=$DB_ROOT_PASSWORD
  start
  assert_failure
  assert_output_has "DB_PASSWORD must differ from DB_ROOT_PASSWORD"
}

@test "a volume from before the svc account: created once with rights on DB_DATABASE only" {
  printf '%s\n' svc_db_data svc_server_data >"$STUB_STATE_DIR/volumes"
  export STUB_DB_ACCOUNT=0 DB_DATABASE=site_db
  start
  assert_status 0
  assert_output_has "database account 'svc' created with rights on site_db only"
  grep -qxF "CREATE USER 'svc'@'%' IDENTIFIED BY '<pw>';" "$STUB_STATE_DIR/sql" || fail_with "no CREATE USER: $(cat "$STUB_STATE_DIR/sql")"
  grep -qxF "GRANT ALL PRIVILEGES ON \`site_db\`.* TO 'svc'@'%';" "$STUB_STATE_DIR/sql" || fail_with "grant not limited to site_db"
  # Before the services that use it.
  local created up
  created=$(grep -n '^docker exec -i cid_svc_db sh -c .*mysql -uroot' "$STUB_LOG" | grep -v SELECT | head -n 1 | cut -d: -f1)
  up=$(grep -n 'compose .* up -d --no-build$' "$STUB_LOG" | head -n 1 | cut -d: -f1)
  [[ -n $created && -n $up ]] && ((created < up)) || fail_with "account created at line $created, services up at $up"
  assert_secret_kept
  # The next start finds it and creates nothing.
  : >"$STUB_STATE_DIR/sql"
  start
  assert_status 0
  refute_output_has "created with rights"
  [[ ! -s $STUB_STATE_DIR/sql ]] || fail_with "SQL ran again: $(cat "$STUB_STATE_DIR/sql")"
}

@test "an existing svc account that refuses DB_PASSWORD stops the start with the hint" {
  printf '%s\n' svc_db_data svc_server_data >"$STUB_STATE_DIR/volumes"
  export STUB_DB_USER_WRONG=1
  start
  assert_failure
  assert_output_has "DB_PASSWORD does not match the database account 'svc'"
  [[ $(call_count 'compose .* up -d --no-build$') -eq 0 ]] || fail_with "all services were started"
}

@test "the first-password message only when the files volume is new" {
  start
  assert_status 0
  assert_output_has "change the seeded administrator's password at once"
  start
  assert_status 0
  refute_output_has "seeded administrator"
}

@test "running services: the free-port check is skipped" {
  export STUB_RUNNING=1 STUB_SS_BUSY="tcp:80"
  start
  assert_status 0
  assert_output_has "free-port check skipped"
  refute_called '^ss '
}

@test "images not loaded: clear message, nothing started" {
  export STUB_IMAGES_MISSING="svc/server:latest"
  start
  assert_failure
  assert_output_has "image(s) not loaded: svc/server:latest"
  refute_started
}

@test "invalid WEB_PORT is refused" {
  export WEB_PORT=eighty
  start
  assert_failure
  assert_output_has "WEB_PORT must be a port number"
  refute_started
}

@test "malformed DISCOVERY_HTTP_BASE_URL is refused before anything starts" {
  local url
  for url in "https://192.0.2.10" "http://192.0.2.10/app" "192.0.2.10:80" "http://:80" "http://192.0.2.10:80/api"; do
    export DISCOVERY_HTTP_BASE_URL=$url
    start
    assert_failure
    assert_output_has "DISCOVERY_HTTP_BASE_URL must look like http://<host>:<web_port>"
  done
  refute_started
}

@test "well-formed DISCOVERY_HTTP_BASE_URL values pass; a port other than WEB_PORT warns" {
  export DISCOVERY_HOST=192.0.2.10
  local url
  for url in "http://192.0.2.10" "http://192.0.2.10:80" "http://central.example:80/" "http://[2001:db8::10]:80"; do
    export DISCOVERY_HTTP_BASE_URL=$url
    start
    assert_status 0
    refute_output_has "WARNING"
  done
  export DISCOVERY_HTTP_BASE_URL=http://192.0.2.10:8080
  start
  assert_status 0
  assert_output_has "WARNING: DISCOVERY_HTTP_BASE_URL uses port 8080 but WEB_PORT is 80"
}

@test "several LAN interfaces and no DISCOVERY_*: warning, start goes on" {
  export STUB_IP_ADDRS="eth0 192.0.2.10/24,wlan0 198.51.100.7/24,docker0 172.17.0.1/16"
  start
  assert_status 0
  assert_output_has "WARNING: DISCOVERY_HOST DISCOVERY_HTTP_BASE_URL not set on a host with 2 LAN addresses"
  assert_output_has "wlan0 198.51.100.7"
  refute_output_has "docker0"
  assert_output_has "svc is up: http://<this host>:80/"
  assert_called 'env DB_ROOT_PASSWORD=<set> DISCOVERY_HOST=<unset>'
}

@test "virtual machine and no DISCOVERY_*: warning, start goes on" {
  export STUB_VIRT=kvm
  start
  assert_status 0
  assert_output_has "inside virtualization 'kvm'"
  assert_output_has "export DISCOVERY_HTTP_BASE_URL=http://<that address>:80"
}

@test "only DISCOVERY_HTTP_BASE_URL missing on a container host: warning names it" {
  export STUB_VIRT=docker DISCOVERY_HOST=192.0.2.10
  start
  assert_status 0
  assert_output_has "WARNING: DISCOVERY_HTTP_BASE_URL not set"
}

@test "single LAN interface on bare metal: address shown, DISCOVERY_HOST left to the server, no warning" {
  start
  assert_status 0
  refute_output_has "WARNING"
  assert_output_has "this host's only LAN address is 192.0.2.10"
  assert_output_has "svc is up: http://192.0.2.10:80/"
  # svc_server (host network) works its address out per terminal; nothing is pinned.
  assert_called 'DISCOVERY_HOST=<unset>$'
  refute_called 'DISCOVERY_HOST=192'
}

@test "explicit DISCOVERY_* on a multi-interface VM: no warning, values kept" {
  export STUB_VIRT=kvm STUB_IP_ADDRS="eth0 192.0.2.10/24,eth1 198.51.100.7/24"
  export DISCOVERY_HOST=198.51.100.7 DISCOVERY_HTTP_BASE_URL=http://198.51.100.7:80
  start
  assert_status 0
  refute_output_has "WARNING"
  assert_called 'DISCOVERY_HOST=198.51.100.7$'
}

@test "loopback DISCOVERY_HOST warns" {
  export DISCOVERY_HOST=127.0.0.1 DISCOVERY_HTTP_BASE_URL=http://127.0.0.1
  start
  assert_status 0
  assert_output_has "WARNING: DISCOVERY_HOST is a loopback address"
  assert_output_has "WARNING: DISCOVERY_HTTP_BASE_URL names a loopback host"
}

@test "HTTPS: only one of WEB_TLS_CERT and WEB_TLS_KEY is refused before anything starts" {
  export WEB_TLS_CERT="$BATS_TEST_TMPDIR/cert.pem"
  printf 'x\n' >"$WEB_TLS_CERT"
  start
  assert_failure
  assert_output_has "HTTPS needs both WEB_TLS_CERT and WEB_TLS_KEY"
  refute_started
}

@test "HTTPS: a missing key file or a clashing WEB_HTTPS_PORT is refused" {
  export WEB_TLS_CERT="$BATS_TEST_TMPDIR/cert.pem" WEB_TLS_KEY="$BATS_TEST_TMPDIR/key.pem"
  printf 'x\n' >"$WEB_TLS_CERT"
  start
  assert_failure
  assert_output_has "TLS file not found, empty or not readable: $WEB_TLS_KEY"
  printf 'x\n' >"$WEB_TLS_KEY"
  WEB_HTTPS_PORT=80 start
  assert_failure
  assert_output_has "WEB_HTTPS_PORT (80) must differ"
  refute_started
}

@test "HTTPS: both files given: the HTTPS port is checked free too, then the start goes on" {
  export WEB_TLS_CERT="$BATS_TEST_TMPDIR/cert.pem" WEB_TLS_KEY="$BATS_TEST_TMPDIR/key.pem" WEB_HTTPS_PORT=8443
  printf 'x\n' >"$WEB_TLS_CERT"
  printf 'x\n' >"$WEB_TLS_KEY"
  STUB_SS_BUSY="tcp:8443" start
  assert_failure
  assert_output_has "HTTPS port (WEB_HTTPS_PORT) 8443/tcp is in use"
  refute_started
  start
  assert_status 0
  assert_output_has "HTTPS on 8443"
  assert_output_has "heartbeat OK"
}
