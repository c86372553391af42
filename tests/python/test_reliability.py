"""Issue 15 items not in the fault matrix (test_fault_matrix.py) or the malformed inputs
(test_malformed_input.py): continuing and extending runs (item 2), leftovers of a killed run
(item 5), per-metre units of a 2D run (item 11), the brush sampler's plot times (item 12), and
what `make run` builds and prints (item 14)."""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from regosph import post
from conftest import REPO
from test_fault_matrix import assert_same_snapshots, environment, leftovers, run

SPACING = 1.0328e-2  # the coarse collapse: 19 x 9 soil particles


def collapse():
    from regosph.examples import soil_collapse
    return soil_collapse.build(SPACING)


def files(directory):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
            for p in Path(directory).glob("snapshot_*.h5")}


# --- item 2: continuing a run ---------------------------------------------------------------

def test_run_again_into_the_same_directory_continues_it(tmp_path):
    out = str(tmp_path / "run")
    sim = collapse()
    sim.run(0.02, output_dir=out, snapshot_interval=0.01, progress_interval=0)
    first_part = files(out)
    assert len(first_part) == 3
    sim.run(0.04, output_dir=out, snapshot_interval=0.01, progress_interval=0)
    # The first part is kept as it was, the second follows without a gap or duplicate.
    after = files(out)
    assert {k: after[k] for k in first_part} == first_part
    times = [h5py.File(Path(out) / n)["/"].attrs["time"] for n in sorted(after)]
    np.testing.assert_allclose(times, [0.0, 0.01, 0.02, 0.03, 0.04], atol=1e-12)
    diag = pd.read_csv(Path(out) / "diagnostics.csv")
    assert diag["time [s]"].is_monotonic_increasing and diag["time [s]"].is_unique
    assert diag["time [s]"].iloc[0] == 0.0 and diag["time [s]"].iloc[-1] == pytest.approx(0.04)
    record = json.loads((Path(out) / "run.json").read_text())
    assert record["run"]["end_time_s"] == 0.04 and record["run"]["start_time_s"] == 0
    [again] = record["restarts"]
    assert again["from"] == "the state in memory (same process)"
    assert [c["field"] for c in again["changed"]] == ["run.end_time_s"]
    # A changed setup between the two is refused like on a restart; overwrite starts anew.
    sim.physics.gravity = (0.0, -1.62, 0.0)
    with pytest.raises(ValueError, match="physics.gravity_m_s2"):
        sim.run(0.05, output_dir=out, snapshot_interval=0.01, progress_interval=0)
    assert files(out) == after


@pytest.mark.parametrize("checkpoint_every", [40, 100000])
def test_extending_a_finished_run_twice(checkpoint_every, tmp_path):
    """Each extension continues from the newest checkpoint: a periodic one (the steps after it
    are recomputed), or, in a run too short for any, the one of its final state."""
    out, reference = tmp_path / "run", tmp_path / "reference"
    args = ("--spacing", str(SPACING), "--checkpoint-every", str(checkpoint_every))
    for end, extra in ((0.05, ()), (0.1, ("--restart",)), (0.15, ("--restart",))):
        code, stdout, err = run(out, *args, *extra, end=end)
        assert code == 0, err
        if extra:
            assert "restarting from" in stdout
        info = subprocess.run([sys.executable, "-m", "regosph", "info", str(out)],
                              env=environment(), capture_output=True, text=True)
        assert f"(end time {end:g} s, finished)" in info.stdout, info.stdout + info.stderr
    record = json.loads((out / "run.json").read_text())
    assert record["run"]["end_time_s"] == 0.15
    restarts = [r["time_s"] for r in record["restarts"]]
    assert len(restarts) == 2 and 0 < restarts[0] <= 0.05 and restarts[0] < restarts[1] <= 0.1
    if checkpoint_every > 1000:
        assert restarts == [0.05, 0.1]  # the final states
    # The end times lie on the snapshot grid: the three parts are one uninterrupted run.
    code, _, err = run(reference, *args, end=0.15)
    assert code == 0, err
    assert_same_snapshots(out, reference)
    assert leftovers(out) == []


# --- item 5: leftovers of a killed run ------------------------------------------------------

STALE = ("snapshot_000007.h5.tmp", "checkpoint_000000000999.h5.tmp", "run.json.tmp",
         "series.xdmf.tmp", "observers.h5.tmp", "diagnostics.csv.tmp")


