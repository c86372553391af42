"""Particle-free rigid bodies with true shapes (regosph.ShapeSystem, level-set contact): quick
checks of the bindings against things that could fail - mass properties of a mesh, the
restitution and energy ratio of an eccentric ellipsoid collision, the collision log, and bad
input named in the error."""
import math

import numpy as np
import pytest

import regosph


def box(l):
    v = np.array([[i * l, j * l, k * l] for k in (0, 1) for j in (0, 1) for i in (0, 1)], float)
    t = np.array([[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4],
                  [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]])
    return v, t


def test_mesh_mass_properties_and_body_frame():
    v, t = box(0.1)
    p = regosph.polyhedron_mass_properties(v, t, 1000.0)
    assert p["mass"] == pytest.approx(1.0)
    assert np.allclose(p["centre"], 0.05)
    assert np.allclose(np.diag(p["inertia"]), 1.0 * 0.02 / 12)
    s = regosph.ShapeSystem(stiffness_per_area=1e8, restitution=0.5)
    body = regosph.mesh_body(v, t, mass=2.0, grid_spacing=0.01)
    assert body.mass == 2.0 and np.allclose(np.diag(body.inertia), 2.0 * 0.02 / 12)
    i = s.add_body(body, position=(1, 2, 3))
    b = s.body(i)
    assert b["mass"] == 2.0 and np.allclose(b["position"], (1, 2, 3))
    assert b["bounding_radius"] == pytest.approx(0.05 * math.sqrt(3))


def test_eccentric_ellipsoid_collision_keeps_restitution_at_the_contact_point():
    e = 0.7
    s = regosph.ShapeSystem(stiffness_per_area=1e9, restitution=e)
    s.add_body(regosph.ellipsoid_body((0.03, 0.04, 0.05), 2000.0, nodes=2562), position=(-0.06, 0.02, 0),
               velocity=(0.2, 0, 0))
    s.add_body(regosph.ellipsoid_body((0.05, 0.03, 0.04), 2000.0, nodes=2562), position=(0.06, -0.01, 0),
               velocity=(-0.2, 0, 0))
    s.start()
    e0 = s.kinetic_energy
    s.run(0.3, 2e-5, every=1000)
    (c,) = s.collisions()
    assert c["finished"] and c["peak_nodes"] > 3
    assert c["normal_velocity_ratio"] == pytest.approx(e, rel=0.03)
    assert c["before"][0]["rotational_energy"] == 0.0 and c["after"][0]["rotational_energy"] > 0.0
    assert c["energy_ratio"] == pytest.approx(s.kinetic_energy / e0, rel=1e-6)  # free flight after
    assert e ** 2 < c["energy_ratio"] < 1.0  # eccentric: part of the energy stays in rotation and sliding


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="restitution"):
        s = regosph.ShapeSystem(stiffness_per_area=1e8, restitution=1.5)
        s.add_body(regosph.sphere_body(0.1, 1000.0), position=(0, 0, 0))
        s.start()
    s = regosph.ShapeSystem(stiffness_per_area=1e8, restitution=0.5)
    with pytest.raises(ValueError, match="semi_axes"):
        regosph.ellipsoid_body((0.1, 0.0, 0.1), 1000.0)
    with pytest.raises(ValueError, match="orientation"):
        s.add_body(regosph.sphere_body(0.1, 1000.0), position=(0, 0, 0), orientation=(1, 0, 0))


def test_restart_from_state_continues_bit_for_bit():
    def setup():
        s = regosph.ShapeSystem(stiffness_per_area=1e8, restitution=0.5, mu_static=0.6, mu_dynamic=0.4,
                                gravity=(3.0, 0, -9.81), random_acceleration=0.1, seed=7)
        v, t = box(0.1)
        s.add_body(regosph.mesh_body(v, t, mass=1.0, grid_spacing=0.01), position=(0, 0, 0.05 - 3e-6),
                   angular_velocity=(0, 0, 1.0))
        s.add_wall((0, 0, 0), (0, 0, 1))
        s.start()
        return s

    a = setup()
    a.step(1e-4, 200)
    state = a.state()
    assert len(state["history_keys"]) == 4  # the four corners' springs
    a.step(1e-4, 200)
    b = setup()
    b.set_state(state)
    b.step(1e-4, 200)
    for key in ("position", "orientation", "velocity", "angular_momentum"):
        assert np.array_equal(a.state()[key], b.state()[key]), key


def test_a_sphere_bouncing_on_a_wall_is_logged_with_its_restitution():
    s = regosph.ShapeSystem(stiffness_per_area=1e9, restitution=0.8)
    s.add_body(regosph.sphere_body(0.05, 2500.0, nodes=2562), position=(0, 0, 0.0501), velocity=(0, 0, -0.1))
    s.add_wall((0, 0, 0), (0, 0, 1))
    s.start()
    s.run(0.05, 1e-5, every=1000)
    (c,) = s.collisions()
    assert c["bodies"] == (0, -1) and c["finished"]
    assert c["normal_velocity_ratio"] == pytest.approx(0.8, rel=0.03)
    assert c["energy_ratio"] == pytest.approx(c["normal_velocity_ratio"] ** 2, rel=1e-9)  # central: no spin
    assert s.body(0)["velocity"][2] == pytest.approx(0.1 * c["normal_velocity_ratio"], rel=1e-9)
