#!/bin/sh
# The deployment, run on this machine against the tests' fake Discord (docs/deploy.md):
# builds the Debian base (if missing), the image and the PostgreSQL and Valkey stand-ins, runs
# the image alone (SQLite in a volume) and then the compose stack (bot, 2 AI workers,
# PostgreSQL, Valkey), plays through the fake Discord, checks the database and every health
# check, and tears it all down. Run from anywhere, as a user that may use Docker:
#   deploy/run-local.sh                 # everything
#   deploy/run-local.sh plain|compose   # one of the two runs (the images are built anyway)
# Settings (environment): PYTHON (default .venv/bin/python: needs `make test`'s extras),
# BASE_IMAGE (default gomoku-base:bookworm, made by deploy/make-base.sh; python:3.11-slim
# where images can be pulled), WHEELS=0 to let the image build reach PyPI itself instead of
# a folder of wheels downloaded here first (for builders that cannot verify PyPI's TLS),
# LEVEL (the AI's level, default easy), KEEP=1 to leave the compose stack up.
# Every container uses the host's network and 127.0.0.1 (dockerd may run with --bridge=none).
# Rebuilding reuses the tags and removes the images they replace and the build stages, so
# runs leave no dangling images behind. Docker and docker-compose on Debian 12:
#   sudo apt-get install -y docker.io docker-compose debootstrap
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
BASE_IMAGE=${BASE_IMAGE:-gomoku-base:bookworm}
IMAGE=gomoku-bot:local
WHEEL_PORT=${WHEEL_PORT:-18765}
what=${1:-all}
log() { printf '== %s\n' "$*"; }

docker info --format 'docker {{.ServerVersion}}, storage {{.Driver}}' >/dev/null
docker-compose version --short >/dev/null
log "docker $(docker info --format '{{.ServerVersion}} ({{.Driver}})'), docker-compose $(docker-compose version --short)"

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    if [ "$BASE_IMAGE" = gomoku-base:bookworm ]; then
        log "making $BASE_IMAGE with debootstrap"
        deploy/make-base.sh "$BASE_IMAGE"
    else
        log "pulling $BASE_IMAGE"
        docker pull "$BASE_IMAGE"
    fi
fi

pip_args=""
server=""
cleanup() { if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; }
trap cleanup EXIT
if [ "${WHEELS:-1}" = 1 ]; then
    log "downloading the wheels to deploy/.wheelhouse"
    # async-timeout: redis wants it on Python < 3.11.3 (bookworm has 3.11.2).
    "$PYTHON" -m pip download --quiet --dest deploy/.wheelhouse \
        'setuptools>=68' wheel 'async-timeout>=4.0.3' '.[postgres,queue,metrics]'
    python3 -m http.server --bind 127.0.0.1 --directory deploy/.wheelhouse "$WHEEL_PORT" \
        >/dev/null 2>&1 &
    server=$!
    sleep 1
    pip_args="--build-arg PIP_NO_INDEX=1 --build-arg PIP_FIND_LINKS=http://127.0.0.1:$WHEEL_PORT/"
fi

# build TAG ARGS...: docker build, then remove what the build left behind: the image that
# had TAG before (unless a container still uses it) and the Dockerfile's build stage, which
# the classic builder keeps as an untagged image (labelled org.gomoku-bot.stage=build).
build() {
    tag=$1
    shift
    old=$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
    DOCKER_BUILDKIT=0 docker build --quiet --network host --build-arg BASE_IMAGE="$BASE_IMAGE" \
        --tag "$tag" "$@" >/dev/null
    new=$(docker image inspect --format '{{.Id}}' "$tag")
    if [ -n "$old" ] && [ "$old" != "$new" ]; then
        docker image rm "$old" >/dev/null 2>&1 || log "kept the old $tag ($old): still in use"
    fi
    docker image prune --force --filter label=org.gomoku-bot.stage=build >/dev/null
}

log "building $IMAGE on $BASE_IMAGE"
start=$(date +%s)
# shellcheck disable=SC2086 # pip_args is a list of words
build "$IMAGE" $pip_args .
log "built $IMAGE in $(( $(date +%s) - start )) s: $(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
cleanup
server=""

log "building the stand-ins (Debian bookworm's postgresql-15 and redis-server 7.0)"
build gomoku-standin-postgres:15 deploy/standins/postgres
build gomoku-standin-redis:7 deploy/standins/redis
log "dangling images left: $(docker images --quiet --filter dangling=true | wc -l)"

if [ "$what" = all ] || [ "$what" = plain ]; then
    log "the image alone: docker run with a volume, SQLite"
    PYTHONPATH=$PWD "$PYTHON" -m deploy.localrun plain --image "$IMAGE" --level "${LEVEL:-easy}"
fi
if [ "$what" = all ] || [ "$what" = compose ]; then
    log "the compose stack: bot, 2 workers, PostgreSQL and Valkey stand-ins"
    keep=""
    if [ "${KEEP:-0}" = 1 ]; then keep=--keep; fi
    PYTHONPATH=$PWD "$PYTHON" -m deploy.localrun compose --level "${LEVEL:-easy}" $keep
fi
log "done"
