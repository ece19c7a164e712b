"""gamecore.buildcheck.load_compiled: the one loader of the lab's three C modules
(the variable's check, the import, the missing build and the stale build)."""

from __future__ import annotations

import os
import sys
import warnings

import pytest
from paths import REPO

from gamecore.buildcheck import BuildChoiceError, load_compiled

CHOICES = ("auto", "python", "compiled")


@pytest.fixture()
def package(tmp_path, monkeypatch):
    """A package `fakebuild` holding a module `_fast` (standing for a built C module) and its
    `_fast.c` source, importable for this test only."""
    pkg = tmp_path / "fakebuild"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_fast.py").write_text("VALUE = 7\n")
    (pkg / "_fast.c").write_text("/* source */\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield pkg
    for name in ("fakebuild._fast", "fakebuild"):
        sys.modules.pop(name, None)


def _age(path, seconds):
    t = os.path.getmtime(path) + seconds
    os.utime(path, (t, t))


def test_the_fallback_choice_imports_nothing(package):
    assert load_compiled("LASTWILL_FAKE", "python", CHOICES, "python", "fakebuild._fast") is None
    assert "fakebuild._fast" not in sys.modules


@pytest.mark.parametrize("choice", ["auto", "compiled"])
def test_a_built_module_is_returned(package, choice):
    _age(package / "_fast.c", -60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mod = load_compiled("LASTWILL_FAKE", choice, CHOICES, "python", "fakebuild._fast")
    assert mod is not None and mod.VALUE == 7


def test_a_build_older_than_its_source_warns(package):
    _age(package / "_fast.py", -60)
    with pytest.warns(RuntimeWarning, match=r"_fast.py is older than .*_fast.c: rebuild it"):
        mod = load_compiled("LASTWILL_FAKE", "auto", CHOICES, "python", "fakebuild._fast")
    assert mod.VALUE == 7


def test_a_missing_build_is_none_for_auto_and_an_error_for_compiled(package):
    (package / "_fast.py").unlink()
    assert load_compiled("LASTWILL_FAKE", "auto", CHOICES, "python", "fakebuild._fast") is None
    with pytest.raises(BuildChoiceError, match=r"LASTWILL_FAKE=compiled, but fakebuild._fast"):
        load_compiled("LASTWILL_FAKE", "compiled", CHOICES, "python", "fakebuild._fast")


def test_a_bad_choice_names_the_variable_and_the_allowed_values(package):
    with pytest.raises(BuildChoiceError, match=r"LASTWILL_FAKE='fast'.*auto, python, compiled"):
        load_compiled("LASTWILL_FAKE", "fast", CHOICES, "python", "fakebuild._fast")
    assert "fakebuild._fast" not in sys.modules


def test_the_table_of_compiled_modules_names_each_c_source_and_checks_every_variable():

    from gamecore.buildcheck import COMPILED, check_environment

    root = REPO
    for var, c in COMPILED.items():
        assert (root / (c.module.replace(".", "/") + ".c")).is_file(), var
        assert c.fallback in c.choices and "auto" in c.choices and "compiled" in c.choices
        check_environment({var: "compiled"})
        with pytest.raises(BuildChoiceError, match=f"{var}='fast'"):
            check_environment({var: "fast"})
    check_environment({"LASTWILL_OTHER": "anything"})  # not a variable of the table
