// The spacing a set of particle positions actually has. A body's `spacing` sets the volume of
// each of its particles (spacing^dim) and so its mass: it must agree with the positions.
#pragma once

#include <cstddef>
#include <vector>

#include "geometry/shapes.hpp"

namespace regosph::geometry {

// Median distance [m] from a particle to its nearest neighbour, over at most `samples`
// particles spread evenly through the list. A particle with no neighbour within
// `search_radius` [m] counts as infinitely far from the others (so the median may be +inf).
// NaN for fewer than two points. Linear in the number of points (a hash grid).
double median_nearest_distance(const std::vector<Point>& points, int dim, double search_radius,
                               std::size_t samples = 4096);

}  // namespace regosph::geometry
