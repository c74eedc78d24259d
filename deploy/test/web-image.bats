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
  SVC_WEB_LISTEN=$1 SVC_SERVER_UPSTREAM=$2 NGINX_LOCAL_RESOLVERS=$3 SVC_WEB_ROOT=$BATS_TEST_TMPDIR \
    envsubst '${SVC_WEB_LISTEN} ${SVC_SERVER_UPSTREAM} ${SVC_WEB_ROOT} ${NGINX_LOCAL_RESOLVERS}' \
    <"$REPO_ROOT/web/nginx.conf.template" >"$BATS_TEST_TMPDIR/site.conf"
  local t=$BATS_TEST_TMPDIR
  cat >"$t/nginx.conf" <<EOF
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
  grep -qxF 'RUN chmod 0755 /docker-entrypoint.d/16-svc-resolvers.envsh' "$REPO_ROOT/web/Dockerfile" ||
    fail_with "snippet is not made executable in the image"
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
    WEB_PORT=$port DB_ROOT_PASSWORD=not-used docker-compose -p svc --project-directory "$REPO_ROOT" -f - config >"$config"
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
