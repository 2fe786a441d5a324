#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the factory database's tests:
# Debian's postgresql (15), initdb in a temporary directory, listening on
# 127.0.0.1 at a free port and on a socket in that directory only, trust
# authentication, run by the postgres user when we are root (PostgreSQL
# refuses to run as root). Nothing outside the directory is touched; the
# system's own cluster, if any, is left alone.
#
#   scripts/postgres.sh start DIR     creates and starts it; prints its URL
#   scripts/postgres.sh stop DIR      stops it (fast shutdown)
#   scripts/postgres.sh restart DIR   stops and starts it (the port is kept)
#   scripts/postgres.sh kill DIR      stops it at once (immediate shutdown)
set -euo pipefail
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
command=${1:?usage: postgres.sh start|stop|restart|kill DIR}
dir=${2:?usage: postgres.sh start|stop|restart|kill DIR}
data="$dir/data"

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    if [ ! -x "$PG_BIN/initdb" ]; then
      echo "postgres.sh: $PG_BIN/initdb not found: install Debian's postgresql" >&2
      exit 1
    fi
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; chmod 700 "$dir"; fi
    if [ ! -f "$data/PG_VERSION" ]; then
      as_owner "$PG_BIN/initdb" -D "$data" -U postgres -A trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
      port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir'"
        echo "max_connections = 100"
        echo "fsync = on"
      } | as_owner tee -a "$data/postgresql.conf" >/dev/null
    fi
    port=$(sed -n 's/^port = \([0-9]*\)$/\1/p' "$data/postgresql.conf" | tail -1)
    as_owner "$PG_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start >/dev/null
    as_owner "$PG_BIN/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAt \
      -c "SELECT 1 FROM pg_database WHERE datname = 'factory'" | grep -q 1 ||
      as_owner "$PG_BIN/createdb" -h "$dir" -p "$port" -U postgres factory
    echo "postgres://postgres@127.0.0.1:$port/factory"
    ;;
  stop) as_owner "$PG_BIN/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null ;;
  kill) as_owner "$PG_BIN/pg_ctl" -D "$data" -m immediate -w -t 60 stop >/dev/null ;;
  restart) as_owner "$PG_BIN/pg_ctl" -D "$data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null ;;
  *) echo "postgres.sh: unknown command $command" >&2; exit 64 ;;
esac
