"""The Makefile refuses an interpreter older than the project needs, in one line that says
how to choose another, before it makes the virtualenv."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("goal", ["run", "test"])
def test_an_old_python_is_refused_in_one_line(tmp_path: Path, goal: str) -> None:
    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    old = tmp_path / "python3.9"  # answers as a Python 3.9 would, and makes nothing
    old.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        "  *python_version*) echo 3.9.18 ;;\n"
        "  *version_info*) echo 0 ;;\n"
        "  *) touch made-something ;;\n"
        "esac\n"
    )
    old.chmod(0o755)
    # As a person types it: not as a sub-make of `make test`, whose MAKEFLAGS and MAKELEVEL
    # would make this make announce the directories it enters.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    run = subprocess.run(
        ["make", goal, f"PYTHON={old}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode != 0
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert "needs Python 3.11 or newer" in line
    assert "is 3.9.18" in line
    assert f"PYTHON=python3.12 make {goal}" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Makefile", "pyproject.toml", "python3.9"]
