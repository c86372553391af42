"""The scaling model's lattice replica of the decomposition (bench/scaling_model.py) against
the code's own counters on a tiny 3D bed: the owned particles, halo copies, halo partners and
pair-list entries of every rank, which the model's predictions for a cluster are built on."""
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
MPIEXEC = os.environ.get("REGOSPH_MPIEXEC") or shutil.which("mpiexec")
FLAGS = shlex.split(os.environ.get("REGOSPH_MPIEXEC_FLAGS",
                                   "--oversubscribe --allow-run-as-root --bind-to none"))


def load_model():
    spec = importlib.util.spec_from_file_location("scaling_model", BENCH / "scaling_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pair_work_counts_the_lattice_neighbours_below_the_surface():
    model = load_model()
    bed = model.Bed(0.05)  # 24 x 6 x 8 regolith particles
    work = model.PairWork(bed, 2.575)
    # Offsets with |d|^2 < 6.63: 6 + 12 + 8 + 6 + 24 + 24 = 80 in the bulk (a whole number of
    # blocks of 8); in the top row, away from the walls, the 24 above it are missing.
    assert work.bulk == 80
    top, below = (bed.top - 1, bed.top), (bed.top - 2, bed.top - 1)
    assert work.entries((10, top[0], 4), (11, top[1], 5)) == 56
    assert work.entries((10, below[0], 4), (11, below[1], 5)) == 72
    # Next to a wall the wall's freeboard above the surface adds neighbours.
    assert work.entries((0, top[0], 4), (1, top[1], 5)) > 56
    deep = (10, 1, 4)
    assert work.entries(deep, (11, 2, 5)) == 80


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec")
@pytest.mark.parametrize("ranks", [3, 8])
def test_the_replica_gives_each_rank_its_measured_counts(ranks):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_mpi_yield_when_idle="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run([MPIEXEC, "-n", str(ranks), *FLAGS, sys.executable,
                          str(BENCH / "scaling_case.py"), "--spacing", "0.05", "--steps", "1",
                          "--warmup", "1"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout.strip().splitlines()[-1])
    model = load_model()
    check = model.check_run(run)
    got, rep = check["got"], check["rep"]
    assert run["particles"] == check["bed"].count()
    np.testing.assert_array_equal(got["owned"], rep["dynamic"] + rep["boundary"])
    np.testing.assert_array_equal(got["dynamic"], rep["dynamic"])
    np.testing.assert_array_equal(got["partners"], rep["partners"])
    np.testing.assert_array_equal(got["halo"], rep["halo_dynamic"] + rep["halo_boundary"])
    np.testing.assert_array_equal(got["pair_entries"], rep["work"])
    assert got["halo"].sum() > 0 and (got["collective_calls"] > 0).all()
