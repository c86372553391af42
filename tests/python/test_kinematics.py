"""Kinematic (prescribed-motion) bodies, the loads on them, and observers (issue 3, item 7).

Small setups with answers known in closed form: a full revolution, a block resting on a
plate, a region that moves over particles at rest.
"""
import math

import h5py
import numpy as np
import pandas as pd
import pytest

import regosph as rs

DX = 5e-3          # lattice spacing [m]
H = 2.5 * DX       # support radius [m]


def soil(cohesion=5e4):
    # A cohesive Drucker-Prager soil (SPEC.md section 8 elastic constants) that stands as a block.
    return rs.DruckerPrager("soil", density=1500, bulk_modulus=3.33e6, shear_modulus=3.7e5,
                            friction_angle=42, cohesion=cohesion)


def block_on_plate(pivot):
    """A 0.10 m x 0.05 m soil block resting on a kinematic (motionless) plate under gravity."""
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.10, 0.0), (0.20, 0.05)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    sim.add_body("plate", rs.lattice_fill(rs.rectangle((0.0, -0.015), (0.30, 0.0)), DX),
                 material=steel, motion="kinematic", spacing=DX, smoothing_length=H,
                 kinematics=rs.Kinematics(pivot=pivot))
    sim.physics.gravity = (0.0, -9.81)
    return sim


