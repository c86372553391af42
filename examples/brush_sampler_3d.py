#!/usr/bin/env python3
"""Rotary brush sampler in 3D: the plane-strain sampler of examples/brush_sampler.py (SPEC.md
section 8) extruded in z over --depth.

    /usr/bin/python3 examples/brush_sampler_3d.py --run P0 --output runs/sampler3d/P0
    mpirun -n 4 --bind-to none /usr/bin/python3 examples/brush_sampler_3d.py --run E3 \\
        --spacing 1.25e-3 --output runs/sampler3d/E3

Every body of the 2D setup (same run table, materials, kinematics and geometry, from
brush_sampler.layout) becomes a slab: its 2D particles repeated in layers one spacing apart
over 0 <= z < depth, so the hubs become cylinders, the bristles plates, the shields arc plates
and the tray a channel, all rotating about axes parallel to z. Choices of the extrusion:
- depth is rounded up to whole coarse cells (4 x the inner spacing), so that every zone of the
  bed has whole layers and the zones' lattices stay aligned at z = 0 and z = depth.
- the regolith bed is a box: its fixed bottom and end walls run through the whole depth plus
  the side walls, and two fixed side walls (z < 0, z > depth, up to the surface) close it, each
  zone's part of them at that zone's spacing and one support radius of it thick, so that fine
  regolith never meets coarse wall particles. Walls are no-slip (SPEC.md section 6).
- the tray is a closed box: its 2D walls extruded, plus an end plate over its whole outline
  (two rows thick, like its walls) at each end. The tray observer counts the regolith inside
  the interior of the 2D tray extruded over 0 <= z < depth, moving with the tray.
- the brushes and shields span the bed's width; above the surface nothing closes the sides, and
  grains thrown over the side walls fall freely (the domain reaches 100 m below the bed, far
  below the ~20 m a grain falls in 2 s on Earth).
With --brush-mesh FILE each brush is instead the closed triangle mesh in FILE (a CAD export, e.g.
the one examples/cad/make_brush_mesh.py writes; units by --brush-mesh-units, default mm), its
origin placed at the brush's pivot, filled with particles on the cubic lattice of the inner
spacing (aligned with the 2D hub's). Both brushes use the same mesh.
Outputs as in 2D (snapshots, observers.csv/.h5, loads in diagnostics.csv in N and N m); no
speed plots (use ParaView on series.xdmf). Every MPI rank builds the same particles; only rank 0
prints.
"""
import argparse
import sys

import numpy as np

from regosph.examples import brush_sampler as bs
import regosph as rs
from regosph import run_control

DEFAULT_SPACING = bs.RESOLUTIONS["coarse"]  # m: 23 920 particles at the default depth
DEFAULT_DEPTH = 0.04                         # m
TRAY_WALL_ROWS = 2                           # as the 2D tray walls (brush_sampler.tray_geometry)


def extrude_points(points, z0, z1, spacing):
    """2D particles (N, 2) [m] repeated in the layers z = z0 + (k + 1/2) spacing inside
    [z0, z1) (whole layers): (N * layers, 3), layer by layer."""
    layers = int(round((z1 - z0) / spacing))
    z = z0 + (np.arange(layers) + 0.5) * spacing
    return np.column_stack([np.tile(points, (layers, 1)), np.repeat(z, len(points))])


def extruded_width(spacing, depth):
    """depth [m] rounded up to whole cells of the coarsest zone of the bed."""
    if not (np.isfinite(depth) and depth > 0.0):
        raise ValueError(f"depth = {depth!r} m must be a positive, finite length")
    return bs.snap(depth, bs.ZONE_SPACING_FACTORS[-1] * spacing)


def mesh_brush_points(mesh, pivot, spacing):
    """Particles (N, 3) [m] of a brush mesh (a 3D Shape, origin at the pivot) placed at the pivot
    (x, y), on the cubic lattice of the 2D hub (corner at pivot - hub radius, layers at
    z = (k + 1/2) spacing)."""
    origin = (pivot[0] - bs.HUB_RADIUS, pivot[1] - bs.HUB_RADIUS, 0.0)
    points = rs.lattice_fill(rs.translate(mesh, (pivot[0], pivot[1], 0.0)), spacing, origin=origin)
    if len(points) == 0:
        raise ValueError(f"brush mesh {getattr(mesh, 'name', '')}: no particle at spacing "
                         f"{spacing} m (is it in m? give --brush-mesh-units)")
    return points


