"""The energy budget of diagnostics.csv (issue 16 item 4; src/sph/energy_budget.hpp): each term
alone (free fall, a statically compressed block, plastic and viscous dissipation), the budget
closing in an elastic impact, in the soil collapse and with a tool doing work, and a restart
continuing the cumulative columns exactly."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import regosph as rs
from regosph.examples import soil_collapse
from conftest import REPO

ENERGY = ["kinetic_energy", "potential_energy", "strain_energy", "plastic_dissipation",
          "viscous_dissipation", "wall_dissipation", "artificial_stress_dissipation",
          "body_work", "energy_residual"]
LOSSES = ["plastic_dissipation", "viscous_dissipation", "wall_dissipation",
          "artificial_stress_dissipation"]


def budget(out):
    """diagnostics.csv with the energy columns by their bare names [J/m]."""
    d = pd.read_csv(out / "diagnostics.csv", float_precision="round_trip")
    d.columns = [c.split(" [")[0] for c in d.columns]
    return d


def run(sim, out, end, **options):
    sim.run(end, output_dir=str(out), progress_interval=0, diagnostics_every=1, **options)
    return budget(out)


def elastic(sim, name="rubber", **options):
    return sim.add_material(rs.ElasticSolid(name, density=1000, youngs_modulus=1e6,
                                            poisson_ratio=0.3, **options))


def test_columns_and_free_fall(tmp_path):
    """A block falling freely (no walls): kinetic plus potential energy is conserved to
    round-off, and nothing is dissipated or stored (its particles move together)."""
    dx = 5e-3
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81)
    mat = elastic(sim)
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.0, 0.1), (0.05, 0.15)), dx),
                 material=mat, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    d = run(sim, tmp_path / "fall", 0.1)
    header = pd.read_csv(tmp_path / "fall" / "diagnostics.csv", nrows=0).columns
    assert all(f"{c} [J/m]" in header for c in ENERGY)
    mass = sim.mass.sum()
    assert d["potential_energy"].iloc[0] == pytest.approx(mass * 9.81 * 0.125, rel=1e-12)
    released = d["potential_energy"].iloc[0] - d["potential_energy"].iloc[-1]
    assert released == pytest.approx(0.5 * mass * (9.81 * 0.1) ** 2, rel=1e-9)
    assert d["kinetic_energy"].iloc[-1] == pytest.approx(released, rel=1e-9)
    assert np.abs(d["energy_residual"]).max() < 1e-9 * released
    for c in LOSSES + ["strain_energy", "body_work"]:
        assert np.abs(d[c]).max() < 1e-9 * released, c
    # The Python side: the same quantities for the current state.
    g = sim.diagnostics()
    assert g.potential_energy == d["potential_energy"].iloc[-1]
    assert g.energy_residual == d["energy_residual"].iloc[-1]


def test_strain_energy_of_a_compressed_block():
    """A block in uniaxial (confined) compression by a strain e, at rest: its strain energy is
    (K + 4 mu / 3) e^2 / 2 per unit volume, for the Drucker-Prager regolith (Hooke stress set
    directly) and for the Murnaghan solid (density raised, the deviator set)."""
    dx, e = 5e-3, 1e-3
    for model in ("DruckerPrager", "ElasticSolid"):
        sim = rs.Simulation(dim=2)
        if model == "DruckerPrager":
            mat = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=3e6,
                                                    poisson_ratio=0.3, friction_angle=30,
                                                    cohesion=1e6))
            K, rho0 = 3e6, 1500.0
            mu = 3 * K * (1 - 2 * 0.3) / (2 * (1 + 0.3))
        else:
            mat = elastic(sim)
            K, mu, rho0 = 1e6 / (3 * (1 - 0.6)), 1e6 / 2.6, 1000.0
        sim.add_body("block", rs.lattice_fill(rs.rectangle((0, 0), (0.1, 0.05)), dx),
                     material=mat, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
        volume = 0.1 * 0.05
        # Compression along y: eps_yy = -e, tension positive.
        stress = np.zeros_like(sim.stress)
        stress[:, 1] = -(K + 4 * mu / 3) * e
        stress[:, 0] = stress[:, 2] = -(K - 2 * mu / 3) * e
        if model == "ElasticSolid":
            sim.density = np.full(len(sim.density), rho0 / (1 - e))  # the volume shrinks by e
        sim.stress = stress
        expected = (K + 4 * mu / 3) * e ** 2 / 2 * volume
        got = sim.diagnostics().strain_energy
        # Hooke exactly; Murnaghan to its finite-strain terms, O(e) = 1e-3 relative.
        assert got == pytest.approx(expected, rel=1e-12 if model == "DruckerPrager" else 3e-3)


# Each disc moves at 0.059 c0 (c0 = sqrt(K / rho0) = 28.9 m/s), as the rubber rings do
# (examples/rubber_rings.py).
IMPACT_SPEED = 0.059 * math.sqrt(1e6 / (3 * (1 - 0.6)) / 1000)  # [m/s]


def discs(spacing=1.5e-3, speed=IMPACT_SPEED, artificial_stress=0.0, xsph=0.0):
    """Two elastic discs (radius 1.5 cm) meeting head-on at 2 x `speed` [m/s], without
    gravity or walls."""
    sim = rs.Simulation(dim=2)
    mat = elastic(sim, artificial_stress=artificial_stress, xsph=xsph)
    for name, x, v in (("left", -0.0165, speed), ("right", 0.0165, -speed)):
        sim.add_body(name, rs.lattice_fill(rs.disc((x, 0.0), 0.015), spacing), material=mat,
                     motion="dynamic", spacing=spacing, smoothing_length=2.5 * spacing,
                     velocity=(v, 0.0))
    return sim


@pytest.mark.parametrize("options", [{}, {"artificial_stress": 0.3, "xsph": 0.5}],
                         ids=["plain", "artificial-stress-xsph"])
def test_elastic_impact_closes(tmp_path, options):
    """Two elastic discs collide and bounce: the budget closes to < 1 % of the kinetic energy
    moved, nothing is plastic, the viscosity only dissipates, and it is the largest loss."""
    d = run(discs(**options), tmp_path / "impact", 3e-3)
    e0 = d["kinetic_energy"].iloc[0]
    moved = e0 - d["kinetic_energy"].min()  # into strain energy and losses at the deepest point
    assert moved > 0.3 * e0
    residual = np.abs(d["energy_residual"]).max()
    print(f"\nimpact {options}: kinetic {e0:.4g} J/m, moved {moved:.4g} J/m, largest residual "
          f"{residual:.3g} J/m ({residual / moved:.2e}); losses at the end: " +
          ", ".join(f"{c} {d[c].iloc[-1]:.4g}" for c in LOSSES))
    assert residual < 0.01 * moved
    assert (d["plastic_dissipation"] == 0.0).all()
    # No walls: the walls' term is exactly zero (its pair work over dynamic pairs cancels the
    # stress and viscous powers, and the pair loop leaves it out; equations.hpp).
    assert (d["wall_dissipation"] == 0.0).all()
    assert (np.diff(d["viscous_dissipation"]) >= 0.0).all()
    assert d["viscous_dissipation"].iloc[-1] > 0.0
    assert d["viscous_dissipation"].iloc[-1] >= np.abs(d[LOSSES].iloc[-1]).max()
    if not options:
        assert (d["artificial_stress_dissipation"] == 0.0).all()


def test_riemann_dissipation_on_the_discs(tmp_path):
    """The same impact with the Riemann solver's dissipation (physics.dissipation): run.json
    records it, its work has a column of its own (the viscosity's stays zero), grows, closes
    the budget to < 1 % and is less than half of what Monaghan's viscosity takes (README
    'Numerics': 3.3 % against 7.5 % of the kinetic energy)."""
    losses = {}
    for scheme in ("monaghan", "riemann"):
        sim = discs()
        sim.physics.dissipation = scheme
        out = tmp_path / scheme
        d = run(sim, out, 3e-3)
        run_json = json.loads((out / "run.json").read_text())
        e0 = d["kinetic_energy"].iloc[0]
        assert np.abs(d["energy_residual"]).max() < 0.01 * e0
        if scheme == "monaghan":
            assert "riemann_dissipation" not in d.columns  # the series it always had
            assert "dissipation" not in run_json["physics"]
            losses[scheme] = d["viscous_dissipation"].iloc[-1] / e0
            continue
        assert run_json["physics"]["dissipation"] == "riemann"
        assert run_json["physics"]["riemann_limiter"] == 3.0
        assert (d["viscous_dissipation"] == 0.0).all()
        assert (np.diff(d["riemann_dissipation"]) >= 0.0).all()
        assert sim.diagnostics().riemann_dissipation == d["riemann_dissipation"].iloc[-1]
        losses[scheme] = d["riemann_dissipation"].iloc[-1] / e0
    print(f"\nimpact losses / initial kinetic energy: {losses}")
    assert 0.0 < losses["riemann"] < 0.5 * losses["monaghan"]


def test_dissipation_names_are_checked():
    sim = discs()
    assert sim.physics.dissipation == "monaghan"
    with pytest.raises(ValueError, match="physics.dissipation: 'godunov' is not a scheme"):
        sim.physics.dissipation = "godunov"
    sim.physics.dissipation = "riemann"
    sim.physics.av_balsara = True
    with pytest.raises(ValueError, match="av_balsara"):
        sim.run(1e-4, progress_interval=0)
    sim.physics.av_balsara = False
    sim.physics.riemann_limiter = 0.0
    with pytest.raises(ValueError, match="riemann_limiter"):
        sim.run(1e-4, progress_interval=0)


def test_riemann_pairs_and_density_diffusion(tmp_path):
    """physics.riemann_pairs and physics.density_diffusion: names and values are checked, the
    density diffusion needs the Riemann solver's pair loop, and run.json records both."""
    sim = discs()
    assert sim.physics.riemann_pairs == "approaching"
    with pytest.raises(ValueError, match="physics.riemann_pairs: 'receding' is not a choice"):
        sim.physics.riemann_pairs = "receding"
    sim.physics.dissipation = "riemann"
    sim.physics.density_diffusion = 0.1
    sim.physics.riemann_pairs = "separating"
    out = tmp_path / "separating"
    d = run(sim, out, 2e-4)
    physics = json.loads((out / "run.json").read_text())["physics"]
    assert physics["riemann_pairs"] == "separating"
    assert physics["density_diffusion"] == 0.1
    assert (np.diff(d["riemann_dissipation"]) >= 0.0).all()


