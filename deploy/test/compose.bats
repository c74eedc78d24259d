#!/usr/bin/env bats
# compose.yaml validated by docker-compose v1 'config' (the engine-free validator available
# here). v1 does not know the top-level 'name:' key (Compose v2 only), so it is stripped first.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design
# shellcheck disable=SC2016 # the checks are python expressions, quoted literally

load helpers

setup() {
  command -v docker-compose >/dev/null 2>&1 || skip "docker-compose not installed"
  python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
  unset DB_PORT WEB_PORT WEB_HTTPS_PORT WEB_TLS_CERT WEB_TLS_KEY DISCOVERY_PORT SVC_SUBNET SVC_VERSION DB_DATABASE DB_BUFFER_POOL_SIZE DB_IMAGE \
    SERVER_HTTP_PORT SVC_PROJECT DB_USER DB_MEMORY_LIMIT SERVER_MEMORY_LIMIT WEB_MEMORY_LIMIT LOG_MAX_SIZE LOG_MAX_FILES
  DB_ROOT_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  DB_PASSWORD="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  export DB_ROOT_PASSWORD DB_PASSWORD
  CONFIG="$BATS_TEST_TMPDIR/config.yaml"
}

compose_config() {
  sed '/^name:/d' "$REPO_ROOT/compose.yaml" |
    docker-compose -p svc --project-directory "$REPO_ROOT" -f - config
}

# Runs a python expression over the parsed config (as `c`); fails the test when it is false.
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

@test "compose.yaml is valid; three services; DB on loopback; server and web on the host network; volumes external" {
  compose_config >"$CONFIG"
  check 'sorted(c["services"]) == ["svc_db", "svc_server", "svc_web"]'
  check 'c["services"]["svc_db"]["ports"] == ["127.0.0.1:3306:3306/tcp"]'
  # Host network: the terminals' broadcasts reach the server with their real source addresses.
  # Nothing is published for these two (UDP DISCOVERY_PORT and WEB_PORT are bound on the host).
  check 'c["services"]["svc_server"]["network_mode"] == "host"'
  check 'c["services"]["svc_web"]["network_mode"] == "host"'
  check '"ports" not in c["services"]["svc_server"] and "ports" not in c["services"]["svc_web"]'
  check '"networks" not in c["services"]["svc_server"] and "networks" not in c["services"]["svc_web"]'
  check 'c["services"]["svc_db"]["networks"] == {"svc_net": None} and "network_mode" not in c["services"]["svc_db"]'
  check 'all(v.get("external") is True for v in c["volumes"].values())'
  check 'sorted(v["name"] for v in c["volumes"].values()) == ["svc_db_data", "svc_server_data"]'
  check '"svc_db_data:/var/lib/mysql:rw" in c["services"]["svc_db"]["volumes"]'
  check '"svc_server_data:/data:rw" in c["services"]["svc_server"]["volumes"]'
}

@test "health-gated order, restart policy, stop grace periods, images and healthchecks" {
  compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["depends_on"] == {"svc_db": {"condition": "service_healthy"}}'
  check 'c["services"]["svc_web"]["depends_on"] == {"svc_server": {"condition": "service_healthy"}}'
  check 'all(s["restart"] == "unless-stopped" for s in c["services"].values())'
  check 'all("healthcheck" in s for s in c["services"].values())'
  check 'c["services"]["svc_db"]["image"] == "mysql:8.4"'
  # DB_IMAGE moves svc_db to another image (CI's engine test: mariadb:10.11).
  DB_IMAGE=mariadb:10.11 compose_config >"$CONFIG"
  check 'c["services"]["svc_db"]["image"] == "mariadb:10.11"'
  compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["image"] == "svc/server:latest"'
  check 'c["services"]["svc_web"]["image"] == "svc/web:latest"'
  # Time for the ordered shutdown (server) and the buffer pool's flush (db) before SIGKILL.
  check 'c["services"]["svc_server"]["stop_grace_period"] == "30s"'
  check 'c["services"]["svc_db"]["stop_grace_period"] == "60s"'
  check '"http://127.0.0.1:8000/api/heartbeat" in " ".join(c["services"]["svc_server"]["healthcheck"]["test"])'
  check '"/healthz" in " ".join(c["services"]["svc_web"]["healthcheck"]["test"])'
  # The db healthcheck reads the password from the container environment, never a literal.
  check '"$$MYSQL_ROOT_PASSWORD" in " ".join(c["services"]["svc_db"]["healthcheck"]["test"])'
  # It signs in: `mysqladmin ping` succeeds on "Access denied", so a wrong password looked healthy.
  check '"mysqladmin status " in " ".join(c["services"]["svc_db"]["healthcheck"]["test"])'
  check '" ping" not in " ".join(c["services"]["svc_db"]["healthcheck"]["test"])'
}

