"""Elastic solids through the Python API (SPEC.md section 4): the ElasticSolid constructor and
its errors, run.json, which motions an elastic body may have, and the colliding rubber rings
(examples/rubber_rings.py) at a coarse resolution: they approach, deform and bounce apart.
The physics of the equations is tested in tests/cpp/test_elastic.cpp.
"""
import json
import math

import numpy as np
import pytest

import regosph as rs
from regosph.examples import rubber_rings

E, NU = 1e7, 0.3975  # the rings' rubber
K = E / (3 * (1 - 2 * NU))
MU = E / (2 * (1 + NU))


def test_moduli_from_any_two_constants():
    for given in (dict(youngs_modulus=E, poisson_ratio=NU), dict(bulk_modulus=K, shear_modulus=MU),
                  dict(bulk_modulus=K, poisson_ratio=NU), dict(shear_modulus=MU, youngs_modulus=E)):
        m = rs.ElasticSolid("ring", density=1.0, **given)
        assert m.wave_speed == pytest.approx(math.sqrt(K + 4 * MU / 3), rel=1e-12), given
    assert m.density == 1.0 and m.name == "ring"


@pytest.mark.parametrize("kwargs, message", [
    (dict(bulk_modulus=K), r"give exactly two of bulk_modulus, shear_modulus, youngs_modulus "
                           r"and poisson_ratio \(1 given\)"),
    (dict(bulk_modulus=K, shear_modulus=MU, poisson_ratio=NU), r"give exactly two .*\(3 given\)"),
    (dict(youngs_modulus=E, poisson_ratio=0.5), r"poisson_ratio = 0.5 must lie in \(-1, 0.5\)"),
    (dict(youngs_modulus=E, poisson_ratio=NU, murnaghan_n=-1), "murnaghan_n = -1 must be > 0"),
    (dict(youngs_modulus=E, poisson_ratio=NU, artificial_stress=2), "artificial_stress = 2 must lie in"),
    (dict(youngs_modulus=E, poisson_ratio=NU, artificial_stress_exponent=0),
     "artificial_stress_exponent = 0 must be > 0"),
    (dict(youngs_modulus=E, poisson_ratio=NU, xsph=-0.5), r"xsph = -0.5 must lie in \[0, 1\]"),
    (dict(youngs_modulus=E, poisson_ratio=NU, viscosity_sound_speed=-1), "viscosity_sound_speed"),
    (dict(shear_modulus=-1.0, bulk_modulus=K), "shear_modulus = -1 Pa must not be negative"),
])
def test_bad_input_names_the_field(kwargs, message):
    with pytest.raises(ValueError, match="material 'ring': " + message):
        rs.ElasticSolid("ring", density=1.0, **kwargs)
    with pytest.raises(ValueError, match="material 'ring': density = 0 kg/m\\^3 must be positive"):
        rs.ElasticSolid("ring", density=0.0, youngs_modulus=E, poisson_ratio=NU)


def test_run_json_records_the_material_and_elastic_bodies_may_be_free_or_fixed():
    sim = rs.Simulation(dim=2)
    rubber = sim.add_material(rs.ElasticSolid(
        "rubber", density=1.0, youngs_modulus=E, poisson_ratio=NU, murnaghan_n=1.0,
        artificial_stress=0.3, artificial_stress_exponent=4, xsph=0.5))
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.01, 0.01)), 1e-3)
    sim.add_body("free", pts, material=rubber, motion="dynamic", spacing=1e-3, smoothing_length=3e-3)
    sim.add_body("fixed", pts + [0.02, 0.0], material=rubber, motion="fixed", spacing=1e-3,
                 smoothing_length=3e-3)
    wall = sim.add_material(rs.Rigid("wall", density=1.0))
    with pytest.raises(ValueError, match="Rigid"):  # only Rigid is refused for free bodies
        sim.add_body("w", pts + [0.04, 0.0], material=wall, motion="dynamic", spacing=1e-3,
                     smoothing_length=3e-3)
    assert np.all(sim.stress == 0.0)  # -p(rho0) = 0
    text = sim.describe()
    m = next(x for x in json.loads(text)["materials"] if x["name"] == "rubber")
    assert m["model"] == "ElasticSolid"
    assert m["bulk_modulus_Pa"] == pytest.approx(K, rel=1e-12)
    assert m["shear_modulus_Pa"] == pytest.approx(MU, rel=1e-12)
    assert (m["murnaghan_n"], m["artificial_stress"], m["artificial_stress_exponent"], m["xsph"]) \
        == (1.0, 0.3, 4.0, 0.5)


@pytest.mark.parametrize("numerics", [{}, {"dissipation": "riemann", "hourglass_control": 4.0,
                                       "riemann_reconstruction": True}],
                         ids=["monaghan", "riemann-hourglass-control"])
def test_rubber_rings_bounce_at_a_coarse_resolution(numerics):
    # 4 x the benchmark's spacing (~1100 particles, ~5 s): the rings meet at ~10 us, stop at
    # ~190 us and move apart afterwards; momentum stays zero (equal and opposite rings). The
    # same with the Riemann solver and the hourglass control (docs/guide/physics.md).
    sim = rubber_rings.build(spacing=2e-3)
    for name, value in numerics.items():
        setattr(sim.physics, name, value)
    body, m = sim.body, sim.mass
    u = rubber_rings.SPEED_FRACTION * rubber_rings.bulk_sound_speed()
    assert np.sum(body == 0) == np.sum(body == 1)  # mirror images
    rows = rubber_rings.history_in_memory(sim, 2.4e-4, 4)
    vx_left = [r[1] for r in rows]
    distance = [r[3] for r in rows]
    assert vx_left[0] == pytest.approx(u)
    assert vx_left[-1] < -0.1 * u  # bounced: the left ring moves left
    assert min(distance) < distance[0] - 0.02  # they met and deformed (rings 2 mm apart at t = 0)
    assert distance[-1] > min(distance)       # and separate again
    v = sim.velocities
    assert np.all(np.isfinite(sim.positions)) and np.all(np.isfinite(v))
    assert abs(np.sum(m * v[:, 0])) < 1e-9 * np.sum(m) * u
    assert abs(np.sum(m * v[:, 1])) < 1e-9 * np.sum(m) * u
    # No particle changed ring: each ring stays on its side of the mid-plane.
    mid = 0.5 * rubber_rings.CENTRE_DISTANCE
    x = sim.positions[:, 0]
    assert np.all(x[body == 0] < mid + 1e-3) and np.all(x[body == 1] > mid - 1e-3)
