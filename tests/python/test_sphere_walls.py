"""rs.BodySystem with plane walls and Cundall-Strack friction: a sphere on a 30 degree plane
rolls without slip at (5/7) g sin beta with mu = 0.8 (static friction, the contact point at rest)
and slides at g (sin beta - mu cos beta) with mu = 0.1, below (2/7) tan beta (issue 48); walls are
refused with yoshida4 and dopri45 and a zero wall normal is an error (seconds in all)."""
import math

import numpy as np
import pytest

import regosph as rs

BETA, G, K = math.radians(30.0), 9.81, 1e5


def sphere_on_plane(mu, method="verlet"):
    """A 5 cm sphere (2500 kg/m^3) resting on the plane with Hooke contact k = 1e5 N/m, e = 0.5;
    returns the system and the downslope unit vector."""
    n = np.array([math.sin(BETA), 0.0, math.cos(BETA)])
    s = rs.BodySystem(0.0)
    m = 4.0 / 3.0 * math.pi * 0.05 ** 3 * 2500.0
    rest = 0.05 - m * G * math.cos(BETA) / K
    s.add_sphere(0.05, density=2500.0, position=rest * n)
    s.contact("hooke", stiffness=K, restitution=0.5)
    s.uniform_gravity = (0.0, 0.0, -G)
    s.add_wall((0.0, 0.0, 0.0), n)
    s.friction(2.0 / 7.0 * K, mu)
    s.integrator(method, dt=1e-4)
    return s, np.array([math.cos(BETA), 0.0, -math.sin(BETA)])


def test_sphere_rolls_at_mu_08_and_slides_at_mu_01():
    s, t = sphere_on_plane(0.8)
    rec = s.integrate(1.0, 0.5)
    v = rec["velocity"][:, 0] @ t
    assert (v[2] - v[1]) / 0.5 == pytest.approx(5.0 / 7.0 * G * math.sin(BETA), rel=0.01)
    # rolling: the contact point (at -R n from the centre) moves at a small fraction of v
    n = np.array([math.sin(BETA), 0.0, math.cos(BETA)])
    contact = rec["velocity"][-1, 0] + np.cross(rec["spin"][-1, 0], -0.05 * n)
    assert abs(contact @ t) < 1e-3 * v[2]
    s, t = sphere_on_plane(0.1)
    rec = s.integrate(1.0, 0.5)
    v = rec["velocity"][:, 0] @ t
    assert (v[2] - v[1]) / 0.5 == pytest.approx(G * (math.sin(BETA) - 0.1 * math.cos(BETA)), rel=0.01)


@pytest.mark.parametrize("method", ["yoshida4", "dopri45"])
def test_walls_need_verlet_and_a_normal(method):
    s, _ = sphere_on_plane(0.3, method)
    with pytest.raises(ValueError, match="walls need method verlet"):
        s.integrate(1e-3, 1e-3)
    with pytest.raises(ValueError, match="normal must be non-zero"):
        s.add_wall((0, 0, 0), (0, 0, 0))