@test "svc_web: certificate and key mounted read-only when given, /dev/null (plain HTTP) when not" {
  compose_config >"$CONFIG"
  check '"/dev/null:/etc/nginx/svc-tls/cert.pem:ro" in c["services"]["svc_web"]["volumes"]'
  check '"/dev/null:/etc/nginx/svc-tls/key.pem:ro" in c["services"]["svc_web"]["volumes"]'
  check 'c["services"]["svc_web"]["environment"]["SVC_WEB_HTTPS_LISTEN"] == "443"'
  WEB_TLS_CERT=/etc/svc/tls/fullchain.pem WEB_TLS_KEY=/etc/svc/tls/privkey.pem WEB_HTTPS_PORT=8443 \
    compose_config >"$CONFIG"
  check '"/etc/svc/tls/fullchain.pem:/etc/nginx/svc-tls/cert.pem:ro" in c["services"]["svc_web"]["volumes"]'
  check '"/etc/svc/tls/privkey.pem:/etc/nginx/svc-tls/key.pem:ro" in c["services"]["svc_web"]["volumes"]'
  check 'c["services"]["svc_web"]["environment"]["SVC_WEB_HTTPS_LISTEN"] == "8443"'
}

@test "the header does not claim docker-compose v1 accepts the file (v1 rejects its name:)" {
  run grep -niE 'accepted by .*v1|v1 .*accepts' "$REPO_ROOT/compose.yaml"
  [[ $status -ne 0 ]] || fail_with "compose.yaml still says v1 accepts it: $output"
  grep -q '^name: svc$' "$REPO_ROOT/compose.yaml" || fail_with "top-level name: missing"
  grep -qi 'Compose v2 .*is required' "$REPO_ROOT/compose.yaml" || fail_with "header does not say Compose v2 is required"
}

@test "server environment carries every seed parameter with the seed defaults" {
  compose_config >"$CONFIG"
  check 'all(k in c["services"]["svc_server"]["environment"] for k in "DB_USER DB_PASSWORD DB_DATABASE DISCOVERY_HOST DISCOVERY_HTTP_BASE_URL DISCOVERY_PORT DISCOVERY_TIMEOUT SVC_PUSH_WORKER SVC_PUSH_INTERVAL SVC_DISCOVERY_WORKER PANEL_URL HEARTBEAT_TIMEOUT WEB_PORT DB_HOST DB_PORT DATA_DIR TRUSTED_NETWORKS TRUSTED_PROXIES ADMIN_INITIAL_PASSWORD LOG_LEVEL".split())'
  check 'c["services"]["svc_server"]["environment"]["DB_DATABASE"] == "face_tp"'
  check 'c["services"]["svc_db"]["environment"]["MYSQL_DATABASE"] == "face_tp"'
  check 'c["services"]["svc_server"]["environment"]["DISCOVERY_TIMEOUT"] == "45"'
  check 'c["services"]["svc_server"]["environment"]["HEARTBEAT_TIMEOUT"] == "60"'
  check 'c["services"]["svc_server"]["environment"]["SVC_PUSH_INTERVAL"] == "5"'
  check 'c["services"]["svc_server"]["environment"]["SVC_PUSH_WORKER"] == "1"'
  check 'c["services"]["svc_server"]["environment"]["SVC_DISCOVERY_WORKER"] == "1"'
  check 'c["services"]["svc_server"]["environment"]["PANEL_URL"] == ""'
  check 'c["services"]["svc_server"]["environment"]["DATA_DIR"] == "/data"'
}

@test "server HTTP on loopback only, behind svc_web; database through its loopback mapping" {
  compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["environment"]["HTTP_HOST"] == "127.0.0.1"'
  check 'c["services"]["svc_server"]["environment"]["HTTP_PORT"] == "8000"'
  check 'c["services"]["svc_web"]["environment"]["SVC_SERVER_UPSTREAM"] == "127.0.0.1:8000"'
  check '"http://127.0.0.1:8000/" in " ".join(c["services"]["svc_server"]["healthcheck"]["test"])'
  check 'c["services"]["svc_server"]["environment"]["DB_HOST"] == "127.0.0.1"'
  check 'c["services"]["svc_server"]["environment"]["DB_PORT"] == "3306"'
  check 'c["services"]["svc_web"]["environment"]["SVC_WEB_LISTEN"] == "80"'
}

