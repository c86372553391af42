"""The brush-sampler setup (examples/brush_sampler.py, SPEC.md section 8): its geometry and
kinematics against the dimensions of the paper, and a short coarse run with its outputs."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from regosph.examples import brush_sampler as bs
import regosph as rs


@pytest.fixture(scope="module")
def setup():
    return bs.build("E0", "default")


def body_points(sim, name):
    return sim.positions[sim.body == sim.body_names.index(name)]


def test_run_table_matches_spec():
    assert list(bs.RUNS) == ["E0", "E1", "E2", "E3", "P0", "P1", "P2", "P3", "P4", "P5", "P6",
                             "P7", "P8"]
    assert bs.RUNS["P2"] == (5.7e-3, 100, 20, 1000.0)
    assert bs.RUNS["E3"] == (9.81, 500, 42, 0.0)
    assert bs.RUNS["P8"] == (5.7e-3, -100, 42, 100.0)


def test_brush_geometry(setup):
    dx = bs.RESOLUTIONS["default"]
    for side, x_pivot in (("left", -0.0475), ("right", 0.0475)):
        p = body_points(setup, f"brush {side}")
        r = np.hypot(p[:, 0] - x_pivot, p[:, 1] - bs.PIVOT_HEIGHT)
        assert r.max() <= 0.035 + 1e-12 and r.max() > 0.035 - dx
        # Lowest bristle tip 8.4 mm above the surface (y = 0); the bristle is two rows thick.
        assert p[:, 1].min() == pytest.approx(0.0084, abs=0.5 * dx)
        # 12 bristles 30 deg apart: particles beyond the hub cluster on 12 directions.
        outer = r > 0.015 + dx
        angles = np.degrees(np.arctan2(p[outer, 1] - bs.PIVOT_HEIGHT, p[outer, 0] - x_pivot))
        centres = np.round((angles + 90.0) / 30.0) % 12
        assert len(np.unique(centres)) == 12
        # ... and each particle lies within half a spacing of its bristle's axis.
        axis = np.radians(-90.0 + 30.0 * centres)
        rel = p[outer] - [x_pivot, bs.PIVOT_HEIGHT]
        off_axis = np.abs(rel[:, 0] * np.sin(axis) - rel[:, 1] * np.cos(axis))
        assert off_axis.max() == pytest.approx(0.5 * dx, rel=1e-9)


def test_tray_and_shields(setup):
    dx = bs.RESOLUTIONS["default"]
    tray = body_points(setup, "tray")
    # Particle centres lie half a spacing inside the walls' outline (82 mm x 63 mm).
    assert tray[:, 0].max() - tray[:, 0].min() + dx == pytest.approx(0.082, abs=dx)
    assert tray[:, 1].max() - tray[:, 1].min() + dx == pytest.approx(0.063, abs=dx)
    floor = tray[tray[:, 1] < tray[:, 1].min() + 0.004]
    # The 26 mm opening in the middle of the floor.
    assert np.abs(floor[:, 0]).min() == pytest.approx(0.013, abs=2.5e-3)
    # The floor clears the circle the bristle tips sweep.
    assert tray[:, 1].min() > bs.PIVOT_HEIGHT + 0.035
    for side, x_pivot in (("left", -0.0475), ("right", 0.0475)):
        s = body_points(setup, f"shield {side}")
        a = np.degrees(np.arctan2(s[:, 1] - bs.PIVOT_HEIGHT, s[:, 0] - x_pivot)) % 360
        if side == "right":
            a = (a + 180) % 360  # -40..40 deg mapped onto 140..220 deg
        assert a.min() > 140 and a.max() < 220 and a.max() - a.min() > 75  # the outer 80 deg


def test_bed_zones_keep_the_bulk_density(setup):
    # Mass per area of every zone is the bulk density whatever its spacing (variable resolution).
    for k, (w, d) in enumerate((bs.INNER,) + bs.DAMPING):
        name = "regolith" if k == 0 else f"regolith damping {k}"
        m = setup.mass[setup.body == setup.body_names.index(name)]
        spacing = bs.RESOLUTIONS["default"] * 2 ** k
        np.testing.assert_allclose(m, 1500.0 * spacing ** 2)
    soil = setup.kind == rs.KIND_DYNAMIC
    bed_w, bed_d = 2 * bs.snap(0.5 * bs.DAMPING[-1][0], 4 * bs.RESOLUTIONS["default"]), \
        bs.snap(bs.DAMPING[-1][1], 4 * bs.RESOLUTIONS["default"])
    assert setup.mass[soil].sum() == pytest.approx(1500.0 * bed_w * bed_d, rel=0.01)


def test_kinematics_descend_and_turn(setup):
    # After 0.3 s: 1 cm lower (5 cm/s for 0.2 s), left brush turned counter-clockwise.
    sim = bs.build("P0", "coarse")
    left = sim.body == sim.body_names.index("brush left")
    x0 = sim.positions[left]
    sim.physics.gravity = (0.0, 0.0)
    # Move the clock without integrating the regolith far: the kinematic placement is exact.
    sim.run(0.3, progress_interval=0)
    x = sim.positions[left]
    pivot0 = np.array([-0.0475, bs.PIVOT_HEIGHT])
    pivot = pivot0 + [0.0, -0.01]
    angle = 100 * 2 * math.pi / 60 * 0.3
    c, s = math.cos(angle), math.sin(angle)
    d = x0 - pivot0
    np.testing.assert_allclose(x, pivot + np.column_stack([c * d[:, 0] - s * d[:, 1],
                                                           s * d[:, 0] + c * d[:, 1]]), atol=1e-12)


def test_short_coarse_run_writes_tray_counts_and_loads(tmp_path):
    out = tmp_path / "E3"
    status = bs.main(["--run", "E3", "--resolution", "coarse", "--end-time", "0.03",
                      "--output", str(out), "--plot-times", "0.03", "--observe-every", "10"])
    assert status == 0
    obs = pd.read_csv(out / "observers.csv")
    assert list(obs.columns) == ["time [s]", "step [-]", "tray.count [-]", "tray.mass [kg/m]"]
    assert obs["tray.count [-]"].max() == 0  # nothing reaches the tray in 30 ms
    diag = pd.read_csv(out / "diagnostics.csv")
    torque = diag["brush left.torque_z [N]"].to_numpy()
    # The bristles touch the bed only after descending; before that no load.
    assert torque[0] == 0.0
    run = json.loads((out / "run.json").read_text())
    assert run["metadata"]["run"] == "E3" and run["metadata"]["rpm"] == "500"
    brushes = {b["name"]: b for b in run["bodies"] if b["name"].startswith("brush")}
    assert brushes["brush left"]["kinematics"]["rpm"] == pytest.approx(500)
    assert brushes["brush right"]["kinematics"]["rpm"] == pytest.approx(-500)
    assert (out / "speed_0.030s.png").stat().st_size > 10_000


def test_bad_arguments():
    with pytest.raises(ValueError, match="run: 'X9'"):
        bs.build("X9")
    with pytest.raises(ValueError, match="resolution: 'fine'"):
        bs.build("E0", "fine")
    with pytest.raises(ValueError, match="spacing = "):
        bs.build("E0", spacing=-1.0)


def test_open_choices_change_only_their_part():
    """The setup's own choices (issue 16: run each either way): bristle rows, the tray
    floor's clearance above the tip circle and the shield gap move only their body."""
    dx = bs.RESOLUTIONS["default"]
    base, _ = bs.layout("P0", dx)
    changed, _ = bs.layout("P0", dx, choices=bs.Choices(bristle_rows=1, tray_clearance=0.006,
                                                        shield_gap=0.0015))
    parts = {p.name: p.points for p in base}
    other = {p.name: p.points for p in changed}
    for name in ("regolith", "regolith damping 1", "regolith damping 2", "bed wall"):
        np.testing.assert_array_equal(parts[name], other[name])
    tip = bs.TIP_RADIUS
    for side, x_pivot in (("left", -0.0475), ("right", 0.0475)):
        rel = lambda p: np.hypot(p[:, 0] - x_pivot, p[:, 1] - bs.PIVOT_HEIGHT)
        outer = lambda p: p[rel(p) > bs.HUB_RADIUS + dx]
        # One row instead of two: half the bristle particles, all on the bristle axes.
        assert len(outer(other[f"brush {side}"])) * 2 == len(outer(parts[f"brush {side}"]))
        # Shield rows start half a spacing outside the inner radius tip + gap.
        assert rel(parts[f"shield {side}"]).min() == pytest.approx(tip + 0.003 + 0.5 * dx)
        assert rel(other[f"shield {side}"]).min() == pytest.approx(tip + 0.0015 + 0.5 * dx)
    # The tray is lifted by the extra 3 mm of clearance, unchanged otherwise.
    np.testing.assert_allclose(other["tray"] - [0.0, 0.003], parts["tray"], atol=1e-12)
    # The default choices are the ones in SPEC.md's geometry (3 mm gaps, two rows).
    assert bs.DEFAULT_CHOICES == (2, 0.003, 0.038 - 0.035)
    with pytest.raises(ValueError, match="bristle_rows = 0"):
        bs.layout("P0", dx, choices=(0, 0.003, 0.003))
    with pytest.raises(ValueError, match="shield_gap = -0.001"):
        bs.layout("P0", dx, choices=(2, 0.003, -0.001))


