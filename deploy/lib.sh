# shellcheck shell=bash
# Shared functions for deploy/load-and-start.sh, deploy/start.sh and deploy/status.sh.
# Sourced, never run. Every parameter is read from the environment (deploy/example.env lists
# them); nothing is written to disk, and DB_ROOT_PASSWORD is never printed or put on a command
# line: compose reads it from the environment it inherits.

# Tracing (bash -x) would print DB_ROOT_PASSWORD wherever it is expanded.
set +x

# ---- layout ---------------------------------------------------------------------------------
# The package directory is the parent of deploy/. In the repository that is the repository
# root; in a release package it is the unpacked package:
#   <package>/compose.yaml
#   <package>/svc-images.tar.gz      (default IMAGE_ARCHIVE)
#   <package>/deploy/*.sh
SVC_DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SVC_PKG_DIR=$(cd "$SVC_DEPLOY_DIR/.." && pwd -P)
SVC_COMPOSE_FILE="$SVC_PKG_DIR/compose.yaml"
# The compose project and the prefix of its data volumes. A site keeps `svc`; another name is a
# second installation on the same engine with volumes of its own (the engine test uses one).
SVC_PROJECT=${SVC_PROJECT:-svc}
[[ $SVC_PROJECT =~ ^[a-z0-9][a-z0-9_-]{0,39}$ ]] ||
  { printf 'ERROR: SVC_PROJECT must be lower-case letters, digits, "_" or "-" (at most 40), got %s\n' "'$SVC_PROJECT'" >&2 && exit 1; }
# compose.yaml names the volumes from it.
export SVC_PROJECT
# shellcheck disable=SC2034 # used by status.sh
SVC_SERVICES=(svc_db svc_server svc_web)
# Services compose.yaml runs on the host network (see the top of compose.yaml).
# shellcheck disable=SC2034 # used by status.sh
SVC_HOST_NETWORK_SERVICES=(svc_server svc_web)
SVC_VOLUMES=("${SVC_PROJECT}_db_data" "${SVC_PROJECT}_server_data")
SVC_SERVER_VOLUME=${SVC_PROJECT}_server_data

# Defaults equal to compose.yaml's; used for checks and URLs only, never exported.
WEB_PORT=${WEB_PORT:-80}
DB_PORT=${DB_PORT:-3306}
DISCOVERY_PORT=${DISCOVERY_PORT:-20785}
WEB_HTTPS_PORT=${WEB_HTTPS_PORT:-443}
# svc_server's HTTP port on the host's loopback (compose.yaml: HTTP_PORT, svc_web's upstream and
# the healthcheck): svc_server and svc_web use the host network.
SVC_SERVER_HTTP_PORT=${SERVER_HTTP_PORT:-8000}
# svc_server's own database account (compose.yaml creates it on a fresh volume).
SVC_DB_USER=${DB_USER:-svc}
SVC_DB_DATABASE=${DB_DATABASE:-face_tp}

# Bounded waits: tries x interval seconds.
SVC_POLL_INTERVAL=${SVC_POLL_INTERVAL:-3}
SVC_DB_WAIT_TRIES=${SVC_DB_WAIT_TRIES:-60}
SVC_HEARTBEAT_TRIES=${SVC_HEARTBEAT_TRIES:-20}
# status.sh: more restarts than this is "repeated restarts".
SVC_MAX_RESTARTS=${SVC_MAX_RESTARTS:-1}
SVC_LOG_TAIL=${SVC_LOG_TAIL:-30}

