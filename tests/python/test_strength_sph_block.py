"""Mohr-Coulomb's failure ratio in an SPH block (issue 45's acceptance): a small cube (3D) or
square (2D) of cohesionless soil, at rest under an isotropic confinement P0 without gravity,
between six (four) smooth walls, each its own body; the walls move so that the block deforms
at constant volume (walls give displacements, not stresses: a path that changed the volume
would unload a soil of psi = 0 to its apex) along one stress path, y the axial direction:
- triaxial compression (3D): the y walls move in at WALL_SPEED, the x and z walls out at half
  of it: sigma_y is the major stress, sigma_x = sigma_z the minor;
- triaxial extension (3D): the reverse: sigma_y is the minor stress;
- plane strain (2D and 3D): the x walls move in, the y walls out, z stays.
The particles' failure ratios sigma_1 / sigma_3 are compared with (1 + sin phi) / (1 - sin phi)
(2 %), and no particle carries tension (c = 0).

    /usr/bin/python3 tests/python/test_strength_sph_block.py   # the whole table

prints every angle (20, 30, 42 deg), psi = 0 and psi = phi, on every path; the tests run a
share of it (a few seconds each)."""
import math
import sys

import numpy as np
import pytest

import regosph as rs

SPACING = 0.01            # m
CELLS = 6                 # particles along each side of the block
SMOOTHING_FACTOR = 2.5    # h / spacing
P0 = 1.0e3                # isotropic confinement [Pa], compression positive
SOIL = dict(density=1500.0, bulk_modulus=3.33e6, poisson_ratio=0.3, cohesion=0.0)
WALL_SPEED = 0.01         # m/s; the block's axial strain rate 2 v / L = 0.33 1/s
STRAIN = 0.01             # the axial strain 2 travel / L at the end [-]
ANGLES = (20.0, 30.0, 42.0)
# The outward speed of each axis's walls on each path, in units of WALL_SPEED (y is axial).
PATHS = {"triaxial compression": {"y": -1.0, "x": 0.5, "z": 0.5},
         "triaxial extension": {"y": 1.0, "x": -0.5, "z": -0.5},
         "plane strain": {"x": -1.0, "y": 1.0}}


def mohr_coulomb_ratio(phi):
    s = math.sin(math.radians(phi))
    return (1.0 + s) / (1.0 - s)


def box(dim, lo, hi):
    return rs.rectangle(lo[:2], hi[:2]) if dim == 2 else rs.box(lo, hi)


def build(dim, path, phi, psi):
    """The block, its walls (one body per face) and the confinement; returns the Simulation
    and the run's end time [s]."""
    sim = rs.Simulation(dim=dim)
    soil = sim.add_material(rs.MohrCoulomb("soil", **SOIL, friction_angle=phi,
                                           dilatancy_angle=psi))
    wall = sim.add_material(rs.Rigid("wall", density=SOIL["density"]))
    h = SMOOTHING_FACTOR * SPACING
    side = CELLS * SPACING
    t = math.ceil(h / SPACING) * SPACING        # wall thickness: at least h
    travel = 0.5 * STRAIN * side                 # of each axial wall
    end = travel / WALL_SPEED
    reach = t + 2.0 * travel                     # beyond the block, covering the moving walls
    sim.add_body("block", rs.lattice_fill(box(dim, (0, 0, 0), (side, side, side)), SPACING),
                 material=soil, motion="dynamic", spacing=SPACING, smoothing_length=h)
    axes = "xy" if dim == 2 else "xyz"
    # Face walls: x within the block's y and z; z within y, wider in x; y covers all.
    extent = {"x": {"y": (0, side), "z": (0, side)},
              "z": {"x": (-reach, side + reach), "y": (0, side)},
              "y": {"x": (-reach, side + reach), "z": (-reach, side + reach)}}
    if dim == 2:
        extent["y"]["x"] = (-reach, side + reach)
    for axis in axes:
        k = "xyz".index(axis)
        for sign, (a, b) in ((-1, (-t, 0.0)), (1, (side, side + t))):
            lo, hi = [0.0, 0.0, 0.0], [side, side, side]
            lo[k], hi[k] = a, b
            for other, (u, v) in extent[axis].items():
                j = "xyz".index(other)
                if j < dim:
                    lo[j], hi[j] = u, v
            velocity = [0.0, 0.0, 0.0]
            velocity[k] = sign * PATHS[path].get(axis, 0.0) * WALL_SPEED
            moving = velocity[k] != 0.0
            sim.add_body(f"{'-+'[sign > 0]}{axis}", rs.lattice_fill(box(dim, lo, hi), SPACING),
                         material=wall, motion="kinematic" if moving else "fixed",
                         spacing=SPACING, smoothing_length=h, wall_friction="free-slip",
                         **({"kinematics": rs.Kinematics(translation=[(end, velocity)])}
                            if moving else {}))
    stress = sim.stress
    block = sim.kind == rs.KIND_DYNAMIC
    stress[block, :3] = -P0
    sim.stress = stress
    return sim, end


