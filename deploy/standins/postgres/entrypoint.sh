#!/bin/sh
# The stand-in's start: as root, make the data and socket folders the postgres user's and
# start again as that user; as postgres, create the cluster, user and database on the first
# start (password from POSTGRES_PASSWORD_FILE or POSTGRES_PASSWORD; local socket trusted,
# TCP by scram-sha-256, as the official image does), then run the command.
set -eu
if [ "$(id -u)" = 0 ]; then
    install -d -o postgres -g postgres -m 700 "$PGDATA"
    install -d -o postgres -g postgres -m 2775 /var/run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
        head -n 1 "$POSTGRES_PASSWORD_FILE" > "$pwfile"
    else
        printf '%s\n' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE}" > "$pwfile"
    fi
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    pg_ctl --wait --options="-c listen_addresses=''" start >/dev/null
    if [ "$POSTGRES_DB" != postgres ]; then
        createdb --username="$POSTGRES_USER" --maintenance-db=postgres "$POSTGRES_DB"
    fi
    pg_ctl --wait --mode=fast stop >/dev/null
    echo "stand-in postgres: created database $POSTGRES_DB for $POSTGRES_USER"
fi
exec "$@"
