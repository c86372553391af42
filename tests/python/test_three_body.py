"""Quick checks of rs.BodySystem and regosph.three_body against Levine (2016): the static
Lagrange configuration's mean motion, the integrators' conservation on the Sun-Earth-Moon
system, Edot of a tidally evolving pair against eqs. 3.12-3.13, the thesis' thresholds and
rates, and bad input (seconds in all)."""
import math

import numpy as np
import pytest

import regosph as rs
from regosph import three_body as tb


def test_static_lagrange_turns_at_the_thesis_mean_motion():
    pos, vel, spin = tb.initial_state("LR", h2=1.0)
    s = tb.thesis_system(pos, vel, spin)
    rec = s.integrate(2e4, 50.0)
    assert rec["h2"][0] == pytest.approx(1.0, rel=1e-12)
    n = np.mean(tb.mean_motion(rec["time"], rec["position"]))
    assert abs(n / 2.03357e-4 - 1.0) < 1e-4  # thesis sec. 5.2.1
    assert abs(n / tb.resting_mean_motion("LR", 1.0) - 1.0) < 1e-5
    assert set(rec["label"]) == {"lagrange_resting"}
    # the soft contact settles at the thesis' 1.5 mm overlap (sec. 5.2.1)
    gap = np.linalg.norm(rec["position"][-1, 0] - rec["position"][-1, 1]) - tb.DIAMETER
    assert -1.7e-3 < gap < -1.3e-3


def test_thesis_rates_and_thresholds():
    assert tb.resting_mean_motion("ER", 3.5) == pytest.approx(2.15035e-4, rel=1e-4)  # sec. 5.2.2
    assert tb.aligned_mixed_h2(2.33696) == pytest.approx(5.32416, rel=1e-5)  # sec. 5.3.4
    assert tb.aligned_mixed_h2(tb.AM_MIN_SEPARATION) < tb.aligned_mixed_h2(2.3)
    assert tb.aligned_mixed_h2(tb.AM_MIN_SEPARATION) < tb.aligned_mixed_h2(2.4)
    assert tb.aligned_mixed_separation(6.0) > tb.AM_MIN_SEPARATION
    assert tb.locked_spin_rate("ER", 5.204) == pytest.approx(2.62206e-4, rel=1e-4)  # sec. 5.3.1
    assert tb.locked_spin_rate("LR", 1.80157) == pytest.approx(2.72923e-4, rel=2e-4)  # sec. 5.3.2
    # the aligned mixed figures of sec. 5.2.3 and Table 5.9, from the thesis' equations: R = 3.6 turns
    # at 6.9011e-5 rad/s (printed 6.0911e-4); psi_dot_req 2.62564e-4 belongs to H-bar^2 5.2182 = 0.99^2 x 5.32416
    assert tb.aligned_mixed_mean_motion(3.6) == pytest.approx(6.9011e-5, rel=2e-5)
    assert tb.locked_spin_rate("ER", 0.9801 * 5.32416) == pytest.approx(2.62564e-4, rel=2e-5)
    # frictionless spheres keep their spins: the orbit alone has aligned mixed equilibria down to
    # L = 2.13204 (R = 2.01734), below its value at the H-bar^2 threshold
    least = min(tb.aligned_mixed_orbital_momentum(1.9 + 1e-4 * k) for k in range(3000))
    assert least == pytest.approx(2.13204, rel=1e-5)
    assert tb.aligned_mixed_orbital_momentum(2.01734) == pytest.approx(least, rel=1e-8)
    assert tb.aligned_mixed_orbital_momentum(tb.AM_MIN_SEPARATION) > least + 0.015
    du, mu, tu = rs.canonical_units(2000.0, tb.sphere_mass())
    assert tu == pytest.approx(math.sqrt(du ** 3 / (tb.G * mu)))


@pytest.mark.parametrize("method", ["verlet", "yoshida4"])
def test_sun_earth_moon_keeps_energy_and_angular_momentum(method):
    s = rs.BodySystem(6.674e-11)
    s.add_sphere(6.957e8, mass=1.98847e30)
    s.add_sphere(6.371e6, mass=5.9722e24, position=(1.47e11, 0, 0), velocity=(0, 30290.0, 0))
    s.add_sphere(1.7374e6, mass=7.342e22, position=(1.47e11 + 3.63e8, 0, 0), velocity=(0, 30290.0 + 1082.0, 0))
    s.integrator(method, dt=80.0)
    rec = s.integrate(60 * 86400.0, 86400.0)
    e, h = rec["energy"], np.linalg.norm(rec["angular_momentum"], axis=1)
    assert np.max(np.abs(e / e[0] - 1.0)) < 1e-10
    assert np.max(np.abs(h / h[0] - 1.0)) < 1e-12


def test_tidal_pair_loses_energy_at_the_rate_of_eqs_3_12_3_13():
    m = tb.sphere_mass()
    r = 4500.0
    n = math.sqrt(tb.G * 2.0 * m / r ** 3)
    s = rs.BodySystem(tb.G)
    s.add_sphere(2000.0, density=tb.DENSITY, position=(0, 0, 0), velocity=(0, -0.5 * n * r, 0), spin=(0, 0, 3 * n))
    s.add_sphere(2000.0, density=tb.DENSITY, position=(r, 0, 0), velocity=(0, 0.5 * n * r, 0))
    s.tides(tb.LOVE_NUMBER, tb.QUALITY_FACTOR)
    s.integrator("verlet", dt=2.0)
    rec = s.integrate(1e5, 1e3)
    # Gamma = (3/2) k2 G m^2 R^5 / r^6 sin 2 epsilon on the spinning parent (eq. 3.9 in the
    # thesis' canonical units); the child does not spin but turns with the orbit: both tides act
    gamma = 1.5e-5 * tb.G * m * m * 2000.0 ** 5 / r ** 6 / math.sqrt(1.0 + 1e4)
    predicted = -gamma * (3 * n - n) - gamma * n
    assert rec["tidal_rate"][0] == pytest.approx(predicted, rel=1e-6)
    measured, mean_prediction = tb.energy_rate(rec["time"], rec["energy"], rec["tidal_rate"], 0.0)
    assert measured == pytest.approx(mean_prediction, rel=1e-2)
    assert rec["energy"][-1] + rec["dissipated"][-1] == pytest.approx(rec["energy"][0], rel=1e-10)


def test_bad_input_names_the_field():
    s = rs.BodySystem()
    with pytest.raises(ValueError, match="density"):
        s.add_sphere(1.0, density=1.0, mass=1.0)
    s.add_sphere(1.0, density=1.0)
    with pytest.raises(ValueError, match="method"):
        s.integrator("euler")
    with pytest.raises(ValueError, match="impact_restitution"):
        s.integrator("verlet", impact_restitution=1.5)
    with pytest.raises(ValueError, match="position"):
        s.position = np.zeros((2, 3))
