# The bot and the AI worker in one image: `python -m bot` (default) or `python -m bot.worker`.
#   docker build -t gomoku-bot .
#   docker run -d --init --name gomoku -e DISCORD_TOKEN=... -v gomoku-data:/data gomoku-bot
# BASE_IMAGE is any Debian-like image with python3 >= 3.11 and its venv module (the official
# python:3.11-slim, or a Debian bookworm base with python3 and python3-venv: see
# deploy/make-base.sh). The packages are installed into a venv made by that image's own
# python3, so a distribution's externally managed python is left alone.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
# Where pip looks, for a build without direct access to PyPI (a mirror, a mirror with a
# certificate of its own, or a folder of wheels as deploy/run-local.sh serves; docs/deploy.md):
# pip reads these from the environment; they stay in this stage.
ARG PIP_INDEX_URL
ARG PIP_TRUSTED_HOST
ARG PIP_FIND_LINKS
ARG PIP_NO_INDEX
# The build stage is labelled so that deploy/run-local.sh can prune its leftovers alone.
LABEL org.gomoku-bot.stage=build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python3 -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine engine
COPY storage storage
COPY bot bot
# A plain (not editable) install: the source tree stays in this stage. pip goes at the end:
# nothing installs packages at run time.
RUN /opt/venv/bin/pip install '.[postgres,queue,metrics]' \
    && /opt/venv/bin/pip uninstall --yes pip

FROM ${BASE_IMAGE}
# Fixed ids, so a host folder mounted at /data can be given to the bot: chown 10001:10001.
RUN groupadd --system --gid 10001 gomoku \
    && useradd --system --uid 10001 --gid gomoku --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin gomoku \
    && install -d -o gomoku -g gomoku /data /var/cache/gomoku
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    # Everything the bot keeps: the SQLite file (and its -wal and -shm) in the volume.
    GOMOKU_DB_PATH=/data/gomoku.sqlite3 \
    # Metrics on, so the health check can ask the bot whether it is connected and its event
    # loop is running (bot.health). Nothing is published unless the port is mapped.
    GOMOKU_METRICS_PORT=9100 \
    # numba's compiled kernels, built below by the user that runs the bot; numba writes here
    # again only when the CPU differs from the build machine's.
    NUMBA_CACHE_DIR=/var/cache/gomoku/numba
USER gomoku
RUN python -c "from engine.search.levels import warm_up; warm_up()"
# No .env is read from here: configuration comes from the environment.
WORKDIR /var/cache/gomoku
VOLUME ["/data"]
EXPOSE 9100

# Healthy while connected to Discord with a live event loop; workers override it with
# `python -m bot.worker --check`.
HEALTHCHECK --interval=30s --timeout=10s --start-period=90s --retries=3 \
    CMD ["python", "-m", "bot.health"]
CMD ["python", "-m", "bot"]
