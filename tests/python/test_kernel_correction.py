"""The kernel gradient correction (Material kernel_correction) and Balsara's switch
(physics.av_balsara) through the Python API (src/sph/gradient_correction.hpp; the exactness
for linear fields and the momentum balance of single evaluations are in
tests/cpp/test_kernel_correction.cpp):
- both are off by default, take only True/False, and appear in run.json only when on;
- two colliding elastic discs keep their linear momentum to round-off with the correction;
- Balsara's switch reduces the energy an elastic disc in smooth (rigid) rotation loses, and
  keeps the damping of a head-on impact.
The soil collapse with either option: validation/soil_collapse/run.py --kernel-correction /
--av-balsara (docs/guide/physics.md).
"""
import json

import numpy as np
import pytest

import regosph as rs

RUBBER = dict(density=1000.0, youngs_modulus=1e6, poisson_ratio=0.3)


def test_options_are_off_by_default_and_take_only_true_or_false(tmp_path):
    soil = dict(density=2650, bulk_modulus=0.7e6, poisson_ratio=0.3, friction_angle=19.8,
                cohesion=0)
    assert not rs.DruckerPrager("soil", **soil).kernel_correction
    assert rs.ElasticSolid("rubber", **RUBBER, kernel_correction=True).kernel_correction
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match=r"material 'soil': kernel_correction = .* must be "
                                             r"True or False"):
            rs.DruckerPrager("soil", **soil, kernel_correction=bad)
    with pytest.raises(TypeError):  # walls have no pair loop of their own
        rs.Rigid("wall", density=1000, kernel_correction=True)
    sim = rs.Simulation(dim=2)
    assert sim.physics.av_balsara is False
    with pytest.raises(ValueError, match="physics: av_balsara = 1 must be True or False"):
        sim.physics.av_balsara = 1
    sim.physics.av_balsara = np.bool_(True)
    assert sim.physics.av_balsara is True


def _discs(kernel_correction, av_balsara=False, speed=1.0, dx=0.01):
    """Two rubber discs (radius 5 cm) meeting head-on at `speed` [m/s] each, no gravity."""
    sim = rs.Simulation(dim=2)
    sim.physics.av_balsara = av_balsara
    rubber = sim.add_material(rs.ElasticSolid("rubber", **RUBBER,
                                              kernel_correction=kernel_correction))
    for name, centre, v in (("left", (-0.06, 0.0), speed), ("right", (0.06, 0.01), -speed)):
        sim.add_body(name, rs.lattice_fill(rs.disc(centre, 0.05), dx), material=rubber,
                     motion="dynamic", spacing=dx, smoothing_length=2.5 * dx, velocity=(v, 0.0))
    return sim


def _momentum(sim):
    return (sim.mass[:, None] * sim.velocities[:, :2]).sum(axis=0)


def _kinetic_energy(sim):
    return 0.5 * float((sim.mass * (sim.velocities[:, :2] ** 2).sum(axis=1)).sum())


def _mechanical_energy(sim):
    """Kinetic plus elastic strain energy [J/m] of rubber particles: per volume S:S / (4 mu)
    + p^2 / (2 K) (linear elasticity, plane strain: S_zz carried)."""
    e, nu = RUBBER["youngs_modulus"], RUBBER["poisson_ratio"]
    mu, k = e / (2 * (1 + nu)), e / (3 * (1 - 2 * nu))
    s = sim.stress
    p = -s[:, :3].mean(axis=1)
    dev = s[:, :3] + p[:, None]
    ss = (dev ** 2).sum(axis=1) + 2 * (s[:, 3:] ** 2).sum(axis=1)
    volume = sim.mass / sim.density
    return _kinetic_energy(sim) + float((volume * (ss / (4 * mu) + p ** 2 / (2 * k))).sum())


def _energy_lost(sim, end_time):
    """Fraction of the mechanical energy lost by end_time [s]."""
    e0 = _mechanical_energy(sim)
    while sim.time < end_time:
        sim.advance(1.0)
    return 1.0 - _mechanical_energy(sim) / e0


def test_run_json_records_the_options_only_when_on(tmp_path):
    for on in (False, True):
        sim = _discs(kernel_correction=on, av_balsara=on)
        sim.run(1e-4, output_dir=str(tmp_path / str(on)), progress_interval=0)
        run = json.loads((tmp_path / str(on) / "run.json").read_text())
        assert run["materials"][0].get("kernel_correction") is (True if on else None)
        assert run["physics"].get("av_balsara") is (True if on else None)


def test_colliding_discs_keep_linear_momentum_with_the_correction():
    sim = _discs(kernel_correction=True)
    p0 = _momentum(sim)
    scale = float((sim.mass * np.abs(sim.velocities[:, 0])).sum())
    for _ in range(300):  # through the contact: the discs meet after ~10 ms
        sim.advance(1.0)
    assert sim.time > 0.02
    p1 = _momentum(sim)
    assert np.abs(p1 - p0).max() <= 1e-12 * scale, (p0, p1)
    # They did collide: the left disc now moves left (or much slower).
    left = sim.body == 0
    assert sim.velocities[left, 0].mean() < 0.5


def test_balsara_switch_spares_smooth_rotation_and_damps_impacts():
    """A free elastic disc spinning at 2 rad/s (its rim at 0.1 m/s) loses mechanical energy
    (kinetic + elastic) only to the viscosity (centrifugal breathing and the particles'
    noise); the switch keeps more of it. Head-on discs at 1 m/s each: the switch leaves the
    impact's loss within 20 %."""
    def spinning(av_balsara):
        sim = rs.Simulation(dim=2)
        sim.physics.av_balsara = av_balsara
        rubber = sim.add_material(rs.ElasticSolid("rubber", **RUBBER))
        sim.add_body("disc", rs.lattice_fill(rs.disc((0.0, 0.0), 0.05), 0.005), material=rubber,
                     motion="dynamic", spacing=0.005, smoothing_length=0.0125)
        x = sim.positions
        sim.velocities = np.stack([-2.0 * x[:, 1], 2.0 * x[:, 0]], axis=1)  # omega = 2 rad/s
        return _energy_lost(sim, 0.05)

    loss_plain, loss_switch = spinning(False), spinning(True)
    print(f"spinning disc, mechanical energy lost in 0.05 s: plain {loss_plain:.3e}, "
          f"Balsara {loss_switch:.3e}")
    assert loss_switch < 0.5 * loss_plain

    loss_plain, loss_switch = (_energy_lost(_discs(False, av_balsara=on), 0.03)
                               for on in (False, True))
    print(f"head-on discs, mechanical energy lost in 0.03 s: plain {loss_plain:.3f}, "
          f"Balsara {loss_switch:.3f}")
    assert 0.8 * loss_plain < loss_switch <= loss_plain
