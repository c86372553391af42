#!/usr/bin/env python3
"""The MASCOT-like lander's first bounce in 3D (issue 13, item 4: the study): the lander of
examples/lander_2d.py as a box, one half of it and of the bed on the far side of a free-slip
symmetry plane z = 0 through its trajectory (the impact is in the x-y plane, y up).

Half lander: 5 kg, 0.29 (x) x 0.195 (y) x 0.1375 (z) m, turning about z only (z, rx, ry held
by the plane), its centre on the plane; inertia half of diag(0.081, 0.121, 0.100) kg m^2 about
x, y, z (the principal moments about the axes along its 0.29, 0.195 and 0.275 m sides).
Gravity, speed, bed and material as in lander_2d.py; the bed reaches BED_BREADTH (0.4 m) from
the plane in z.

    /usr/bin/python3 examples/lander_3d.py --incidence 30 --spacing 0.01 \\
        --bed runs/lander_3d/bed --output runs/lander_3d/i30 --end-time 2.0
"""
import sys

import regosph as rs

from regosph.examples import lander_2d
from regosph.examples import prepared_bed

COPIES = 2                  # the whole impact is the modelled half and its mirror image in z = 0
HALF_MASS = lander_2d.LANDER_MASS / COPIES                  # kg
HALF_INERTIA = tuple(i / COPIES for i in (0.081, 0.121, 0.100))  # kg m^2 about x, y, z
BED_BREADTH = 0.4                                            # m, along z from the plane


def bed_setup(spacing, bed_depth, **regolith):
    return prepared_bed.build(bed_depth, lander_2d.BED_WIDTH, lander_2d.GRAVITY, spacing, dim=3,
                              symmetry_planes=("z",), breadth=BED_BREADTH, **regolith)


def ensure_bed(bed_dir, spacing, bed_depth, **regolith):
    """Prepare the bed into bed_dir unless it holds one (prepared_bed.ensure)."""
    return prepared_bed.ensure(bed_dir, bed_setup, spacing, bed_depth, **regolith)


def build(bed_dir, incidence=0.0, spacing=0.01, bed_depth=0.3, **regolith):
    """The prepared bed of bed_dir with the half lander above it."""
    sim, h, bottom, metal, (vx, vy) = lander_2d.loaded_bed(bed_setup, bed_dir, incidence,
                                                           spacing, bed_depth, **regolith)
    across, depth, height = lander_2d.LANDER_SIZE
    x0 = lander_2d.LANDER_X
    half = rs.box((x0 - across / 2, bottom, 0.0), (x0 + across / 2, bottom + height, depth / 2))
    sim.add_body("lander", rs.lattice_fill(half, spacing), material=metal, motion="rigid",
                 spacing=spacing, smoothing_length=h, mass=HALF_MASS, inertia=HALF_INERTIA,
                 centre=(x0, bottom + height / 2, 0.0), fixed_dofs=["z", "rx", "ry"],
                 velocity=(vx, vy, 0.0))
    sim.set_bounds((-50.0, -1.0, -1.0), (50.0, 100.0, 50.0))
    return sim


def metadata(incidence, spacing, bed_depth, **regolith):
    return {**lander_2d.case_metadata("lander_3d", incidence, spacing, bed_depth, **regolith),
            "lander_mass_kg": repr(HALF_MASS), "lander_inertia_kg_m2": repr(list(HALF_INERTIA))}


if __name__ == "__main__":
    sys.exit(lander_2d.main(sys.modules[__name__]))
