"""The soil's contact with walls (add_body's contact and adhesion, the run's default
physics.wall_contact and wall_adhesion; wall_terms.hpp WallSeparation): a cohesive block
launched off a floor without gravity leaves it at its launch speed with 'unilateral' and
'tension_cut' and is held by the floor's extrapolated tension with 'bonded'; a block resting on
the floor under gravity is the same with all three; a block sliding on the floor keeps the
floor's no-slip grip with 'tension_cut' as with 'bonded'; a body's own law overrides the
default; run.json records each wall's law."""
import json

import numpy as np
import pytest

import regosph as rs

DX = 0.005
LAUNCH = 0.1  # m/s, upward
# A cohesive regolith (SPEC.md section 8, P2 moduli) with c = 5 kPa: its strength is far
# above the stress a launch at 0.1 m/s brings (rho c_p v ~ 8 kPa is reached only where the
# floor holds the block).
SOIL = dict(density=1500.0, bulk_modulus=3.33e6, shear_modulus=3.7e5, friction_angle=20.0,
            cohesion=5000.0)


def block_on_floor(contact, gravity=0.0, velocity=0.0, adhesion=0.0, floor=None, **soil):
    """A 0.1 m x 0.05 m block on a fixed floor three spacings thick and wider than it; soil:
    overrides of SOIL. contact, adhesion: the run's default law; floor: the floor's own
    (add_body's contact and adhesion), if any."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -gravity)
    sim.physics.wall_contact = contact
    sim.physics.wall_adhesion = adhesion
    soil = sim.add_material(rs.DruckerPrager("soil", **{**SOIL, **soil}))
    wall = sim.add_material(rs.Rigid("floor", density=SOIL["density"]))
    sim.add_body("block", rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.1, 0.05)), DX),
                 material=soil, motion="dynamic", spacing=DX, smoothing_length=2.5 * DX,
                 velocity=(0.0, velocity))
    sim.add_body("floor", rs.lattice_fill(rs.rectangle((-0.03, -3 * DX), (0.13, 0.0)), DX),
                 material=wall, motion="fixed", spacing=DX, smoothing_length=2.5 * DX,
                 **(floor or {}))
    if gravity > 0.0:
        rs.geostatic_stress(sim)
    return sim


def assert_same_law(a, b):
    """a and b from runs whose walls act alike but whose pair loops are different compiled
    variants (with and without WallSeparation): the compiler may fuse a multiply-add in one
    and not the other (-march=native, FMA), so they agree to rounding, not to the bit. A pair
    dropped or kept wrongly changes them by 1e-4 or more of their scale."""
    np.testing.assert_allclose(a, b, rtol=0.0, atol=1e-9 * np.abs(b).max())


def block_state(sim):
    soil = np.asarray(sim.body) == 0
    return np.asarray(sim.velocities)[soil], np.asarray(sim.stress)[soil]


def launched(contact, tmp_path, **options):
    sim = block_on_floor(contact, velocity=LAUNCH, **options)
    sim.run(0.05, output_dir=str(tmp_path / contact), progress_interval=0, overwrite=True)
    return sim


def test_a_launched_block_leaves_the_floor_only_with_unilateral_contact(tmp_path):
    v_free = block_state(launched("unilateral", tmp_path))[0][:, 1].mean()
    v_bonded = block_state(launched("bonded", tmp_path))[0][:, 1].mean()
    # Free flight keeps the launch speed; the bonded floor pulls the block back.
    assert v_free == pytest.approx(LAUNCH, rel=0.05)
    assert v_bonded < 0.5 * LAUNCH
    run = json.loads((tmp_path / "unilateral" / "run.json").read_text())
    assert run["physics"]["wall_contact"] == "unilateral"
    assert run["physics"]["wall_adhesion_Pa"] == 0.0
    assert run["bodies"][1]["contact"] == "unilateral" and run["bodies"][1]["adhesion_Pa"] == 0.0
    assert "contact" not in run["bodies"][0]  # the soil is no wall
    bonded = json.loads((tmp_path / "bonded" / "run.json").read_text())
    # The default, as before the option: run.json names only a unilateral wall.
    assert "wall_contact" not in bonded["physics"] and "contact" not in bonded["bodies"][1]


@pytest.mark.parametrize("default", ("bonded", "unilateral"))
def test_a_floor_s_own_law_overrides_the_run_s_default(default, tmp_path):
    """The same launch with the floor's law named on the floor (add_body's contact) is, to
    rounding, the launch with that law as the run's default, whatever the default."""
    for own in ("bonded", "unilateral"):
        sim = block_on_floor(default, velocity=LAUNCH, floor=dict(contact=own))
        sim.run(0.05, output_dir=str(tmp_path / f"{default}_{own}"), progress_interval=0)
        v, s = block_state(sim)
        v_ref, s_ref = block_state(launched(own, tmp_path))
        assert_same_law(v, v_ref)
        assert_same_law(s, s_ref)
        run = json.loads((tmp_path / f"{default}_{own}" / "run.json").read_text())
        assert run["bodies"][1].get("contact", "bonded") == own


