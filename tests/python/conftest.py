"""Shared setup of the Python tests.

Locates the repository from REGOSPH_SOURCE_DIR (set by CTest) or from this file's path, and
falls back to the build tree's package when regosph is not importable from PYTHONPATH. Tests
import the setups of examples/ as regosph.examples (`from regosph.examples import
soil_collapse`).
"""
import os
import pathlib
import sys

import pytest

REPO = pathlib.Path(os.environ.get("REGOSPH_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2])
EXAMPLES = REPO / "examples"

# OpenMP threads that spin while waiting slow a run down by orders of magnitude when another
# job shares the 2 cores (observed: the 0.5 s collapse run took 106 s). Sleep instead; this
# must be set before the extension (and libgomp) is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")


def load_script(relative_path, name):
    """A script of the repository (e.g. a validation study) imported as module `name`, its own
    directory on sys.path for its sibling imports."""
    import importlib.util
    path = REPO / relative_path
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


try:
    import regosph  # noqa: F401
except ImportError:  # not on PYTHONPATH: use the default build directory
    sys.path.insert(0, str(REPO / "build" / "python"))


def run_into(tmp_path_factory, folder, sim, end_time, name="run", **run_options):
    """Runs `sim` to end_time [s] into <a new temporary folder>/name without progress lines;
    returns that run directory (for a module-scoped fixture)."""
    out = tmp_path_factory.mktemp(folder) / name
    sim.run(end_time, output_dir=str(out), progress_interval=0, **run_options)
    return out


@pytest.fixture
def repo_root():
    return REPO
