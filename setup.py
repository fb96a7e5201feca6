"""olearn's build step: the package, plus its main job's compiled kernels.

Everything about the package is in pyproject.toml; this file only adds one thing to
setuptools' ``build_py``: once the package is copied into the build folder, a
subprocess (``python -m olearn.cli._ship``) compiles the kernels of the README's
main job and quick starts into ``<build>/olearn/_kernels`` (numba's cache, keyed on
numba's version and the compiled sources, found by the installed copy), so a fresh
``pip install . && olearn compare`` does not compile on first use.

Only when asked: ``OLEARN_BUILD_KERNELS=1`` (this machine's CPU) or ``=generic`` (a
generic CPU of this architecture: a wheel for other machines), in an environment that
has olearn's runtime dependencies and a setuptools that builds wheels (``pip install -U
setuptools wheel numpy scipy numba scikit-learn matplotlib``, then ``pip install
--no-build-isolation .``, or ``python -m build --no-isolation``).  Not by default: pip shows nothing of a build's output, and the
compile (about two minutes of CPU here, plus installing numba and numpy into an isolated
build environment) would be minutes of silence in ``pip install .``, longer than the
first-use compile it saves, which says what it does (benchmarks/compile.md).  The step
never fails the build: any error gives a package without kernels and one line saying so
(they then compile on first use, as before).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithKernels(build_py):
    def run(self):
        super().run()
        if self.dry_run:
            return
        mode = os.environ.get("OLEARN_BUILD_KERNELS", "0").strip().lower()
        if mode in ("0", "no", "false", "off", ""):
            return          # (the default: kernels compile on first use, and say so)
        if mode not in ("1", "yes", "true", "on", "host", "generic"):
            print(f"olearn kernels: not built (OLEARN_BUILD_KERNELS={mode!r}: give 1 or "
                  "generic)", flush=True)
            return
        if importlib.util.find_spec("numba") is None:
            print("olearn kernels: not built: numba is not in the build environment "
                  "(build with pip install --no-build-isolation .)", flush=True)
            return
        package = os.path.join(os.path.abspath(self.build_lib), "olearn")
        with tempfile.TemporaryDirectory(prefix="olearn-kernels-") as cache:
            # (pip's isolated build environment is itself on PYTHONPATH: kept after)
            path = [os.path.abspath(self.build_lib)] + \
                [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, MPLBACKEND="Agg",
                       PYTHONPATH=os.pathsep.join(path))
            env.pop("OLEARN_CACHE_DIR", None)
            args = [sys.executable, "-m", "olearn.cli._ship", package]
            if mode == "generic":
                env["NUMBA_CPU_NAME"] = "generic"
                args.append("--generic")
            try:
                done = subprocess.run(args, env=env, cwd=cache, timeout=1800)
                if done.returncode != 0:
                    print(f"olearn kernels: not built (exit code {done.returncode}): they "
                          "compile on first use", flush=True)
            except (OSError, subprocess.SubprocessError) as exc:
                print(f"olearn kernels: not built ({type(exc).__name__}: {exc}): they "
                      "compile on first use", flush=True)


setup(cmdclass={"build_py": BuildPyWithKernels})