def test_full_revolution_returns_to_the_initial_positions():
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("grain", rs.lattice_fill(rs.rectangle((0.5, 0.5), (0.52, 0.52)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    arm = rs.lattice_fill(rs.rectangle((0.0, -0.01), (0.1, 0.01)), DX)
    # 600 rpm: one revolution in 0.1 s about (0.02, 0).
    body = sim.add_body("arm", arm, material=steel, motion="kinematic", spacing=DX,
                        smoothing_length=H, kinematics=rs.Kinematics(rpm=600, pivot=(0.02, 0.0)))
    mine = sim.body == body
    x0 = sim.positions[mine].copy()
    sim.run(0.05, progress_interval=0)
    half = sim.positions[mine]
    # Half a turn: point reflection through the pivot.
    np.testing.assert_allclose(half, 2 * np.array([0.02, 0.0]) - x0, atol=1e-12)
    sim.run(0.1, progress_interval=0)
    assert sim.time == 0.1
    np.testing.assert_allclose(sim.positions[mine], x0, rtol=0, atol=1e-14)
    # Rigid-body velocity field v = omega x r, |omega| = 2 pi * 10 rad/s.
    r = x0 - np.array([0.02, 0.0])
    v = sim.velocities[mine]
    np.testing.assert_allclose(v[:, 0], -20 * math.pi * r[:, 1], atol=1e-10)
    np.testing.assert_allclose(v[:, 1], 20 * math.pi * r[:, 0], atol=1e-10)


def test_translation_schedule_moves_body_and_pivot():
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("grain", rs.lattice_fill(rs.rectangle((0.5, 0.5), (0.52, 0.52)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    k = rs.Kinematics(translation=[(0.02, (0.0, -0.05)), (0.03, (0.1, 0.0))], rpm=-100,
                      pivot=(0.0, 0.0))
    body = sim.add_body("tool", rs.lattice_fill(rs.rectangle((-0.01, -0.01), (0.01, 0.01)), DX),
                        material=steel, motion="kinematic", spacing=DX, smoothing_length=H,
                        kinematics=k)
    mine = sim.body == body
    x0 = sim.positions[mine].copy()
    sim.run(0.04, progress_interval=0)
    # Down at 5 cm/s for 0.02 s, then right at 10 cm/s for 0.01 s, then rest.
    np.testing.assert_allclose(k.pivot_at(0.04)[:2], [0.001, -0.001], atol=1e-15)
    angle = -100 * 2 * math.pi / 60 * 0.04  # clockwise
    c, s_ = math.cos(angle), math.sin(angle)
    expected = np.column_stack([c * x0[:, 0] - s_ * x0[:, 1], s_ * x0[:, 0] + c * x0[:, 1]])
    expected += [0.001, -0.001]
    np.testing.assert_allclose(sim.positions[mine], expected, atol=1e-14)
    # The centroid of a body symmetric about its pivot moves with the pivot only.
    np.testing.assert_allclose(sim.positions[mine].mean(axis=0), [0.001, -0.001], atol=1e-12)


@pytest.fixture(scope="module")
def settled_block():
    """Loads on the plate averaged over 0.05-0.15 s, when the block rests on it."""
    sim = block_on_plate(pivot=(0.05, -0.0075))
    weight_y = sim.mass[sim.kind == rs.KIND_DYNAMIC].sum() * -9.81  # [N/m]
    forces, torques = [], []
    while sim.time < 0.15:
        sim.advance(1.0)
        if sim.time > 0.05:
            load = sim.body_loads()["plate"]
            forces.append(load["force"])
            torques.append(load["torque"][2])
    return weight_y, np.mean(forces, axis=0), float(np.mean(torques))


def test_plate_carries_the_weight_of_the_block(settled_block):
    weight_y, force, _ = settled_block
    # The regolith pushes the plate down with its weight (force per metre of depth).
    assert force[1] < 0
    assert force[1] == pytest.approx(weight_y, rel=0.02)
    assert abs(force[0]) < 1e-6 * abs(weight_y)


def test_torque_about_an_off_centre_pivot(settled_block):
    weight_y, _, torque = settled_block
    # Block centred 0.10 m right of the pivot: torque_z = r x F = 0.10 m * weight_y (clockwise).
    assert torque == pytest.approx(0.10 * weight_y, rel=0.02)


def test_loads_are_zero_without_contact():
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.5, 0.5), (0.55, 0.55)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    sim.add_body("tool", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX),
                 material=steel, motion="kinematic", spacing=DX, smoothing_length=H,
                 kinematics=rs.Kinematics(rpm=100, pivot=(0.025, 0.025)))
    load = sim.body_loads()["tool"]
    assert load["force"] == [0.0, 0.0, 0.0] and load["torque"] == [0.0, 0.0, 0.0]


def resting_grid_with_moving_region(kinematics):
    """Particles at rest (no gravity, no stress) and a far-away kinematic body carrying a region."""
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("bed", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.2, 0.1)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    tool = sim.add_body("carrier", rs.lattice_fill(rs.rectangle((1.0, 1.0), (1.02, 1.02)), DX),
                        material=steel, motion="kinematic", spacing=DX, smoothing_length=H,
                        kinematics=kinematics)
    return sim, s, tool


def inside(points, lo, hi):
    return np.all((points >= lo) & (points < hi), axis=1)


def test_observer_counts_particles_in_a_translating_region(tmp_path):
    k = rs.Kinematics(translation=[(1.0, (0.47, 0.23))])
    sim, s, tool = resting_grid_with_moving_region(k)
    lo, hi = np.array([0.012, 0.013]), np.array([0.071, 0.052])
    sim.add_observer("box", rs.rectangle(tuple(lo), tuple(hi)), material=s, body=tool)
    bed = sim.kind == rs.KIND_DYNAMIC
    x = sim.positions[bed]
    m = sim.mass[bed]
    assert sim.observe()["box"] == (int(inside(x, lo, hi).sum()), pytest.approx(m[inside(x, lo, hi)].sum()))
    sim.run(0.1, output_dir=str(tmp_path / "run"), progress_interval=0, observe_every=5)
    assert np.abs(sim.velocities[bed]).max() == 0.0  # the bed never moved
    shift = np.array([0.047, 0.023])  # 0.1 s at (0.47, 0.23) m/s
    count, mass = sim.observe()["box"]
    expected = inside(x, lo + shift, hi + shift)
    assert count == int(expected.sum()) and count > 0
    assert mass == pytest.approx(m[expected].sum(), rel=1e-12)
    assert np.any(expected != inside(x, lo, hi))  # the region really moved

    csv = pd.read_csv(tmp_path / "run" / "observers.csv", float_precision="round_trip")
    assert list(csv.columns) == ["time [s]", "step [-]", "box.count [-]", "box.mass [kg/m]"]
    assert csv["time [s]"].iloc[0] == 0.0 and csv["time [s]"].iloc[-1] == pytest.approx(0.1)
    assert csv["box.count [-]"].iloc[-1] == count
    steps = csv["step [-]"].to_numpy()
    assert np.all(steps[1:-1] % 5 == 0)
    with h5py.File(tmp_path / "run" / "observers.h5") as f:
        np.testing.assert_array_equal(f["box/count"][:], csv["box.count [-]"].to_numpy())
        np.testing.assert_array_equal(f["time"][:], csv["time [s]"].to_numpy())
        assert f["box/mass"].attrs["units"] == "kg/m"


def test_observer_region_rotates_with_its_body():
    # 60 rpm: a quarter turn in 0.25 s about a pivot inside the bed; the region, an arm
    # pointing right from the pivot at t = 0, then points up.
    k = rs.Kinematics(rpm=60, pivot=(0.1, 0.05))
    sim, s, tool = resting_grid_with_moving_region(k)
    sim.add_observer("arm", rs.rectangle((0.1, 0.04), (0.2, 0.06)), material=s, body=tool)
    bed = sim.kind == rs.KIND_DYNAMIC
    x = sim.positions[bed]
    sim.run(0.25, progress_interval=0)
    # After a quarter turn counter-clockwise the arm points up: x in [0.09, 0.11), y in [0.05, 0.15).
    expected = (np.abs(x[:, 0] - 0.1) < 0.01) & (x[:, 1] > 0.05) & (x[:, 1] < 0.15)
    assert sim.observe()["arm"][0] == int(expected.sum()) > 0


def test_loads_appear_in_diagnostics(tmp_path):
    sim = block_on_plate(pivot=(0.15, -0.0075))
    sim.run(0.02, output_dir=str(tmp_path / "run"), progress_interval=0, diagnostics_every=20)
    d = pd.read_csv(tmp_path / "run" / "diagnostics.csv")
    for col in ("plate.force_x [N/m]", "plate.force_y [N/m]", "plate.torque_z [N]"):
        assert col in d.columns
    assert d["plate.force_y [N/m]"].iloc[-1] < 0  # the block presses on the plate
    run = __import__("json").loads((tmp_path / "run" / "run.json").read_text())
    plate = [b for b in run["bodies"] if b["name"] == "plate"][0]
    assert plate["motion"] == "kinematic" and plate["kinematics"]["pivot_m"][:2] == [0.15, -0.0075]


@pytest.mark.parametrize("kwargs, message", [
    (dict(kinematics=None), "kinematics: a kinematic body needs its motion"),
    (dict(kinematics=rs.Kinematics(translation=[(0.2, (0, -1)), (0.1, (0, 0))])),
     "translation segment 1: end time"),
    (dict(kinematics=rs.Kinematics(translation=[(0.2, (0, float("nan")))])),
     "translation segment 0: velocity must be finite"),
    (dict(kinematics=rs.Kinematics(rpm=float("inf"))), "angular_velocity must be finite"),
    (dict(kinematics=rs.Kinematics(pivot=(0, 0, 1))), "pivot: a 2D run has no z"),
])
def test_bad_kinematics_are_refused(kwargs, message):
    sim = rs.Simulation(dim=2)
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    with pytest.raises(ValueError, match="body 'tool': (kinematics: )?" + message):
        sim.add_body("tool", rs.lattice_fill(rs.rectangle((0, 0), (0.02, 0.02)), DX),
                     material=steel, motion="kinematic", spacing=DX, smoothing_length=H, **kwargs)


def test_kinematics_only_for_kinematic_bodies():
    sim = rs.Simulation(dim=2)
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    with pytest.raises(ValueError, match="kinematics: only a kinematic or rigid body"):
        sim.add_body("wall", rs.lattice_fill(rs.rectangle((0, 0), (0.02, 0.02)), DX),
                     material=steel, motion="fixed", spacing=DX, smoothing_length=H,
                     kinematics=rs.Kinematics(rpm=10))
    with pytest.raises(ValueError, match="rpm or angular_velocity, not both"):
        rs.Kinematics(rpm=10, angular_velocity=1.0)


@pytest.mark.parametrize("name, kwargs, message", [
    ("", {}, "name must not be empty"),
    ("a b", {}, "name may hold"),
    ("tray", dict(material=7), "material index 7"),
    ("tray", dict(body=9), "body index 9"),
])
def test_bad_observers_are_refused(name, kwargs, message):
    sim = rs.Simulation(dim=2)
    s = sim.add_material(soil())
    sim.add_body("bed", rs.lattice_fill(rs.rectangle((0, 0), (0.02, 0.02)), DX),
                 material=s, motion="dynamic", spacing=DX, smoothing_length=H)
    with pytest.raises(ValueError, match=message):
        sim.add_observer(name, rs.rectangle((0, 0), (1, 1)), **kwargs)
