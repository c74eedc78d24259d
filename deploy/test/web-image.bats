#!/usr/bin/env bats
# What svc_web needs on the host network, without building the image: the resolver fix-up that
# web/Dockerfile installs in /docker-entrypoint.d/, and web/nginx.conf.template rendered the way
# the image's entrypoint does it, checked and run by the real nginx (skipped when not installed).
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design
# shellcheck disable=SC2016 # envsubst's variable list is quoted literally

load helpers

setup() {
  # Copied into /docker-entrypoint.d/ by web/Dockerfile.
  SNIPPET="$REPO_ROOT/web/docker-entrypoint.d/16-svc-resolvers.envsh"
}

# Stops an nginx a test started, by its own pid file.
teardown() {
  if [[ -s $BATS_TEST_TMPDIR/nginx.pid ]]; then kill "$(cat "$BATS_TEST_TMPDIR/nginx.pid")" 2>/dev/null || true; fi
}

# Sources the snippet the way the image's entrypoint does (sh, set -eu, from /), with
# NGINX_LOCAL_RESOLVERS as 15-local-resolvers.envsh leaves it; prints the result.
resolvers_after() {
  (cd / && NGINX_LOCAL_RESOLVERS=$1 sh -euc '. "$1"; printf "%s\n" "$NGINX_LOCAL_RESOLVERS"' _ "$SNIPPET")
}

# Renders the template like the image's 20-envsubst-on-templates.sh (only these variables).
render() { # listen upstream resolvers
  mkdir -p "$BATS_TEST_TMPDIR/tls.d"
  SVC_WEB_LISTEN=$1 SVC_SERVER_UPSTREAM=$2 NGINX_LOCAL_RESOLVERS=$3 SVC_WEB_ROOT=$BATS_TEST_TMPDIR \
    SVC_WEB_TLS_DIR=$BATS_TEST_TMPDIR/tls.d SVC_WEB_HTTP_KEPT=$REPO_ROOT/web/nginx-http-kept.map \
    envsubst '${SVC_WEB_LISTEN} ${SVC_SERVER_UPSTREAM} ${SVC_WEB_ROOT} ${NGINX_LOCAL_RESOLVERS} ${SVC_WEB_TLS_DIR} ${SVC_WEB_HTTP_KEPT}' \
    <"$REPO_ROOT/web/nginx.conf.template" >"$BATS_TEST_TMPDIR/site.conf"
  local t=$BATS_TEST_TMPDIR
  # As root, workers would run as nobody, who cannot read the test's directory.
  local user=""
  ((EUID != 0)) || user="user root root;"
  cat >"$t/nginx.conf" <<EOF
$user
pid $t/nginx.pid;
error_log $t/error.log;
events {}
http {
  access_log off;
  client_body_temp_path $t/body; proxy_temp_path $t/proxy; fastcgi_temp_path $t/fastcgi;
  uwsgi_temp_path $t/uwsgi; scgi_temp_path $t/scgi;
  include $t/site.conf;
}
EOF
}

need_nginx() {
  command -v nginx >/dev/null 2>&1 || skip "nginx not installed"
  command -v envsubst >/dev/null 2>&1 || skip "envsubst (gettext-base) not installed"
}

@test "web/Dockerfile installs the resolver fix-up, executable; shellcheck clean" {
  [[ -s $SNIPPET ]] || fail_with "web/docker-entrypoint.d/16-svc-resolvers.envsh is missing"
  [[ $(head -n 1 "$SNIPPET") == '#!/bin/sh' ]] || fail_with "snippet does not start with #!/bin/sh"
  grep -qxF 'COPY web/docker-entrypoint.d/16-svc-resolvers.envsh /docker-entrypoint.d/' "$REPO_ROOT/web/Dockerfile" ||
    fail_with "web/Dockerfile does not copy the snippet into /docker-entrypoint.d/"
  # The entrypoint skips a snippet that is not executable; the mode is set in the image, not
  # taken from the checkout (COPY --chmod needs BuildKit).
  grep -qE '^RUN chmod 0755 /docker-entrypoint.d/16-svc-resolvers.envsh /docker-entrypoint.d/17-svc-tls.sh' "$REPO_ROOT/web/Dockerfile" ||
    fail_with "the entrypoint scripts are not made executable in the image"
  if command -v shellcheck >/dev/null 2>&1; then
    run shellcheck -s sh "$SNIPPET"
    assert_status 0
  fi
}

