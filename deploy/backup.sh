#!/usr/bin/env bash
# Backs up a running svc into one dated archive, without stopping it:
#   deploy/backup.sh [directory]        # default: the current directory
# writes <directory>/svc-backup-<UTC date and time>.tar.gz (mode 0600) holding
#   db.sql           a consistent dump of the database (mysqldump --single-transaction: one
#                    snapshot of every InnoDB table, taken while the service keeps writing)
#   server-data.tar  the svc_server_data volume: photos, snapshots, the device-key secret
#   MANIFEST         release, database image and name, date, sizes and SHA-256 of both files
# The dump is taken first, so every file the dump names is in the archive (a file written
# afterwards may be there too, unreferenced; the service ignores it). The password is read
# inside svc_db's container; no password is needed here and none is printed. Restore with
# deploy/restore.sh on fresh volumes (docs/operations.md, "Backups").
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out_dir=${1:-.}
[[ -d $out_dir && -w $out_dir ]] || die "backup directory not found or not writable: $out_dir"
out_dir=$(cd "$out_dir" && pwd -P)
check_engine
allow_read_only_compose

db_cid=$(compose ps -q svc_db 2>/dev/null) || db_cid=""
server_cid=$(compose ps -q svc_server 2>/dev/null) || server_cid=""
[[ -n $db_cid && -n $server_cid ]] || die "svc is not running (no svc_db or svc_server container): start it first; the backup is taken from the running service"
read -r db_status _ db_health <<<"$(container_state "$db_cid")"
[[ $db_status == running && $db_health == healthy ]] || die "svc_db is not running and healthy (state: $db_status, health: $db_health)"
server_image=$(docker inspect --format '{{.Config.Image}}' "$server_cid") || die "cannot read svc_server's image"
db_image=$(docker inspect --format '{{.Config.Image}}' "$db_cid") || die "cannot read svc_db's image"

umask 077
stamp=$(date -u +%Y%m%d-%H%M%S)
archive="$out_dir/svc-backup-$stamp.tar.gz"
[[ ! -e $archive ]] || die "$archive exists already"
work=$(mktemp -d "$out_dir/.svc-backup-$stamp.XXXXXX")
trap 'rm -rf "$work"' EXIT

info "dumping the database (one consistent snapshot; svc keeps running)"
# shellcheck disable=SC2016 # expanded inside the container, where the password is
docker exec "$db_cid" sh -c 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" exec mysqldump -uroot --single-transaction --quick --routines --events --triggers --hex-blob --databases "$MYSQL_DATABASE"' \
  >"$work/db.sql" || die "the database dump failed (see the message above); no archive was written"
grep -q '^-- Dump completed' "$work/db.sql" || die "the database dump is incomplete; no archive was written"
db_name=$(docker exec "$db_cid" sh -c 'printf %s "$MYSQL_DATABASE"')

info "copying the svc_server_data volume (read-only mount, $server_image)"
docker run --rm --network none -v "$SVC_SERVER_VOLUME:/data:ro" --entrypoint tar "$server_image" \
  -cf - -C /data . >"$work/server-data.tar" || die "copying svc_server_data failed; no archive was written"

{
  echo "svc backup"
  echo "created: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "server_image: $server_image"
  echo "db_image: $db_image"
  echo "db_database: $db_name"
  for f in db.sql server-data.tar; do
    echo "file: $f $(wc -c <"$work/$f") $(sha256sum "$work/$f" | cut -d' ' -f1)"
  done
} >"$work/MANIFEST"

tar -czf "$work/archive.tar.gz" -C "$work" MANIFEST db.sql server-data.tar
mv "$work/archive.tar.gz" "$archive"
info "backup written: $archive ($(du -h "$archive" | cut -f1)); it holds personal data: keep it in the controlled location"