def test_sigterm_and_restart_with_moving_tools_is_bit_identical(tmp_path):
    """Kinematic bodies are placed from the time alone, so a restarted sampler run continues
    exactly: snapshots, diagnostics (with the loads) and tray counts as if never stopped."""
    import signal
    import subprocess
    import sys
    import time

    from test_restart import assert_same_run, environment

    args = [sys.executable, str(bs.__file__), "--run", "P5", "--resolution", "coarse",
            "--end-time", "0.08", "--snapshot-interval", "0.02", "--checkpoint-every", "150",
            "--plot-times"]
    ref, cut = tmp_path / "reference", tmp_path / "stopped"
    done = subprocess.run(args + ["--output", str(ref)], env=environment(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    proc = subprocess.Popen(args + ["--output", str(cut)], env=environment(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    while not list(cut.glob("checkpoint_*.h5")) and proc.poll() is None:
        assert time.monotonic() - start < 120
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before SIGTERM arrived")
    assert proc.returncode == 128 + signal.SIGTERM
    again = subprocess.run(args + ["--output", str(cut), "--restart"], env=environment(),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert_same_run(ref, cut)
    oa = pd.read_csv(ref / "observers.csv", float_precision="round_trip")
    ob = pd.read_csv(cut / "observers.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(oa, ob, check_exact=True)
