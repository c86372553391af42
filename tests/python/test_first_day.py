"""A user's first day (issue 49): safe defaults (periodic checkpoints, Ctrl-C stops a script,
a restart from a snapshot, a hint when there is no checkpoint), forgiving errors (misspelt
keywords, unit slips) and the small things (RunSummary's repr, Run.snapshot beyond the run,
body_loads of an unknown body). Small 2D blocks of a few hundred particles: seconds each."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import regosph as rs
from regosph import post

DX = 0.01
SOIL = dict(density=2000.0, bulk_modulus=1e6, poisson_ratio=0.3, friction_angle=30.0,
            cohesion=0.0)


def block():
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81)
    soil = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    wall = sim.add_material(rs.ElasticSolid("wall", density=2000.0, bulk_modulus=1e6,
                                            shear_modulus=1e6))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.1, 0.1)), DX), material=soil,
                 motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    sim.add_body("floor", rs.lattice_fill(rs.rectangle((-0.03, -0.03), (0.13, 0.0)), DX),
                 material=wall, motion="fixed", spacing=DX, smoothing_length=2.5 * DX)
    return sim


# --- safe defaults ------------------------------------------------------------------------

def test_a_run_with_an_output_directory_checkpoints_every_ten_wall_minutes(tmp_path):
    sim = block()
    sim.run(0.002, output_dir=str(tmp_path / "a"), progress_interval=0)
    assert json.loads((tmp_path / "a" / "run.json").read_text())["run"][
        "checkpoint_interval_s"] == 600.0
    sim = block()
    sim.run(0.002, output_dir=str(tmp_path / "b"), progress_interval=0, checkpoint_interval=0)
    assert json.loads((tmp_path / "b" / "run.json").read_text())["run"][
        "checkpoint_interval_s"] == 0.0


CTRL_C = """
import sys, regosph as rs
sys.path.insert(0, sys.argv[2])
from test_first_day import block
sim = block()
print("running", flush=True)
summary = sim.run(100.0, output_dir=sys.argv[1], progress_interval=0,
                  keyboard_interrupt=sys.argv[3] == "raise")
