#!/usr/bin/env python3
"""Write the sampler's brush as a CAD-style closed triangle mesh (STL or OBJ, in mm), as an
engineer's CAD tool would export it, for examples/brush_sampler_3d.py --brush-mesh.

    /usr/bin/python3 examples/cad/make_brush_mesh.py runs/cad/brush.stl
    /usr/bin/python3 examples/brush_sampler_3d.py --run P0 --brush-mesh runs/cad/brush.stl \\
        --output runs/sampler3d/P0_mesh

The brush of SPEC.md section 8 (examples/brush_sampler.py): a hub of radius 15 mm with 12
bristles 20 mm long (tips at 35 mm), 30 degrees apart, one pointing straight down, as one solid
prism along z over [0, width]. Its outline in the x-y plane (origin at the pivot) is the hub's
circle, cut where each bristle, a plate of the given thickness, leaves it; the outline is
star-shaped about the pivot, so each end cap is a fan of triangles from the axis. Thickness:
a bristle gets about thickness / spacing particle rows, so give at least two spacings (the
default, 5 mm, is two rows at the sampler's default 2.5 mm).
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np

from regosph.examples import brush_sampler as bs

MM = 1e3  # mm per m


def outline(hub, tip, thickness, bristles, arc_points=8):
    """Counter-clockwise outline (N, 2) [mm] of the hub with its bristles."""
    half = 0.5 * thickness
    join = math.sqrt(hub ** 2 - half ** 2)  # where a bristle's side meets the hub circle
    gap = math.asin(half / hub)              # half the hub angle a bristle covers [rad]
    points = []
    for k in range(bristles):
        a = math.radians(-90.0 + 360.0 * k / bristles)
        c, s = math.cos(a), math.sin(a)
        # The bristle, counter-clockwise: its right side out to the tip, back along its left side.
        for x, y in ((join, -half), (tip, -half), (tip, half), (join, half)):
            points.append((c * x - s * y, s * x + c * y))
        # The hub's arc to the next bristle (its intermediate points only).
        b0, b1 = a + gap, a + 2 * math.pi / bristles - gap
        for j in range(1, arc_points):
            b = b0 + (b1 - b0) * j / arc_points
            points.append((hub * math.cos(b), hub * math.sin(b)))
    return np.array(points)


def prism(polygon, width):
    """Closed, outward-facing triangle mesh of a star-shaped polygon (about the origin)
    extruded over 0 <= z <= width: (vertices (M, 3), triangles (K, 3))."""
    n = len(polygon)
    bottom = np.column_stack([polygon, np.zeros(n)])
    top = np.column_stack([polygon, np.full(n, width)])
    vertices = np.vstack([bottom, top, [[0.0, 0.0, 0.0], [0.0, 0.0, width]]])
    i = np.arange(n)
    j = (i + 1) % n
    centre_bottom, centre_top = 2 * n, 2 * n + 1
    triangles = np.vstack([
        np.column_stack([np.full(n, centre_bottom), j, i]),          # bottom cap, facing -z
        np.column_stack([np.full(n, centre_top), n + i, n + j]),     # top cap, facing +z
        np.column_stack([i, j, n + j]), np.column_stack([i, n + j, n + i]),  # sides, facing out
    ])
    return vertices, triangles


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", help="mesh file to write (.stl or .obj; coordinates in mm)")
    ap.add_argument("--width", type=float, default=40.0, help="extent along z [mm]")
    ap.add_argument("--thickness", type=float, default=5.0, help="bristle thickness [mm]")
    ap.add_argument("--ascii", action="store_true", help="ASCII STL instead of binary")
    args = ap.parse_args(argv)
    hub, tip = bs.HUB_RADIUS * MM, bs.TIP_RADIUS * MM
    if not (math.isfinite(args.width) and args.width > 0):
        ap.error(f"--width = {args.width} mm must be positive")
    if not (math.isfinite(args.thickness) and 0 < args.thickness < hub):
        ap.error(f"--thickness = {args.thickness} mm must lie in (0, {hub:g}) mm")
    import meshio

    vertices, triangles = prism(outline(hub, tip, args.thickness, bs.N_BRISTLES), args.width)
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    binary = {"binary": not args.ascii} if path.suffix.lower() == ".stl" else {}
    meshio.write_points_cells(str(path), vertices, [("triangle", triangles)], **binary)
    print(f"wrote {path}: {len(triangles)} triangles, brush of {bs.N_BRISTLES} bristles "
          f"{args.thickness:g} mm thick, {args.width:g} mm wide (mm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
