#!/usr/bin/env bats
# deploy/build-images.sh against the stand-in docker: compose build of the two svc images with
# the version tag, pull of what is missing, `docker save | gzip` written whole or not at all.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

setup() {
  setup_package
  # A repository checkout, not a release package: the Dockerfiles are there.
  mkdir -p "$PKG/server" "$PKG/web"
  : >"$PKG/server/Dockerfile"
  : >"$PKG/web/Dockerfile"
}

build() { run "$PKG/deploy/build-images.sh" "$@"; }

# Nothing built, pulled or saved, and no archive (whole or partial) written.
refute_built() {
  refute_called 'compose .* build'
  refute_called '^docker (pull|save)'
  [[ ! -e $PKG/svc-images.tar.gz ]] || fail_with "an archive was written"
  [[ -z $(find "$PKG" -name '*.partial.*') ]] || fail_with "a partial archive was left behind"
}

@test "builds both images with the version tag and saves all three into the default archive" {
  build 1.4.0
  assert_status 0
  assert_called 'compose .* build svc_server svc_web$'
  assert_called '^  env SVC_VERSION=1.4.0$'
  assert_called '^docker save mysql:8.4 svc/server:1.4.0 svc/web:1.4.0$'
  [[ $(gzip -dc "$PKG/svc-images.tar.gz") == "stub-archive: mysql:8.4 svc/server:1.4.0 svc/web:1.4.0" ]] ||
    fail_with "archive content: $(gzip -dc "$PKG/svc-images.tar.gz")"
  [[ -z $(find "$PKG" -name '*.partial.*') ]] || fail_with "a partial archive was left behind"
  assert_output_has "image archive written: $PKG/svc-images.tar.gz"
  assert_output_has "svc/server:1.4.0  sha256:stub-svc/server:1.4.0"
  assert_output_has "export SVC_VERSION=1.4.0"
  # Present images are not pulled; nothing is started.
  refute_called '^docker pull'
  refute_called 'compose .* up'
  assert_secret_kept
}

@test "SVC_VERSION works as the version; IMAGE_ARCHIVE moves the archive" {
  export SVC_VERSION=2.0.1 IMAGE_ARCHIVE="$BATS_TEST_TMPDIR/media/release.tar.gz"
  mkdir -p "$BATS_TEST_TMPDIR/media"
  build
  assert_status 0
  assert_called '^docker save mysql:8.4 svc/server:2.0.1 svc/web:2.0.1$'
  gzip -t "$IMAGE_ARCHIVE" || fail_with "no gzip archive at IMAGE_ARCHIVE"
  [[ ! -e $PKG/svc-images.tar.gz ]] || fail_with "the default archive was written too"
}

@test "the archive is what load-and-start.sh loads by default" {
  build 1.4.0
  assert_status 0
  export SVC_VERSION=1.4.0
  run "$PKG/deploy/load-and-start.sh"
  assert_status 0
  assert_called "^docker load -i $PKG/svc-images.tar.gz$"
  assert_output_has "images present: mysql:8.4 svc/server:1.4.0 svc/web:1.4.0"
}

@test "no DB_ROOT_PASSWORD needed to build" {
  unset DB_ROOT_PASSWORD
  build 1.4.0
  assert_status 0
  gzip -t "$PKG/svc-images.tar.gz" || fail_with "no archive"
}

@test "a missing mysql image is pulled before the save" {
  export STUB_IMAGES_MISSING="mysql:8.4"
  build 1.4.0
  assert_status 0
  assert_called '^docker pull mysql:8.4$'
  pull_line=$(grep -n '^docker pull' "$STUB_LOG" | cut -d: -f1)
  save_line=$(grep -n '^docker save' "$STUB_LOG" | cut -d: -f1)
  ((pull_line < save_line)) || fail_with "pull did not come before save"
}

@test "pull failure: non-zero, no archive" {
  export STUB_IMAGES_MISSING="mysql:8.4" STUB_PULL_FAIL=1
  build 1.4.0
  assert_failure
  assert_output_has "could not pull mysql:8.4"
  refute_called '^docker save'
  [[ ! -e $PKG/svc-images.tar.gz ]] || fail_with "an archive was written"
}

@test "missing, malformed or 'latest' version: refused before any docker call" {
  build
  assert_failure
  assert_output_has "usage: deploy/build-images.sh <version>"
  build "1.4 beta"
  assert_failure
  assert_output_has "the version must be an image tag"
  build -x
  assert_failure
  assert_output_has "the version must be an image tag"
  build latest
  assert_failure
  assert_output_has "a release needs its own version tag"
  [[ ! -s $STUB_LOG ]] || fail_with "docker was called"
  refute_built
}

@test "outside a repository checkout (no Dockerfiles): clear message" {
  rm "$PKG/server/Dockerfile"
  build 1.4.0
  assert_failure
  assert_output_has "build from the repository, not from a release package"
  refute_built
}

@test "build failure: non-zero, an existing archive is left as it was" {
  echo "previous release" | gzip >"$PKG/svc-images.tar.gz"
  export STUB_BUILD_FAIL=1
  build 1.4.0
  assert_failure
  assert_output_has "the image build failed"
  refute_called '^docker save'
  [[ $(gzip -dc "$PKG/svc-images.tar.gz") == "previous release" ]] || fail_with "the existing archive changed"
}

@test "save failure: non-zero, no partial archive, an existing archive is left as it was" {
  echo "previous release" | gzip >"$PKG/svc-images.tar.gz"
  export STUB_SAVE_FAIL=1
  build 1.4.0
  assert_failure
  assert_output_has "docker save failed"
  [[ $(gzip -dc "$PKG/svc-images.tar.gz") == "previous release" ]] || fail_with "the existing archive changed"
  [[ -z $(find "$PKG" -name '*.partial.*') ]] || fail_with "a partial archive was left behind"
}

@test "engine unreachable: clear message, nothing built" {
  export STUB_ENGINE=down
  build 1.4.0
  assert_failure
  assert_output_has "cannot reach the container engine"
  refute_built
}
