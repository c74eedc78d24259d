#!/usr/bin/env bash
# Read-only status of svc: the compose service listing, restart counts and health of the three
# services, then HTTP GET (failing on non-success) on /api/heartbeat, /api/device/online-count
# and /api/discovery/nodes at http://127.0.0.1:${WEB_PORT:-80} (svc_web on the host network,
# which forwards /api/ to svc_server on 127.0.0.1:8000). Exits non-zero if any layer fails.
# Also warns, without failing, when svc_server or svc_web is not on the host network.
# Changes nothing; DB_ROOT_PASSWORD is not needed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check_parameters
check_tools
allow_read_only_compose

failed=0
declare -A result

info "== Services (compose project $SVC_PROJECT)"
compose ps -a || failed=1
info ""
services_ok=1
for svc in "${SVC_SERVICES[@]}"; do
  cid=$(compose ps -a -q "$svc" 2>/dev/null) || cid=""
  if [[ -z $cid ]]; then
    info "$svc: no container"
    services_ok=0
    continue
  fi
  state=$(container_state "$cid") || state="unknown 0 unknown"
  read -r status restarts health <<<"$state"
  verdict=ok
  if [[ $status != running ]]; then
    verdict="FAIL (not running)"
  elif [[ $health != healthy && $health != none ]]; then
    verdict="FAIL (health $health)"
  elif [[ ! $restarts =~ ^[0-9]+$ ]] || ((restarts > SVC_MAX_RESTARTS)); then
    verdict="FAIL (repeated restarts; more than SVC_MAX_RESTARTS=$SVC_MAX_RESTARTS)"
  fi
  info "$svc: state $status, health $health, restarts $restarts -> $verdict"
  [[ $verdict == ok ]] || services_ok=0
  if [[ " ${SVC_HOST_NETWORK_SERVICES[*]} " == *" $svc "* ]]; then
    mode=$(container_network_mode "$cid") || mode=unknown
    if [[ $mode != host ]]; then
      warn "$svc is on network '$mode', not the host network as compose.yaml has it: terminals would be recorded at a gateway address and the Web port may bypass the host firewall (docs/operations.md, \"Network layout\")"
    fi
  fi
done
if ((services_ok)); then result[services]=OK; else result[services]=FAIL; failed=1; fi

base="http://127.0.0.1:$WEB_PORT"
info ""
info "== HTTP checks at $base"
get() { # path -> body on stdout; non-zero on any non-success
  curl -fsS --max-time 10 "$base$1" 2>&1
}

if body=$(get /api/heartbeat) && heartbeat_ok "$body"; then
  result[heartbeat]=OK
  info "GET /api/heartbeat: ${body:0:400}"
else
  result[heartbeat]=FAIL
  failed=1
  info "GET /api/heartbeat failed or state is not 1: ${body:0:400}"
fi

if body=$(get /api/device/online-count); then
  count=$(grep -Eo '"count"[[:space:]]*:[[:space:]]*[0-9]+' <<<"$body" | grep -Eo '[0-9]+$' || true)
  result[online]="OK (${count:-?} online recognition devices)"
  info "GET /api/device/online-count: ${body:0:400}"
else
  result[online]=FAIL
  failed=1
  info "GET /api/device/online-count failed: ${body:0:400}"
fi

if body=$(get /api/discovery/nodes); then
  nodes=$(grep -Eo '"id"[[:space:]]*:' <<<"$body" | grep -c . || true)
  result[nodes]="OK ($nodes discovered nodes)"
  info "GET /api/discovery/nodes: ${body:0:1000}"
else
  result[nodes]=FAIL
  failed=1
  info "GET /api/discovery/nodes failed: ${body:0:400}"
fi

info ""
info "== Summary"
printf '%-34s %s\n' \
  "Services (running, healthy, stable)" "${result[services]}" \
  "Central service /api/heartbeat" "${result[heartbeat]}" \
  "/api/device/online-count" "${result[online]}" \
  "/api/discovery/nodes" "${result[nodes]}"
info "Each check validates one layer only; login, data, synchronization and recognition"
info "acceptance are separate (docs/operations.md). Discovered nodes and online recognition"
info "devices are different counts."
if ((failed)); then
  error "at least one check failed"
  exit 1
fi
info "all checks passed"
