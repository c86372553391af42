"""The mu(I) regolith (src/materials/mu_i_rheology.hpp) through the Python API: its
constructor and the errors that name a field, and a small column of glass beads collapsing on
a floor (2D): run.json records the model, its friction coefficient (a history variable) rises
from mu_s towards mu(I) where the column flows and never leaves [mu_s, mu_2], the flow yields
and the energy budget closes."""
import json

import numpy as np
import pandas as pd
import pytest

import regosph as rs

# Glass beads of Jop, Forterre & Pouliquen (2006).
BEADS = dict(density=1500.0, bulk_modulus=1e6, poisson_ratio=0.3, static_friction=0.382,
             limit_friction=0.643, reference_inertial_number=0.279, grain_diameter=0.5e-3,
             grain_density=2450.0)


def test_constructor_and_errors():
    m = rs.MuIRheology("beads", **BEADS)
    assert m.model == "MuIRheology" and m.plastic
    assert m.wave_speed == pytest.approx(
        np.sqrt((1e6 + 4 / 3 * 3e6 * 0.4 / 2.6) / 1500.0), rel=1e-12)
    with pytest.raises(ValueError, match="limit_friction = 0.3 must be finite and above"):
        rs.MuIRheology("beads", **dict(BEADS, limit_friction=0.3))
    with pytest.raises(ValueError, match="grain_diameter"):
        rs.MuIRheology("beads", **dict(BEADS, grain_diameter=0.0))
    with pytest.raises(ValueError, match="exactly one of shear_modulus and poisson_ratio"):
        rs.MuIRheology("beads", shear_modulus=1e5, **BEADS)


def test_column_collapse(tmp_path):
    dx = 4e-3
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81)
    sim.physics.dissipation = "riemann"
    beads = sim.add_material(rs.MuIRheology("beads", **BEADS))
    wall = sim.add_material(rs.Rigid("floor", density=1500.0))
    sim.add_body("column", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.04, 0.08)), dx),
                 material=beads, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    floor = rs.rectangle((-0.1, -3 * dx), (0.2, 0.0))
    sim.add_body("floor", rs.lattice_fill(floor, dx), material=wall, motion="fixed",
                 spacing=dx, smoothing_length=2.5 * dx)
    assert sim.history_variables == ["friction_coefficient", "open_volume_strain"]
    out = tmp_path / "column"
    sim.run(0.1, output_dir=str(out), progress_interval=0, diagnostics_every=10)
    run = json.loads((out / "run.json").read_text())
    entry = [m for m in run["materials"] if m["name"] == "beads"][0]
    assert entry["model"] == "MuIRheology"
    dynamic = sim.kind == rs.KIND_DYNAMIC
    mu = sim.history("friction_coefficient")[dynamic]
    assert mu.min() >= 0.382 - 1e-12 and mu.max() <= 0.643
    assert mu.max() > 0.39  # where the column flows, mu(I) > mu_s
    opening = sim.history("open_volume_strain")[dynamic]
    assert opening.min() >= 0.0 and opening.max() > 0.0  # the spreading front parts
    d = pd.read_csv(out / "diagnostics.csv")
    d.columns = [c.split(" [")[0] for c in d.columns]
    released = d["potential_energy"].iloc[0] - d["potential_energy"].iloc[-1]
    assert released > 0.0 and d["plastic_dissipation"].iloc[-1] > 0.3 * released
    assert np.abs(d["energy_residual"]).max() < 0.02 * released
    assert sim.positions[dynamic][:, 0].max() > 0.05  # the column spread beyond its width