def noisy_soil_block(stress_jump):  # physics.riemann_stress_jump
    """A free block of soil (2D, elastic: its cohesion holds every state here) whose particles
    start at rest with a random pressure of 2 kPa rms: particle-scale stress noise, with the
    Riemann solver's dissipation."""
    sim = rs.Simulation(dim=2)
    sim.physics.dissipation = "riemann"
    sim.physics.riemann_stress_jump = stress_jump
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=1e6,
                                             poisson_ratio=0.3, friction_angle=30.0,
                                             cohesion=1e5, dilatancy_angle=0.0))
    dx = 2e-3
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.04, 0.04)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    stress = sim.stress
    p = 2e3 * np.random.default_rng(1).standard_normal(len(stress))  # [Pa]
    stress[:, :3] -= p[:, None]
    sim.stress = stress
    return sim


def test_riemann_stress_jump_relaxes_particle_noise(tmp_path):
    """physics.riemann_stress_jump in the strain rate: without it the Riemann solver leaves
    particle-scale stress
    noise ringing (its quadratic limiter barely sees the small velocity jumps); with it the
    noise's energy falls below 30 % in 2 ms (about 40 acoustic crossings of a spacing), its
    loss is booked as the scheme's (riemann_dissipation, growing) and the budget closes to
    2 % of the energy the noise started with; the same with the gradient pre-pass of the
    reconstruction (whose records carry sigma L beside sigma). run.json records it."""
    left = {}
    for jump, prepass in ((False, False), (True, False), (True, True)):
        out = tmp_path / f"jump{int(jump)}{int(prepass)}"
        sim = noisy_soil_block("continuity_and_strain_rate" if jump else "none")
        sim.physics.riemann_reconstruction = prepass
        d = run(sim, out, 2e-3)
        e0 = d["strain_energy"].iloc[0]
        left[jump, prepass] = (d["kinetic_energy"].iloc[-1] + d["strain_energy"].iloc[-1]) / e0
        if jump:
            assert json.loads((out / "run.json").read_text())["physics"][
                "riemann_stress_jump"] == "continuity_and_strain_rate"
            assert (np.diff(d["riemann_dissipation"]) >= 0.0).all()
            assert d["riemann_dissipation"].iloc[-1] > 0.5 * e0
            assert np.abs(d["energy_residual"]).max() < 0.02 * e0
    print(f"\nnoise energy left after 2 ms (jump, pre-pass): {left}")
    assert left[False, False] > 0.9 and left[True, False] < 0.3 and left[True, True] < 0.3


