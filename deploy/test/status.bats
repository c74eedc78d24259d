#!/usr/bin/env bats
# deploy/status.sh: read-only; compose listing, restart counts, three HTTP checks, summary.
# shellcheck disable=SC2030,SC2031 # each @test runs in its own subshell, by design

load helpers

setup() { setup_package; }

status_sh() { run "$PKG/deploy/status.sh"; }

@test "all layers pass: exit 0 with listing, restart counts and summary" {
  status_sh
  assert_status 0
  assert_called 'compose .* ps -a$'
  assert_called '^docker inspect .*cid_svc_db$'
  assert_called '^docker inspect .*cid_svc_server$'
  assert_called '^docker inspect .*cid_svc_web$'
  assert_output_has "svc_server: state running, health healthy, restarts 0 -> ok"
  assert_called '^curl http://127.0.0.1:80/api/heartbeat$'
  assert_called '^curl http://127.0.0.1:80/api/device/online-count$'
  assert_called '^curl http://127.0.0.1:80/api/discovery/nodes$'
  assert_output_has "OK (3 online recognition devices)"
  assert_output_has "OK (2 discovered nodes)"
  assert_output_has "all checks passed"
  # svc_server and svc_web are on the host network: no warning about it.
  assert_called '^docker inspect --format \{\{.HostConfig.NetworkMode\}\} cid_svc_server$'
  assert_called '^docker inspect --format \{\{.HostConfig.NetworkMode\}\} cid_svc_web$'
  refute_output_has "not the host network"
  # Read-only: nothing started, created or removed.
  refute_called 'compose .* (up|down|rm|restart|stop)'
  refute_called 'volume'
}

@test "works without DB_ROOT_PASSWORD (read-only compose commands)" {
  unset DB_ROOT_PASSWORD
  status_sh
  assert_status 0
}

@test "never prints DB_ROOT_PASSWORD when it is set" {
  status_sh
  assert_status 0
  assert_secret_kept
}

@test "heartbeat failing: non-zero and FAIL in the summary" {
  export STUB_HEARTBEAT=fail
  status_sh
  assert_failure
  assert_output_has "Central service /api/heartbeat     FAIL"
  assert_output_has "at least one check failed"
}

@test "heartbeat with state 0: non-zero" {
  export STUB_HEARTBEAT=state0
  status_sh
  assert_failure
  assert_output_has "state is not 1"
}

@test "online-count failing: non-zero" {
  export STUB_ONLINE=fail
  status_sh
  assert_failure
  assert_output_has "/api/device/online-count           FAIL"
}

@test "discovery nodes failing: non-zero" {
  export STUB_NODES=fail
  status_sh
  assert_failure
  assert_output_has "/api/discovery/nodes               FAIL"
}

@test "repeated restarts: non-zero" {
  export STUB_STATE_svc_server="running 5 healthy"
  status_sh
  assert_failure
  assert_output_has "svc_server: state running, health healthy, restarts 5 -> FAIL (repeated restarts"
  assert_output_has "Services (running, healthy, stable) FAIL"
}

@test "one restart is tolerated; SVC_MAX_RESTARTS=0 makes it a failure" {
  export STUB_STATE_svc_db="running 1 healthy"
  status_sh
  assert_status 0
  export SVC_MAX_RESTARTS=0
  status_sh
  assert_failure
}

@test "unhealthy or stopped service: non-zero" {
  export STUB_STATE_svc_web="running 0 unhealthy"
  status_sh
  assert_failure
  assert_output_has "svc_web: state running, health unhealthy, restarts 0 -> FAIL (health unhealthy)"
  export STUB_STATE_svc_web="exited 0 unhealthy"
  status_sh
  assert_failure
  assert_output_has "FAIL (not running)"
}

@test "missing container: non-zero" {
  export STUB_NO_CONTAINER=svc_web
  status_sh
  assert_failure
  assert_output_has "svc_web: no container"
}

@test "WEB_PORT moves the checked address" {
  export WEB_PORT=8080
  status_sh
  assert_status 0
  assert_called '^curl http://127.0.0.1:8080/api/discovery/nodes$'
}

@test "engine unreachable: non-zero" {
  export STUB_ENGINE=down
  status_sh
  assert_failure
  assert_output_has "cannot reach the container engine"
}

@test "svc_server or svc_web off the host network: warning, checks unchanged" {
  export STUB_NETMODE_svc_server=svc_svc_net STUB_NETMODE_svc_web=bridge
  status_sh
  assert_status 0
  assert_output_has "WARNING: svc_server is on network 'svc_svc_net', not the host network"
  assert_output_has "WARNING: svc_web is on network 'bridge', not the host network"
  assert_output_has "all checks passed"
}
