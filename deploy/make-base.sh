#!/bin/sh
# Build a Debian bookworm base image with python3 and python3-venv from Debian's packages
# (debootstrap) and import it into Docker, for machines that cannot pull python:3.11-slim:
#   sudo deploy/make-base.sh [IMAGE]          (default gomoku-base:bookworm)
# Then: docker build --build-arg BASE_IMAGE=gomoku-base:bookworm -t gomoku-bot .
# Needs root, debootstrap and a Debian mirror (MIRROR, default deb.debian.org).
set -eu
image=${1:-gomoku-base:bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/gomoku-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv bookworm "$root" "$mirror"
# What an image does not need: package lists and caches, documentation, man pages.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log
tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$image"
docker image ls "$image"