def test_a_floor_s_adhesion_holds_the_block_as_the_default_s_does(tmp_path):
    sim = block_on_floor("bonded", velocity=LAUNCH,
                         floor=dict(contact="unilateral", adhesion=1e12))
    sim.run(0.05, output_dir=str(tmp_path / "own"), progress_interval=0)
    v_ref, s_ref = block_state(launched("unilateral", tmp_path, adhesion=1e12))
    np.testing.assert_array_equal(block_state(sim)[0], v_ref)
    run = json.loads((tmp_path / "own" / "run.json").read_text())
    assert run["bodies"][1]["adhesion_Pa"] == 1e12


def test_an_adhesion_above_every_stress_is_the_bonded_contact(tmp_path):
    v_bonded, s_bonded = block_state(launched("bonded", tmp_path))
    v_glued, s_glued = block_state(launched("unilateral", tmp_path, adhesion=1e12))
    assert_same_law(v_glued, v_bonded)
    assert_same_law(s_glued, s_bonded)


def settled(contact, tmp_path, **soil):
    """The block under gravity from its geostatic stress after 0.05 s: its displacement,
    velocity and stress."""
    sim = block_on_floor(contact, gravity=9.81, **soil)
    x0 = np.asarray(sim.positions)[np.asarray(sim.body) == 0]
    sim.run(0.05, output_dir=str(tmp_path / contact), progress_interval=0, overwrite=True)
    v, s = block_state(sim)
    return np.asarray(sim.positions)[np.asarray(sim.body) == 0] - x0, v, s


def test_a_block_at_rest_under_gravity_is_unchanged(tmp_path):
    (u_b, v_b, s_b), (u_u, v_u, s_u) = (settled(c, tmp_path) for c in ("bonded", "unilateral"))
    weight = SOIL["density"] * 9.81 * 0.05  # the stress at the floor [Pa]
    assert np.abs(u_u).max() < 0.01 * DX  # stays put
    # Only the block's bottom corners, in tension for a moment after the geostatic start
    # (their free side), leave the floor's pairs: 0.2 % of the weight.
    assert np.abs(s_u - s_b).max() < 5e-3 * weight
    assert np.abs(u_u - u_b).max() < 1e-6 and np.abs(v_u - v_b).max() < 1e-5


def test_a_compressed_contact_is_the_bonded_one(tmp_path):
    # A cohesionless block slumps onto the floor: every floor pair stays compressed.
    (u_b, v_b, s_b), (u_u, v_u, s_u) = (settled(c, tmp_path, cohesion=0.0)
                                        for c in ("bonded", "unilateral"))
    assert np.abs(u_b).max() > DX / 2  # it slumps
    assert_same_law(u_u, u_b)
    assert_same_law(s_u, s_b)


