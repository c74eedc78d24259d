#!/usr/bin/env bash
# The deployment end to end on a real container engine, with whatever `docker` and
# `docker compose` are on PATH (a Docker host, or ../shared/engine's podman on our machines):
#   1. deploy/build-images.sh builds this checkout's images and archive, from a copy of its
#      tracked files with stable modes and times (the layer cache stays warm); with
#      SVC_E2E_UPGRADE_FROM=<revision>, that release is built too, the one the site starts on;
#   2. simulated terminals (tools/sim) announce on the discovery port before the first start:
#      the start shares the port with them (SO_REUSEADDR) and says so (on an upgrade, whose old
#      release may refuse a taken port, they join after the upgrade and are stopped for the
#      rollback; the restore into fresh volumes then starts beside them and says so);
#   3. the first start on empty volumes; deploy/status.sh and the seed's host checks; sign-in
#      through nginx, the first password change, a person with a photo, a device with its key;
#   4. (upgrade) deploy/backup.sh of the old release; this build's archive loaded over the
#      running site with load-and-start.sh: at least one new migration, applied once, the same
#      data, the new release in the heartbeat;
#   5. a mistyped DB_ROOT_PASSWORD on the running stack is refused before anything is recreated;
#   6. HTTPS with a self-signed certificate (WEB_TLS_*): the site over HTTPS with HSTS, plain
#      HTTP redirected; the terminals pushed from the site over HTTPS and checked in over HTTP;
#   7. restart and recreate: no re-initialization; the database port on loopback only;
#   8. deploy/backup.sh while running; (rollback) the old release's images and restore.sh of the
#      backup taken before the upgrade: the old data and release; then restore.sh of the new
#      backup with this release into fresh volumes: the same data;
#   9. a wrong DB_ROOT_PASSWORD on the existing volume fails within 30 s with the password hint.
# A good neighbour: its own compose project (svc-e2e-<random>), volumes, image tags, network
# subnet, and ports picked free at run time; it removes what it created (containers, network,
# volumes, its image tags, its files) and nothing else, and leaves the engine running. Where no
# engine answers it prints SKIPPED with the reason and exits 0 (1 when SVC_E2E_REQUIRED=1).
#   deploy/test/engine-e2e.sh
# Parameters: SVC_E2E_UPGRADE_FROM (a revision with at least one migration before HEAD's),
# DB_IMAGE (mysql:8.4 as compose.yaml), SVC_E2E_KEEP=1 keeps the work directory and the stack.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
started=$SECONDS
# shellcheck source-path=SCRIPTDIR source=engine-e2e-lib.bash
source "$here/engine-e2e-lib.bash"

command -v docker >/dev/null 2>&1 || skip "no 'docker' client on PATH"
docker info --format '{{.ServerVersion}}' >/dev/null 2>&1 || skip "no container engine answers 'docker info'"
docker compose version >/dev/null 2>&1 || skip "'docker compose' (Compose v2) is not available"
for tool in curl openssl python3 node git; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done

run_id=$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SVC_PROJECT=svc-e2e-$run_id
read -r WEB_PORT WEB_HTTPS_PORT DB_PORT SERVER_HTTP_PORT DISCOVERY_PORT <<<"$(free_ports 5)"
export WEB_PORT WEB_HTTPS_PORT DB_PORT SERVER_HTTP_PORT DISCOVERY_PORT
SVC_SUBNET=$(free_subnet)
export SVC_SUBNET SVC_DB_WAIT_TRIES=100 SVC_POLL_INTERVAL=2
export DISCOVERY_HOST=127.0.0.1 DISCOVERY_HTTP_BASE_URL=http://127.0.0.1:$WEB_PORT
export DB_IMAGE=${DB_IMAGE:-mysql:8.4} DB_BUFFER_POOL_SIZE=256M
unset WEB_TLS_CERT WEB_TLS_KEY
new_version=0.0.0-e2e.$run_id
from_version=""
export SVC_VERSION=$new_version
echo "project $SVC_PROJECT; ports web $WEB_PORT, https $WEB_HTTPS_PORT, db $DB_PORT, server $SERVER_HTTP_PORT, discovery $DISCOVERY_PORT/udp; subnet $SVC_SUBNET"