def test_stress_jump_and_density_diffusion_leave_elastic_solids_alone(tmp_path):
    """The stress jump and the density diffusion act on materials that can yield only: the
    elastic discs' impact is the same to the bit with and without them."""
    states = []
    for on in (False, True):
        sim = discs()
        sim.physics.dissipation = "riemann"
        sim.physics.riemann_stress_jump = "continuity_and_strain_rate" if on else "none"
        sim.physics.density_diffusion = 0.1 if on else 0.0
        sim.run(1e-3, output_dir=str(tmp_path / f"on{int(on)}"), progress_interval=0)
        states.append((np.asarray(sim.velocities), np.asarray(sim.stress)))
    np.testing.assert_array_equal(states[0][0], states[1][0])
    np.testing.assert_array_equal(states[0][1], states[1][1])


def test_hourglass_control_keeps_the_discs_elastic(tmp_path):
    """The discs with the Riemann solver lose 5 % of their kinetic energy by 5 ms, most of it
    particle-scale motion that grows inside each disc after they part and is then dissipated;
    the hourglass control (physics.hourglass_control) with the reconstructed jump
    (physics.riemann_reconstruction; docs/guide/physics.md) keeps that motion from growing:
    the scheme's share (the control's work included) stays below 1 %, the budget closes,
    run.json records both, and the discs ring less."""
    shares, residuals = {}, {}
    for xi in (0.0, 4.0):
        sim = discs()
        sim.physics.dissipation = "riemann"
        sim.physics.hourglass_control = xi
        sim.physics.riemann_reconstruction = xi > 0.0
        out = tmp_path / f"xi{xi:g}"
        d = run(sim, out, 5e-3)
        e0 = d["kinetic_energy"].iloc[0]
        shares[xi] = d["riemann_dissipation"].iloc[-1] / e0
        residuals[xi] = np.abs(d["energy_residual"]).max() / e0
        physics = json.loads((out / "run.json").read_text())["physics"]
        assert physics.get("hourglass_control", 0.0) == xi
        assert ("riemann_reconstruction" in physics) == (xi > 0.0)
        # Speeds against each body's mean: the discs' ringing (their rigid motion removed).
        v, body = sim.velocities, sim.body
        ringing = sum(np.sum((v[body == b] - v[body == b].mean(axis=0)) ** 2) for b in (0, 1))
        residuals[f"ringing {xi:g}"] = ringing
    print(f"\nscheme's share of E0 at 5 ms: {shares}; largest residual / E0 and ringing "
          f"(sum of |v - body mean|^2): {residuals}")
    assert shares[0.0] > 0.03
    assert 0.0 < shares[4.0] < 0.01
    assert residuals[4.0] < 0.01
    assert residuals["ringing 4"] < residuals["ringing 0"]


