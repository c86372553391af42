// Particle positions on a lattice inside a shape, and graded (variable-resolution) fills.
//
// `spacing` always means (volume per particle)^(1/dim): a fill of N points stands for the area
// (volume) N spacing^dim, whatever the lattice, so a body's particle mass rho spacing^dim adds up
// to the bulk density.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "geometry/shapes.hpp"

namespace regosph::geometry {

enum class Lattice {
    automatic,  // square in 2D, cubic in 3D
    // origin + (i + 1/2, j + 1/2) spacing: each point at the centre of its square cell.
    square,
    // Triangular (close-packed) 2D lattice of nearest-neighbour distance
    // a = spacing sqrt(2 / sqrt(3)) (area per point sqrt(3)/2 a^2 = spacing^2): rows at
    // y = origin.y + (j + 1/2) a sqrt(3)/2, points at x = origin.x + (i + 1/4 + (j mod 2)/2) a.
    hexagonal,
    // origin + (i + 1/2, j + 1/2, k + 1/2) spacing (3D).
    cubic,
};

// "square", "hexagonal", "cubic" (or "auto"); anything else throws, naming the field `lattice`.
Lattice parse_lattice(const std::string& name);
const char* lattice_name(Lattice lattice);

// A fill that would test more lattice sites than this is refused (it names the spacing).
constexpr double kMaxLatticeSites = 5.0e7;

// Lattice points inside the shape. Shapes filled with the same lattice, origin and spacing fit
// together without gaps or overlaps (soil against walls). The square and cubic fills are the
// cell-centred points origin + (i + 1/2) spacing in the order x fastest, then y, then z.
std::vector<Point> lattice_fill(const Shape& shape, double spacing, Point origin = {0, 0, 0},
                                Lattice lattice = Lattice::automatic);
// The same points one at a time, in the same order, without holding them (a fill of which a
// caller keeps a part: each MPI rank its share of a body, Simulation::add_body). Returns the
// count.
std::size_t for_each_lattice_point(const Shape& shape, double spacing, Point origin,
                                   Lattice lattice, const std::function<void(const Point&)>& visit);

// Variable resolution: zones ordered from fine to coarse (spacing non-decreasing). Nominally a
// point belongs to the first zone whose shape contains it (zone k covers shape_k minus the
// shapes before it). At an interface the coarser zone keeps the lattice points whose centres
// lie in its region, and the finer zone fills what the coarser cells leave uncovered (up to
// their faces) and drops its points inside them. Hence:
//  - across an interface no two points are closer than half the finer spacing (a fine point lies
//    outside every coarse point's cell), so Simulation::add_body's overlap check passes;
//  - the gap between the last fine and the first coarse row is (s_fine + s_coarse)/2 exactly
//    when the coarse spacing is an integer multiple of the fine one (square/cubic lattices with
//    a common origin: coarse cell faces are fine cell faces) and at most s_coarse/2 + s_fine
//    otherwise;
//  - every zone's count x spacing^dim approximates its nominal area (volume) without bias.
struct Zone {
    ShapePtr shape;
    double spacing = 0.0;  // [m]
};
struct ZoneFill {
    std::vector<Point> positions;
    double spacing = 0.0;  // [m]
};
std::vector<ZoneFill> graded_fill(const std::vector<Zone>& zones, Lattice lattice = Lattice::automatic,
                                  Point origin = {0, 0, 0});

}  // namespace regosph::geometry
