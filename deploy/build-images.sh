#!/usr/bin/env bash
# Builds the release images from the repository and writes the image archive that
# deploy/load-and-start.sh loads:
#   deploy/build-images.sh <version>                  # e.g. deploy/build-images.sh 1.4.0
#   IMAGE_ARCHIVE=/media/release/svc-images.tar.gz deploy/build-images.sh 1.4.0
# Builds svc/server:<version> and svc/web:<version> with compose.yaml's build sections
# (`docker compose build`), pulls the other images compose.yaml names (mysql:8.4) when they are
# not present, then writes `docker save <all three> | gzip` to IMAGE_ARCHIVE (default:
# svc-images.tar.gz in the package directory, where load-and-start.sh looks). The archive is
# replaced only once it is complete. The site then runs
#   SVC_VERSION=<version> deploy/load-and-start.sh
# Needs the container engine with Compose v2 and gzip; no password is involved.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SVC_VERSION=${1:-${SVC_VERSION:-}}
[[ -n $SVC_VERSION ]] ||
  die "usage: deploy/build-images.sh <version>   (the release's image tag, e.g. 1.4.0; the handover record names it)"
[[ $SVC_VERSION =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] ||
  die "the version must be an image tag (letters, digits, '_', '.', '-'; at most 128), got '$SVC_VERSION'"
[[ $SVC_VERSION != latest ]] ||
  die "a release needs its own version tag: 'latest' is what an unset SVC_VERSION means on the site and names no release"
export SVC_VERSION
IMAGE_ARCHIVE=${IMAGE_ARCHIVE:-$SVC_PKG_DIR/svc-images.tar.gz}

[[ -f $SVC_COMPOSE_FILE ]] || die "compose.yaml not found at $SVC_COMPOSE_FILE"
[[ -f $SVC_PKG_DIR/server/Dockerfile && -f $SVC_PKG_DIR/web/Dockerfile ]] ||
  die "server/Dockerfile and web/Dockerfile not found in $SVC_PKG_DIR: build from the repository, not from a release package"
command -v gzip >/dev/null 2>&1 || die "'gzip' not found: it compresses the archive"
[[ -d $(dirname "$IMAGE_ARCHIVE") ]] || die "directory of IMAGE_ARCHIVE does not exist: $(dirname "$IMAGE_ARCHIVE")"
check_engine
# compose stops on the required DB_ROOT_PASSWORD for every command; building never reads it.
allow_read_only_compose

listed=$(compose config --images) || die "compose.yaml could not be read (see the message above)"
mapfile -t images <<<"$listed"
for img in "svc/server:$SVC_VERSION" "svc/web:$SVC_VERSION"; do
  [[ " ${images[*]} " == *" $img "* ]] ||
    die "compose.yaml does not name $img (it names: ${images[*]}); the archive would not match it"
done

info "building svc/server:$SVC_VERSION and svc/web:$SVC_VERSION from $SVC_PKG_DIR"
compose build svc_server svc_web || die "the image build failed (see the messages above); no archive was written"

for img in "${images[@]}"; do
  if ! docker image inspect "$img" >/dev/null 2>&1; then
    info "pulling $img"
    docker pull "$img" || die "could not pull $img (registry access is needed once); no archive was written"
  fi
done

partial="$IMAGE_ARCHIVE.partial.$$"
trap 'rm -f "$partial"' EXIT
info "writing ${images[*]} to $IMAGE_ARCHIVE"
docker save "${images[@]}" | gzip >"$partial" || die "docker save failed; $IMAGE_ARCHIVE was not changed"
mv -f "$partial" "$IMAGE_ARCHIVE"

info ""
info "image archive written: $IMAGE_ARCHIVE ($(du -h "$IMAGE_ARCHIVE" | cut -f1))"
for img in "${images[@]}"; do
  info "  $img  $(docker image inspect --format '{{.Id}}' "$img" 2>/dev/null || echo '?')"
done
if command -v sha256sum >/dev/null 2>&1; then info "  sha256 $(sha256sum "$IMAGE_ARCHIVE" | cut -d' ' -f1)"; fi
info "Record the release $SVC_VERSION, these image ids and the checksum in the handover record."
info "On the site: export SVC_VERSION=$SVC_VERSION, then deploy/load-and-start.sh"
