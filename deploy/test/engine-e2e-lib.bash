# shellcheck shell=bash
# shellcheck disable=SC2154 # globals of engine-e2e.sh: repo, work, pkg, base, jar, started and the site's data
# Functions of deploy/test/engine-e2e.sh (sourced by it, never run): a good neighbour's names,
# ports and build copies, the HTTP client of the site, the checks that the site's data is the
# same, and the simulated terminals.

say() { printf '\n===== [%3ds] %s\n' $((SECONDS - started)) "$*"; }
fail() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}
skip() {
  printf '!!!!! SKIPPED: engine end-to-end test: %s !!!!!\n' "$*" >&2
  [[ ${SVC_E2E_REQUIRED:-0} == 1 ]] && exit 1
  exit 0
}
secret() { head -c 24 /dev/urandom | base64 | tr -d '/+='; }

# ---- a good neighbour: names, ports and a subnet of this run's own ---------------------------
# Prints N distinct ports, each free on this host for TCP and UDP on every address, picked at
# random below the kernel's ephemeral range (so no outgoing connection takes one meanwhile).
free_ports() { # N
  python3 - "$1" <<'PY'
import random, socket, sys
want, got = int(sys.argv[1]), []
while len(got) < want:
    p = random.randint(20000, 32000)
    if p in got:
        continue
    try:
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            s = socket.socket(socket.AF_INET, kind)
            s.bind(("0.0.0.0", p))
            s.close()
    except OSError:
        continue
    got.append(p)
print(" ".join(map(str, got)))
PY
}

# A /24 for the project's bridge network (svc_net) that neither a host route nor another
# network of the engine uses.
free_subnet() {
  local used n
  used=$(
    ip -4 route 2>/dev/null | awk '{print $1}'
    docker network ls -q 2>/dev/null | xargs -r docker network inspect \
      --format '{{range .IPAM.Config}}{{.Subnet}} {{end}}' 2>/dev/null | tr ' ' '\n'
  )
  for _ in $(seq 1 50); do
    n=$((100 + RANDOM % 150))
    grep -q "^172\.29\.$n\." <<<"$used" || {
      echo "172.29.$n.0/24"
      return 0
    }
  done
  fail "no free 172.29.x.0/24 subnet for the test's network"
}

# The build context: the tracked files of the checkout (revision empty) or of a revision, with
# the modes git records (0644, 0755 when executable) and one fixed time, whatever umask and
# checkout time made them. Every COPY layer is then the same bytes and metadata for the same
# content, and the engine's layer cache hits from one run, or one machine, to the next.
stable_copy() { # destination [revision]
  local dest=$1 rev=${2:-}
  mkdir -p "$dest"
  if [[ -n $rev ]]; then
    git -C "$repo" archive "$rev" | tar -x -C "$dest"
  else
    git -C "$repo" ls-files -z | while IFS= read -r -d '' f; do
      [[ -e $repo/$f || -L $repo/$f ]] && printf '%s\0' "$f"
    done | tar -C "$repo" --null --no-recursion -T - -cf - | tar -x -C "$dest"
  fi
  find "$dest" -type d -exec chmod 0755 {} +
  find "$dest" -type f -perm /111 -exec chmod 0755 {} +
  find "$dest" -type f ! -perm /111 -exec chmod 0644 {} +
  find "$dest" -exec touch -h -d @946684800 {} +
}

# A release from before SVC_PROJECT (e43533a and older) names its compose project and volumes
# svc and svc_*_data, whatever the environment: a site's own names on a shared engine. Its
# package is given this run's names, the only change made to it, so it never touches a site's.
own_names_for_old_release() { # package source copy
  local d=$1
  grep -q '^SVC_PROJECT=svc$' "$d/deploy/lib.sh" || return 0
  # shellcheck disable=SC2016 # the ${…} are written into the old scripts, expanded there
  sed -i -e 's/^SVC_PROJECT=svc$/SVC_PROJECT=${SVC_PROJECT:-svc}/' \
    -e 's/^SVC_VOLUMES=(svc_db_data svc_server_data)$/SVC_VOLUMES=("${SVC_PROJECT}_db_data" "${SVC_PROJECT}_server_data")/' \
    "$d/deploy/lib.sh"
  # shellcheck disable=SC2016
  sed -i 's/-v svc_server_data:/-v "${SVC_PROJECT}_server_data":/' "$d/deploy/backup.sh" "$d/deploy/restore.sh"
  # shellcheck disable=SC2016
  sed -i -e 's/^    name: svc_db_data$/    name: ${SVC_PROJECT:-svc}_db_data/' \
    -e 's/^    name: svc_server_data$/    name: ${SVC_PROJECT:-svc}_server_data/' "$d/compose.yaml"
  if grep -qE '^SVC_PROJECT=svc$|-v svc_server_data:|name: svc_(db|server)_data$' \
    "$d/deploy/lib.sh" "$d/deploy/backup.sh" "$d/deploy/restore.sh" "$d/compose.yaml"; then
    fail "the old release's fixed names could not all be given this run's"
  fi
  echo "the old release's package uses this run's project and volumes ($SVC_PROJECT)"
}

# A release package as an operator unpacks it: compose.yaml and deploy/ (no tests).
make_package() { # source-copy package-dir
  mkdir -p "$2"
  cp -a "$1/compose.yaml" "$1/deploy" "$2/"
  rm -rf "$2/deploy/test"
}

compose() { docker compose -p "$SVC_PROJECT" -f "$pkg/compose.yaml" "$@"; }
cid_of() { compose ps -q "$1"; }

