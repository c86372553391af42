"""MPI behaviour that the correctness gate (tests/mpi, CTest) does not cover: failures on one
rank stop every rank with the message instead of hanging, only rank 0 prints, a run
checkpointed on one rank count continues on another to the same state, a split setup (bodies
given as shapes) holds each rank's share and ends as the whole one, and MPI is initialised only
in processes that an MPI launcher started.

Each test starts mpiexec on a tiny setup with a timeout: a hang fails the test instead of
stalling the suite.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

MPIEXEC = os.environ.get("REGOSPH_MPIEXEC") or shutil.which("mpiexec")
FLAGS = shlex.split(os.environ.get("REGOSPH_MPIEXEC_FLAGS",
                                   "--oversubscribe --allow-run-as-root --bind-to none"))
TIMEOUT = 120  # s; a hang fails here

pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec")

SETUP = textwrap.dedent("""
    import sys
    import numpy as np
    import regosph as rs
    rs.mpi_script()
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    dx = 5e-3
    soil = sim.add_material(rs.DruckerPrager("soil", density=2650, bulk_modulus=0.7e6,
                                             poisson_ratio=0.3, friction_angle=19.8, cohesion=0))
    wall = sim.add_material(rs.Rigid("wall", density=2650))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.1, 0.04)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    sim.add_body("floor", rs.lattice_fill(rs.rectangle((-0.02, -0.015), (0.12, 0)), dx),
                 material=wall, motion="fixed", spacing=dx, smoothing_length=2.5 * dx)
""")


# The same setup split over the ranks: its bodies given as shapes, each rank builds its share.
SPLIT_SETUP = SETUP.replace("rs.lattice_fill(rs.rectangle((0, 0), (0.1, 0.04)), dx)",
                            "rs.rectangle((0, 0), (0.1, 0.04))").replace(
    "rs.lattice_fill(rs.rectangle((-0.02, -0.015), (0.12, 0)), dx)",
    "rs.rectangle((-0.02, -0.015), (0.12, 0))")


def mpirun(ranks, script, tmp_path, *args, setup=SETUP):
    path = tmp_path / "case.py"
    path.write_text(setup + textwrap.dedent(script))
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_mpi_yield_when_idle="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return subprocess.run([MPIEXEC, "-n", str(ranks), *FLAGS, sys.executable, str(path), *args],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def test_an_exception_on_one_rank_stops_every_rank_with_its_message(tmp_path):
    # Rank 1 fails before the run; without the abort the other ranks would wait in the run's
    # first collective operation forever.
    r = mpirun(3, """
        if rs.mpi_rank() == 1:
            raise ValueError("friction_angle: bad value on this rank only")
        sim.run(0.01, progress_interval=0)
        print("FINISHED")
    """, tmp_path)
    assert r.returncode != 0
    assert "error on MPI rank 1 of 3" in r.stderr
    assert "friction_angle: bad value on this rank only" in r.stderr
    assert "FINISHED" not in r.stdout


def test_a_blow_up_on_one_rank_stops_every_rank(tmp_path):
    # After a first run each rank holds its own particles; one absurd stress on one rank (the
    # state overflows to non-finite values within a step) must stop the run on all ranks, with
    # a report (merged from every rank's worst particles) that names the rank, and a crash dump
    # of the last good state.
    out = tmp_path / "run"
    r = mpirun(2, f"""
        sim.run(0.002, progress_interval=0)
        if rs.mpi_rank() == 1:
            s = sim.stress
            s[0, :3] = 1e300
            sim.stress = s
        try:
            sim.run(0.004, output_dir={str(out)!r}, progress_interval=0)
        except rs.BlowUpError as e:
            print("BLOWUP", str(e).replace("\\n", " | "))
            sys.exit(3)
        print("FINISHED")
    """, tmp_path)
    assert r.returncode == 3, r.stderr
    assert r.stdout.count("BLOWUP") == 1  # printed by rank 0 only
    assert "blow-up at t = 0.002" in r.stdout
    assert "Worst particles" in r.stdout and re.search(r"Pa, rank [01]", r.stdout)
    dumps = list(out.glob("crash_*.h5"))
    assert len(dumps) == 1
    with h5py.File(dumps[0], "r") as f:
        assert np.isfinite(f["particles/position"][:]).all()  # the last good state
        ids = f["particles/id"][:]
    with h5py.File(sorted(out.glob("snapshot_*.h5"))[0], "r") as f:
        assert np.array_equal(ids, f["particles/id"][:])  # every particle of every rank


def test_only_rank_0_prints(tmp_path):
    r = mpirun(3, """
        print("hello from rank", rs.mpi_rank(), "of", rs.mpi_size())
        sim.run(0.001, progress_interval=0)
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("hello from rank") == 1
    assert "hello from rank 0 of 3" in r.stdout


