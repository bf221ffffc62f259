"""The kernels' stamp: numba keys a cache entry on its own file only, so every kernel file
carries one hash of all of them (``engine.search._jit``) and a change anywhere recompiles all."""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.search import _jit

SEARCH = Path(_jit.__file__).resolve().parent


def test_the_stamps_match_the_kernels_sources() -> None:
    # fails after a kernel edit until `python -m engine.search._jit` restamps the files
    assert _jit.stamps_current()
    assert _jit.CACHE


def test_an_edit_to_one_kernel_file_changes_every_files_stamp(tmp_path: Path) -> None:
    for name in _jit.KERNEL_FILES:
        shutil.copy(SEARCH / name, tmp_path / name)
    before = _jit.kernels_stamp(tmp_path)
    state = tmp_path / "_state.py"
    state.write_text(state.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert _jit.kernels_stamp(tmp_path) != before
    assert not _jit.stamps_current(tmp_path)
    after = _jit.write_stamps(tmp_path)
    assert _jit.stamps_current(tmp_path)
    for name in _jit.KERNEL_FILES:  # the callers' files change too: their cache keys move
        assert f'KERNELS_STAMP = "{after}"' in (tmp_path / name).read_text(encoding="utf-8")
    # the stamp line itself is not hashed: restamping is idempotent
    assert _jit.write_stamps(tmp_path) == after