# ---- messages -------------------------------------------------------------------------------
info() { printf '%s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
error() { printf 'ERROR: %s\n' "$*" >&2; }
die() {
  error "$@"
  exit 1
}

# Copies stdin to stdout with the secrets of this environment replaced, in case a log line
# ever carries one. Done in bash so the value never becomes a process argument.
redact() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ -n ${DB_ROOT_PASSWORD:-} ]]; then line=${line//"$DB_ROOT_PASSWORD"/[redacted]}; fi
    if [[ -n ${DB_PASSWORD:-} ]]; then line=${line//"$DB_PASSWORD"/[redacted]}; fi
    if [[ -n ${ADMIN_INITIAL_PASSWORD:-} ]]; then line=${line//"$ADMIN_INITIAL_PASSWORD"/[redacted]}; fi
    printf '%s\n' "$line"
  done
}

# ---- compose --------------------------------------------------------------------------------
compose() {
  docker compose -p "$SVC_PROJECT" -f "$SVC_COMPOSE_FILE" "$@"
}

# compose interpolates the whole file for every command, ps and logs included, and stops on the
# required DB_ROOT_PASSWORD. Read-only commands never create or change a container, so for them
# a stand-in is enough when the operator has not exported the real value.
SVC_READ_ONLY_STAND_IN="not-used-by-read-only-commands"
allow_read_only_compose() {
  if [[ -z ${DB_ROOT_PASSWORD:-} ]]; then
    DB_ROOT_PASSWORD=$SVC_READ_ONLY_STAND_IN
    export DB_ROOT_PASSWORD
  fi
  if [[ -z ${DB_PASSWORD:-} ]]; then
    DB_PASSWORD=$SVC_READ_ONLY_STAND_IN
    export DB_PASSWORD
  fi
}

show_logs() { # service
  info "---- last $SVC_LOG_TAIL log lines of $1 ----"
  compose logs --no-color --tail "$SVC_LOG_TAIL" "$1" 2>&1 | redact || true
  info "---- end of $1 log ----"
}

# Prints "<status> <restart count> <health>" of a container id; health is "none" without a
# healthcheck.
container_state() {
  docker inspect --format \
    '{{.State.Status}} {{.RestartCount}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' \
    "$1"
}

# Prints the network mode of a container id: "host" on the host network, else the network's name.
container_network_mode() {
  docker inspect --format '{{.HostConfig.NetworkMode}}' "$1"
}

# ---- checks ---------------------------------------------------------------------------------
require_db_password() {
  if [[ -z ${DB_ROOT_PASSWORD:-} ]]; then
    die "DB_ROOT_PASSWORD is not set. Export it in this shell first, without echoing it, e.g.
         read -rs DB_ROOT_PASSWORD && export DB_ROOT_PASSWORD
       If the svc_db_data volume already exists, it must be the password that volume was
       initialized with. It is never stored in a file by these scripts."
  fi
  if [[ -z ${DB_PASSWORD:-} ]]; then
    die "DB_PASSWORD is not set. It is the password of svc_server's own database account
       ('$SVC_DB_USER', rights on $SVC_DB_DATABASE only; the root password stays with the
       database and the scripts). Export it in this shell first, without echoing it, e.g.
         read -rs DB_PASSWORD && export DB_PASSWORD
       On a volume from before that account, this start creates it with this password."
  fi
  [[ $DB_PASSWORD != "$DB_ROOT_PASSWORD" ]] ||
    die "DB_PASSWORD must differ from DB_ROOT_PASSWORD: svc_server's account must not open the root account"
}

check_port_value() { # name value
  if [[ ! $2 =~ ^[0-9]{1,5}$ ]] || ((10#$2 < 1 || 10#$2 > 65535)); then
    die "$1 must be a port number (1-65535), got '$2'"
  fi
}

# HTTPS is on when both files are named (compose.yaml mounts them into svc_web).
tls_configured() { [[ -n ${WEB_TLS_CERT:-} || -n ${WEB_TLS_KEY:-} ]]; }

check_tls() {
  tls_configured || return 0
  [[ -n ${WEB_TLS_CERT:-} && -n ${WEB_TLS_KEY:-} ]] ||
    die "HTTPS needs both WEB_TLS_CERT and WEB_TLS_KEY (one is set): name the certificate and its key, or neither for plain HTTP"
  local f
  for f in "$WEB_TLS_CERT" "$WEB_TLS_KEY"; do
    [[ $f == /* ]] || die "WEB_TLS_CERT and WEB_TLS_KEY must be absolute paths on this host, got '$f'"
    [[ -f $f && -s $f && -r $f ]] || die "TLS file not found, empty or not readable: $f"
  done
  check_port_value WEB_HTTPS_PORT "$WEB_HTTPS_PORT"
  if ((10#$WEB_HTTPS_PORT == 10#$WEB_PORT || 10#$WEB_HTTPS_PORT == 10#$DB_PORT || 10#$WEB_HTTPS_PORT == 10#$SVC_SERVER_HTTP_PORT)); then
    die "WEB_HTTPS_PORT ($WEB_HTTPS_PORT) must differ from WEB_PORT, DB_PORT and SERVER_HTTP_PORT ($SVC_SERVER_HTTP_PORT): all are bound on this host"
  fi
  info "HTTPS on $WEB_HTTPS_PORT with $WEB_TLS_CERT; HTTP on $WEB_PORT redirects (machine endpoints excepted)"
}

check_parameters() {
  check_port_value WEB_PORT "$WEB_PORT"
  check_port_value DB_PORT "$DB_PORT"
  check_port_value DISCOVERY_PORT "$DISCOVERY_PORT"
  check_port_value SERVER_HTTP_PORT "$SVC_SERVER_HTTP_PORT"
  [[ $SVC_DB_USER =~ ^[A-Za-z0-9_]{1,32}$ && $SVC_DB_USER != root ]] ||
    die "DB_USER must be 1 to 32 letters, digits or underscores, and not root, got '$SVC_DB_USER'"
  [[ $SVC_DB_DATABASE =~ ^[A-Za-z0-9_]{1,64}$ ]] ||
    die "DB_DATABASE must be 1 to 64 letters, digits or underscores, got '$SVC_DB_DATABASE'"
  # All three TCP ports are bound on the host itself (host network, loopback mapping), so they
  # must differ from each other.
  if ((10#$WEB_PORT == 10#$SVC_SERVER_HTTP_PORT || 10#$DB_PORT == 10#$SVC_SERVER_HTTP_PORT)); then
    die "WEB_PORT and DB_PORT must not be $SVC_SERVER_HTTP_PORT: svc_server's HTTP listens on 127.0.0.1:$SVC_SERVER_HTTP_PORT of this host (SERVER_HTTP_PORT)"
  fi
  if ((10#$WEB_PORT == 10#$DB_PORT)); then
    die "WEB_PORT and DB_PORT must differ (both are $WEB_PORT): both are bound on this host"
  fi
  [[ -f $SVC_COMPOSE_FILE ]] || die "compose.yaml not found at $SVC_COMPOSE_FILE (the scripts expect it in the package directory $SVC_PKG_DIR)"
  check_tls
}

# The container engine client and daemon, and Compose v2.
check_engine() {
  command -v docker >/dev/null 2>&1 ||
    die "container engine client 'docker' not found: install Docker Engine with the Compose v2 plugin"
  docker info --format '{{.ServerVersion}}' >/dev/null 2>&1 ||
    die "cannot reach the container engine ('docker info' failed): is the daemon running, and may this user use it (root or the docker group)?"
  local version major
  if ! version=$(docker compose version --short 2>/dev/null) || [[ -z $version ]]; then
    if command -v docker-compose >/dev/null 2>&1; then
      die "'docker compose' (Compose v2) not found; only the old docker-compose v1 is installed, which these scripts do not use. Install the Compose v2 plugin (docker-compose-plugin)."
    fi
    die "'docker compose' (Compose v2) not found: install the Compose v2 plugin (docker-compose-plugin)"
  fi
  version=${version#v}
  major=${version%%.*}
  if [[ ! $major =~ ^[0-9]+$ ]] || ((major < 2)); then
    die "Compose v2 or later is required, 'docker compose version' says $version"
  fi
  info "container engine reachable; compose $version"
}

check_tools() {
  check_engine
  command -v curl >/dev/null 2>&1 || die "HTTP client 'curl' not found: it is needed for the heartbeat check"
}

# ---- discovery address ----------------------------------------------------------------------
# Host interfaces that terminals might reach: global IPv4 addresses, less the bridges and veths
# of container engines and hypervisors. Prints "<interface> <address>" lines.
lan_addresses() {
  command -v ip >/dev/null 2>&1 || return 0
  ip -o -4 addr show scope global 2>/dev/null |
    awk '{ sub(/@.*/, "", $2); split($4, a, "/"); print $2, a[1] }' |
    grep -Ev '^(docker[0-9]*|br-[0-9a-f]+|veth[^ ]*|virbr[0-9]*|cni[0-9]*|flannel[^ ]*|cali[^ ]*|podman[0-9]*|lxcbr[0-9]*|lxdbr[0-9]*) ' ||
    true
}

# Prints the kind of virtualization this host runs in ("none" on bare metal).
virtualization() {
  if command -v systemd-detect-virt >/dev/null 2>&1; then
    systemd-detect-virt 2>/dev/null || true
    return 0
  fi
  if [[ -e /.dockerenv || -e /run/.containerenv ]]; then
    echo container
  elif grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
    echo vm
  else
    echo none
  fi
}

is_loopback_host() {
  [[ $1 == localhost || $1 == 127.* || $1 == '::1' || $1 == '[::1]' ]]
}

# DISCOVERY_HTTP_BASE_URL is advertised to terminals as is, so its shape is checked:
# http://<host>[:<web_port>], nothing after the authority but an optional "/".
check_base_url() {
  local url=$1 host port
  [[ $url =~ ^http://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:([0-9]{1,5}))?/?$ ]] ||
    die "DISCOVERY_HTTP_BASE_URL must look like http://<host>:<web_port> (e.g. http://192.0.2.10:$WEB_PORT), got '$url'"
  host=${BASH_REMATCH[1]}
  port=${BASH_REMATCH[4]:-80}
  if ((10#$port != 10#$WEB_PORT)); then
    warn "DISCOVERY_HTTP_BASE_URL uses port $port but WEB_PORT is $WEB_PORT: terminals will call $url; make sure that reaches this host's Web port"
  fi
  if is_loopback_host "$host"; then
    warn "DISCOVERY_HTTP_BASE_URL names a loopback host ($host): terminals cannot reach it (single-host tests only)"
  fi
}

# Checks the DISCOVERY_* values given and warns (never fails) where the address terminals must
# use cannot be known safely. DISCOVERY_HOST is never filled in: svc_server runs on the host
# network, sees the host's interfaces and advertises its address on each terminal's subnet
# (docs/discovery.md), which also follows a changed DHCP lease. On a host with exactly one LAN
# address that address is only shown (SVC_LAN_ADDRESS), for the operator and the final message.
SVC_LAN_ADDRESS=""
check_discovery() {
  local addrs count virt
  addrs=$(lan_addresses)
  count=$(printf '%s' "$addrs" | grep -c . || true)
  virt=$(virtualization)

  if [[ -n ${DISCOVERY_HTTP_BASE_URL:-} ]]; then check_base_url "$DISCOVERY_HTTP_BASE_URL"; fi
  if [[ -n ${DISCOVERY_HOST:-} ]]; then
    if is_loopback_host "$DISCOVERY_HOST"; then
      warn "DISCOVERY_HOST is a loopback address ($DISCOVERY_HOST): terminals cannot reach it (single-host tests only)"
    elif [[ $count -gt 0 ]] && ! printf '%s\n' "$addrs" | awk '{print $2}' | grep -qxF -- "$DISCOVERY_HOST"; then
      warn "DISCOVERY_HOST $DISCOVERY_HOST is not an address of this host's interfaces (fine only if a NAT or DNS name maps it here)"
    fi
  fi
  if [[ -n ${DISCOVERY_HOST:-} && -n ${DISCOVERY_HTTP_BASE_URL:-} ]]; then return 0; fi

  local unset_names=()
  [[ -n ${DISCOVERY_HOST:-} ]] || unset_names+=(DISCOVERY_HOST)
  [[ -n ${DISCOVERY_HTTP_BASE_URL:-} ]] || unset_names+=(DISCOVERY_HTTP_BASE_URL)
  if ((count > 1)) || [[ $virt != none ]]; then
    local where="$count LAN addresses"
    [[ $virt == none ]] || where+=", inside virtualization '$virt'"
    warn "${unset_names[*]} not set on a host with $where.
         svc_server advertises the address of its interface on each terminal's subnet; where
         terminals reach this host at another address (a VM behind NAT or port forwarding,
         routed terminal networks) they would be told one they cannot reach. Set them, e.g.
           export DISCOVERY_HOST=<address terminals reach>
           export DISCOVERY_HTTP_BASE_URL=http://<that address>:$WEB_PORT
         Addresses seen:
$(printf '%s\n' "$addrs" | sed 's/^/           /')"
    return 0
  fi
  if ((count == 0)); then
    warn "${unset_names[*]} not set and no LAN address found on this host: set them explicitly so terminals can reach the service"
    return 0
  fi
  if [[ -z ${DISCOVERY_HOST:-} ]]; then
    SVC_LAN_ADDRESS=$(printf '%s\n' "$addrs" | awk 'NR == 1 {print $2}')
    info "DISCOVERY_HOST not set: svc_server advertises its own address on the terminals' subnet; this host's only LAN address is $SVC_LAN_ADDRESS"
  fi
}

# ---- ports ----------------------------------------------------------------------------------
port_listeners() { # tcp|udp port
  local flag=-Hlnt
  [[ $1 == udp ]] && flag=-Hlnu
  ss "$flag" "sport = :$2" 2>/dev/null || true
}

# True when a socket with SO_REUSEADDR can bind UDP port $1 beside whatever listens on it now:
# svc_server binds the discovery port that way, so it shares the port with such a listener (the
# project's simulator on the same host, as in the README's demo) and both hear the broadcasts.
# Status 2 when it cannot be tried here (no python3).
udp_port_shareable() {
  command -v python3 >/dev/null 2>&1 || return 2
  python3 - "$1" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("0.0.0.0", int(sys.argv[1])))
except OSError:
    sys.exit(1)
PY
}

# The ports must be free before the first start; once svc runs they are its own. svc_server
# and svc_web bind theirs on the host itself (host network), svc_db's is its loopback mapping.
# Any TCP listener on a port counts, whatever its address: a wildcard one blocks loopback too.
# The UDP discovery port may be shared with a listener that allows it (udp_port_shareable).
check_ports_free() {
  if ! command -v ss >/dev/null 2>&1; then
    info "NOTE: 'ss' not found: skipping the free-port check (Web $WEB_PORT/tcp, 127.0.0.1:$DB_PORT/tcp, 127.0.0.1:$SVC_SERVER_HTTP_PORT/tcp, $DISCOVERY_PORT/udp)"
    return 0
  fi
  if [[ -n $(compose ps -q --status running 2>/dev/null) ]]; then
    info "svc containers are already running: free-port check skipped (it applies before the first start)"
    return 0
  fi
  local busy=0 spec proto port label lines specs rc
  specs=("tcp $WEB_PORT Web port (WEB_PORT)"
    "tcp $DB_PORT database loopback port (DB_PORT)"
    "tcp $SVC_SERVER_HTTP_PORT server loopback HTTP port (SERVER_HTTP_PORT)"
    "udp $DISCOVERY_PORT discovery port (DISCOVERY_PORT)")
  if tls_configured; then specs+=("tcp $WEB_HTTPS_PORT HTTPS port (WEB_HTTPS_PORT)"); fi
  for spec in "${specs[@]}"; do
    read -r proto port label <<<"$spec"
    lines=$(port_listeners "$proto" "$port")
    [[ -n $lines ]] || continue
    if [[ $proto == udp ]]; then
      rc=0
      udp_port_shareable "$port" || rc=$?
      if ((rc != 1)); then
        local why="it allows sharing (SO_REUSEADDR, like the project's simulator)"
        ((rc == 0)) || why="python3 is missing here, so whether it allows sharing was not tried; svc_server restarts with EADDRINUSE in its log if it does not"
        warn "$label $port/$proto has a listener already; svc_server shares the port with it and both receive the terminals' broadcasts: $why
$(printf '%s\n' "$lines" | sed 's/^/         /')"
        continue
      fi
    fi
    error "$label $port/$proto is in use:"
    printf '%s\n' "$lines" | sed 's/^/         /' >&2
    busy=1
  done
  ((busy == 0)) || die "free the port(s) above or choose others (WEB_PORT, DB_PORT, SERVER_HTTP_PORT, DISCOVERY_PORT) before the first start"
  info "ports free: $WEB_PORT/tcp, $DB_PORT/tcp (loopback), $SVC_SERVER_HTTP_PORT/tcp (loopback), $DISCOVERY_PORT/udp"
}

# ---- volumes and images ---------------------------------------------------------------------
# Creates the external data volumes that are missing. Existing ones are used as they are:
# nothing here removes or clears a volume. A new files volume means the service seeds its first
# administrator on this start (SVC_FIRST_START; restore.sh fills the volume instead).
SVC_FIRST_START=0
ensure_volumes() {
  local v
  for v in "${SVC_VOLUMES[@]}"; do
    if docker volume inspect "$v" >/dev/null 2>&1; then
      info "volume $v exists: kept as it is"
    else
      docker volume create --label "svc.volume=$v" "$v" >/dev/null || die "could not create volume $v"
      info "volume $v created (empty: the service initializes it on first start)"
      [[ $v != "$SVC_SERVER_VOLUME" ]] || SVC_FIRST_START=1
    fi
  done
}

check_images() {
  local images img missing=()
  images=$(compose config --images) || die "compose.yaml could not be read (see the message above)"
  while IFS= read -r img; do
    [[ -z $img ]] && continue
    docker image inspect "$img" >/dev/null 2>&1 || missing+=("$img")
  done <<<"$images"
  ((${#missing[@]} == 0)) ||
    die "image(s) not loaded: ${missing[*]}. Load the release archive with deploy/load-and-start.sh (or, from sources, build with 'docker compose build'). SVC_VERSION selects the tag (now '${SVC_VERSION:-latest}')."
  info "images present: ${images//$'\n'/ }"
}

# ---- start ----------------------------------------------------------------------------------
# True when svc_db's healthcheck says the server refused DB_ROOT_PASSWORD. The healthcheck signs
# in (compose.yaml), and its output is kept in the container's health log even during the start
# period, when failures do not yet make the container unhealthy.
db_access_denied() { # container id
  docker inspect --format \
    '{{if .State.Health}}{{range .State.Health.Log}}{{.Output}}{{end}}{{end}}' "$1" 2>/dev/null |
    grep -q 'Access denied'
}

SVC_DB_PASSWORD_HINT="DB_ROOT_PASSWORD does not match the svc_db_data volume: the database refused it (Access denied).
       The password was fixed when that volume was first initialized; export that one, e.g.
         read -rs DB_ROOT_PASSWORD && export DB_ROOT_PASSWORD
       and start again. Nothing was changed on the volume."

# ---- database passwords and svc_server's account ----------------------------------------------
# Signs in to the database in container $1 as user $2 with the password on stdin, from inside
# the container (so the password is never a process argument). Status 0 signed in, 1 refused
# ("Access denied"), 2 anything else (the server not answering yet).
db_sign_in() { # container user  (password on stdin)
  local out
  # shellcheck disable=SC2016 # expanded inside the container
  if out=$(docker exec -i "$1" sh -c 'IFS= read -r p; MYSQL_PWD="$p" exec mysqladmin --protocol=tcp -h 127.0.0.1 -u "$1" status' _ "$2" 2>&1); then
    return 0
  fi
  [[ $out == *"Access denied"* ]] && return 1
  return 2
}

# Runs SQL from stdin as root inside container $1, with the root password the container was
# started with (the one its healthcheck proved).
db_root_sql() { # container [mysql options...]
  local cid=$1
  shift
  # shellcheck disable=SC2016 # expanded inside the container
  docker exec -i "$cid" sh -c 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" exec mysql -uroot "$@"' _ "$@"
}

# The running svc_db's container id, or nothing.
running_db_container() {
  compose ps -q --status running svc_db 2>/dev/null | head -n 1 || true
}

SVC_DB_USER_HINT="DB_PASSWORD does not match the database account '$SVC_DB_USER' (Access denied).
       It was fixed when that account was created (a fresh volume, or the first start of a
       release with it); export that one, e.g.
         read -rs DB_PASSWORD && export DB_PASSWORD
       and start again. Nothing was changed."

# On a running stack compose would recreate svc_db (and svc_server) with whatever passwords are
# exported now, and a mistyped one would then lock the scripts out until someone re-ran them
# with the right one. So the passwords are tried against the running database first, and a
# wrong one stops here, before anything is recreated.
check_running_db_passwords() {
  local cid rc=0
  cid=$(running_db_container)
  [[ -n $cid ]] || return 0
  printf '%s\n' "$DB_ROOT_PASSWORD" | db_sign_in "$cid" root || rc=$?
  if ((rc == 1)); then
    error "${SVC_DB_PASSWORD_HINT/Nothing was changed on the volume./Nothing was changed: the running services were left as they are.}"
    exit 1
  fi
  ((rc == 0)) || { warn "the running svc_db did not answer a sign-in check (it may be starting); the passwords are checked again once it is healthy"; return 0; }
  if [[ $(db_account_exists "$cid") == 1 ]]; then
    rc=0
    printf '%s\n' "$DB_PASSWORD" | db_sign_in "$cid" "$SVC_DB_USER" || rc=$?
    if ((rc == 1)); then
      error "${SVC_DB_USER_HINT/Nothing was changed./Nothing was changed: the running services were left as they are.}"
      exit 1
    fi
  fi
  info "passwords match the running database"
}

db_account_exists() { # container -> prints 1 or 0
  db_root_sql "$1" -N -B -e "SELECT COUNT(*) FROM mysql.user WHERE user = '$SVC_DB_USER'" 2>/dev/null | tr -d '[:space:]'
}

# svc_server signs in with its own account, never root. The database image creates it on a fresh
# volume (compose.yaml: MYSQL_USER); a volume from an earlier release gets it here, once. An
# existing account must take DB_PASSWORD.
ensure_db_account() {
  local cid count rc=0 pw sql
  cid=$(compose ps -q svc_db) || true
  [[ -n $cid ]] || die "svc_db has no container"
  count=$(db_account_exists "$cid") || true
  if [[ $count == 0 ]]; then
    # SQL string literal: backslashes and quotes escaped; sent on stdin, never as an argument.
    pw=${DB_PASSWORD//\\/\\\\}
    pw=${pw//\'/\\\'}
    sql="CREATE USER '$SVC_DB_USER'@'%' IDENTIFIED BY '$pw';"$'\n'
    sql+="GRANT ALL PRIVILEGES ON \`$SVC_DB_DATABASE\`.* TO '$SVC_DB_USER'@'%';"
    printf '%s\n' "$sql" | db_root_sql "$cid" ||
      die "could not create the database account '$SVC_DB_USER' (see the message above)"
    info "database account '$SVC_DB_USER' created with rights on $SVC_DB_DATABASE only: svc_server no longer signs in as root"
  elif [[ $count != 1 ]]; then
    die "could not read the database accounts of svc_db (as root): '$count'"
  fi
  printf '%s\n' "$DB_PASSWORD" | db_sign_in "$cid" "$SVC_DB_USER" || rc=$?
  if ((rc == 1)); then
    error "$SVC_DB_USER_HINT"
    exit 1
  fi
  ((rc == 0)) || die "svc_db did not answer the sign-in check of '$SVC_DB_USER'"
}

wait_db_healthy() {
  local cid state status restarts health i
  cid=$(compose ps -q svc_db) || true
  [[ -n $cid ]] || die "svc_db has no container after 'up'"
  for ((i = 1; i <= SVC_DB_WAIT_TRIES; i++)); do
    state=$(container_state "$cid") || state="unknown 0 unknown"
    read -r status restarts health <<<"$state"
    if [[ $health == healthy ]]; then
      info "svc_db healthy"
      return 0
    fi
    if db_access_denied "$cid"; then
      error "$SVC_DB_PASSWORD_HINT"
      exit 1
    fi
    if [[ $status == exited || $status == dead ]]; then break; fi
    if ((i < SVC_DB_WAIT_TRIES)); then sleep "$SVC_POLL_INTERVAL"; fi
  done
  error "svc_db is not healthy after $SVC_DB_WAIT_TRIES checks ${SVC_POLL_INTERVAL}s apart (state: $status, health: $health, restarts: $restarts)."
  error "A first start initializes the database and can take a few minutes: raise SVC_DB_WAIT_TRIES if the log shows it still working. With an existing volume, DB_ROOT_PASSWORD must be the one it was created with."
  show_logs svc_db >&2
  exit 1
}

heartbeat_ok() { # body
  [[ $1 =~ \"state\"[[:space:]]*:[[:space:]]*1([^0-9]|$) ]]
}

# Tries GET /api/heartbeat through svc_web until it answers state=1, at most `tries` times.
wait_heartbeat() { # tries
  local url="http://127.0.0.1:$WEB_PORT/api/heartbeat" out="" i
  for ((i = 1; i <= $1; i++)); do
    if out=$(curl -fsS --max-time 5 "$url" 2>&1) && heartbeat_ok "$out"; then
      info "heartbeat OK ($url): ${out:0:400}"
      return 0
    fi
    if ((i < $1)); then sleep "$SVC_POLL_INTERVAL"; fi
  done
  error "no heartbeat with state=1 from $url after $1 tries; last answer: ${out:0:400}"
  return 1
}

start_services() {
  info "starting svc_db"
  compose up -d --no-build svc_db || die "compose could not start svc_db (see its message above)"
  wait_db_healthy
  ensure_db_account

  info "starting svc_server and svc_web (compose waits for each to be healthy before the next)"
  if ! compose up -d --no-build; then
    error "compose could not bring all services up"
    compose ps -a >&2 || true
    show_logs svc_server >&2
    show_logs svc_web >&2
    exit 1
  fi

  if ! wait_heartbeat "$SVC_HEARTBEAT_TRIES"; then
    compose ps -a >&2 || true
    show_logs svc_server >&2
    show_logs svc_web >&2
    exit 1
  fi
  compose ps
  info ""
  info "svc is up: http://${DISCOVERY_HOST:-${SVC_LAN_ADDRESS:-<this host>}}:$WEB_PORT/"
  if ((SVC_FIRST_START)); then
    info "Next: run deploy/status.sh; sign in and change the seeded administrator's password at once."
    info "On this fresh volume the svc_server log names the 0600 file holding that first password."
  else
    info "Next: run deploy/status.sh."
  fi
}

# Everything before the start, in order: cheap checks first, so a missing password or tool
# stops before any call that changes the host.
preflight() {
  require_db_password
  check_parameters
  check_tools
  check_discovery
}