print("returned", summary.interrupted_by, flush=True)
"""


def interrupt(tmp_path, mode):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C, str(tmp_path / mode),
                             str(Path(__file__).parent), mode], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "running"
    time.sleep(1.5)  # into the run
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_ctrl_c_checkpoints_and_raises_keyboard_interrupt_in_a_script(tmp_path):
    code, out, err = interrupt(tmp_path, "raise")
    assert code != 0 and "KeyboardInterrupt" in err, err
    assert "returned" not in out  # the script stopped
    assert "checkpoint" in err and list((tmp_path / "raise").glob("checkpoint_*.h5"))


def test_a_driver_can_keep_ctrl_c_returning(tmp_path):
    code, out, err = interrupt(tmp_path, "return")
    assert code == 0, err
    assert f"returned {int(signal.SIGINT)}" in out


def test_no_checkpoint_gives_a_hint_and_a_snapshot_can_start_a_run(tmp_path):
    sim = block()
    sim.run(0.004, output_dir=str(tmp_path / "a"), snapshot_interval=0.001, progress_interval=0)
    for f in (tmp_path / "a").glob("checkpoint_*.h5"):
        f.unlink()  # as after a SIGKILL before the first checkpoint
    with pytest.raises(RuntimeError, match="hint: .*snapshot="):
        block().restart(str(tmp_path / "a"))
    sim = block()
    used, _ = sim.restart(str(tmp_path / "a"), snapshot=2)
    assert used.endswith("snapshot_000002.h5")
    assert sim.time == pytest.approx(0.002, abs=1e-9)
    sim.run(0.003, output_dir=str(tmp_path / "b"), progress_interval=0)
    assert post.Run(tmp_path / "b").times[-1] == pytest.approx(0.003)
    with pytest.raises(IndexError, match="holds 5 snapshots"):
        block().restart(str(tmp_path / "a"), snapshot=7)


# --- forgiving errors ---------------------------------------------------------------------

def test_a_misspelt_keyword_is_named_with_the_closest_valid_one():
    with pytest.raises(TypeError) as err:
        rs.DruckerPrager("soil", density=2000.0, bulk_modulus=1e6, poisson_ratio=0.3,
                         frictionangle=30.0, cohesion=0.0)
    assert "'frictionangle' (did you mean 'friction_angle'?)" in str(err.value)
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    positions = rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), DX)
    with pytest.raises(TypeError) as err:
        sim.add_body("soil", positions, material=soil, motion="dynamic", spacing=DX,
                     smoothing_lenght=2.5 * DX)
    message = str(err.value)
    assert "'smoothing_lenght' (did you mean 'smoothing_length'?)" in message
    assert "array(" not in message and len(message) < 600  # never the positions


def test_a_wrong_type_shows_shapes_not_values():
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", **SOIL))
    positions = rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), DX)
    with pytest.raises(TypeError) as err:
        sim.add_body("soil", positions, material=soil, motion="dynamic", spacing="fine",
                     smoothing_length=2.5 * DX)
    assert "ndarray of shape (200, 2)" in str(err.value) and "array(" not in str(err.value)
    with pytest.raises(TypeError, match="missing argument smoothing_length"):
        sim.add_body("soil", positions, material=soil, motion="dynamic", spacing=DX)


@pytest.mark.parametrize("slip, expect", [
    (dict(friction_angle=0.35), "friction_angle = 0.35 deg"),
    (dict(bulk_modulus=3.33), "bulk_modulus = 3.33 Pa"),
    (dict(density=1.5), "density = 1.5 kg/m^3"),
])
def test_a_likely_unit_slip_warns_and_can_be_silenced(slip, expect):
    with pytest.warns(rs.PlausibilityWarning, match=re.escape(expect)):
        rs.DruckerPrager("soil", **{**SOIL, **slip})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=rs.PlausibilityWarning)
        rs.DruckerPrager("soil", **{**SOIL, **slip})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rs.DruckerPrager("soil", **SOIL)  # plausible values: silent
        rs.DruckerPrager("soil", **{**SOIL, "dilatancy_angle": 0.0})  # 0 deg is a choice


# --- small things ---------------------------------------------------------------------------

def test_run_summary_repr_and_the_run_readers_answers(tmp_path):
    sim = block()
    summary = sim.run(0.004, output_dir=str(tmp_path / "a"), snapshot_interval=0.001,
                      progress_interval=0)
    text = repr(summary)
    assert text.startswith("RunSummary(steps=") and f"snapshots={summary.snapshots}" in text
    run = post.Run(tmp_path / "a")
    assert run.snapshot(time=0.0041).time == pytest.approx(0.004)  # nearest within the run
    with pytest.raises(ValueError, match="outside the run's snapshots"):
        run.snapshot(time=100)
    with pytest.raises(KeyError, match="no body 'flor' .did you mean 'floor'.*bodies: soil, floor"):
        run.body_loads("flor")


def cli(*args):
    return subprocess.run([sys.executable, "-m", "regosph", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_the_command_tells_its_version_and_plots_one_snapshot(tmp_path):
    out = cli("--version")
    assert out.returncode == 0 and out.stdout.strip().endswith(rs.__version__), out.stderr
    sim = block()
    sim.run(0.002, output_dir=str(tmp_path / "a"), snapshot_interval=0.001, progress_interval=0)
    out = cli("plot", tmp_path / "a" / "snapshot_000001.h5", "--out", tmp_path / "png")
    assert out.returncode == 0, out.stderr
    assert [p.name for p in (tmp_path / "png").iterdir()] == ["speed_0.001s.png"]


def test_sweep_directories_are_named_after_what_varies():
    from regosph import sweep
    rows = [{"run": r, "end_time": 0.1, "resolution": "coarse"} for r in ("E0", "E1")]
    assert [p.name for p in sweep.plan_sweep(["x"], rows, "/nonexistent")] == ["run=E0", "run=E1"]
    rows[1]["resolution"] = "fine"
    assert [p.name for p in sweep.plan_sweep(["x"], rows, "/nonexistent")] == [
        "run=E0__resolution=coarse", "run=E1__resolution=fine"]
    assert [p.name for p in sweep.plan_sweep(["x"], rows[:1], "/nonexistent")] == [
        "run=E0__end_time=0.1__resolution=coarse"]


def test_a_tool_can_start_buried_in_a_prepared_bed(tmp_path):
    from regosph.examples import prepared_bed
    dx, depth, width = 0.01, 0.1, 0.2
    rs.prepare_bed(prepared_bed.build(depth, width, 9.81, dx), str(tmp_path / "bed"))
    plate = rs.rectangle((0.08, 0.03), (0.12, 0.05))  # 2 cm under the surface
    kept = rs.carve_bed(str(tmp_path / "bed"), rs.offset(plate, dx / 2))
    full = post.Run(tmp_path / "bed").snapshot(-1)
    assert 0 < len(full.select(body="bed")) - len(kept) and not plate.contains(kept).any()
    sim = prepared_bed.build(depth, width, 9.81, dx, bed_positions=kept)
    rs.load_bed(sim, str(tmp_path / "bed"))
    order = np.argsort(full["id"])
    bed_rows = order[full["body"][order] == 0]
    settled = full["position"][bed_rows][:, :2]
    kept_rows = bed_rows[~rs.offset(plate, dx / 2).contains(settled)]
    np.testing.assert_array_equal(sim.positions[:len(kept)], kept)
    np.testing.assert_array_equal(sim.stress[:len(kept)], full["stress"][kept_rows])
    steel = sim.add_material(rs.Rigid("steel", density=7800.0))
    sim.add_body("plate", rs.lattice_fill(plate, dx), material=steel, motion="fixed",
                 spacing=dx, smoothing_length=2.5 * dx)  # in the hole: no overlap
    sim.run(0.002, progress_interval=0)
    with pytest.raises(ValueError, match=r"'bedd' is not in .*\(bed, box\)"):
        rs.carve_bed(str(tmp_path / "bed"), plate, body="bedd")
