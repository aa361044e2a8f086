"""Builds the package's one native piece, the harness's C ABI library (capi/), and ships it inside
the package: from KC_CAPI_LIBRARY where a build made it already (the test suite's install), else by
configuring this repository with CMake and building the kc_capi target. The wheel is tagged
py3-none-<platform>: the library names no Python, so one build serves every Python 3."""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

here = Path(__file__).resolve().parent
work = Path(os.environ.get("KC_PY_BUILD_BASE") or here / "build")


def library() -> Path:
    given = os.environ.get("KC_CAPI_LIBRARY")
    if given:
        if not Path(given).is_file():
            raise SystemExit(f"KC_CAPI_LIBRARY names no file: {given}")
        return Path(given)
    build = work / "cmake"
    if not (build / "build.ninja").exists():
        subprocess.run(["cmake", "-S", str(here.parent), "-B", str(build), "-G", "Ninja",
                        "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF"], check=True)
    subprocess.run(["cmake", "--build", str(build), "--target", "kc_capi"], check=True)
    return build / "python" / "lib" / "libkernel_contract.so"


class BuildPy(build_py):
    def run(self):
        super().run()
        dst = Path(self.build_lib) / "kernel_contract" / "_lib" / "libkernel_contract.so"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(library(), dst)


cmdclass = {"build_py": BuildPy}
try:
    from wheel.bdist_wheel import bdist_wheel

    class Wheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False  # a native library inside

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = Wheel
except ImportError:
    pass

work.mkdir(parents=True, exist_ok=True)
setup(cmdclass=cmdclass, options={"build": {"build_base": str(work / "setuptools")}, "egg_info": {"egg_base": str(work)}})
