// Particle positions on a lattice inside a shape.
#pragma once

#include <vector>

#include "geometry/shapes.hpp"

namespace regosph::geometry {

// Square (2D) or cubic (3D) lattice of the given spacing [m]: the points
// origin + (i + 1/2, j + 1/2, k + 1/2) * spacing that lie inside the shape. Shapes filled with
// the same origin and spacing fit together without gaps or overlaps (soil against walls).
std::vector<Point> lattice_fill(const Shape& shape, double spacing, Point origin = {0, 0, 0});

}  // namespace regosph::geometry
