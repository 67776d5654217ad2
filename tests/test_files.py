"""The atomic writer gives output files ordinary permissions, not mkstemp's 0600."""
from __future__ import annotations

import os

import pytest

from fairspec.files import write_atomic


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_a_new_file_gets_the_umask_mode(tmp_path, umask_027):
    path = write_atomic(tmp_path / "sub" / "model.json", "{}\n")
    assert path.read_text(encoding="utf-8") == "{}\n"
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in path.parent.iterdir()] == ["model.json"]


def test_a_replaced_file_keeps_its_mode(tmp_path, umask_027):
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o604)
    write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "new"
    assert oct(path.stat().st_mode & 0o777) == oct(0o604)
