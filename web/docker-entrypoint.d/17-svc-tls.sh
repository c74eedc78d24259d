#!/bin/sh
# HTTPS on svc_web when a certificate and its key are mounted (compose.yaml mounts WEB_TLS_CERT
# and WEB_TLS_KEY there; /dev/null, i.e. nothing, when they are unset). Runs in the image's
# entrypoint before the templates are rendered. With both files it writes the server-level
# snippet web/nginx.conf.template includes from SVC_WEB_TLS_DIR: nginx also listens on
# SVC_WEB_HTTPS_LISTEN with TLS, and plain-HTTP requests are redirected there (308) except the
# machine endpoints the template's $svc_to_https map keeps on HTTP. Without them it removes the
# snippet, so the site is plain HTTP on SVC_WEB_LISTEN. One file without the other stops nginx.
set -eu
dir=${SVC_WEB_TLS_DIR:-/etc/nginx/svc-tls.d}
cert=${SVC_WEB_TLS_CERT:-/etc/nginx/svc-tls/cert.pem}
key=${SVC_WEB_TLS_KEY:-/etc/nginx/svc-tls/key.pem}
listen=${SVC_WEB_HTTPS_LISTEN:-443}
me=17-svc-tls.sh

mkdir -p "$dir"
# The container's files outlive a restart: a snippet from an earlier start must not remain.
rm -f "$dir/tls.conf"

given() { [ -f "$1" ] && [ -s "$1" ]; }
if ! given "$cert" && ! given "$key"; then
  echo "$me: no certificate mounted: plain HTTP on ${SVC_WEB_LISTEN:-80}"
  exit 0
fi
if ! given "$cert" || ! given "$key"; then
  echo "$me: ERROR: HTTPS needs both WEB_TLS_CERT and WEB_TLS_KEY (certificate $cert, key $key): one of them is missing or empty" >&2
  exit 1
fi

port=${listen##*:}
case $port in
  '' | *[!0-9]*)
    echo "$me: ERROR: SVC_WEB_HTTPS_LISTEN must end in a port number, got '$listen'" >&2
    exit 1
    ;;
  443) suffix='' ;;
  *) suffix=":$port" ;;
esac

cat >"$dir/tls.conf" <<EOF
# Written by $me at container start; see web/nginx.conf.template.
listen $listen ssl;
ssl_certificate $cert;
ssl_certificate_key $key;
ssl_protocols TLSv1.2 TLSv1.3;
ssl_prefer_server_ciphers off;
ssl_session_cache shared:svc_tls:10m;
ssl_session_timeout 1d;
ssl_session_tickets off;
if (\$svc_to_https) {
    return 308 https://\$host$suffix\$request_uri;
}
EOF
echo "$me: HTTPS on $listen with $cert; plain HTTP on ${SVC_WEB_LISTEN:-80} redirects (machine endpoints excepted)"
