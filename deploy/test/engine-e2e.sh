#!/usr/bin/env bash
# The deployment end to end on a real container engine, with whatever `docker` and
# `docker compose` are on PATH (a Docker host, or ../shared/engine's podman on our machines):
#   1. deploy/build-images.sh builds the images and the archive (DB_IMAGE's image included);
#   2. a release package (compose.yaml, deploy/, the archive) on an engine with none of the
#      images and no svc volume; deploy/load-and-start.sh brings it up;
#   3. deploy/status.sh and the seed's read-only host checks;
#   4. sign-in through nginx (svc_web), the first password change, a person with a photo and a
#      recognition device with its key;
#   5. restart and recreate of the containers: no re-initialization (the changed password,
#      the person, the device key and the applied migrations are the same);
#   6. the database port is bound to 127.0.0.1 only;
#   7. deploy/backup.sh while running; deploy/restore.sh into fresh volumes; the same people,
#      photo and device key;
#   8. a wrong DB_ROOT_PASSWORD on the existing volume fails within 30 s with the password hint.
# With SVC_E2E_UPGRADE_FROM=<git revision> (e.g. HEAD~1) steps 2-4 run on a build of that
# revision first, and then this build's archive is loaded over the running site (an upgrade):
# its new migrations are applied once, and the data is the same.
# It never touches data it did not create: it stops (exit 1) when an svc container or volume
# exists before it starts, and removes only what it created. Where no engine answers it prints
# SKIPPED with the reason and exits 0 (1 when SVC_E2E_REQUIRED=1).
#   deploy/test/engine-e2e.sh
# Parameters: SVC_E2E_WEB_PORT (18480), SVC_E2E_DB_PORT (13306), SVC_E2E_DISCOVERY_PORT (20795),
# DB_IMAGE (mysql:8.4 as compose.yaml), SVC_E2E_KEEP=1 keeps the work directory and the stack.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
started=$SECONDS

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

command -v docker >/dev/null 2>&1 || skip "no 'docker' client on PATH"
docker info --format '{{.ServerVersion}}' >/dev/null 2>&1 || skip "no container engine answers 'docker info'"
docker compose version >/dev/null 2>&1 || skip "'docker compose' (Compose v2) is not available"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

export WEB_PORT=${SVC_E2E_WEB_PORT:-18480} DB_PORT=${SVC_E2E_DB_PORT:-13306}
export DISCOVERY_PORT=${SVC_E2E_DISCOVERY_PORT:-20795}
export SVC_VERSION=${SVC_E2E_VERSION:-0.0.0-e2e} SVC_DB_WAIT_TRIES=100 SVC_POLL_INTERVAL=2
export DISCOVERY_HOST=127.0.0.1 DISCOVERY_HTTP_BASE_URL=http://127.0.0.1:$WEB_PORT
export DB_IMAGE=${DB_IMAGE:-mysql:8.4} DB_BUFFER_POOL_SIZE=256M
unset WEB_TLS_CERT WEB_TLS_KEY
base="http://127.0.0.1:$WEB_PORT"

# ---- nothing of svc may exist before: this test creates and removes its own ----------------
for v in svc_db_data svc_server_data; do
  docker volume inspect "$v" >/dev/null 2>&1 &&
    fail "volume $v exists: this test needs an engine without svc data (it never removes what it did not create)"
done
[[ -z $(docker ps -aq --filter label=com.docker.compose.project=svc) ]] ||
  fail "svc containers exist: run it on an engine without a deployed svc"