work=$(mktemp -d /tmp/svc-e2e.XXXXXX)
pkg=$work/new-pkg
jar=$work/cookies
base=http://127.0.0.1:$WEB_PORT
csrf=""
sim_pid=""
created_volumes=0
built_images=()
cleanup() {
  local rc=$?
  if [[ ${SVC_E2E_KEEP:-0} == 1 ]]; then
    echo "kept: $work, project $SVC_PROJECT (SVC_E2E_KEEP=1)"
    return
  fi
  [[ -z $sim_pid ]] || kill "$sim_pid" 2>/dev/null || true
  if [[ -f $pkg/compose.yaml ]]; then
    DB_ROOT_PASSWORD=x DB_PASSWORD=y docker compose -p "$SVC_PROJECT" -f "$pkg/compose.yaml" down >/dev/null 2>&1 || true
  fi
  if ((created_volumes)); then
    docker volume rm "${SVC_PROJECT}_db_data" "${SVC_PROJECT}_server_data" >/dev/null 2>&1 || true
  fi
  if ((${#built_images[@]})); then docker image rm "${built_images[@]}" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
for v in "${SVC_PROJECT}_db_data" "${SVC_PROJECT}_server_data"; do
  ! docker volume inspect "$v" >/dev/null 2>&1 || fail "volume $v exists: another run uses this project name"
done

DB_ROOT_PASSWORD=$(secret)
DB_PASSWORD=$(secret)
ADMIN_INITIAL_PASSWORD="E2e-$(secret)"
export DB_ROOT_PASSWORD DB_PASSWORD ADMIN_INITIAL_PASSWORD
mkdir -p "$work/tls" "$work/backups" "$work/new-pkg"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=svc-e2e -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/tls/key.pem" -out "$work/tls/cert.pem" 2>/dev/null
chmod 0600 "$work/tls/key.pem"

# ---- 1. build -----------------------------------------------------------------------------------
say "1. deploy/build-images.sh $new_version (DB_IMAGE=$DB_IMAGE) from a stable copy of the checkout"
stable_copy "$work/src"
built_images+=("svc/server:$new_version" "svc/web:$new_version")
t0=$SECONDS
IMAGE_ARCHIVE=$work/new-pkg/svc-images.tar.gz "$work/src/deploy/build-images.sh" "$new_version" >"$work/build.log" 2>&1 ||
  { tail -n 60 "$work/build.log"; fail "build-images.sh failed"; }
tail -n 6 "$work/build.log"
say "built and archived in $((SECONDS - t0)) s"
make_package "$work/src" "$work/new-pkg"
tar -xzOf "$work/new-pkg/svc-images.tar.gz" manifest.json | grep -qF "$DB_IMAGE" ||
  fail "the archive does not hold $DB_IMAGE"
# The images come from the archive: this run's tags are removed until load-and-start loads them.
docker image rm "${built_images[@]}" >/dev/null

if [[ -n ${SVC_E2E_UPGRADE_FROM:-} ]]; then
  from=$(git -C "$repo" rev-parse --short "$SVC_E2E_UPGRADE_FROM^{commit}") || fail "unknown revision $SVC_E2E_UPGRADE_FROM"
  from_version=0.0.0-e2e-from.$run_id
  say "1b. the release the site is upgraded from: $from, built as $from_version"
  stable_copy "$work/from-src" "$from"
  built_images+=("svc/server:$from_version" "svc/web:$from_version")
  SVC_VERSION=$from_version docker compose -p "$SVC_PROJECT" -f "$work/from-src/compose.yaml" build svc_server svc_web \
    >"$work/from-build.log" 2>&1 || { tail -n 60 "$work/from-build.log"; fail "the build of $from failed"; }
  own_names_for_old_release "$work/from-src"
  make_package "$work/from-src" "$work/from-pkg"
  pkg=$work/from-pkg
  SVC_VERSION=$from_version
fi

# ---- 2. terminals ---------------------------------------------------------------------------------
shares_port() { # start output
  [[ $1 == *"svc_server shares the port with it"* ]] ||
    fail "the start did not say it shares the discovery port with the simulated terminals"
}
if [[ -z $from_version ]]; then
  say "2. simulated terminals on discovery port $DISCOVERY_PORT"
  start_terminals
fi

# ---- 3. first start, status, data -----------------------------------------------------------------
say "3. first start of release $SVC_VERSION on empty volumes"
created_volumes=1
t0=$SECONDS
if [[ $pkg == "$work/new-pkg" ]]; then
  "$pkg/deploy/load-and-start.sh" 2>&1 | tee "$work/start.log"
else
  "$pkg/deploy/start.sh" 2>&1 | tee "$work/start.log"
fi
say "up on empty volumes in $((SECONDS - t0)) s"
[[ -n $from_version ]] || shares_port "$(cat "$work/start.log")"
(unset DB_ROOT_PASSWORD DB_PASSWORD ADMIN_INITIAL_PASSWORD && "$pkg/deploy/status.sh" >"$work/status.log" 2>&1) ||
  { cat "$work/status.log"; fail "status.sh failed"; }
for p in /api/heartbeat /api/device/online-count /api/discovery/nodes; do
  out=$(curl -fsS "$base$p") || fail "GET $p"
  echo "GET $p -> ${out:0:160}"
done

sign_in "$ADMIN_INITIAL_PASSWORD"
[[ $(json '["user"]["mustChangePassword"]' <<<"$login_body") == True ]] || fail "the seeded admin is not asked to change the password"
grep -q 'svc_session' "$jar" || fail "no session cookie through nginx"
admin_password="E2e-changed-$(secret)"
expect 204 "$(api POST /api/auth/password "{\"currentPassword\":\"$ADMIN_INITIAL_PASSWORD\",\"newPassword\":\"$admin_password\"}")" >/dev/null
refresh_csrf
person=$(expect 201 "$(api POST /api/people '{"name":"E2e Person","idNumber":"E2E-0001"}')" | json '["id"]')
# A real face (the face check is on): a crop of a demo photo face-api ships, cut with sharp.
(cd "$repo/server" && node -e "const p=require('path').dirname(require.resolve('@vladmandic/face-api/package.json'));require('sharp')(p+'/demo/sample3.jpg').extract({left:485,top:220,width:400,height:620}).jpeg().toBuffer().then((b)=>process.stdout.write(b))") >"$work/photo.jpg"
photo_sha=$(expect 200 "$(api PUT "/api/people/$person/photo" "@$work/photo.jpg" image/jpeg)" | json '["photoSha256"]')
device=$(expect 201 "$(api POST /api/devices '{"sn":"E2E-SN-1","name":"E2e device","baseUrl":"http://127.0.0.1:9"}')")
device_key=$(json '["key"]' <<<"$device")
[[ $(device_beat) == 200 ]] || fail "the new device's key is refused"
first_migrations=$(migrations)
same_site "after the first start" "$first_migrations" "$SVC_VERSION"

# ---- 4. upgrade -----------------------------------------------------------------------------------
migrations_now=$first_migrations
if [[ -n $from_version ]]; then
  say "4. backup of release $from_version, then this build's archive loaded over it"
  "$pkg/deploy/backup.sh" "$work/backups" >/dev/null
  old_backup=$(ls "$work/backups"/svc-backup-*.tar.gz)
  mv "$old_backup" "$work/backup-before-upgrade.tar.gz"
  pkg=$work/new-pkg
  SVC_VERSION=$new_version
  "$pkg/deploy/load-and-start.sh"
  read -r applied distinct <<<"$(migrations)"
  read -r applied_before _ <<<"$first_migrations"
  ((applied == distinct)) || fail "a migration is recorded twice after the upgrade ($applied rows, $distinct names)"
  ((applied > applied_before)) ||
    fail "the upgrade from $from applied no migration ($applied before and after): choose an older SVC_E2E_UPGRADE_FROM"
  echo "the upgrade applied $((applied - applied_before)) new migration(s); $applied in all, each once"
  migrations_now=$(migrations)
  same_site "after the upgrade" "$migrations_now" "$new_version"
  say "4b. simulated terminals on discovery port $DISCOVERY_PORT, beside the upgraded release"
  start_terminals
fi

# ---- 5. a mistyped root password on the running stack ---------------------------------------------
say "5. a mistyped DB_ROOT_PASSWORD on the running stack changes nothing"
ids_before=$(compose ps -q | sort)
if out=$(DB_ROOT_PASSWORD="wrong-$(secret)" "$pkg/deploy/start.sh" 2>&1); then fail "start.sh succeeded with a wrong password"; fi
[[ $out == *"Nothing was changed: the running services were left as they are."* ]] || fail "no password hint: $out"
[[ $(compose ps -q | sort) == "$ids_before" ]] || fail "containers were recreated with the wrong password"

# ---- 6. HTTPS ---------------------------------------------------------------------------------------
say "6. HTTPS on $WEB_HTTPS_PORT with a self-signed certificate; terminals stay on HTTP"
export WEB_TLS_CERT=$work/tls/cert.pem WEB_TLS_KEY=$work/tls/key.pem
"$pkg/deploy/start.sh" >"$work/https-start.log" 2>&1 || { tail -n 40 "$work/https-start.log"; fail "start.sh with HTTPS failed"; }
https=https://127.0.0.1:$WEB_HTTPS_PORT
[[ $(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "$base/people") == "308 $https/people" ]] ||
  fail "the site over HTTP is not redirected to $https"
headers=$(curl -sS --cacert "$WEB_TLS_CERT" -D - -o /dev/null "$https/people")
[[ $headers == *"HTTP/1.1 200"* && $headers == *"Strict-Transport-Security: max-age=31536000"* ]] ||
  fail "the site over HTTPS lacks 200 or HSTS: $headers"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d '{}' "$base/api/terminal/checkin")
[[ $code != 30* ]] || fail "the terminals' check-in over HTTP is redirected ($code)"
base=$https
sign_in "$admin_password"
awk '$6 == "svc_session" {print $4}' "$jar" | grep -qx TRUE || fail "the session cookie over HTTPS is not Secure"
wait_terminals_heard >/dev/null
results=$(expect 200 "$(api POST /api/discovery/configure "{\"ids\":[\"E2E-ENR-1\",\"E2E-DSP-1\"],\"centralUrl\":\"http://127.0.0.1:$WEB_PORT\"}")")
[[ $results == *'"ok":true'*'"ok":true'* && $results != *'"ok":false'* ]] || fail "the push to the terminals failed: $results"
for ((i = 0; i < 30; i++)); do
  nodes=$(curl -fsS "http://127.0.0.1:$WEB_PORT/api/discovery/nodes")
  checked=$(python3 -c 'import json,sys; print(sum(1 for n in json.load(sys.stdin) if n["id"].startswith("E2E-") and n["lastCheckin"]))' <<<"$nodes")
  ((checked == 2)) && break
  sleep 1
done
((checked == 2)) || fail "the terminals did not check in over HTTP: $nodes"
grep -E 'checkin 200 http://127\.0\.0\.1:[0-9]+/api/terminal/checkin' "$work/sim.log" | head -n 2
same_site "with HTTPS" "$migrations_now" "$new_version"

# ---- 7. restart, recreate, database port -------------------------------------------------------------
say "7. restart, then recreate the containers; the database port"
compose restart >/dev/null
"$pkg/deploy/start.sh" >/dev/null
same_site "after restart" "$migrations_now" "$new_version"
compose up -d --no-build --force-recreate >/dev/null
"$pkg/deploy/start.sh" >/dev/null
same_site "after recreate" "$migrations_now" "$new_version"
bindings=$(docker inspect "$(cid_of svc_db)" --format '{{json .HostConfig.PortBindings}}')
echo "svc_db PortBindings: $bindings"
[[ $bindings == *'"HostIp":"127.0.0.1"'* && $bindings != *'"HostIp":""'* && $bindings != *'"HostIp":"0.0.0.0"'* ]] ||
  fail "svc_db's port is not bound to 127.0.0.1 only"
listeners=$(ss -Hlnt "sport = :$DB_PORT" | awk '{print $4}')
[[ -n $listeners ]] || fail "nothing listens on $DB_PORT"
if grep -qvE "^127\.0\.0\.1:$DB_PORT$" <<<"$listeners"; then fail "port $DB_PORT listens beyond 127.0.0.1"; fi

# ---- 8. backup, rollback, restore ----------------------------------------------------------------------
say "8. backup.sh while running"
"$pkg/deploy/backup.sh" "$work/backups"
backup=$(ls "$work/backups"/svc-backup-*.tar.gz)
[[ $(stat -c %a "$backup") == 600 ]] || fail "the backup is not 0600"
[[ $(heartbeat) == *'"state":1'* ]] || fail "the service stopped during the backup"
fresh_volumes() {
  compose down >/dev/null
  docker volume rm "${SVC_PROJECT}_db_data" "${SVC_PROJECT}_server_data" >/dev/null
  DB_ROOT_PASSWORD=$(secret)
}
if [[ -n $from_version ]]; then
  say "8b. rollback: release $from_version's images and restore.sh of the backup taken before the upgrade"
  stop_terminals
  fresh_volumes
  pkg=$work/from-pkg
  SVC_VERSION=$from_version
  "$pkg/deploy/restore.sh" "$work/backup-before-upgrade.tar.gz" >"$work/rollback.log" 2>&1 ||
    { tail -n 40 "$work/rollback.log"; fail "the rollback's restore failed"; }
  same_site "after the rollback" "$first_migrations" "$from_version"
  start_terminals
fi
say "8c. restore.sh of the backup with release $new_version into fresh volumes"
fresh_volumes
pkg=$work/new-pkg
SVC_VERSION=$new_version
out=$("$pkg/deploy/restore.sh" "$backup" 2>&1) || { printf '%s\n' "$out" | tail -n 40; fail "restore.sh failed"; }
[[ -z $from_version ]] || shares_port "$out"
[[ $out != *"change the seeded administrator's password"* ]] || fail "restore.sh ends with the first-start password message"
same_site "after restore" "$migrations_now" "$new_version"

# ---- 9. a wrong DB_ROOT_PASSWORD ------------------------------------------------------------------------
say "9. a wrong DB_ROOT_PASSWORD on the existing volume"
compose down >/dev/null
t0=$SECONDS
if out=$(DB_ROOT_PASSWORD="wrong-$(secret)" "$pkg/deploy/start.sh" 2>&1); then fail "start.sh succeeded with a wrong password"; fi
took=$((SECONDS - t0))
[[ $out == *"DB_ROOT_PASSWORD does not match the svc_db_data volume"* ]] || fail "no password hint: $(tail -n 8 <<<"$out")"
((took <= 30)) || fail "the password hint took $took s (more than 30)"
say "wrong password reported in $took s"

say "engine end-to-end passed in $((SECONDS - started)) s"
echo "engine-e2e: 1 passed, 0 failed"
