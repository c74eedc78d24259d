#!/usr/bin/env bash
# Loads the release images, then starts svc exactly as deploy/start.sh does.
# The archive is svc-images.tar.gz in the package directory (the parent of deploy/, beside
# compose.yaml), or the file named by IMAGE_ARCHIVE.
#   read -rs DB_ROOT_PASSWORD && export DB_ROOT_PASSWORD
#   deploy/load-and-start.sh            # or IMAGE_ARCHIVE=/path/svc-images.tar.gz deploy/load-and-start.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

IMAGE_ARCHIVE=${IMAGE_ARCHIVE:-$SVC_PKG_DIR/svc-images.tar.gz}

preflight
check_running_db_passwords
[[ -f $IMAGE_ARCHIVE && -r $IMAGE_ARCHIVE ]] ||
  die "image archive not found or not readable: $IMAGE_ARCHIVE (put svc-images.tar.gz in $SVC_PKG_DIR or set IMAGE_ARCHIVE)"
# Before the load: loading the archive takes minutes, and a busy port should stop the start at once.
check_ports_free
info "loading images from $IMAGE_ARCHIVE"
docker load -i "$IMAGE_ARCHIVE" || die "docker load failed for $IMAGE_ARCHIVE"

check_images
ensure_volumes
start_services