work=$(mktemp -d /tmp/svc-e2e.XXXXXX)
pkg=$work/pkg
mkdir -p "$pkg"
created_volumes=0
cleanup() {
  local rc=$?
  if [[ ${SVC_E2E_KEEP:-0} == 1 ]]; then
    echo "kept: $work and the stack (SVC_E2E_KEEP=1)"
    return
  fi
  if [[ -f $pkg/compose.yaml ]]; then
    DB_ROOT_PASSWORD=${DB_ROOT_PASSWORD:-x} docker compose -p svc -f "$pkg/compose.yaml" down >/dev/null 2>&1 || true
  fi
  if ((created_volumes)); then docker volume rm svc_db_data svc_server_data >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

secret() { head -c 24 /dev/urandom | base64 | tr -d '/+='; }
DB_ROOT_PASSWORD=$(secret)
ADMIN_INITIAL_PASSWORD="E2e-$(secret)"
export DB_ROOT_PASSWORD ADMIN_INITIAL_PASSWORD

compose() { docker compose -p svc -f "$pkg/compose.yaml" "$@"; }

# ---- 1. build ---------------------------------------------------------------------------------
say "1. deploy/build-images.sh $SVC_VERSION (DB_IMAGE=$DB_IMAGE)"
IMAGE_ARCHIVE=$pkg/svc-images.tar.gz "$repo/deploy/build-images.sh" "$SVC_VERSION"
git -C "$repo" ls-files -z compose.yaml deploy | grep -zv '^deploy/test/' |
  xargs -0 tar -C "$repo" -cf - | tar -C "$pkg" -xf -

# The first release the site runs: this build, or the one it is upgraded from.
new_pkg=$pkg
new_version=$SVC_VERSION
if [[ -n ${SVC_E2E_UPGRADE_FROM:-} ]]; then
  from=$(git -C "$repo" rev-parse --short "$SVC_E2E_UPGRADE_FROM") || fail "unknown revision $SVC_E2E_UPGRADE_FROM"
  say "1b. a build of $from, the release the site is upgraded from"
  mkdir -p "$work/from-src" "$work/from-pkg"
  git -C "$repo" archive "$from" | tar -x -C "$work/from-src"
  IMAGE_ARCHIVE=$work/from-pkg/svc-images.tar.gz "$work/from-src/deploy/build-images.sh" "0.0.0-e2e-from"
  git -C "$repo" archive "$from" compose.yaml deploy | tar -x -C "$work/from-pkg"
  pkg=$work/from-pkg
  SVC_VERSION=0.0.0-e2e-from
fi

# ---- 2. an engine with none of the images, then load-and-start ---------------------------------
say "2. images removed; load-and-start.sh from the archive (release $SVC_VERSION)"
docker image rm "svc/server:$new_version" "svc/web:$new_version" "svc/server:$SVC_VERSION" \
  "svc/web:$SVC_VERSION" "$DB_IMAGE" >/dev/null 2>&1 || true
for img in "svc/server:$SVC_VERSION" "svc/web:$SVC_VERSION" "$DB_IMAGE"; do
  docker image inspect "$img" >/dev/null 2>&1 && fail "$img still present"
done
created_volumes=1
t0=$SECONDS
"$pkg/deploy/load-and-start.sh"
say "up from an empty engine in $((SECONDS - t0)) s"

# ---- 3. status and the seed's host checks -----------------------------------------------------
say "3. status.sh (without DB_ROOT_PASSWORD) and the seed's host checks"
(unset DB_ROOT_PASSWORD ADMIN_INITIAL_PASSWORD && "$pkg/deploy/status.sh")
for p in /api/heartbeat /api/device/online-count /api/discovery/nodes; do
  out=$(curl -fsS "$base$p") || fail "GET $p"
  echo "GET $p -> ${out:0:160}"
done
[[ $(curl -fsS "$base/api/heartbeat") == *'"state":1'* ]] || fail "heartbeat state is not 1"

# ---- 4. sign-in through nginx, data ----------------------------------------------------------
say "4. sign-in through svc_web; a person with a photo and a device"
jar=$work/cookies
csrf=""
api() { # method path [json body | @file content-type]
  local args=(-sS -b "$jar" -c "$jar" -H "x-csrf-token: $csrf" -X "$1" -w '\n%{http_code}')
  if [[ ${3:-} == @* ]]; then args+=(-H "content-type: $4" --data-binary "$3"); elif [[ -n ${3:-} ]]; then args+=(-H 'content-type: application/json' -d "$3"); fi
  curl "${args[@]}" "$base$2"
}
expect() { # status answer
  local code=${2##*$'\n'}
  [[ $code == "$1" ]] || fail "expected HTTP $1, got $code: ${2%$'\n'*}"
  printf '%s' "${2%$'\n'*}"
}
json() { python3 -c 'import json,sys; print(eval("d"+sys.argv[1], {"d": json.load(sys.stdin)}))' "$1"; }
refresh_csrf() { csrf=$(expect 200 "$(api GET /api/auth/csrf)" | json '["token"]'); }
refresh_csrf
body=$(expect 200 "$(api POST /api/auth/login "{\"username\":\"admin\",\"password\":\"$ADMIN_INITIAL_PASSWORD\"}")")
[[ $(json '["user"]["mustChangePassword"]' <<<"$body") == True ]] || fail "the seeded admin is not asked to change the password"
grep -q 'svc_session' "$jar" || fail "no session cookie through nginx"
admin_password="E2e-changed-$(secret)"
refresh_csrf
expect 204 "$(api POST /api/auth/password "{\"currentPassword\":\"$ADMIN_INITIAL_PASSWORD\",\"newPassword\":\"$admin_password\"}")" >/dev/null
refresh_csrf
person=$(expect 201 "$(api POST /api/people '{"name":"E2e Person","idNumber":"E2E-0001"}')" | json '["id"]')
# A real face (the face check is on): a crop of a demo photo face-api ships, cut with sharp.
(cd "$repo/server" && node -e "const p=require('path').dirname(require.resolve('@vladmandic/face-api/package.json'));require('sharp')(p+'/demo/sample3.jpg').extract({left:485,top:220,width:400,height:620}).jpeg().toBuffer().then((b)=>process.stdout.write(b))") >"$work/photo.jpg"
photo_sha=$(expect 200 "$(api PUT "/api/people/$person/photo" "@$work/photo.jpg" image/jpeg)" | json '["photoSha256"]')
device=$(expect 201 "$(api POST /api/devices '{"sn":"E2E-SN-1","name":"E2e device","baseUrl":"http://127.0.0.1:9"}')")
device_key=$(json '["key"]' <<<"$device")
device_beat() { curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $device_key" -H 'content-type: application/json' -d '{"sn":"E2E-SN-1"}' "$base/api/device/heartbeat"; }
[[ $(device_beat) == 200 ]] || fail "the new device's key is refused"
migrations() { docker exec "$(compose ps -q svc_db)" sh -c 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql -uroot -N -e "SELECT COUNT(*), COUNT(DISTINCT name) FROM schema_migrations" "$MYSQL_DATABASE"'; }
# The state a re-initialization would change: the admin password, the person, the key, migrations.
same_site() { # label
  csrf=""
  rm -f "$jar"
  refresh_csrf
  expect 200 "$(api POST /api/auth/login "{\"username\":\"admin\",\"password\":\"$admin_password\"}")" >/dev/null ||
    fail "$1: the changed admin password no longer works"
  refresh_csrf
  local got
  got=$(expect 200 "$(api GET "/api/people/$person")" | json '["idNumber"]')
  [[ $got == E2E-0001 ]] || fail "$1: the person is gone"
  [[ $(curl -sS -b "$jar" "$base/api/people/$person/photo" | sha256sum | cut -d' ' -f1) == "$photo_sha" ]] ||
    fail "$1: the photo differs"
  [[ $(device_beat) == 200 ]] || fail "$1: the device key is refused"
  [[ $(migrations) == "$migrations_before" ]] || fail "$1: migrations changed: $(migrations) (was $migrations_before)"
  echo "$1: same admin password, person, photo, device key and migrations ($migrations_before)"
}
migrations_before=$(migrations)
same_site "after the first start"

if [[ $pkg != "$new_pkg" ]]; then
  say "4b. upgrade: this build's archive loaded over the running release $SVC_VERSION"
  pkg=$new_pkg
  SVC_VERSION=$new_version
  "$pkg/deploy/load-and-start.sh"
  read -r applied distinct <<<"$(migrations)"
  read -r applied_before _ <<<"$migrations_before"
  ((applied == distinct)) || fail "a migration is recorded twice after the upgrade ($applied rows, $distinct names)"
  ((applied >= applied_before)) || fail "migrations went missing in the upgrade"
  echo "upgrade applied $((applied - applied_before)) new migration(s); $applied in all, each once"
  migrations_before=$(migrations)
  same_site "after the upgrade"
fi

# ---- 5. restart and recreate ---------------------------------------------------------------
say "5. restart, then recreate the containers"
compose restart
"$pkg/deploy/start.sh"
same_site "after restart"
compose up -d --no-build --force-recreate
"$pkg/deploy/start.sh"
same_site "after recreate"

# ---- 6. database port -------------------------------------------------------------------------
say "6. the database port is bound to loopback only"
bindings=$(docker inspect "$(compose ps -q svc_db)" --format '{{json .HostConfig.PortBindings}}')
echo "svc_db PortBindings: $bindings"
[[ $bindings == *'"HostIp":"127.0.0.1"'* && $bindings != *'"HostIp":""'* && $bindings != *'"HostIp":"0.0.0.0"'* ]] ||
  fail "svc_db's port is not bound to 127.0.0.1 only"
listeners=$(ss -Hlnt "sport = :$DB_PORT" | awk '{print $4}')
echo "listening on :$DB_PORT: $listeners"
[[ -n $listeners ]] || fail "nothing listens on $DB_PORT"
if grep -qvE "^127\.0\.0\.1:$DB_PORT$" <<<"$listeners"; then fail "port $DB_PORT listens beyond 127.0.0.1"; fi

# ---- 7. backup and restore --------------------------------------------------------------------
say "7. backup.sh while running; restore.sh into fresh volumes"
mkdir -p "$work/backups"
"$pkg/deploy/backup.sh" "$work/backups"
backup=$(ls "$work/backups"/svc-backup-*.tar.gz)
[[ $(stat -c %a "$backup") == 600 ]] || fail "the backup is not 0600"
[[ $(curl -fsS "$base/api/heartbeat") == *'"state":1'* ]] || fail "the service stopped during the backup"
compose down
docker volume rm svc_db_data svc_server_data >/dev/null
DB_ROOT_PASSWORD=$(secret)
export DB_ROOT_PASSWORD
"$pkg/deploy/restore.sh" "$backup"
same_site "after restore"

# ---- 8. a wrong DB_ROOT_PASSWORD ------------------------------------------------------------
say "8. a wrong DB_ROOT_PASSWORD on the existing volume"
compose down
t0=$SECONDS
if out=$(DB_ROOT_PASSWORD="wrong-$(secret)" "$pkg/deploy/start.sh" 2>&1); then fail "start.sh succeeded with a wrong password"; fi
took=$((SECONDS - t0))
printf '%s\n' "$out" | tail -n 8
[[ $out == *"DB_ROOT_PASSWORD does not match the svc_db_data volume"* ]] || fail "no password hint"
((took <= 30)) || fail "the password hint took $took s (more than 30)"
say "wrong password reported in $took s"

say "engine end-to-end: 8 steps passed in $((SECONDS - started)) s"
echo "engine-e2e: 1 passed, 0 failed"
