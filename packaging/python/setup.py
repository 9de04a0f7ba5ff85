"""Each wheel carries one static binary, which runs on any Linux of its
architecture: tagged py3-none, not for a Python version or ABI, and for
the C library it was built with (scripts/package.sh sets
BSH_WHEEL_PLATFORM to linux-x64, linux-arm64, linux-x64-musl or
linux-arm64-musl; without it, this machine's architecture and glibc)."""
import os
import platform

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

ARCHES = {"x86_64": "x86_64", "aarch64": "aarch64", "x64": "x86_64", "arm64": "aarch64"}
WANTED = os.environ.get("BSH_WHEEL_PLATFORM", "")
ARCH = ARCHES[WANTED.split("-")[1] if WANTED else platform.machine()]
if WANTED.endswith("-musl"):
    PLATFORM = f"musllinux_1_2_{ARCH}"
else:
    PLATFORM = f"manylinux_2_17_{ARCH}.manylinux2014_{ARCH}"


class BinaryDistribution(Distribution):
    """Holds a binary: the wheel is for one platform, its root platlib."""

    def has_ext_modules(self) -> bool:
        return True


class BinaryWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        return "py3", "none", PLATFORM


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": BinaryWheel})