@test "resolvers nginx cannot use are dropped; none left means 127.0.0.1" {
  [[ $(resolvers_after "192.0.2.53") == "192.0.2.53" ]] || fail_with "plain resolver changed"
  [[ $(resolvers_after "[fe80::1%eth0] 192.0.2.53 [2001:db8::53]") == "192.0.2.53 [2001:db8::53]" ]] ||
    fail_with "scoped link-local resolver kept: $(resolvers_after "[fe80::1%eth0] 192.0.2.53 [2001:db8::53]")"
  run resolvers_after ""
  assert_status 0
  [[ ${lines[-1]} == 127.0.0.1 ]] || fail_with "empty resolver list not replaced"
  assert_output_has "no usable nameserver"
  run resolvers_after "[fe80::1%eth0]"
  [[ ${lines[-1]} == 127.0.0.1 ]] || fail_with "only a scoped resolver: not replaced"
  # An address that looks like a glob stays as it is, and the caller's shell keeps globbing.
  [[ $(cd "$BATS_TEST_TMPDIR" && touch 1 : && resolvers_after "[::1]") == "[::1]" ]] || fail_with "[::1] was globbed"
  run sh -euc 'cd "$2"; . "$1"; set -- *; [ "$#" -gt 1 ]' _ "$SNIPPET" "$BATS_TEST_TMPDIR"
  assert_status 0
}

@test "nginx accepts the rendered template for every resolver case, on the compose listen port" {
  need_nginx
  local r
  for r in "" "192.0.2.53" "[fe80::1%eth0]" "[fe80::1%eth0] [2001:db8::53]"; do
    render 8080 127.0.0.1:8000 "$(resolvers_after "$r" | tail -n 1)"
    run nginx -t -q -e "$BATS_TEST_TMPDIR/error.log" -c "$BATS_TEST_TMPDIR/nginx.conf" -p "$BATS_TEST_TMPDIR"
    [[ $status -eq 0 ]] || fail_with "nginx -t failed for resolv.conf nameservers '$r'"
  done
  grep -q 'listen 8080;' "$BATS_TEST_TMPDIR/site.conf" || fail_with "listen port not rendered"
  grep -q 'set $svc_upstream 127.0.0.1:8000;' "$BATS_TEST_TMPDIR/site.conf" || fail_with "upstream not rendered"
}

@test "nginx on WEB_PORT answers compose.yaml's svc_web healthcheck" {
  need_nginx
  command -v docker-compose >/dev/null 2>&1 || skip "docker-compose not installed"
  python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
  command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || skip "neither curl nor wget installed"
  local port cmd listen config="$BATS_TEST_TMPDIR/config.yaml"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  sed '/^name:/d' "$REPO_ROOT/compose.yaml" |
    WEB_PORT=$port DB_ROOT_PASSWORD=not-used DB_PASSWORD=not-used docker-compose -p svc --project-directory "$REPO_ROOT" -f - config >"$config"
  cmd=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["services"]["svc_web"]["healthcheck"]["test"][1].replace("$$", "$"))' "$config")
  listen=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["services"]["svc_web"]["environment"]["SVC_WEB_LISTEN"])' "$config")
  [[ $listen == "$port" ]] || fail_with "SVC_WEB_LISTEN is '$listen', not WEB_PORT $port"
  render "$listen" 127.0.0.1:8000 127.0.0.1
  nginx -e "$BATS_TEST_TMPDIR/error.log" -c "$BATS_TEST_TMPDIR/nginx.conf" -p "$BATS_TEST_TMPDIR"
  run env SVC_WEB_LISTEN="$listen" sh -c "$cmd"
  [[ $status -eq 0 ]] || fail_with "healthcheck failed against nginx on $port"
  # The same check against a port nothing listens on fails: it really asks the listen port.
  run env SVC_WEB_LISTEN="127.0.0.1:1" sh -c "$cmd"
  [[ $status -ne 0 ]] || fail_with "healthcheck passed without a listener"
}

