"""The dependency contract (docs/DEVELOPMENT.md, "Dependencies"): ranges in the package
metadata, each with a `>=` floor and an upper bound only where a comment names a known break;
the tested set in constraints/cpu.txt and constraints/ray.txt, inside those ranges."""

from __future__ import annotations

import re
import sys

import pytest

packaging = pytest.importorskip("packaging")
from packaging.requirements import Requirement  # noqa: E402
from paths import REPO  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = REPO
PYPROJECT = ROOT / "pyproject.toml"
PROJECT = tomllib.loads(PYPROJECT.read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]


def _requirements(extras=()) -> list[Requirement]:
    deps = list(PROJECT["dependencies"]) + [d for e in extras for d in EXTRAS[e]]
    return [Requirement(d) for d in deps]


def _pins(name: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints" / name).read_text().splitlines():
        if line and not line.startswith("#"):
            pkg, _, version = line.partition("==")
            assert version, f"constraints/{name}: {line!r} is not name==version"
            pins[pkg.lower().replace("_", "-")] = version
    return pins


def _canon(name: str) -> str:
    return name.lower().replace("_", "-")


@pytest.mark.parametrize("req", _requirements(EXTRAS), ids=str)
def test_every_dependency_is_a_range_with_a_floor(req):
    ops = {s.operator for s in req.specifier}
    assert "==" not in ops and "~=" not in ops, f"{req}: an exact pin belongs in constraints/"
    assert ">=" in ops, f"{req}: give it the lowest version the code needs (>=)"


def _upper_bounded(text: str) -> bool:
    try:
        req = Requirement(text)
    except Exception:  # not a requirement (a path, a version, a marker)
        return False
    return any(spec.operator in ("<", "<=") for spec in req.specifier)


def test_an_upper_bound_says_which_break_it_avoids():
    lines = PYPROJECT.read_text().splitlines()
    seen = 0
    for i, line in enumerate(lines):
        for text in re.findall(r'"([^"]+)"', line):
            if _upper_bounded(text):
                seen += 1
                alone = line.strip().startswith('"')
                assert alone and lines[i - 1].strip().startswith("#"), (
                    f"{text}: on a line of its own, under a comment naming the break it avoids"
                )
    assert seen >= 2  # ruff and the ray extra's gymnasium: the check saw them


@pytest.mark.parametrize(
    ("constraints", "extras"),
    [("cpu.txt", ("test", "view", "frames", "browser")), ("ray.txt", ("test", "ray"))],
)
def test_the_tested_set_pins_every_dependency_inside_its_range(constraints, extras):
    pins = _pins(constraints)
    for req in _requirements(extras):
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = _canon(req.name)
        assert name in pins, f"constraints/{constraints} does not pin {name}"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints/{constraints}: {name}=={pins[name]} is outside {req.specifier}"
        )


def test_torch_is_the_cpu_wheel_in_both_tested_sets():
    assert _pins("cpu.txt")["torch"] == _pins("ray.txt")["torch"] == "2.13.0"
    assert _pins("ray.txt")["gymnasium"] == "1.2.2"
