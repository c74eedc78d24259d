#!/usr/bin/env bash
# Restores an archive of deploy/backup.sh into FRESH volumes and starts svc on it:
#   read -rs DB_ROOT_PASSWORD && export DB_ROOT_PASSWORD     # the password of the new database
#   deploy/restore.sh /path/svc-backup-<date>.tar.gz
# The images must be loaded (the release named in the archive's MANIFEST). It refuses when an
# svc container or either data volume exists: nothing here removes or overwrites data. Then it
# creates both volumes, unpacks the files into svc_server_data, starts svc_db (a new database
# initialized with DB_ROOT_PASSWORD), loads the dump into it, and starts everything as
# deploy/start.sh does. The service finds its data migrated and seeded and does not initialize
# it again.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

archive=${1:-}
[[ -n $archive ]] || die "usage: deploy/restore.sh <svc-backup-....tar.gz>"
[[ -f $archive && -r $archive ]] || die "backup archive not found or not readable: $archive"
preflight

umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work" MANIFEST db.sql server-data.tar ||
  die "$archive is not a backup of deploy/backup.sh (MANIFEST, db.sql, server-data.tar)"
while read -r key name size sum; do
  [[ $key == file: ]] || continue
  [[ $(wc -c <"$work/$name") == "$size" && $(sha256sum "$work/$name" | cut -d' ' -f1) == "$sum" ]] ||
    die "$name in $archive does not match its MANIFEST (size or SHA-256): the archive is damaged"
done <"$work/MANIFEST"
backup_db=$(sed -n 's/^db_database: //p' "$work/MANIFEST")
[[ $backup_db == "${DB_DATABASE:-face_tp}" ]] ||
  die "the backup holds database '$backup_db' but DB_DATABASE is '${DB_DATABASE:-face_tp}': set DB_DATABASE=$backup_db"
info "backup: $(sed -n 's/^created: //p' "$work/MANIFEST"), release image $(sed -n 's/^server_image: //p' "$work/MANIFEST")"

if [[ -n $(compose ps -a -q 2>/dev/null) ]]; then
  die "svc containers exist: restore goes to a host without them ('docker compose -p $SVC_PROJECT down' keeps the volumes)"
fi
for v in "${SVC_VOLUMES[@]}"; do
  if docker volume inspect "$v" >/dev/null 2>&1; then
    die "volume $v exists: restore goes into fresh volumes only. Nothing here removes a volume; restore on another host, or remove the old volumes yourself once you no longer need them"
  fi
done
check_ports_free
check_images
ensure_volumes
# Restored, not seeded: the administrator and passwords are the backup's.
SVC_FIRST_START=0

server_image=$(compose config --images | grep '^svc/server:') || die "compose.yaml names no svc/server image"
info "unpacking the files into $SVC_SERVER_VOLUME"
docker run --rm -i --network none --user 0 -v "$SVC_SERVER_VOLUME:/data" --entrypoint tar "$server_image" \
  --numeric-owner -xpf - -C /data <"$work/server-data.tar" || die "unpacking the files failed"

info "starting svc_db on the new svc_db_data volume"
compose up -d --no-build svc_db || die "compose could not start svc_db"
wait_db_healthy
db_cid=$(compose ps -q svc_db)
info "loading the database dump"
# shellcheck disable=SC2016 # expanded inside the container, where the password is
docker exec -i "$db_cid" sh -c 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" exec mysql -uroot' <"$work/db.sql" ||
  die "loading the dump failed (see the message above); svc_db runs with what was loaded so far"

start_services
info "restored from $archive"