@pytest.mark.parametrize("option, value, scheme", [
    ("density_diffusion", 0.1, "riemann"), ("riemann_stress_jump", "continuity", "riemann"),
    ("riemann_reconstruction", True, "riemann"), ("hourglass_control", 4.0, "riemann"),
    ("av_switch", True, "monaghan"), ("av_balsara", True, "monaghan")])
def test_an_option_of_one_scheme_is_refused_with_the_other(option, value, scheme):
    sim = discs()
    sim.physics.dissipation = "monaghan" if scheme == "riemann" else "riemann"
    setattr(sim.physics, option, value)
    with pytest.raises(ValueError, match=f"physics: {option} is part of .*; dissipation is "
                                         f"'{sim.physics.dissipation}'"):
        sim.run(1e-4, progress_interval=0)


@pytest.mark.parametrize("option", ("density_diffusion", "hourglass_control"))
def test_a_negative_coefficient_of_the_riemann_solver_is_named(option):
    sim = discs()
    sim.physics.dissipation = "riemann"
    setattr(sim.physics, option, -0.1)
    with pytest.raises(ValueError, match=f"physics: {option} must be >= 0"):
        sim.run(1e-4, progress_interval=0)


def test_collapse_closes(tmp_path):
    """The soil collapse at twice the paper's spacing to 0.3 s: the budget closes to < 1 % of
    the potential energy released; plastic and viscous dissipation grow."""
    sim = soil_collapse.build(spacing=2 * soil_collapse.PAPER_SPACING)
    d = run(sim, tmp_path / "collapse", 0.3)
    released = d["potential_energy"].iloc[0] - d["potential_energy"].iloc[-1]
    residual = np.abs(d["energy_residual"]).max()
    end = d.iloc[-1]
    print(f"\ncollapse: released {released:.4g} J/m, largest residual {residual:.3g} J/m "
          f"({residual / released:.2e}); kinetic {end['kinetic_energy']:.4g}, strain "
          f"{end['strain_energy']:.4g}, " + ", ".join(f"{c} {end[c]:.4g}" for c in LOSSES))
    assert released > 0.2 * d["potential_energy"].iloc[0]
    assert residual < 0.01 * released
    assert end["plastic_dissipation"] > 0.1 * released
    assert (np.diff(d["viscous_dissipation"]) >= 0.0).all() and end["viscous_dissipation"] > 0
    assert end["body_work"] == 0.0  # fixed walls do no work
    assert (d["artificial_stress_dissipation"] == 0.0).all()


