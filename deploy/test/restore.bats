#!/usr/bin/env bats
# deploy/restore.sh against the stand-in docker: a backup goes into fresh volumes, and the start
# that follows is not a first start (the administrator and passwords are the backup's).
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

setup() {
  setup_package
  local w=$BATS_TEST_TMPDIR/backup f
  mkdir -p "$w"
  echo '-- Dump completed' >"$w/db.sql"
  tar -cf "$w/server-data.tar" -C "$w" db.sql
  {
    echo "svc backup"
    echo "created: 2026-11-28T00:00:00Z"
    echo "server_image: svc/server:1.0.0"
    echo "db_database: face_tp"
    for f in db.sql server-data.tar; do
      echo "file: $f $(wc -c <"$w/$f") $(sha256sum "$w/$f" | cut -d' ' -f1)"
    done
  } >"$w/MANIFEST"
  ARCHIVE=$BATS_TEST_TMPDIR/svc-backup.tar.gz
  tar -czf "$ARCHIVE" -C "$w" MANIFEST db.sql server-data.tar
}

@test "restore: fresh volumes, the dump loaded, no first-start password message" {
  run "$PKG/deploy/restore.sh" "$ARCHIVE"
  assert_status 0
  assert_output_has "restored from $ARCHIVE"
  assert_called 'volume create .*svc_db_data'
  assert_called 'volume create .*svc_server_data'
  # The files volume is new here, but it holds the backup's files: no seeded administrator.
  refute_output_has "change the seeded administrator's password"
  refute_output_has "initial-admin-password"
  assert_output_has "Next: run deploy/status.sh."
  assert_secret_kept
}

@test "restore: an existing volume is refused before anything changes" {
  echo svc_server_data >>"$STUB_STATE_DIR/volumes"
  run "$PKG/deploy/restore.sh" "$ARCHIVE"
  assert_failure
  assert_output_has "volume svc_server_data exists: restore goes into fresh volumes only"
  refute_started
}
