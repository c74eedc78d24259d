#!/usr/bin/env bash
# Starts svc when its images are already loaded (deploy/load-and-start.sh loads them first).
# Reads every parameter from the current shell environment; DB_ROOT_PASSWORD must be exported.
#   read -rs DB_ROOT_PASSWORD && export DB_ROOT_PASSWORD
#   deploy/start.sh
# Steps: checks (password, tools, discovery address, free ports), images present, external
# data volumes created when missing (never removed or cleared), svc_db up and healthy, then
# all services, then GET /api/heartbeat through the Web port. Exits non-zero on any failure.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

preflight
check_running_db_passwords
check_ports_free
check_images
ensure_volumes
start_services