def test_tool_work_closes(tmp_path):
    """A kinematic plate lifts a soil block: the body work enters the budget, which closes to
    < 1 % of it, and it matches the plate's own work column."""
    dx, h = 5e-3, 2.5 * 5e-3
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=3.33e6,
                                             shear_modulus=3.7e5, friction_angle=42,
                                             cohesion=5e4))
    steel = sim.add_material(rs.Rigid("steel", density=2700))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.10, 0.0), (0.20, 0.05)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=h)
    ramp = [(0.0, (0.0, 0.0)), (0.02, (0.0, 0.1))]  # to 10 cm/s upward in 0.02 s
    sim.add_body("plate", rs.lattice_fill(rs.rectangle((0.0, -0.015), (0.30, 0.0)), dx),
                 material=steel, motion="kinematic", spacing=dx, smoothing_length=h,
                 kinematics=rs.Kinematics(velocity_ramp=ramp, pivot=(0.15, -0.0075)))
    sim.physics.gravity = (0.0, -9.81)
    d = run(sim, tmp_path / "lift", 0.1)
    work = d["body_work"].iloc[-1]
    gained = d["potential_energy"].iloc[-1] - d["potential_energy"].iloc[0]
    residual = np.abs(d["energy_residual"]).max()
    print(f"\nlift: body work {work:.4g} J/m, potential gained {gained:.4g} J/m, kinetic "
          f"{d['kinetic_energy'].iloc[-1]:.4g} J/m, residual {residual:.3g} J/m")
    assert work > 0.0 and gained > 0.5 * work
    assert residual < 0.01 * work
    # The tool's own work column (trapezoid over the rows, mid-step motion) agrees.
    assert d["plate.work"].iloc[-1] == pytest.approx(work, rel=1e-2)


def test_rigid_body_work_closes(tmp_path):
    """A rigid disc thrown spinning into a soil bed: the work it does on the soil enters the
    budget, which closes to < 1 % of it; the soil dissipates it mostly plastically."""
    dx = 5e-3
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil = sim.add_material(rs.DruckerPrager("soil", density=1500, bulk_modulus=1e6,
                                             poisson_ratio=0.3, friction_angle=30, cohesion=500))
    steel = sim.add_material(rs.Rigid("steel", density=3000))
    wall = sim.add_material(rs.Rigid("wall", density=1500))
    sim.add_body("bed", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.3, 0.08)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    t = 3 * dx
    box = rs.subtract(rs.rectangle((-t, -t), (0.3 + t, 0.2)), rs.rectangle((0.0, 0.0), (0.3, 1.0)))
    sim.add_body("box", rs.lattice_fill(box, dx), material=wall, motion="fixed", spacing=dx,
                 smoothing_length=2.5 * dx)
    sim.add_body("disc", rs.lattice_fill(rs.disc((0.15, 0.11), 0.025), dx), material=steel,
                 motion="rigid", spacing=dx, smoothing_length=2.5 * dx, velocity=(0.5, -2.0),
                 angular_velocity=3.0)
    d = run(sim, tmp_path / "disc", 0.03)
    end = d.iloc[-1]
    residual = np.abs(d["energy_residual"]).max()
    print(f"\nrigid disc: body work {end['body_work']:.4g} J/m, residual {residual:.3g} J/m; " +
          ", ".join(f"{c} {end[c]:.4g}" for c in LOSSES))
    assert end["body_work"] > 1.0
    assert residual < 0.01 * end["body_work"]
    assert end["plastic_dissipation"] == max(end[c] for c in LOSSES)


