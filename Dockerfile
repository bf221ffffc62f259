# The bot and the AI worker in one image: `python -m bot` (default) or `python -m bot.worker`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # numba caches compiled kernels; the installed package is read-only for the app user.
    NUMBA_CACHE_DIR=/home/gomoku/.numba

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY storage storage
COPY bot bot
RUN pip install --no-cache-dir '.[postgres,queue,metrics]' \
    && useradd --create-home --system gomoku
USER gomoku
# Compile (and cache) the search kernels at build time, not on the first move.
RUN python -c "from engine.search.levels import warm_up; warm_up()"

# Healthy while connected to Discord (needs GOMOKU_METRICS_PORT); workers override it.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.health"]
CMD ["python", "-m", "bot"]
