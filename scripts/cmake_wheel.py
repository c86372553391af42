"""PEP 517 build backend of regosph (pyproject.toml): `pip install .` and `python3 -m build`
with nothing but the standard library, CMake and the Debian packages of scripts/bootstrap.sh,
so that no build requirement is ever downloaded (there is no scikit-build-core in Debian 12).

The wheel is the package CMake stages in <build>/python/regosph (the pure-Python files and the
compiled _core extension, the same files `make install` copies), plus the `regosph` console
command. <build> is $REGOSPH_BUILD_DIR, default `build` in the source tree, the directory
`make` uses: an existing build is reused (only what changed is recompiled); a missing one is
configured like `make build` does. Extra CMake options for a fresh configuration:
$REGOSPH_CMAKE_ARGS (e.g. "-DREGOSPH_NATIVE=OFF" for a wheel that runs on other x86-64 CPUs).
"""
import base64
import hashlib
import io
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]
# pip's isolated build environment hides the system site-packages from Python processes through
# these variables; CMake must see the real interpreter with NumPy.
_HIDDEN_ENV = ("PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME", "PYTHONSTARTUP")


def _project():
    """(name, version, summary, requires-python, dependencies, optional dependencies, console
    scripts) from pyproject.toml and the version from CMakeLists.txt's project() (its one
    home)."""
    meta = tomllib.loads((SOURCE / "pyproject.toml").read_text())["project"]
    cmake = (SOURCE / "CMakeLists.txt").read_text()
    version = re.search(r"project\(regosph VERSION ([0-9.]+)", cmake)
    if not version:
        raise RuntimeError(f"{SOURCE / 'CMakeLists.txt'}: no 'project(regosph VERSION x.y.z)'")
    return (meta["name"], version.group(1), meta.get("description", ""),
            meta.get("requires-python", ""), meta.get("dependencies", []),
            meta.get("optional-dependencies", {}), meta.get("scripts", {}))


def _required_imports():
    """The modules `import regosph` needs ([tool.regosph] required-imports of pyproject.toml)."""
    config = tomllib.loads((SOURCE / "pyproject.toml").read_text())
    return config["tool"]["regosph"]["required-imports"]


def _check_dependencies():
    """Refuses, before pip resolves anything, an interpreter that cannot import the required
    packages: pip would fetch them from PyPI (none may be downloaded) or, without network,
    install a regosph that fails at `import regosph`. The check runs the target interpreter
    outside pip's isolated build environment, which hides the system site-packages."""
    dependencies = _required_imports()
    env = {k: v for k, v in os.environ.items() if k not in _HIDDEN_ENV}
    code = ("import importlib.util, sys; sys.stdout.write(' '.join(m for m in sys.argv[1:] "
            "if importlib.util.find_spec(m) is None))")
    missing = subprocess.run([sys.executable, "-c", code, *dependencies], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
    if missing:
        raise RuntimeError(
            f"regosph needs {', '.join(dependencies)} in the interpreter it is installed into, "
            f"and {sys.executable} lacks {', '.join(missing)}. Install into Debian's "
            f"interpreter, which has them (scripts/bootstrap.sh installs python3-numpy "
            f"python3-h5py python3-pandas): /usr/bin/python3 -m venv --system-site-packages ENV "
            f"&& ENV/bin/pip install . (or: sudo make install)")


def _cmake(*args):
    env = {k: v for k, v in os.environ.items() if k not in _HIDDEN_ENV}
    print("cmake", " ".join(args), file=sys.stderr)
    subprocess.run(["cmake", *args], cwd=SOURCE, env=env, check=True)


def _build_package():
    """Configure (if needed) and build the extension; returns the staged package directory."""
    build = Path(os.environ.get("REGOSPH_BUILD_DIR") or SOURCE / "build")
    if not build.is_absolute():
        build = SOURCE / build
    if not (build / "CMakeCache.txt").is_file():
        interpreter = os.path.realpath(sys.executable)  # a venv's python is Debian's python3
        _cmake("-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
               f"-DPython3_EXECUTABLE={interpreter}",
               *shlex.split(os.environ.get("REGOSPH_CMAKE_ARGS", "")))
    _cmake("--build", str(build), "--target", "_core", "-j", os.environ.get("REGOSPH_JOBS", "2"))
    package = build / "python" / "regosph"
    tag = sysconfig.get_config_var("EXT_SUFFIX")
    if not list(package.glob(f"_core{tag}")):
        raise RuntimeError(f"{package}: no _core{tag} after the build: {build} was configured for "
                           f"another Python than {sys.executable}; set REGOSPH_BUILD_DIR to a new "
                           f"directory")
    return package


def _wheel_tag():
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{impl}-{impl}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _metadata(name, version, summary, requires_python, dependencies, optional):
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if summary:
        lines.append(f"Summary: {summary}")
    if requires_python:
        lines.append(f"Requires-Python: {requires_python}")
    lines += [f"Requires-Dist: {d}" for d in dependencies]
    for extra, packages in optional.items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {d}; extra == \"{extra}\"" for d in packages]
    return "\n".join(lines) + "\n"


# --- PEP 517 hooks -------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def _dist_info(name, version, summary, requires_python, dependencies, optional, scripts):
    """{file name: content} of the wheel's .dist-info directory, RECORD aside."""
    return {
        "METADATA": _metadata(name, version, summary, requires_python, dependencies,
                              optional).encode(),
        "WHEEL": (f"Wheel-Version: 1.0\nGenerator: regosph scripts/cmake_wheel.py\n"
                  f"Root-Is-Purelib: false\nTag: {_wheel_tag()}\n").encode(),
        "entry_points.txt": ("[console_scripts]\n" + "".join(
            f"{k} = {v}\n" for k, v in scripts.items())).encode(),
        "top_level.txt": b"regosph\n",
    }


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The .dist-info directory without building (pip asks for it before the wheel)."""
    project = _project()
    _check_dependencies()
    dist_info = f"{project[0]}-{project[1]}.dist-info"
    (Path(metadata_directory) / dist_info).mkdir(parents=True, exist_ok=True)
    for file, data in _dist_info(*project).items():
        (Path(metadata_directory) / dist_info / file).write_bytes(data)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    name, version = project[:2]
    _check_dependencies()
    package = _build_package()
    dist_info = f"{name}-{version}.dist-info"
    files = {}
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[f"regosph/{path.relative_to(package).as_posix()}"] = path.read_bytes()
    for file, data in _dist_info(*project).items():
        files[f"{dist_info}/{file}"] = data
    record = [_record_line(a, d) for a, d in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{name}-{version}-{_wheel_tag()}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files.items():
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    """The tracked source files (git ls-files; the whole tree minus build and run directories
    without git) as <name>-<version>.tar.gz."""
    name, version, summary, requires_python, dependencies, optional, _ = _project()
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=SOURCE, capture_output=True,
                                check=True).stdout.decode().split("\0")
        paths = [SOURCE / p for p in listed if p and (SOURCE / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "runs", "__pycache__"}
        paths = [p for p in SOURCE.rglob("*") if p.is_file()
                 and not any(part in skip or part.startswith("build")
                             for part in p.relative_to(SOURCE).parts)]
    root = f"{name}-{version}"
    archive = f"{root}.tar.gz"
    with tarfile.open(Path(sdist_directory) / archive, "w:gz") as tar:
        for p in sorted(paths):
            tar.add(p, arcname=f"{root}/{p.relative_to(SOURCE).as_posix()}")
        info = tarfile.TarInfo(f"{root}/PKG-INFO")
        data = _metadata(name, version, summary, requires_python, dependencies,
                         optional).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return archive