def test_stale_temporary_files_are_removed_on_restart(tmp_path):
    out = tmp_path / "run"
    code, _, err = run(out, "--spacing", str(SPACING), end=0.02)
    assert code == 0, err
    for name in STALE:  # what SIGKILL during writes leaves (half-written files)
        (out / name).write_bytes(b"\x89HDF\r\n partial")
    code, _, err = run(out, "--spacing", str(SPACING), "--restart", end=0.04)
    assert code == 0, err
    assert leftovers(out) == []


def test_leftovers_alone_are_not_a_run(tmp_path):
    # A run that failed at its start left run.json.tmp; the next run was refused.
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json.tmp").write_text('{"dim": 2')
    code, _, err = run(out, "--spacing", str(SPACING), end=0.01)
    assert code == 0, err
    assert leftovers(out) == []


# --- item 11: units of a 2D run -------------------------------------------------------------

def test_two_d_quantities_are_labelled_per_metre(tmp_path):
    out = tmp_path / "run"
    sim = collapse()
    sim.run(0.005, output_dir=str(out), progress_interval=0)
    columns = list(pd.read_csv(out / "diagnostics.csv").columns)
    assert columns[:10] == ["time [s]", "dt [s]", "kinetic_energy [J/m]", "momentum_x [N s/m]",
                            "momentum_y [N s/m]", "momentum_z [N s/m]", "max_speed [m/s]",
                            "yielding [-]", "mass [kg/m]", "rejected_steps [-]"]
    with h5py.File(out / "snapshot_000000.h5") as f:
        assert f["particles/mass"].attrs["units"] == "kg/m"
        assert "mass per metre of depth (kg/m)" in f.attrs["units"]
    assert post.Run(out).diagnostics.attrs["units"]["kinetic_energy"] == "J/m"


def test_three_d_quantities_keep_their_units(tmp_path):
    from regosph.examples import soil_collapse
    out = tmp_path / "run"
    sim = soil_collapse.build(2.0656e-2, depth=2 * 2.0656e-2)
    sim.run(0.002, output_dir=str(out), progress_interval=0)
    columns = list(pd.read_csv(out / "diagnostics.csv").columns)
    assert "kinetic_energy [J]" in columns and "momentum_x [kg m/s]" in columns
    assert "mass [kg]" in columns
    with h5py.File(out / "snapshot_000000.h5") as f:
        assert f["particles/mass"].attrs["units"] == "kg"


# --- item 12: brush sampler plot times ------------------------------------------------------

def test_brush_sampler_plots_at_the_end_time_when_the_plot_times_come_later(tmp_path, capsys):
    from regosph.examples import brush_sampler as bs
    out = tmp_path / "P0"
    status = bs.main(["--run", "P0", "--resolution", "coarse", "--end-time", "0.01",
                      "--output", str(out)])  # default plot times 0.25 0.5 1.0
    assert status == 0
    said = capsys.readouterr().out
    assert "plot times 0.25, 0.5, 1 s come after the end time 0.01 s" in said
    assert "plotting the speed at the end time instead" in said
    assert (out / "speed_0.010s.png").stat().st_size > 5000
    assert bs.plot_times([0.005, 0.5], 0.01) == [0.005]


# --- item 14: make run ----------------------------------------------------------------------

def test_make_run_builds_only_the_python_extension():
    dry = subprocess.run(["make", "-n", "run"], cwd=REPO, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    builds = [line for line in dry.stdout.splitlines() if "cmake --build" in line]
    assert builds and all("--target _core" in line for line in builds), dry.stdout
    assert "unit_tests" not in dry.stdout


def test_a_run_says_what_it_runs_at_once(tmp_path):
    """The first line comes before the first step, not after the first progress interval
    (5 s), so `make run` prints something within its first seconds."""
    proc = subprocess.Popen([sys.executable, str(REPO / "validation" / "soil_collapse" / "run.py"),
                             "--output", str(tmp_path / "run"), "--end-time", "1.0"],
                            env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    start = time.monotonic()
    try:
        first = proc.stdout.readline()
        elapsed = time.monotonic() - start
    finally:
        proc.kill()
        proc.communicate()
    assert re.match(r"running: 3769 particles \(2926 dynamic\) from t = 0 s \(step 0\) to 1 s, "
                    r"output in ", first), first
    assert elapsed < 30