# ---- the site over HTTP(S) --------------------------------------------------------------------
# base: the site's address (http://127.0.0.1:WEB_PORT, or https://... in the HTTPS pass).
api() { # method path [json body | @file content-type]
  local args=(-sS --cacert "$work/tls/cert.pem" -b "$jar" -c "$jar" -H "x-csrf-token: $csrf" -X "$1" -w '\n%{http_code}')
  if [[ ${3:-} == @* ]]; then
    args+=(-H "content-type: $4" --data-binary "$3")
  elif [[ -n ${3:-} ]]; then
    args+=(-H 'content-type: application/json' -d "$3")
  fi
  curl "${args[@]}" "$base$2"
}
expect() { # status answer
  local code=${2##*$'\n'}
  [[ $code == "$1" ]] || fail "expected HTTP $1, got $code: ${2%$'\n'*}"
  printf '%s' "${2%$'\n'*}"
}
json() { python3 -c 'import json,sys; print(eval("d"+sys.argv[1], {"d": json.load(sys.stdin)}))' "$1"; }
refresh_csrf() {
  local out
  out=$(api GET /api/auth/csrf)
  csrf=$(expect 200 "$out" | json '["token"]') || fail "no CSRF token: $out"
}
# Signs in as admin with a new cookie jar; the answer is in login_body (read by engine-e2e.sh).
# shellcheck disable=SC2034
sign_in() { # password
  csrf=""
  rm -f "$jar"
  refresh_csrf
  login_body=$(expect 200 "$(api POST /api/auth/login "{\"username\":\"admin\",\"password\":\"$1\"}")") ||
    fail "the sign-in as admin was refused"
  refresh_csrf
}
heartbeat() { curl -fsS "http://127.0.0.1:$WEB_PORT/api/heartbeat"; }
device_beat() {
  curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $device_key" -H 'content-type: application/json' \
    -d '{"sn":"E2E-SN-1"}' "http://127.0.0.1:$WEB_PORT/api/device/heartbeat"
}
# "<rows> <distinct names>" of schema_migrations, read as root inside svc_db.
migrations() {
  # shellcheck disable=SC2016 # expanded inside the container
  docker exec "$(cid_of svc_db)" sh -c 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql -uroot -N -e "SELECT COUNT(*), COUNT(DISTINCT name) FROM schema_migrations" "$MYSQL_DATABASE"' |
    tr '\t' ' '
}

# The state a re-initialization, a lost volume or a bad restore would change: the changed admin
# password, the person and the photo, the device key, the applied migrations, the release.
same_site() { # label expected-migrations expected-version
  local got image
  sign_in "$admin_password"
  got=$(expect 200 "$(api GET "/api/people/$person")" | json '["idNumber"]')
  [[ $got == E2E-0001 ]] || fail "$1: the person is gone"
  [[ $(curl -sS --cacert "$work/tls/cert.pem" -b "$jar" "$base/api/people/$person/photo" | sha256sum | cut -d' ' -f1) == "$photo_sha" ]] ||
    fail "$1: the photo differs"
  [[ $(device_beat) == 200 ]] || fail "$1: the device key is refused"
  [[ $(migrations) == "$2" ]] || fail "$1: migrations are $(migrations), expected $2"
  got=$(heartbeat | json '["version"]')
  # A release from before the image's version reached the heartbeat (e43533a) reports its
  # package's; its running image says which release it is.
  image=$(docker inspect --format '{{.Config.Image}}' "$(cid_of svc_server)")
  [[ $got == "$3" || $image == *"svc/server:$3" && $3 == "$from_version" ]] ||
    fail "$1: the heartbeat reports release $got (image $image), expected $3"
  echo "$1: same admin password, person, photo, device key; migrations $2; release $3"
}

# ---- simulated terminals (tools/sim) ------------------------------------------------------------
# An enrollment and a display terminal on this host, announcing to the test's discovery port.
# Their discovery listener shares the port (SO_REUSEADDR), as in the README's demo.
start_terminals() {
  if [[ ! -f $repo/tools/sim/dist/cli.js || ! -f $repo/shared/dist/index.js ]]; then
    (cd "$repo" && npm run build -w @svc/shared -w @svc/sim >/dev/null) || fail "could not build the simulator"
  fi
  node "$repo/tools/sim/bin/svc-sim.js" --enrollment E2E-ENR-1 --display E2E-DSP-1 \
    --broadcast 127.255.255.255 --discovery-port "$DISCOVERY_PORT" --ephemeral-ports \
    --announce-interval 2s --checkin-interval 0 --state-dir "$work/sim" >"$work/sim.log" 2>&1 &
  sim_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    grep -q '^ready' "$work/sim.log" && return 0
    kill -0 "$sim_pid" 2>/dev/null || break
    sleep 0.2
  done
  cat "$work/sim.log" >&2
  fail "the simulated terminals did not start"
}

stop_terminals() {
  [[ -n $sim_pid ]] || return 0
  kill "$sim_pid" 2>/dev/null || true
  wait "$sim_pid" 2>/dev/null || true
  sim_pid=""
}

# Both terminals in GET /api/discovery/nodes (over plain HTTP, as monitoring asks); prints the
# JSON list.
wait_terminals_heard() {
  local i out
  for ((i = 0; i < 60; i++)); do
    out=$(curl -fsS "http://127.0.0.1:$WEB_PORT/api/discovery/nodes") || out='[]'
    if [[ $out == *'"E2E-ENR-1"'* && $out == *'"E2E-DSP-1"'* ]]; then
      printf '%s' "$out"
      return 0
    fi
    sleep 1
  done
  fail "the simulated terminals were not heard within 60 s: $out"
}