def principal(s):
    """The principal stresses of (n, 6) rows (xx yy zz xy xz yz), ascending, per row."""
    t = np.empty((len(s), 3, 3))
    for (i, j), c in zip(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)), range(6)):
        t[:, i, j] = t[:, j, i] = s[:, c]
    return np.linalg.eigvalsh(t)


def failure_ratio(dim, path, phi, psi):
    """At the end of the path: the particles' failure ratios sigma_1 / sigma_3 (median over
    those still loaded), the share of particles within 2 % of Mohr-Coulomb's, the largest
    principal stress of any particle [Pa] (tension positive) and the share unloaded to the
    apex. Per particle: the mean stress of a block this small
    mixes the failed interior with the particles at the block's edges, where the walls of
    two axes meet and squeeze them."""
    sim, end = build(dim, path, phi, psi)
    while sim.time < end * (1.0 - 1e-12):
        sim.advance(end - sim.time)  # one step, at most to the end
    block = sim.kind == rs.KIND_DYNAMIC
    p = principal(np.asarray(sim.stress)[block])
    loaded = p[:, 2] < 0.0  # the others have unloaded to the apex (zero stress, c = 0)
    ratios = p[loaded, 0] / p[loaded, 2]  # most compressive over least
    share = np.sum(np.abs(ratios / mohr_coulomb_ratio(phi) - 1.0) <= 0.02) / len(p)
    return float(np.median(ratios)), float(share), float(p[:, 2].max()), float(np.mean(~loaded))


CASES = [(3, path, phi, psi) for path in PATHS for phi in ANGLES for psi in (0.0, phi)]
CASES += [(2, "plane strain", phi, psi) for phi in ANGLES for psi in (0.0, phi)]
QUICK = [(3, "triaxial compression", 30.0, 0.0), (3, "triaxial extension", 42.0, 42.0),
         (3, "plane strain", 20.0, 20.0), (2, "plane strain", 42.0, 0.0)]


@pytest.mark.parametrize("dim, path, phi, psi", QUICK)
def test_the_block_fails_at_the_mohr_coulomb_ratio(dim, path, phi, psi):
    ratio, share, most_tensile, _ = failure_ratio(dim, path, phi, psi)
    assert ratio == pytest.approx(mohr_coulomb_ratio(phi), rel=0.02)
    assert share >= 0.5
    assert most_tensile <= 1e-9 * P0  # no tension, in extension too


def main():
    print("| block | path | phi [deg] | psi [deg] | median sigma1/sigma3 | (1+sin phi)/(1-sin phi) "
          "| error | particles within 2 % | at the apex | largest principal stress [Pa] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dim, path, phi, psi in CASES:
        ratio, share, most_tensile, apex = failure_ratio(dim, path, phi, psi)
        error = ratio / mohr_coulomb_ratio(phi) - 1.0
        print(f"| {dim}D | {path} | {phi:g} | {psi:g} | {ratio:.4f} | "
              f"{mohr_coulomb_ratio(phi):.4f} | {100 * error:+.2f} % | {100 * share:.0f} % | "
              f"{100 * apex:.0f} % | {most_tensile:.3g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
