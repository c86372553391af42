"""Contact between boundary bodies (src/sph/contact.hpp): a rigid body against a wall and against
another rigid body. Restitution of one contact, momentum conservation, a body carried by a
floor, Coulomb sliding, output and bad input."""
import math

import numpy as np
import pandas as pd
import pytest

import regosph as rs

DX = 0.01


def contact_material(sim, name="steel", **kwargs):
    args = dict(density=7800, youngs_modulus=2e9, poisson_ratio=0.3, restitution=0.9, friction=0.0)
    args.update(kwargs)
    return sim.add_material(rs.Rigid(name, **args))


def advance_to(sim, end):
    while sim.time < end:
        sim.advance(end - sim.time)


def rebound_ratio(dim, restitution):
    """One particle of a rigid body hits one wall particle head-on at 0.5 m/s, no gravity."""
    sim = rs.Simulation(dim=dim)
    steel = contact_material(sim, restitution=restitution)
    wall = sim.add_material(rs.Rigid("wall", density=2000))
    start, hit = np.zeros((1, dim)), np.zeros((1, dim))
    start[0, 0] = 0.0005  # contact begins at x = 0, after 1 ms
    hit[0, 0] = -DX
    sim.add_body("ball", start, material=steel, motion="rigid", spacing=DX, smoothing_length=2.5 * DX,
                 velocity=(-0.5, 0.0, 0.0))
    sim.add_body("wall", hit, material=wall, motion="fixed", spacing=DX, smoothing_length=2.5 * DX)
    sim.integrator.dt_max = 1e-4
    advance_to(sim, 0.002)
    state = sim.bodies_state()["ball"]
    assert state["contact_force"][0] == 0.0  # the contact is over
    return state["velocity"][0] / 0.5


@pytest.mark.parametrize("dim", [2, 3])
def test_one_contact_restitutes_e(dim):
    # 2D: the linear spring-dashpot restitutes e exactly; 3D: Tsuji's Hertzian damping, whose
    # sqrt(5/6) factor makes it approximate. Observed: 2D 0.9010, 0.99968; 3D 0.9017, 1.00021.
    assert rebound_ratio(dim, 0.9) == pytest.approx(0.9, abs=0.005)
    assert rebound_ratio(dim, 1.0) == pytest.approx(1.0, abs=0.002)
    # Strong damping with a force that cannot pull (F_n >= 0) ends the contact early: the
    # rebound is faster than e, and still far below an elastic one. Observed: 0.390 / 0.395.
    assert 0.3 < rebound_ratio(dim, 0.3) < 0.45


def disc(centre, radius):
    return rs.lattice_fill(rs.disc(centre, radius), DX)


def two_discs(friction):
    sim = rs.Simulation(dim=2)
    rubber = contact_material(sim, "rubber", density=1200, youngs_modulus=5e6, restitution=0.7,
                              friction=friction)
    sim.add_body("a", disc((0.0, 0.0), 0.05), material=rubber, motion="rigid", spacing=DX,
                 smoothing_length=2.5 * DX, velocity=(1.0, 0.0), angular_velocity=4.0)
    sim.add_body("b", disc((0.2, 0.04), 0.04), material=rubber, motion="rigid", spacing=DX,
                 smoothing_length=2.5 * DX, velocity=(-0.5, 0.1), angular_velocity=-2.0)
    sim.integrator.dt_max = 1e-4
    return sim


def totals(sim):
    P, L, E = np.zeros(2), 0.0, 0.0
    for b in sim.bodies_state().values():
        m, c, v = b["mass"], np.array(b["centre"][:2]), np.array(b["velocity"][:2])
        w, Ls = b["angular_velocity"][2], b["angular_momentum"][2]
        P += m * v
        L += m * (c[0] * v[1] - c[1] * v[0]) + Ls
        E += 0.5 * m * v @ v + 0.5 * w * Ls
    return P, L, E


def test_colliding_rigid_bodies_conserve_momentum_and_lose_energy():
    """An oblique, spinning, frictional impact of two rigid discs in empty space."""
    sim = two_discs(friction=0.5)
    P0, L0, E0 = totals(sim)
    touched = False
    while sim.time < 0.15:
        advance_to(sim, sim.time + 0.005)
        touched |= np.any(sim.bodies_state()["a"]["contact_force"] != 0.0)
    P1, L1, E1 = totals(sim)
    a, b = sim.bodies_state()["a"], sim.bodies_state()["b"]
    closing = np.dot(np.subtract(b["velocity"], a["velocity"]), np.subtract(b["centre"], a["centre"]))
    assert touched and closing > 0.0  # they bounced apart
    assert np.all(np.array(a["contact_force"]) == 0.0)             # and separated
    scale = np.linalg.norm(P0)
    np.testing.assert_allclose(P1, P0, rtol=0, atol=1e-13 * scale)
    # Each contact force and its reaction act at one point, so the torques balance; Heun's
    # scheme keeps the orbital part c x M V (quadratic in the state) to its truncation error
    # only. Observed: 2e-8.
    assert L1 == pytest.approx(L0, rel=1e-6)
    assert E1 < 0.9 * E0  # restitution 0.7 and friction dissipate
    # Friction turned the spins (and the faceted lattice discs' normals, slightly off their
    # centres, do too).
    assert a["angular_velocity"][2] != pytest.approx(4.0, rel=1e-2)