def build(run="P0", spacing=DEFAULT_SPACING, depth=DEFAULT_DEPTH, brush_mesh=None, spin_up=0.0):
    """The 3D sampler for one row of the run table: inner spacing [m], width in z [m] (rounded
    up to whole coarse cells); brush_mesh: a 3D Shape (origin at the pivot, in m) for both
    brushes instead of the extruded 2D brush; spin_up [s] as in brush_sampler.build."""
    dx = bs.inner_spacing(spacing=spacing)
    parts, (_, interior, outline, corner) = bs.layout(run, dx, spin_up)
    width = extruded_width(dx, depth)
    g = bs.RUNS[run][0]

    sim = rs.Simulation(dim=3)
    sim.physics.gravity = (0.0, -g, 0.0)
    materials = bs.add_materials(sim, run)
    index = {}
    for p in parts:
        # Side walls one support radius of the part's own spacing thick (the rule of the bed
        # wall in bs.layout).
        t = bs.snap(bs.SMOOTHING_FACTOR * p.spacing, p.spacing)
        if p.role == "bed wall":   # bottom and end walls, through the side walls
            points = extrude_points(p.points, -t, width + t, p.spacing)
        elif p.name == "tray":     # its walls, closed by an end plate at each end
            plate = rs.lattice_fill(outline, p.spacing, origin=(corner[0], corner[1], 0.0))
            thick = TRAY_WALL_ROWS * p.spacing
            points = np.vstack([extrude_points(plate, -thick, 0.0, p.spacing),
                                extrude_points(p.points, 0.0, width, p.spacing),
                                extrude_points(plate, width, width + thick, p.spacing)])
        elif brush_mesh is not None and p.name.startswith("brush"):
            points = mesh_brush_points(brush_mesh, p.kinematics.pivot, p.spacing)
        else:
            points = extrude_points(p.points, 0.0, width, p.spacing)
        index[p.name] = bs.add_part(sim, materials, p, points)
        if p.role == "regolith":   # the side walls next to this zone, at its spacing
            sides = np.vstack([extrude_points(p.points, -t, 0.0, p.spacing),
                               extrude_points(p.points, width, width + t, p.spacing)])
            wall = bs.Part(f"{p.name} side walls", "bed wall", None, p.spacing, None)
            index[wall.name] = bs.add_part(sim, materials, wall, sides)
    bs.set_geostatic_stress(sim, g)
    sim.add_observer("tray", rs.extrude(interior, 0.0, width), material=materials["regolith"],
                     body=index["tray"])
    sim.set_bounds((-20.0, -100.0, -20.0), (20.0, 40.0, 20.0))
    return sim


def metadata(run, spacing, width, spin_up=0.0):
    """run.json metadata: the 2D sampler's, with the setup's name and the width in z [m]."""
    return {**bs.metadata(run, "custom", spacing, spin_up), "setup": "brush_sampler_3d",
            "depth_m": repr(width)}


def main(argv=None):
    rs.mpi_script()  # under MPI: only rank 0 prints; an error on one rank stops all
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", choices=list(bs.RUNS), required=True,
                    help="row of the run table (SPEC.md section 8)")
    ap.add_argument("--output", required=True, help="run directory")
    ap.add_argument("--spacing", type=float, default=DEFAULT_SPACING,
                    help="inner-region spacing [m]")
    ap.add_argument("--depth", type=float, default=DEFAULT_DEPTH,
                    help="width in z [m], rounded up to whole cells of 4 x spacing")
    ap.add_argument("--end-time", type=float, default=1.0, help="simulated time [s]")
    ap.add_argument("--observe-every", type=int, default=20, help="steps between tray counts")
    ap.add_argument("--spin-up", type=float, default=0.0,
                    help="[s] the brushes reach their rate linearly from rest over this time")
    ap.add_argument("--brush-mesh", help="closed triangle mesh (STL, OBJ, ...) of the brush, "
                    "origin at its pivot, axis along z (examples/cad/make_brush_mesh.py)")
    ap.add_argument("--brush-mesh-units", default="mm", choices=list(rs.mesh.UNITS),
                    help="length unit of the brush mesh file")
    run_control.add_arguments(ap)
    args = ap.parse_args(argv)
    mesh = None
    if args.brush_mesh:
        try:
            mesh = rs.read_mesh(args.brush_mesh, units=args.brush_mesh_units)
        except (OSError, ValueError) as e:  # names the file and the fault
            ap.error(f"--brush-mesh: {e}")
    sim = build(args.run, args.spacing, args.depth, brush_mesh=mesh, spin_up=args.spin_up)
    width = extruded_width(args.spacing, args.depth)
    if rs.is_root():  # under MPI only rank 0 prints
        print(f"3D brush sampler {args.run}: {sim.size} particles, inner spacing "
              f"{args.spacing * 1e3:.3g} mm, depth {width:.4g} m")
        if mesh is not None:
            print(f"  brushes from {mesh.name}: {mesh.triangle_count} triangles, "
                  f"{mesh.volume * 1e6:.4g} cm^3 each")
    info = metadata(args.run, args.spacing, width, args.spin_up)
    if mesh is not None:
        info.update(brush_mesh=mesh.name, brush_mesh_units=args.brush_mesh_units)
    return run_control.run(sim, args, info,
                           diagnostics_every=args.observe_every, observe_every=args.observe_every)


if __name__ == "__main__":
    sys.exit(main())
