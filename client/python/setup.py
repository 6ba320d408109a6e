"""Builds neardup._engine with the repository's CMake (core and dedup_core).

The extension is the CMake target neardup_python_engine and the client's
generated API the target neardup_python_api; this file runs CMake on the
repository (NEARDUP_SOURCE_DIR, default ../..) with NEARDUP_CORE_ONLY, so
only core, dedup's core (neardup.dedup, plain text only: no HTML, Markdown
or PDF parsers) and their Debian libraries (ICU,
Abseil, xxHash, simdjson) and protoc with grpc_python_plugin are needed, and copies both where setuptools wants them.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = pathlib.Path(os.environ.get("NEARDUP_SOURCE_DIR", HERE.parent.parent))


GENERATED = ["messages.py", "_methods.py", "v1/neardup_pb2.py",
             "v1/neardup_pb2_grpc.py"]


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not (SOURCE / "core" / "CMakeLists.txt").exists():
            sys.exit(f"neardup's sources are not at {SOURCE}: build from the "
                     "repository's client/python, or set NEARDUP_SOURCE_DIR")
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(SOURCE), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=Release", "-DNEARDUP_CORE_ONLY=ON",
            "-DNEARDUP_BUILD_TESTS=OFF", "-DNEARDUP_BUILD_BENCH=OFF",
            "-DNEARDUP_BUILD_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        try:
            import pybind11  # pip's build requirement, when it fetched one
            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass  # Debian's pybind11-dev
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target",
                        "neardup_python_engine", "neardup_python_api", "-j",
                        os.environ.get("JOBS", "2")], check=True)
        made = build / "python" / "neardup"
        built = sorted(made.glob("_engine*.so"))
        if not built:
            sys.exit("the build made no neardup/_engine*.so")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)
        # The generated API (tools/gen_api.py) next to it.
        for name in GENERATED:
            (target.parent / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(made / name, target.parent / name)


setup(ext_modules=[Extension("neardup._engine", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
