"""Installing regosph (issue 17 part 1): `make install`'s CMake rules into a temporary prefix,
`pip install .` into a temporary `python3 -m venv --system-site-packages` environment, and the
wheel of `python3 -m build`, all offline and reusing the build directory of this test run. Each
installed copy is imported from outside the source tree and its `regosph` command runs."""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import regosph
from conftest import REPO

# build/python/regosph/__init__.py -> build: the CMake build directory the tests run from.
BUILD = Path(regosph.__file__).resolve().parents[2]


@pytest.fixture(scope="module", autouse=True)
def build_dir():
    assert (BUILD / "CMakeCache.txt").is_file(), (
        f"regosph is imported from {regosph.__file__}, not from a CMake build directory; run the "
        f"tests with PYTHONPATH=<build>/python")


def outside_env(**extra):
    """The environment of a user outside the tree: no PYTHONPATH pointing at the build."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REGOSPH_SOURCE_DIR")}
    return {**env, **extra}


def run(args, cwd, env=None, timeout=600):
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env or outside_env(),
                          capture_output=True, text=True, timeout=timeout)


def check_installed(command, python, where, tmp_path):
    """`command info --help` works and `python` imports regosph from `where`, from tmp_path."""
    out = run([command, "info", "--help"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: regosph info")
    out = run([command, "info", tmp_path / "no_such_run"], tmp_path)
    assert out.returncode == 2 and "no_such_run" in out.stderr
    out = run([python, "-c", "import regosph, sys; print(regosph.__file__); "
               "print(regosph.read_mesh.__module__, regosph.Simulation(dim=3).dim); "
               "from regosph.examples import soil_collapse; print(soil_collapse.__file__)"],
              tmp_path,
              env=outside_env(**({"PYTHONPATH": str(where)} if python == sys.executable else {})))
    assert out.returncode == 0, out.stderr
    path, check, example = out.stdout.splitlines()[:3]
    assert Path(path).resolve().is_relative_to(Path(where).resolve())
    assert check == "regosph.mesh 3"
    # The setups are copied into the installed package, not links into the source tree.
    assert Path(example).is_file() and not Path(example).is_symlink()
    assert Path(example).resolve().is_relative_to(Path(where).resolve())


def test_make_install_into_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    out = run(["cmake", "--install", BUILD, "--prefix", prefix], tmp_path)
    assert out.returncode == 0, out.stderr
    (site,) = prefix.glob("lib/python3.*/dist-packages")
    assert sorted(p.name for p in (site / "regosph").glob("_core*.so"))
    assert not list((site / "regosph").rglob("__pycache__"))
    check_installed(prefix / "bin" / "regosph", sys.executable, site, tmp_path)


def test_pip_install_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    out = run([sys.executable, "-m", "venv", "--system-site-packages", venv], tmp_path)
    assert out.returncode == 0, out.stderr
    # --no-index: the install must not need any package index (nothing is downloaded).
    out = run([venv / "bin" / "pip", "install", "--no-index", "--disable-pip-version-check", REPO],
              tmp_path, env=outside_env(REGOSPH_BUILD_DIR=str(BUILD)))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Successfully installed regosph-" in out.stdout
    (site,) = venv.glob("lib/python3.*/site-packages")
    check_installed(venv / "bin" / "regosph", venv / "bin" / "python", site, tmp_path)
    out = run([venv / "bin" / "pip", "uninstall", "-y", "regosph"], tmp_path)
    assert out.returncode == 0 and not (site / "regosph").exists()


def z_metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        return z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()


def interpreter_without_numpy():
    """A python3 on PATH (or pyenv's) that cannot import numpy, None when there is none."""
    import shutil
    for candidate in (shutil.which("python3"), os.path.expanduser("~/.pyenv/shims/python3")):
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import numpy"], capture_output=True,
                env=outside_env()).returncode != 0:
            return candidate
    return None


def test_pip_install_into_an_interpreter_without_numpy_fails_saying_what_to_do(tmp_path):
    python = interpreter_without_numpy()
    if python is None:
        pytest.skip("every python3 here has numpy")
    venv = tmp_path / "venv"
    out = run([python, "-m", "venv", "--system-site-packages", venv], tmp_path)
    assert out.returncode == 0, out.stderr
    out = run([venv / "bin" / "pip", "install", "--no-index", "--disable-pip-version-check", REPO],
              tmp_path, env=outside_env(REGOSPH_BUILD_DIR=str(BUILD)))
    assert out.returncode != 0
    assert "lacks numpy" in out.stdout + out.stderr
    assert "/usr/bin/python3 -m venv --system-site-packages" in out.stdout + out.stderr
    assert not list(venv.glob("lib/python3.*/site-packages/regosph"))


def test_the_package_declares_its_dependencies():
    import tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert {"numpy", "pandas"} <= set(project["dependencies"])


def test_build_makes_a_wheel_with_the_extension_and_the_command(tmp_path):
    out = run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp_path, REPO],
              tmp_path, env=outside_env(REGOSPH_BUILD_DIR=str(BUILD)))
    assert out.returncode == 0, out.stdout + out.stderr
    (wheel,) = tmp_path.glob("regosph-*-cp3*-linux_*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
        record = z.read(f"{dist_info}/RECORD").decode()
    assert "regosph = regosph.__main__:main" in entry_points
    assert "Requires-Dist: numpy" in z_metadata(wheel)
    for name in ("regosph/__init__.py", "regosph/mesh.py", "regosph/post/plots.py"):
        assert name in names and name in record
    assert any(n.startswith("regosph/_core.cpython-") and n.endswith(".so") for n in names)
    assert not any("__pycache__" in n for n in names)
