"""CAD tool geometry: closed triangle meshes read from files (STL, OBJ, PLY, OFF, VTK, Gmsh, ...:
every surface format of meshio, Debian's python3-meshio) as 3D shapes.

    brush = rs.read_mesh("brush.stl", units="mm")       # a TriangleMesh, coordinates in m
    points = rs.lattice_fill(rs.translate(brush, (0.1, 0.2, 0.0)), 2.5e-3)

Triangles, quads and polygons are read (quads and polygons split into triangles from their
first corner: they must be convex); point and line cells are ignored. The surface must be
closed and consistently oriented; a file that breaks this raises ValueError naming the file and
the fault (geometry/triangle_mesh.hpp). A surface that faces inward is turned round.
"""
import math
from pathlib import Path

import numpy as np

from ._core import triangle_mesh

# Length of one file unit [m].
UNITS = {"m": 1.0, "cm": 1e-2, "mm": 1e-3, "um": 1e-6, "in": 0.0254, "ft": 0.3048}
_SURFACE_CELLS = ("triangle", "quad", "polygon")
_IGNORED_CELLS = ("vertex", "line")


def read_mesh(path, units="m", scale=1.0, file_format=None):
    """The closed surface in `path` as a TriangleMesh (a 3D Shape, coordinates in m).

    units: length unit of the file's coordinates, one of UNITS (CAD files are often in "mm").
    scale: a further factor applied to every coordinate (e.g. a scale model), > 0.
    file_format: meshio's name of the format when the file extension does not tell it.
    """
    import meshio  # imported here: the rest of regosph does not need it

    path = Path(path)
    if units not in UNITS:
        raise ValueError(f"units: {units!r} is not one of {', '.join(UNITS)}")
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale = {scale!r} must be a positive, finite number")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such mesh file")
    try:
        mesh = meshio.read(path, file_format=file_format)
    except Exception as e:  # meshio raises ReadError, ValueError, IndexError, ... for bad files
        raise ValueError(f"{path}: cannot read a mesh from this file ({type(e).__name__}: {e})") from e
    triangles = _triangles(path, mesh.cells)
    vertices = np.asarray(mesh.points, dtype=float)
    if vertices.ndim != 2 or vertices.shape[1] not in (2, 3):
        raise ValueError(f"{path}: expected 3D vertex coordinates, got an array of shape {vertices.shape}")
    if vertices.shape[1] == 2:
        raise ValueError(f"{path}: the mesh is 2D (x, y only); a tool mesh needs x, y, z")
    return triangle_mesh(vertices * (UNITS[units] * scale), triangles, name=str(path))


def _triangles(path, cells):
    """(M, 3) vertex indices of every surface cell, quads and polygons fanned into triangles."""
    parts, other = [], set()
    for block in cells:
        data = np.asarray(block.data, dtype=np.int64)
        if block.type in _SURFACE_CELLS:
            if data.ndim != 2 or data.shape[1] < 3:
                raise ValueError(f"{path}: malformed {block.type} cells")
            # Fan from the first corner: (0, k, k + 1) for k = 1 .. n - 2.
            parts += [data[:, [0, k, k + 1]] for k in range(1, data.shape[1] - 1)]
        elif block.type not in _IGNORED_CELLS:
            other.add(block.type)
    if other:
        raise ValueError(f"{path}: holds {', '.join(sorted(other))} cells; give a closed surface of "
                         f"triangles, quads or polygons (export the tool's surface)")
    return np.vstack(parts) if parts else np.zeros((0, 3), dtype=np.int64)
