# SPDX-License-Identifier: MIT
"""Builds the wheel: the package plus the loadable extension named by
SIMHASH_LOADABLE (a built simhash.so), for any Python 3 (the extension is
loaded by SQLite, not imported by Python) and tagged with the platform
SIMHASH_WHEEL_PLATFORM names (scripts/build-wheel.sh reads it from the
module: manylinux_2_<minor>_<arch> or linux_<arch>), else this machine's.
The version is the one project() gives in ../CMakeLists.txt."""
import os
import re
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(HERE, "..", "CMakeLists.txt"), encoding="utf-8") as cmake:
        match = re.search(r"project\(\s*\w+\s+VERSION\s+([0-9.]+)", cmake.read())
    if not match:
        raise SystemExit("setup.py: no project(... VERSION x.y.z) in CMakeLists.txt")
    return match.group(1)


class BuildWithLoadable(build_py):
    def run(self):
        super().run()
        loadable = os.environ.get("SIMHASH_LOADABLE")
        if not loadable or not os.path.isfile(loadable):
            raise SystemExit("setup.py: set SIMHASH_LOADABLE to a built simhash.so")
        target = os.path.join(self.build_lib, "sqlite_simhash", "simhash.so")
        shutil.copyfile(loadable, target)


class BinaryDistribution(Distribution):
    """Holds a platform binary: files go to platlib, the wheel gets a platform tag."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", os.environ.get("SIMHASH_WHEEL_PLATFORM") or platform


setup(
    version=project_version(),
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildWithLoadable, "bdist_wheel": PlatformWheel},
)