@test "TRUSTED_PROXIES is loopback only (svc_web connects from there), whatever SVC_SUBNET says" {
  compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["environment"]["TRUSTED_PROXIES"] == "127.0.0.1/32"'
  check 'c["networks"]["svc_net"]["ipam"]["config"][0]["subnet"] == "172.29.85.0/24"'
  SVC_SUBNET=10.213.7.0/24 compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["environment"]["TRUSTED_PROXIES"] == "127.0.0.1/32"'
  check 'c["networks"]["svc_net"]["ipam"]["config"][0]["subnet"] == "10.213.7.0/24"'
}

@test "ports and names follow the parameters; DB stays on loopback" {
  DB_PORT=13306 WEB_PORT=8080 DISCOVERY_PORT=20786 DB_DATABASE=site_db SVC_VERSION=1.2.3 compose_config >"$CONFIG"
  check 'c["services"]["svc_db"]["ports"] == ["127.0.0.1:13306:3306/tcp"]'
  check 'c["services"]["svc_web"]["environment"]["SVC_WEB_LISTEN"] == "8080"'
  check '"ports" not in c["services"]["svc_server"] and "ports" not in c["services"]["svc_web"]'
  check 'c["services"]["svc_server"]["environment"]["DISCOVERY_PORT"] == "20786"'
  check 'c["services"]["svc_server"]["environment"]["WEB_PORT"] == "8080"'
  # The server uses the host-side loopback mapping, so it follows DB_PORT.
  check 'c["services"]["svc_server"]["environment"]["DB_HOST"] == "127.0.0.1"'
  check 'c["services"]["svc_server"]["environment"]["DB_PORT"] == "13306"'
  check 'c["services"]["svc_server"]["environment"]["HTTP_PORT"] == "8000"'
  check 'c["services"]["svc_db"]["environment"]["MYSQL_DATABASE"] == "site_db"'
  check 'c["services"]["svc_server"]["image"] == "svc/server:1.2.3"'
}

# The healthcheck string as compose hands it to the container's shell ($$ is a literal $), run
# with the container's environment and a stand-in wget that logs the URL it was given.
@test "svc_web healthcheck asks the port nginx listens on" {
  WEB_PORT=8080 compose_config >"$CONFIG"
  local cmd listen bin="$BATS_TEST_TMPDIR/bin"
  cmd=$(python3 -c 'import sys, yaml; t = yaml.safe_load(open(sys.argv[1]))["services"]["svc_web"]["healthcheck"]["test"]; assert t[0] == "CMD-SHELL"; print(t[1].replace("$$", "$"))' "$CONFIG")
  listen=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["services"]["svc_web"]["environment"]["SVC_WEB_LISTEN"])' "$CONFIG")
  mkdir -p "$bin"
  printf '#!/bin/sh\necho "wget $*" >>"%s/wget.log"\n' "$BATS_TEST_TMPDIR" >"$bin/wget"
  chmod +x "$bin/wget"
  PATH="$bin:$PATH" SVC_WEB_LISTEN=$listen sh -c "$cmd"
  grep -qx 'wget -q -O /dev/null http://127.0.0.1:8080/healthz' "$BATS_TEST_TMPDIR/wget.log" ||
    fail_with "healthcheck asked: $(cat "$BATS_TEST_TMPDIR/wget.log")"
}

@test "without DB_ROOT_PASSWORD, config fails with the compose.yaml message" {
  unset DB_ROOT_PASSWORD
  run compose_config
  [[ $status -ne 0 ]] || fail_with "config succeeded without DB_ROOT_PASSWORD"
  assert_output_has "DB_ROOT_PASSWORD is not set - export it in this shell"
}

@test "the passwords reach the containers only through the environment" {
  compose_config >"$CONFIG"
  check 'c["services"]["svc_db"]["environment"]["MYSQL_ROOT_PASSWORD"] == __import__("os").environ["DB_ROOT_PASSWORD"]'
  check 'c["services"]["svc_db"]["environment"]["MYSQL_PASSWORD"] == __import__("os").environ["DB_PASSWORD"]'
  check 'c["services"]["svc_server"]["environment"]["DB_PASSWORD"] == __import__("os").environ["DB_PASSWORD"]'
}

@test "svc_server signs in with its own account on DB_DATABASE, never root" {
  compose_config >"$CONFIG"
  check '"DB_ROOT_PASSWORD" not in c["services"]["svc_server"]["environment"]'
  check 'c["services"]["svc_server"]["environment"]["DB_USER"] == "svc"'
  check 'c["services"]["svc_db"]["environment"]["MYSQL_USER"] == "svc"'
  check 'c["services"]["svc_db"]["environment"]["MYSQL_DATABASE"] == c["services"]["svc_server"]["environment"]["DB_DATABASE"]'
  check 'not any(__import__("os").environ["DB_ROOT_PASSWORD"] in str(v) for v in c["services"]["svc_server"].values())'
  unset DB_PASSWORD
  run compose_config
  assert_failure
  assert_output_has "DB_PASSWORD is not set - export the password of the svc database account"
}

