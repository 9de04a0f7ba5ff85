"""The wheel carries a static binary that runs on any Linux of its
architecture, whatever its libc: it is tagged py3-none for manylinux and
musllinux, not for a Python version or ABI."""
import platform

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

ARCH = {"x86_64": "x86_64", "aarch64": "aarch64"}[platform.machine()]
PLATFORM = f"manylinux_2_17_{ARCH}.manylinux2014_{ARCH}.musllinux_1_1_{ARCH}"


class BinaryDistribution(Distribution):
    """Holds a binary: the wheel is for one platform, its root platlib."""

    def has_ext_modules(self) -> bool:
        return True


class BinaryWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        return "py3", "none", PLATFORM


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": BinaryWheel})
