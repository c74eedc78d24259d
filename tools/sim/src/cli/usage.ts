export const USAGE = `svc-sim: simulated svc terminals and recognition devices (no hardware needed)

Usage: svc-sim [nodes] [options]

Nodes (each flag may repeat):
  --enrollment ID              an enrollment terminal (first one on port 8182)
  --display ID                 a display terminal (first one on port 8181)
  --device SN[:KEY][@URL]      a recognition device with its key and central URL
                               (first one on port 8190); SN may not contain ':' here
  --config FILE                JSON file with "settings" and "nodes" (see README)

Network:
  --bind ADDR                  IPv4 address the HTTP servers and announce sockets bind to
                               (default 0.0.0.0)
  --broadcast ADDR             where announces go; repeat for several
                               (default 255.255.255.255; on one laptop use 127.255.255.255)
  --discovery-port N           UDP discovery port (default 20785)
  --port NODE=N                HTTP port of one node (0 = ephemeral); later nodes of a kind
                               default to ephemeral ports
  --ephemeral-ports            every node without --port gets an ephemeral port
  --no-probe-listener          do not listen for probes on the discovery port
  --control-port N             serve /_sim/nodes/<id>/... for every node on this port
                               (reachable even while a node refuses connections)

Behaviour:
  --central URL                central URL for devices given without @URL
  --management-key KEY         terminals require "Authorization: Bearer KEY" on /api/config
  --capacity N                 devices hold at most N people (507 beyond)
  --state-dir DIR              persist each node's state in DIR/<kind>-<id>.json
  --announce-interval DUR      e.g. 10s (default; ±1 s jitter), 0 = only on boot/probe/change
  --checkin-interval DUR       default 30s; 0 = only right after a config save
  --heartbeat-interval DUR     default 20s; 0 = no device heartbeats
  --fault [NODE:]FAULT         refuse | status500 | delay=DUR | drop=RATE | save-different | mute
                               (without NODE: every node); repeat to combine
  -q, --quiet                  print only started nodes, saves, and errors
  -h, --help                   this text
  --version                    the simulator version

Durations take a unit: 500ms, 10s, 2m (or 0).
Output: one "started <kind> <id> <url>" line per node, then "ready"; SIGTERM/SIGINT stop
cleanly (exit 0). Exit 2 on invalid flags, 1 when a node cannot start.

Example:
  svc-sim --enrollment ENR-1 --display DSP-1 --device DEV-1:secret-key@http://10.250.0.10:8000 \\
    --bind 10.250.0.21 --broadcast 10.250.0.255 --state-dir ./sim-state --announce-interval 10s
`;