def test_bad_contact_options_are_named(tmp_path):
    sim = rs.Simulation(dim=2)
    with pytest.raises(ValueError,
                       match="physics.wall_contact.*bonded, unilateral or tension_cut"):
        sim.physics.wall_contact = "glued"
    with pytest.raises(ValueError, match="wall_adhesion"):
        block_on_floor("unilateral", adhesion=-1.0).run(0.01, output_dir=str(tmp_path))
    for floor, message in ((dict(contact="glued"), "body 'floor': contact: 'glued'"),
                           (dict(adhesion=10.0), "body 'floor': adhesion goes with contact"),
                           (dict(contact="bonded", adhesion=10.0),
                            "body 'floor': adhesion goes with contact 'unilateral'"),
                           (dict(contact="unilateral", adhesion=-1.0),
                            "body 'floor': adhesion must be")):
        with pytest.raises(ValueError, match=message):
            block_on_floor("bonded", floor=floor)
    with pytest.raises(ValueError, match="body 'block': contact: only boundary bodies"):
        rs.Simulation(dim=2).add_body("block", np.zeros((1, 2)), material=rs.DruckerPrager(
            "soil", **SOIL), motion="dynamic", spacing=DX, smoothing_length=2.5 * DX,
            contact="unilateral")


def test_tension_cut_lets_a_launched_block_go_that_bonded_holds(tmp_path):
    # Every floor pair is torn once the block's bottom rows are stretched: it leaves at its
    # launch speed (measured: 0.09999 m/s after 0.05 s, 'bonded' -0.8 mm/s).
    v_cut = block_state(launched("tension_cut", tmp_path))[0][:, 1].mean()
    assert v_cut == pytest.approx(LAUNCH, rel=0.01)
    run = json.loads((tmp_path / "tension_cut" / "run.json").read_text())
    assert run["physics"]["wall_contact"] == "tension_cut"
    assert run["bodies"][1]["contact"] == "tension_cut" and run["bodies"][1]["adhesion_Pa"] == 0.0


def test_tension_cut_keeps_a_block_at_rest_and_a_compressed_contact(tmp_path):
    (u_b, v_b, s_b), (u_c, v_c, s_c) = (settled(c, tmp_path) for c in ("bonded", "tension_cut"))
    weight = SOIL["density"] * 9.81 * 0.05  # the stress at the floor [Pa]
    assert np.abs(u_c).max() < 0.01 * DX
    # As with 'unilateral': only the bottom corners, in tension for a moment after the
    # geostatic start, leave the floor (measured: 0.2 % of the weight).
    assert np.abs(s_c - s_b).max() < 5e-3 * weight
    # The cohesionless slump: every floor pair compressed, bonded to rounding.
    (u_b, _, s_b), (u_c, _, s_c) = (settled(c, tmp_path / "slump", cohesion=0.0)
                                    for c in ("bonded", "tension_cut"))
    assert_same_law(u_c, u_b)
    assert_same_law(s_c, s_b)


def test_tension_cut_keeps_the_floor_s_no_slip_grip(tmp_path):
    """A block resting under gravity, launched sideways at 0.1 m/s over the no-slip floor: the
    floor stops it within a tenth of the 2 mm it would slide freely in 0.02 s (measured: 0.04
    mm, 'bonded' 0.18 mm)."""
    sim = block_on_floor("tension_cut", gravity=9.81)
    soil = np.asarray(sim.body) == 0
    velocities = np.asarray(sim.velocities).copy()
    velocities[soil, 0] = 0.1
    sim.velocities = velocities
    x0 = np.asarray(sim.positions)[soil]
    sim.run(0.02, output_dir=str(tmp_path / "slide"), progress_interval=0)
    travel = (np.asarray(sim.positions)[soil] - x0)[:, 0].mean()
    assert abs(travel) < 0.1 * 0.1 * 0.02


def test_a_floor_s_own_tension_cut_is_the_default_s(tmp_path):
    sim = block_on_floor("unilateral", velocity=LAUNCH, floor=dict(contact="tension_cut"))
    sim.run(0.05, output_dir=str(tmp_path / "own"), progress_interval=0)
    v_ref, s_ref = block_state(launched("tension_cut", tmp_path))
    v, s = block_state(sim)
    np.testing.assert_array_equal(v, v_ref)
    np.testing.assert_array_equal(s, s_ref)
