"""Mohr-Coulomb regolith (src/materials/mohr_coulomb.hpp) through the Python API: constructor
errors that name the field, what run.json records, and a cohesive bank with the Rankine
cut-off and the artificial stress restarted bit for bit."""
import json

import numpy as np
import pytest

import regosph as rs

SOIL = dict(density=1500.0, bulk_modulus=3.33e6, shear_modulus=3.7e5, friction_angle=20.0,
            cohesion=1000.0)  # SPEC.md section 8, P2


def test_constructor_and_errors():
    m = rs.MohrCoulomb("soil", **SOIL, tensile_strength=300.0, tensile_softening_strain=1e-3)
    assert m.model == "MohrCoulomb" and m.plastic
    assert [v[0] for v in m.history_variables] == ["tensile_plastic_strain"]
    assert rs.MohrCoulomb("soil", **SOIL).history_variables == []
    cases = [(dict(dilatancy_angle=25.0), "dilatancy_angle"),
             (dict(friction_angle=90.0), "friction_angle"),
             (dict(tensile_strength=-1.0), "tensile_strength"),
             (dict(tensile_softening_strain=-1.0), "tensile_softening_strain"),
             (dict(artificial_stress=-0.1), "artificial_stress"),
             (dict(cohesion=-5.0), "cohesion")]
    for change, field in cases:
        with pytest.raises(ValueError, match=field):
            rs.MohrCoulomb("soil", **dict(SOIL, **change))
    with pytest.raises(TypeError, match="tensile_strenght.*tensile_strength"):
        rs.MohrCoulomb("soil", **SOIL, tensile_strenght=1.0)


def bank(dx=0.02):
    """A cohesive bank 0.6 H_c high whose face is free, with the cut-off and artificial stress."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81)
    soil = sim.add_material(rs.MohrCoulomb("soil", **SOIL, tensile_strength=200.0,
                                           artificial_stress=0.2))
    wall = sim.add_material(rs.Rigid("wall", density=1500.0))
    sim.add_body("bank", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.4, 0.24)), dx),
                 material=soil, motion="dynamic", spacing=dx, smoothing_length=2.5 * dx)
    t = 3 * dx
    box = rs.subtract(rs.rectangle((-t, -t), (0.8, 0.3)), rs.rectangle((0.0, 0.0), (1.0, 1.0)))
    sim.add_body("walls", rs.lattice_fill(box, dx), material=wall, motion="fixed", spacing=dx,
                 smoothing_length=2.5 * dx)
    rs.geostatic_stress(sim)
    return sim


def test_run_json_and_a_bit_identical_restart(tmp_path):
    options = dict(progress_interval=0, diagnostics_every=5, checkpoint_every=40,
                   snapshot_interval=0.05)
    whole = tmp_path / "whole"
    bank().run(0.1, output_dir=str(whole), **options)
    run = json.loads((whole / "run.json").read_text())
    material = next(m for m in run["materials"] if m["name"] == "soil")
    assert material["model"] == "MohrCoulomb"
    assert material["tensile_strength_Pa"] == 200.0 and material["artificial_stress"] == 0.2
    parts = tmp_path / "parts"
    bank().run(0.06, output_dir=str(parts), **options)
    sim = bank()
    sim.restart(str(parts))
    sim.run(0.1, output_dir=str(parts), **options)
    from test_restart import assert_same_snapshots
    assert_same_snapshots(whole, parts)