def block_on_floor(tmp_path=None, velocity=(0.0, 0.0), friction=0.4):
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81)
    rubber = contact_material(sim, "rubber", density=1200, youngs_modulus=5e6, restitution=0.5,
                              friction=friction)
    floor = sim.add_material(rs.Rigid("floor", density=2500))
    sim.add_body("floor", rs.lattice_fill(rs.rectangle((-0.1, -0.03), (0.5, 0.0)), DX), material=floor,
                 motion="fixed", spacing=DX, smoothing_length=2.5 * DX)
    block = rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.06, 0.04)), DX)
    sim.add_body("block", block, material=rubber, motion="rigid", spacing=DX, smoothing_length=2.5 * DX,
                 velocity=velocity)
    sim.integrator.dt_max = 1e-4
    return sim


def test_a_floor_carries_a_rigid_body_at_rest():
    sim = block_on_floor()
    advance_to(sim, 0.3)
    b = sim.bodies_state()["block"]
    weight = b["mass"] * 9.81
    assert b["contact_force"][1] == pytest.approx(weight, rel=1e-3)
    assert abs(b["contact_force"][0]) < 1e-6 * weight
    assert np.linalg.norm(b["velocity"]) < 1e-4
    # The floor's top row at y = -0.005, the block's bottom one a spacing above it; the resting
    # overlap mg / (n pi/4 E*) is a micrometre or so.
    block = rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.06, 0.04)), DX)
    resting = block[:, 1].mean() - (block[:, 1].min() - (-0.005 + DX))
    assert b["centre"][1] == pytest.approx(resting, abs=1e-5)


def test_a_sliding_body_stops_at_the_coulomb_distance():
    """v0 = 0.5 m/s, mu = 0.4: it decelerates at mu g and stops after v0^2 / (2 mu g)."""
    sim = block_on_floor(velocity=(0.5, 0.0))
    x0 = sim.bodies_state()["block"]["centre"][0]
    t_stop = 0.5 / (0.4 * 9.81)
    advance_to(sim, 0.5 * t_stop)  # halfway in time: v0 / 2, three quarters of the distance
    b = sim.bodies_state()["block"]
    assert b["velocity"][0] == pytest.approx(0.25, rel=0.02)
    # The load of the last step: the normal force chatters by a few per cent as the block's
    # bottom row passes over the floor's particles; its mean gives the deceleration above.
    assert b["contact_force"][0] == pytest.approx(-0.4 * b["contact_force"][1], rel=0.05)
    advance_to(sim, 1.5 * t_stop)
    b = sim.bodies_state()["block"]
    assert abs(b["velocity"][0]) < 2e-3  # the regularised friction: it creeps, no faster than v_slip
    assert b["centre"][0] - x0 == pytest.approx(0.5**2 / (2 * 0.4 * 9.81), rel=0.02)


def test_bodies_csv_has_the_contact_load(tmp_path):
    sim = block_on_floor()
    sim.run(end_time=0.05, output_dir=str(tmp_path / "run"), snapshot_interval=0.05, diagnostics_every=50,
            progress_interval=0.0)
    df = pd.read_csv(tmp_path / "run" / "bodies.csv")
    for column in ["block.contact_force_x [N/m]", "block.contact_force_y [N/m]",
                   "block.contact_torque_z [N]"]:
        assert column in df.columns
    assert df["block.contact_force_y [N/m]"].iloc[-1] > 0.0


@pytest.mark.parametrize("kwargs, field", [
    (dict(youngs_modulus=1e9, friction=0.3), "restitution"),
    (dict(youngs_modulus=1e9, restitution=0.5), "friction"),
    (dict(restitution=0.5, friction=0.3), "youngs_modulus"),
    (dict(youngs_modulus=0.0, restitution=0.5, friction=0.3), "youngs_modulus"),
    (dict(youngs_modulus=1e9, restitution=0.0, friction=0.3), "restitution"),
    (dict(youngs_modulus=1e9, restitution=1.5, friction=0.3), "restitution"),
    (dict(youngs_modulus=1e9, restitution=0.5, friction=-0.1), "friction"),
    (dict(youngs_modulus=1e9, restitution=0.5, friction=0.3, poisson_ratio=0.7), "poisson_ratio"),
    (dict(youngs_modulus=1e9, restitution=0.5, friction=0.3, slip_velocity=0.0), "slip_velocity"),
])
def test_bad_contact_properties_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"material 'steel'.*{field}"):
        rs.Rigid("steel", density=7800, **kwargs)


def test_a_floor_carries_a_rigid_sphere_in_3d():
    """Hertz contacts of a lattice sphere on a three-layer floor, under gravity."""
    sim = rs.Simulation(dim=3)
    sim.physics.gravity = (0.0, 0.0, -9.81)
    rubber = contact_material(sim, "rubber", density=1200, youngs_modulus=5e6, restitution=0.5,
                              friction=0.5)
    floor = sim.add_material(rs.Rigid("floor", density=2500))
    sim.add_body("floor", rs.lattice_fill(rs.box((-0.05, -0.05, -0.03), (0.05, 0.05, 0.0)), DX),
                 material=floor, motion="fixed", spacing=DX, smoothing_length=2.5 * DX)
    ball = rs.lattice_fill(rs.sphere((0.0, 0.0, 0.03), 0.025), DX)
    sim.add_body("ball", ball, material=rubber, motion="rigid", spacing=DX, smoothing_length=2.5 * DX)
    sim.integrator.dt_max = 1e-4
    advance_to(sim, 0.3)
    b = sim.bodies_state()["ball"]
    assert b["contact_force"][2] == pytest.approx(b["mass"] * 9.81, rel=1e-3)
    assert np.linalg.norm(b["velocity"]) < 1e-4
    # It rests on its lowest particles, one spacing above the floor's top row (z = -0.005),
    # less the Hertz overlap under its weight (observed 22 um).
    resting = ball[:, 2].mean() - (ball[:, 2].min() - (-0.005 + DX))
    assert 0.0 < resting - b["centre"][2] < 1e-4