def test_importing_changes_neither_printing_nor_errors_until_the_script_asks(tmp_path):
    # Import alone leaves sys.stdout and sys.excepthook alone on every rank; mpi_script() then
    # silences ranks other than 0 (and a second call changes nothing). What each rank saw at
    # import goes to a file of its own: two ranks printing at once may interleave within a line.
    path = tmp_path / "hooks.py"
    path.write_text(textwrap.dedent(f"""
        import sys
        import regosph as rs
        untouched = sys.stdout is sys.__stdout__ and sys.excepthook is sys.__excepthook__
        with open(r"{tmp_path}/imported_" + str(rs.mpi_rank()), "w") as f:
            f.write(str(untouched))
        rs.mpi_script()
        rs.mpi_script()
        print("asked", rs.mpi_rank(), sys.excepthook is sys.__excepthook__, flush=True)
    """))
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run([MPIEXEC, "-n", "2", *FLAGS, sys.executable, str(path)],
                       capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:-1] == ["asked 0 False"]
    assert [(tmp_path / f"imported_{rank}").read_text() for rank in (0, 1)] == ["True", "True"]


@pytest.mark.parametrize("setup", [SETUP, SPLIT_SETUP], ids=["whole", "split"])
def test_a_checkpoint_continues_on_another_rank_count(tmp_path, setup):
    # 2 ranks write checkpoints; 3 ranks restart from the newest and finish; the final state
    # equals an uninterrupted 1-rank run of the whole setup particle by particle. A split setup
    # (bodies given as shapes) holds half of each body on each rank before its run.
    run = tmp_path / "run"
    first = mpirun(2, f"""
        from mpi4py import MPI
        print("HELD", MPI.COMM_WORLD.allgather(sim.size), sim.split_setup)
        sim.run(0.003, output_dir={str(run)!r}, checkpoint_every=20, progress_interval=0)
    """, tmp_path, setup=setup)
    assert first.returncode == 0, first.stderr
    assert list(run.glob("checkpoint_*.h5"))
    held = re.search(r"HELD \[(\d+), (\d+)\] (\w+)", first.stdout)
    assert held[3] == str(setup == SPLIT_SETUP), first.stdout
    second = mpirun(3, f"""
        used, rejected = sim.restart({str(run)!r})
        print("RESTARTED", used, sim.time)
        sim.run(0.006, output_dir={str(run)!r}, progress_interval=0)
    """, tmp_path, setup=setup)
    assert second.returncode == 0, second.stderr
    assert "RESTARTED" in second.stdout
    ref = tmp_path / "ref"
    third = mpirun(1, f"""
        sim.run(0.006, output_dir={str(ref)!r}, progress_interval=0)
    """, tmp_path)
    assert third.returncode == 0, third.stderr
    last = lambda d: sorted(d.glob("snapshot_*.h5"))[-1]  # noqa: E731
    with h5py.File(last(run), "r") as a, h5py.File(last(ref), "r") as b:
        assert a.attrs["time"] == b.attrs["time"] == 0.006
        total = len(b["particles/id"])
        if setup == SPLIT_SETUP:
            assert sorted(int(n) for n in held.groups()[:2]) == [total // 2, total - total // 2]
        else:
            assert int(held[1]) == int(held[2]) == total
        for name in ("id", "position", "velocity", "stress"):
            assert np.array_equal(a["particles/" + name][:], b["particles/" + name][:]), name


def test_a_split_setup_refuses_an_overlap_on_every_rank(tmp_path):
    # The soil particles the stone overlaps lie in rank 0's share only (the lower rows); rank 1
    # must refuse the stone too. Each rank writes its verdict to a file of its own.
    result = mpirun(2, f"""
        try:
            sim.add_body("stone", rs.rectangle((0.04, 0.0), (0.06, 0.02)), material=soil,
                         motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
            verdict = "accepted"
        except ValueError as e:
            verdict = str(e)
        with open({str(tmp_path)!r} + f"/rank{{rs.mpi_rank()}}.txt", "w") as f:
            f.write(verdict)
    """, tmp_path, setup=SPLIT_SETUP)
    assert result.returncode == 0, result.stderr
    for rank in (0, 1):
        verdict = (tmp_path / f"rank{rank}.txt").read_text()
        assert "body 'stone': positions overlap body 'soil'" in verdict, (rank, verdict)


PROBE = """
import mpi4py
mpi4py.rc.initialize = False  # mpi4py must not initialise MPI itself
import regosph as rs
from mpi4py import MPI
rs.mpi_script()
print("initialised", MPI.Is_initialized(), "ranks", rs.mpi_size(), "rank", rs.mpi_rank())
"""


def test_mpi_initialised_only_under_a_launcher(tmp_path):
    """Started without a launcher, importing regosph leaves MPI alone (Open MPI would start its
    daemon, orted, for a process that initialises MPI on its own): one rank. Started by
    mpiexec, the import initialises MPI."""
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMI_", "PMIX_"))}
    alone = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           timeout=TIMEOUT, env=env)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.split() == ["initialised", "False", "ranks", "1", "rank", "0"]
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launched = subprocess.run([MPIEXEC, "-n", "2", *FLAGS, sys.executable, str(path)],
                              capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert launched.returncode == 0, launched.stderr
    # (Only rank 0 prints: mpi_script silences the others' stdout.)
    assert launched.stdout.split() == ["initialised", "True", "ranks", "2", "rank", "0"]
