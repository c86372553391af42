"""Monaghan's (2000) artificial stress for Drucker-Prager soil (rs.DruckerPrager's
artificial_stress, artificial_stress_exponent; SPEC.md section 4): a cohesive block held in
tension clumps without it and keeps its particles apart with it, the artificial stress's work
has its column in the energy budget, run.json records it only when it is on, and bad values are
refused naming the field."""
import json

import numpy as np
import pandas as pd
import pytest

import regosph as rs

DX = 0.005
# SPEC.md section 8, P2 moduli, with c = 5 kPa: the plane-strain cone's apex is a mean tension
# of c / tan(phi) = 13.7 kPa.
SOIL = dict(density=1500.0, bulk_modulus=3.33e6, shear_modulus=3.7e5, friction_angle=20.0,
            cohesion=5000.0)
TENSION = 13e3  # the block's initial isotropic tension [Pa], just inside the apex
JITTER = 0.05   # the particles' random initial speeds [m/s], which seed the clumping


def tensile_block(tmp_path, **options):
    """A 0.1 m square block in a bonded box (which holds its tension), starting at the
    isotropic tension TENSION with random velocities, run for 0.05 s. Returns the smallest
    distance between two particles [spacings], the energy budget and run.json."""
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", **SOIL, **options))
    wall = sim.add_material(rs.Rigid("wall", density=SOIL["density"]))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.1, 0.1)), DX),
                 material=soil, motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    t = 3 * DX
    box = rs.subtract(rs.rectangle((-t, -t), (0.1 + t, 0.1 + t)),
                      rs.rectangle((0.0, 0.0), (0.1, 0.1)))
    sim.add_body("box", rs.lattice_fill(box, DX), material=wall, motion="fixed", spacing=DX,
                 smoothing_length=2.5 * DX, contact="bonded")
    soil_rows = np.asarray(sim.body) == 0
    stress = np.asarray(sim.stress).copy()
    stress[soil_rows, :3] = TENSION
    sim.stress = stress
    velocities = np.asarray(sim.velocities).copy()
    rng = np.random.default_rng(1)
    velocities[soil_rows] = JITTER * rng.standard_normal((soil_rows.sum(), velocities.shape[1]))
    sim.velocities = velocities
    out = tmp_path / ("on" if options else "off")
    sim.run(0.05, output_dir=str(out), progress_interval=0, diagnostics_every=1, overwrite=True)
    x = np.asarray(sim.positions)[soil_rows]
    gaps = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=2))
    np.fill_diagonal(gaps, np.inf)
    budget = pd.read_csv(out / "diagnostics.csv")
    budget.columns = [c.split(" [")[0] for c in budget.columns]
    return gaps.min() / DX, budget, json.loads((out / "run.json").read_text())


def test_the_artificial_stress_keeps_a_block_in_tension_from_clumping(tmp_path):
    # Measured: the closest pair at 0.82 spacings without it, 0.97 with epsilon = 0.3 (0.997
    # for the same block without tension, which does not clump).
    gap_off, budget_off, run_off = tensile_block(tmp_path)
    gap_on, budget_on, run_on = tensile_block(tmp_path, artificial_stress=0.3)
    assert gap_off < 0.88
    assert gap_on > 0.93
    assert (budget_off["artificial_stress_dissipation"] == 0.0).all()
    assert np.abs(budget_on["artificial_stress_dissipation"]).max() > 0.0
    soil_on = next(m for m in run_on["materials"] if m["name"] == "soil")
    assert soil_on["artificial_stress"] == 0.3 and soil_on["artificial_stress_exponent"] == 4.0
    soil_off = next(m for m in run_off["materials"] if m["name"] == "soil")
    assert "artificial_stress" not in soil_off  # off: run.json as without the option


@pytest.mark.parametrize("change, message", [
    (dict(artificial_stress=-0.1), "artificial_stress = -0.1 - must not be negative"),
    (dict(artificial_stress=0.3, artificial_stress_exponent=0.0),
     "artificial_stress_exponent = 0 - must be positive"),
    (dict(artificial_stress_exponent=-2.0), "artificial_stress_exponent = -2 - must be positive")])
def test_bad_artificial_stress_is_refused_naming_the_field(change, message):
    with pytest.raises(ValueError, match=f"material 'soil': {message}"):
        rs.DruckerPrager("soil", **SOIL, **change)