@test "SERVER_HTTP_PORT moves the server's port, svc_web's upstream and the healthcheck together" {
  SERVER_HTTP_PORT=18123 compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["environment"]["HTTP_PORT"] == "18123"'
  check 'c["services"]["svc_web"]["environment"]["SVC_SERVER_UPSTREAM"] == "127.0.0.1:18123"'
  check '"http://127.0.0.1:18123/api/heartbeat" in " ".join(c["services"]["svc_server"]["healthcheck"]["test"])'
  # Nowhere else: 8000 left in the file would be a second, forgotten copy of the port.
  python3 - "$CONFIG" <<'PY' || fail_with "8000 is still written somewhere in compose.yaml's services"
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
sys.exit(1 if "8000" in yaml.safe_dump(c["services"]) else 0)
PY
}

@test "hardened: no new privileges everywhere; server and web drop every capability but nginx's few" {
  compose_config >"$CONFIG"
  check 'all(s["security_opt"] == ["no-new-privileges:true"] for s in c["services"].values())'
  check 'c["services"]["svc_server"]["cap_drop"] == ["ALL"] and "cap_add" not in c["services"]["svc_server"]'
  check 'c["services"]["svc_web"]["cap_drop"] == ["ALL"]'
  check 'sorted(c["services"]["svc_web"]["cap_add"]) == ["CHOWN", "NET_BIND_SERVICE", "SETGID", "SETUID"]'
  check 'c["services"]["svc_server"]["read_only"] is True and c["services"]["svc_web"]["read_only"] is True'
  check '[t.split(":")[0] for t in c["services"]["svc_server"]["tmpfs"]] == ["/tmp"]'
  # Where nginx writes: its rendered configuration, HTTPS snippet, pid, temporary files.
  check 'set(t.split(":")[0] for t in c["services"]["svc_web"]["tmpfs"]) >= {"/etc/nginx/conf.d", "/etc/nginx/svc-tls.d", "/run", "/var/cache/nginx", "/tmp"}'
}

@test "hardened: rotated logs and memory limits for every service, each changed by a variable" {
  compose_config >"$CONFIG"
  check 'all(s["logging"] == {"driver": "json-file", "options": {"max-size": "20m", "max-file": "5"}} for s in c["services"].values())'
  check '[c["services"][s]["mem_limit"] for s in ("svc_db", "svc_server", "svc_web")] == ["2g", "2g", "256m"]'
  LOG_MAX_SIZE=5m LOG_MAX_FILES=2 DB_MEMORY_LIMIT=6g SERVER_MEMORY_LIMIT=3g WEB_MEMORY_LIMIT=128m compose_config >"$CONFIG"
  check 'all(s["logging"]["options"] == {"max-size": "5m", "max-file": "2"} for s in c["services"].values())'
  check '[c["services"][s]["mem_limit"] for s in ("svc_db", "svc_server", "svc_web")] == ["6g", "3g", "128m"]'
}

@test "SVC_PROJECT names the volumes of a second installation; a site keeps svc_*" {
  SVC_PROJECT=svc-e2e-1 compose_config >"$CONFIG"
  check 'sorted(v["name"] for v in c["volumes"].values()) == ["svc-e2e-1_db_data", "svc-e2e-1_server_data"]'
}

@test "the server image is built with the release version (the heartbeat reports it)" {
  SVC_VERSION=1.4.0 compose_config >"$CONFIG"
  check 'c["services"]["svc_server"]["build"]["args"] == {"SVC_VERSION": "1.4.0"}'
  grep -qE '^ARG SVC_VERSION' "$REPO_ROOT/server/Dockerfile" || fail_with "server/Dockerfile takes no SVC_VERSION"
  grep -q 'release.json' "$REPO_ROOT/server/Dockerfile" || fail_with "server/Dockerfile does not write release.json"
}

@test "svc_db gets a buffer pool for a million people, sized by DB_BUFFER_POOL_SIZE" {
  compose_config >"$CONFIG"
  check 'c["services"]["svc_db"]["command"] == ["--innodb-buffer-pool-size=1G"]'
  DB_BUFFER_POOL_SIZE=4G compose_config >"$CONFIG"
  check 'c["services"]["svc_db"]["command"] == ["--innodb-buffer-pool-size=4G"]'
}