@pytest.mark.parametrize("dissipation", ["monaghan", "riemann"])
def test_restart_continues_the_budget(tmp_path, dissipation):
    """A run restarted from a checkpoint writes the same energy columns, bit for bit, as an
    uninterrupted one, with either pair dissipation."""
    def build():
        return soil_collapse.build(spacing=2 * soil_collapse.PAPER_SPACING,
                                   dissipation=dissipation)

    options = dict(progress_interval=0, diagnostics_every=5, checkpoint_every=100)
    whole = tmp_path / "whole"
    build().run(0.08, output_dir=str(whole), **options)
    parts = tmp_path / "parts"
    build().run(0.05, output_dir=str(parts), **options)
    sim = build()
    sim.restart(str(parts))
    assert not math.isnan(sim.diagnostics().plastic_dissipation)
    assert sim.diagnostics().plastic_dissipation > 0.0  # carried by the checkpoint
    sim.run(0.08, output_dir=str(parts), **options)
    a, b = budget(whole), budget(parts)
    assert len(a) == len(b)
    columns = ["time"] + ENERGY + (["riemann_dissipation"] if dissipation == "riemann" else [])
    pd.testing.assert_frame_equal(a[columns], b[columns], check_exact=True)
    assert a["plastic_dissipation"].iloc[-1] > 0.0
    if dissipation == "riemann":
        assert a["riemann_dissipation"].iloc[-1] > 0.0
    from test_restart import assert_same_snapshots
    assert_same_snapshots(whole, parts)  # the state too, bit for bit


def test_series_begun_without_the_budget_continues_without_it(tmp_path):
    """A diagnostics.csv written before the budget's columns existed (its header without
    them) is continued as it is: a restart appends rows of its own columns."""
    def build():
        return soil_collapse.build(spacing=2 * soil_collapse.PAPER_SPACING)

    out = tmp_path / "old"
    build().run(0.03, output_dir=str(out), progress_interval=0, diagnostics_every=5,
                checkpoint_every=50)
    f = out / "diagnostics.csv"
    old = pd.read_csv(f, float_precision="round_trip")
    old = old.drop(columns=[c for c in old.columns if c.split(" [")[0] in ENERGY[1:]])
    old.to_csv(f, index=False, float_format="%.17g")
    sim = build()
    sim.restart(str(out))
    sim.run(0.05, output_dir=str(out), progress_interval=0, diagnostics_every=5,
            checkpoint_every=50)
    new = pd.read_csv(f)
    assert list(new.columns) == list(old.columns)
    assert new["time [s]"].iloc[-1] == pytest.approx(0.05)


ONE_RUN = """
import sys
from regosph.examples import soil_collapse
sim = soil_collapse.build(spacing=1.5 * soil_collapse.PAPER_SPACING)
sim.integrator.tune_threads = False  # exactly OMP_NUM_THREADS threads
sim.run(0.04, output_dir=sys.argv[1], progress_interval=0, diagnostics_every=1)
"""


def test_budget_the_same_on_one_and_two_threads(tmp_path):
    """The step's increment of the budget is summed in fixed blocks of particles, each thread
    summing the blocks of its own part (AdaptiveHeun::energy_increment): the cumulative
    columns are the same to the bit on one and on two threads, in a run (1 300 soil
    particles, more than two blocks) whose every loss term grows."""
    runs = {}
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in [str(REPO / "build" / "python"), env.get("PYTHONPATH", "")] if p)
        out = tmp_path / f"threads{threads}"
        subprocess.run([sys.executable, "-c", ONE_RUN, str(out)], env=env, check=True,
                       timeout=600)
        runs[threads] = budget(out)
    one, two = runs["1"], runs["2"]
    assert len(one) == len(two) > 10
    for c in ["plastic_dissipation", "viscous_dissipation", "wall_dissipation"]:
        assert one[c].iloc[-1] > 0.0, c
    for c in ENERGY:
        assert (one[c].to_numpy() == two[c].to_numpy()).all(), c


def test_restart_with_the_hourglass_control(tmp_path):
    """The hourglass control's accelerations are history columns: a restart continues the
    discs' run bit for bit, its budget included."""
    def build():
        sim = discs()
        sim.physics.dissipation = "riemann"
        sim.physics.hourglass_control = 4.0
        sim.physics.riemann_reconstruction = True
        return sim

    options = dict(progress_interval=0, diagnostics_every=5, checkpoint_every=100)
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    build().run(3e-3, output_dir=str(whole), snapshot_interval=1e-3, **options)
    build().run(2e-3, output_dir=str(parts), snapshot_interval=1e-3, **options)
    sim = build()
    sim.restart(str(parts))
    sim.run(3e-3, output_dir=str(parts), snapshot_interval=1e-3, **options)
    a, b = budget(whole), budget(parts)
    columns = ["time"] + ENERGY + ["riemann_dissipation"]
    pd.testing.assert_frame_equal(a[columns], b[columns], check_exact=True)
    from test_restart import assert_same_snapshots
    assert_same_snapshots(whole, parts)
