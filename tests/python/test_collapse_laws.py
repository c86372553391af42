"""The soil collapse's physics options (examples/soil_collapse.py, validation/soil_collapse/run.py
--law, --dilatancy-angle, --gravity, --geostatic): the strength law and psi reach the material,
the paper's setting stays the default, bad values are refused naming the field, and the
geostatic start carries the overburden. Built only, not run: well under a second."""
import json
import math

import numpy as np
import pytest

import regosph as rs
from regosph.examples import soil_collapse

SPACING = 3 * soil_collapse.PAPER_SPACING  # m


def soil_of(sim):
    return json.loads(sim.describe())["materials"][0]


def test_the_paper_setting_is_the_default():
    soil = soil_of(soil_collapse.build(SPACING))
    assert soil["model"] == "DruckerPrager"
    assert soil["dilatancy_angle_deg"] == 0.0


@pytest.mark.parametrize("psi", [None, 19.8])
def test_mohr_coulomb_with_its_dilatancy(psi):
    sim = soil_collapse.build(SPACING, law="MohrCoulomb", dilatancy_angle=psi)
    soil = soil_of(sim)
    assert soil["model"] == "MohrCoulomb"
    assert soil["friction_angle_deg"] == pytest.approx(soil_collapse.SOIL["friction_angle"])
    assert soil["dilatancy_angle_deg"] == pytest.approx(0.0 if psi is None else psi)
    assert np.all(sim.stress == 0.0)  # stress-free unless geostatic


def test_bad_law_and_gravity_are_refused():
    with pytest.raises(ValueError, match="law = 'cam-clay'"):
        soil_collapse.build(SPACING, law="cam-clay")
    for g in (0.0, -9.81, math.nan):
        with pytest.raises(ValueError, match="gravity"):
            soil_collapse.build(SPACING, gravity=g)


def test_geostatic_start_carries_the_overburden():
    """sigma_yy = -rho g depth below the block's top (SPH's column depth: to the top particle
    plus half a spacing) and sigma_xx = K0 sigma_yy with Jaky's K0 = 1 - sin(phi), at 1 g and
    at g/1000 alike."""
    for g in (soil_collapse.GRAVITY, soil_collapse.GRAVITY / 1000):
        sim = soil_collapse.build(SPACING, law="MohrCoulomb", gravity=g, geostatic=True)
        soil = sim.kind == rs.KIND_DYNAMIC
        y, s = sim.positions[soil, 1], sim.stress[soil]
        top = y.max() + 0.5 * SPACING
        rho = soil_collapse.SOIL["density"]
        np.testing.assert_allclose(s[:, 1], -rho * g * (top - y), rtol=1e-9)
        k0 = s[:, 0] / s[:, 1]
        assert k0 == pytest.approx(1 - math.sin(math.radians(19.8)), rel=1e-9)
        assert np.all(sim.velocities == 0.0)
