"""Motor-like kinematics (issue 17 part 3): rate schedules and velocity ramps from Python, the
power each tool gives the regolith and its cumulative work in diagnostics.csv (a plate lifting
a block does work at its weight times its speed; with rows every 20 steps the work is the
same), exact restarts of the work, and the brush sampler's spin-up option."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from regosph.examples import brush_sampler as bs
import regosph as rs

DX, H = 5e-3, 2.5 * 5e-3  # m
LIFT = 0.01               # m/s
RAMP = [(0.0, (0.0, 0.0)), (0.02, (0.0, LIFT))]  # from rest to 1 cm/s upward in 0.02 s


def lifted_block():
    """A 0.10 m x 0.05 m soil block on a plate that starts lifting it smoothly (2D)."""
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=3.33e6,
                                             shear_modulus=3.7e5, friction_angle=42, cohesion=5e4))
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.10, 0.0), (0.20, 0.05)), DX),
                 material=soil, motion="dynamic", spacing=DX, smoothing_length=H)
    sim.add_body("plate", rs.lattice_fill(rs.rectangle((0.0, -0.015), (0.30, 0.0)), DX),
                 material=steel, motion="kinematic", spacing=DX, smoothing_length=H,
                 kinematics=rs.Kinematics(velocity_ramp=RAMP, pivot=(0.15, -0.0075)))
    sim.physics.gravity = (0.0, -9.81)
    return sim


@pytest.fixture(scope="module")
def lift_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("lift") / "run"
    sim = lifted_block()
    weight = sim.mass[sim.kind == rs.KIND_DYNAMIC].sum() * 9.81  # [N/m]
    sim.run(0.15, output_dir=str(out), progress_interval=0, diagnostics_every=1)
    return weight, pd.read_csv(out / "diagnostics.csv", float_precision="round_trip"), out


def test_ramp_and_schedule_from_python():
    k = rs.Kinematics(velocity_ramp=RAMP, rpm_schedule=[(0.0, 0.0), (0.1, 600.0), (0.3, -600.0)])
    assert k.translation_velocity(0.01)[1] == pytest.approx(0.5 * LIFT)
    assert k.displacement(0.12)[1] == pytest.approx(0.5 * LIFT * 0.02 + LIFT * 0.1)
    w = 600 * 2 * math.pi / 60
    assert k.rate(0.05) == pytest.approx(0.5 * w) and k.rate(0.5) == pytest.approx(-w)
    assert k.angle(0.1) == pytest.approx(0.5 * w * 0.1)
    assert k.angle(0.3) == pytest.approx(0.05 * w)       # up to w, then back through 0 to -w
    with pytest.raises(ValueError, match="rpm_schedule knot 1: expected"):
        rs.Kinematics(rpm_schedule=[(0.0, 0.0), 5.0])
    with pytest.raises(ValueError, match="velocity_ramp knot 0: velocity: expected 2 or 3"):
        rs.Kinematics(velocity_ramp=[(0.0, 1.0)])
    sim = rs.Simulation(dim=2)
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    with pytest.raises(ValueError, match="rate schedule knot 1: time"):
        sim.add_body("tool", [[0.0, 0.0]], material=steel, motion="kinematic", spacing=DX,
                     smoothing_length=H, kinematics=rs.Kinematics(rpm_schedule=[(0.2, 1), (0.1, 2)]))


def test_lifting_plate_gives_the_block_its_weight_times_its_speed(lift_run):
    weight, d, _ = lift_run
    settled = d[d["time [s]"] > 0.08]
    # Steady lift: the regolith takes P = weight * v (its kinetic energy no longer changes).
    assert settled["plate.power [W/m]"].mean() == pytest.approx(weight * LIFT, rel=0.03)
    assert (d["plate.power [W/m]"].iloc[1:] != 0).all()
    # The work over the lift: weight x height gained (+ kinetic energy, negligible at 1 cm/s).
    lifted = d["time [s]"].iloc[-1] - 0.5 * RAMP[1][0]  # the ramp reaches full speed halfway
    assert d["plate.work [J/m]"].iloc[-1] == pytest.approx(weight * LIFT * lifted, rel=0.02)


def test_work_from_sparse_rows_is_the_same(lift_run, tmp_path):
    weight, d, _ = lift_run
    sim = lifted_block()
    sim.run(0.15, output_dir=str(tmp_path / "run"), progress_interval=0, diagnostics_every=20)
    sparse = pd.read_csv(tmp_path / "run" / "diagnostics.csv")
    assert len(sparse) < len(d) / 10
    assert sparse["plate.work [J/m]"].iloc[-1] == pytest.approx(d["plate.work [J/m]"].iloc[-1],
                                                                  rel=0.01)


def test_power_is_the_load_times_the_motion_and_work_sums_it(lift_run):
    _, d, out = lift_run
    k = rs.Kinematics(velocity_ramp=RAMP, pivot=(0.15, -0.0075))
    t, dt = d["time [s]"].to_numpy(), d["dt [s]"].to_numpy()
    v_mid = np.array([k.translation_velocity(ti - 0.5 * h)[1] for ti, h in zip(t[1:], dt[1:])])
    np.testing.assert_allclose(d["plate.power [W/m]"].iloc[1:], -d["plate.force_y [N/m]"].iloc[1:] * v_mid,
                               rtol=1e-12, atol=1e-15)
    # The work is the trapezoidal integral of the rows' power over time.
    work, power = d["plate.work [J/m]"].to_numpy(), d["plate.power [W/m]"].to_numpy()
    assert work[0] == 0.0
    np.testing.assert_allclose(np.diff(work), 0.5 * (power[1:] + power[:-1]) * np.diff(t),
                               rtol=1e-9, atol=1e-18)
    run = json.loads((out / "run.json").read_text())
    plate = [b for b in run["bodies"] if b["name"] == "plate"][0]["kinematics"]
    assert plate["velocity_ramp"][1] == {"time_s": 0.02, "velocity_m_s": [0.0, LIFT, 0.0]}


def test_work_continues_exactly_after_a_restart(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    lifted_block().run(0.04, output_dir=str(whole), progress_interval=0, diagnostics_every=7,
                       checkpoint_every=150)
    lifted_block().run(0.04, output_dir=str(cut), progress_interval=0, diagnostics_every=7,
                       checkpoint_every=150)
    again = lifted_block()
    used, _ = again.restart(str(cut))   # the newest checkpoint, short of the end
    assert again.time < 0.04
    again.run(0.04, output_dir=str(cut), progress_interval=0, diagnostics_every=7,
              checkpoint_every=150)
    a = pd.read_csv(whole / "diagnostics.csv", float_precision="round_trip")
    b = pd.read_csv(cut / "diagnostics.csv", float_precision="round_trip")
    pd.testing.assert_frame_equal(a.drop(columns=["rejected_steps [-]"]),
                                  b.drop(columns=["rejected_steps [-]"]), check_exact=True)
    assert a["plate.work [J/m]"].iloc[-1] > 0


def test_sampler_brushes_spin_up_like_a_motor(tmp_path):
    spin_up, end = 0.05, 0.02
    with pytest.raises(ValueError, match="spin_up = -1"):
        bs.build("P0", spacing=5e-3, spin_up=-1.0)
    sim = bs.build("P0", spacing=5e-3, spin_up=spin_up)
    left = sim.body == sim.body_names.index("brush left")
    x0 = sim.positions[left].copy()
    sim.run(end, output_dir=str(tmp_path / "run"), progress_interval=0, diagnostics_every=5)
    # 100 rpm reached linearly over 0.05 s: angle w t^2 / (2 T), counter-clockwise (left brush),
    # about the pivot descending at 5 cm/s.
    w = 100 * 2 * math.pi / 60
    angle = w * end ** 2 / (2 * spin_up)
    pivot0 = np.array([-0.5 * bs.PIVOT_DISTANCE, bs.PIVOT_HEIGHT])
    c, s = math.cos(angle), math.sin(angle)
    r = x0 - pivot0
    expected = pivot0 + [0.0, -bs.DESCENT_SPEED * end] + np.column_stack(
        [c * r[:, 0] - s * r[:, 1], s * r[:, 0] + c * r[:, 1]])
    np.testing.assert_allclose(sim.positions[left], expected, atol=1e-12)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    brush = [b for b in run["bodies"] if b["name"] == "brush left"][0]["kinematics"]
    assert [k["rpm"] for k in brush["rate_schedule"]] == pytest.approx([0.0, 100.0])
    # The power column is -(F . v + T_z w) at mid-step, rotation included.
    d = pd.read_csv(tmp_path / "run" / "diagnostics.csv", float_precision="round_trip").iloc[1:]
    mid = d["time [s]"] - 0.5 * d["dt [s]"]
    omega = w * mid / spin_up
    expected_power = (-d["brush left.force_y [N/m]"] * -bs.DESCENT_SPEED
                      - d["brush left.torque_z [N]"] * omega)
    np.testing.assert_allclose(d["brush left.power [W/m]"], expected_power, rtol=1e-9, atol=1e-12)