@test "several replicas (compose.ha.yaml): one refusing is passed over, the request served by the other" {
  need_nginx
  command -v curl >/dev/null 2>&1 || skip "curl not installed"
  local up="$REPO_ROOT/web/docker-entrypoint.d/18-svc-upstreams.envsh" dead live listen upstream
  grep -qxF 'COPY web/docker-entrypoint.d/18-svc-upstreams.envsh /docker-entrypoint.d/' "$REPO_ROOT/web/Dockerfile" ||
    fail_with "web/Dockerfile does not copy 18-svc-upstreams.envsh"
  read -r dead live listen < <(python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
  mkdir -p "$BATS_TEST_TMPDIR/www/api"
  echo '{"state":1}' >"$BATS_TEST_TMPDIR/www/api/heartbeat"
  python3 -m http.server "$live" --bind 127.0.0.1 --directory "$BATS_TEST_TMPDIR/www" >/dev/null 2>&1 &
  local backend=$!
  upstream=$(SVC_UPSTREAMS_CONF=$BATS_TEST_TMPDIR/upstreams.conf SVC_SERVER_UPSTREAMS="127.0.0.1:$dead,127.0.0.1:$live" \
    sh -euc '. "$1" >/dev/null; printf "%s" "$SVC_SERVER_UPSTREAM"' _ "$up")
  [[ $upstream == svc_servers ]] || fail_with "SVC_SERVER_UPSTREAM is '$upstream', not the group"
  render "127.0.0.1:$listen" "$upstream" 127.0.0.1
  cat "$BATS_TEST_TMPDIR/upstreams.conf" "$BATS_TEST_TMPDIR/site.conf" >"$BATS_TEST_TMPDIR/both.conf"
  mv "$BATS_TEST_TMPDIR/both.conf" "$BATS_TEST_TMPDIR/site.conf"
  nginx -e "$BATS_TEST_TMPDIR/error.log" -c "$BATS_TEST_TMPDIR/nginx.conf" -p "$BATS_TEST_TMPDIR"
  for _ in $(seq 50); do curl -fsS -o /dev/null "http://127.0.0.1:$live/api/heartbeat" && break; sleep 0.1; done
  local i
  for i in 1 2 3 4 5 6; do
    run curl -fsS "http://127.0.0.1:$listen/api/heartbeat"
    [[ $status -eq 0 && $output == *'"state":1'* ]] || { kill "$backend"; fail_with "request $i failed: $output"; }
  done
  kill "$backend"
  # A name that is not host:port is refused before nginx sees it.
  run env SVC_UPSTREAMS_CONF="$BATS_TEST_TMPDIR/x.conf" SVC_SERVER_UPSTREAMS='a;b' sh -euc '. "$1"' _ "$up"
  [[ $status -ne 0 ]] || fail_with "an upstream with ';' was accepted"
}

# The image's HTTPS step (web/docker-entrypoint.d/17-svc-tls.sh) with the given files.
tls_step() { # cert key
  SVC_WEB_TLS_DIR=$BATS_TEST_TMPDIR/tls.d SVC_WEB_TLS_CERT=$1 SVC_WEB_TLS_KEY=$2 \
    SVC_WEB_LISTEN=8080 SVC_WEB_HTTPS_LISTEN=8443 sh "$REPO_ROOT/web/docker-entrypoint.d/17-svc-tls.sh"
}

@test "TLS step: nothing mounted (compose's /dev/null) is plain HTTP; a stale snippet is removed" {
  mkdir -p "$BATS_TEST_TMPDIR/tls.d"
  echo "listen 1 ssl;" >"$BATS_TEST_TMPDIR/tls.d/tls.conf"
  run tls_step /dev/null /dev/null
  assert_status 0
  assert_output_has "plain HTTP on 8080"
  [[ ! -e $BATS_TEST_TMPDIR/tls.d/tls.conf ]] || fail_with "stale snippet kept"
  run shellcheck -s sh "$REPO_ROOT/web/docker-entrypoint.d/17-svc-tls.sh"
  assert_status 0
}

@test "TLS step: a certificate without its key stops nginx's start with a clear message" {
  printf 'x\n' >"$BATS_TEST_TMPDIR/cert.pem"
  run tls_step "$BATS_TEST_TMPDIR/cert.pem" /dev/null
  assert_failure
  assert_output_has "HTTPS needs both WEB_TLS_CERT and WEB_TLS_KEY"
  [[ ! -e $BATS_TEST_TMPDIR/tls.d/tls.conf ]] || fail_with "snippet written"
}

@test "TLS step with a generated certificate: nginx serves HTTPS with HSTS, HTTP redirects, the generated machine routes stay" {
  need_nginx
  command -v openssl >/dev/null 2>&1 || skip "openssl not installed"
  command -v curl >/dev/null 2>&1 || skip "curl not installed"
  local t=$BATS_TEST_TMPDIR
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=svc-test \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$t/key.pem" -out "$t/cert.pem" 2>/dev/null
  run tls_step "$t/cert.pem" "$t/key.pem"
  assert_status 0
  grep -q 'listen 8443 ssl;' "$t/tls.d/tls.conf" || fail_with "no TLS listener in the snippet"
  grep -qF 'return 308 https://$host:8443$request_uri;' "$t/tls.d/tls.conf" || fail_with "redirect target lacks the port"
  # Ports of this test's own: the snippet's 8443 is rewritten to a free loopback port.
  local http_port=$((20000 + RANDOM % 20000)) https_port=$((40000 + RANDOM % 20000))
  sed -i "s/listen 8443 ssl;/listen 127.0.0.1:$https_port ssl;/; s/:8443\\$/:$https_port\\$/" "$t/tls.d/tls.conf"
  echo '<html>site</html>' >"$t/index.html"
  render "127.0.0.1:$http_port" 127.0.0.1:9 127.0.0.1
  nginx -e "$t/error.log" -c "$t/nginx.conf" -p "$t" || fail_with "nginx did not start: $(cat "$t/error.log")"
  local i
  for ((i = 0; i < 50; i++)); do curl -fsS -o /dev/null "http://127.0.0.1:$http_port/healthz" && break; sleep 0.1; done

  run curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$http_port/people?q=a"
  [[ $output == "308 https://127.0.0.1:$https_port/people?q=a" ]] || fail_with "site over HTTP not redirected"
  run curl -sS -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$http_port/api/auth/login"
  [[ $output == 308 ]] || fail_with "sign-in over HTTP not redirected"
  run curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/healthz"
  [[ $output == 200 ]] || fail_with "health check redirected"
  # Machine endpoints go to the upstream (none here: 502), never to a redirect: the terminals'
  # check-in among them (terminals are told an http:// address and cannot follow a redirect to
  # a self-signed certificate), and every route of the generated list.
  local p kept=()
  mapfile -t kept < <(sed -n 's/^"\([A-Z]* \/api\/[^"]*\)" 1;$/\1/p' "$REPO_ROOT/web/nginx-http-kept.map")
  ((${#kept[@]} >= 8)) || fail_with "the generated list has ${#kept[@]} plain routes"
  [[ " ${kept[*]} " == *" POST /api/terminal/checkin "* ]] || fail_with "check-in missing from the generated list"
  for p in "${kept[@]}"; do
    run curl -sS -o /dev/null -w '%{http_code}' -X "${p%% *}" "http://127.0.0.1:$http_port${p#* }"
    [[ $output == 502 ]] || fail_with "$p over HTTP answered $output"
  done
  # The same method on a path beside a kept one is redirected (no prefix match).
  run curl -sS -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$http_port/api/terminal/checkin/x"
  [[ $output == 308 ]] || fail_with "a path beside the check-in answered $output"
  run curl -sS -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$http_port/api/discovery/configure"
  [[ $output == 308 ]] || fail_with "pushing to terminals over HTTP answered $output"
  run curl -sS --cacert "$t/cert.pem" -D - -o /dev/null "https://127.0.0.1:$https_port/people"
  assert_output_has "HTTP/1.1 200"
  assert_output_has "Strict-Transport-Security: max-age=31536000"
}

@test "without the TLS snippet: no HSTS, no redirect" {
  need_nginx
  local t=$BATS_TEST_TMPDIR http_port=$((20000 + RANDOM % 20000))
  echo '<html>site</html>' >"$t/index.html"
  render "127.0.0.1:$http_port" 127.0.0.1:9 127.0.0.1
  nginx -e "$t/error.log" -c "$t/nginx.conf" -p "$t" || fail_with "nginx did not start: $(cat "$t/error.log")"
  local i
  for ((i = 0; i < 50; i++)); do curl -fsS -o /dev/null "http://127.0.0.1:$http_port/healthz" && break; sleep 0.1; done
  run curl -sS -D - -o /dev/null "http://127.0.0.1:$http_port/people"
  assert_output_has "HTTP/1.1 200"
  refute_output_has "Strict-Transport-Security"
}
