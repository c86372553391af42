// Shapes and lattice fills (geometry/shapes.hpp, geometry/lattice.hpp): the fill takes the
// cell-centred points origin + (i + 1/2) dx inside the shape; shapes are half-open [lo, hi).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "geometry/lattice.hpp"
#include "geometry/shapes.hpp"

using namespace regosph::geometry;

namespace {

// Number of cell centres lo <= o + (i + 1/2) dx < hi, i integer: the rule of lattice.hpp,
// counted by brute force over i (independent of the implementation's index arithmetic).
long centres_in(double lo, double hi, double dx, double o = 0.0) {
    long n = 0;
    const long i0 = static_cast<long>(std::floor((lo - o) / dx)) - 3;
    const long i1 = static_cast<long>(std::ceil((hi - o) / dx)) + 3;
    for (long i = i0; i <= i1; ++i) {
        const double c = o + (static_cast<double>(i) + 0.5) * dx;
        if (c >= lo && c < hi) ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("lattice_fill: the paper's soil block at 2.582 mm") {
    const double dx = 2.582e-3;
    // Cell centres of 0.20 x 0.10 m: (i + 1/2) dx < 0.2 for i <= 76 (0.2 / dx = 77.46: 77
    // columns) and (j + 1/2) dx < 0.1 for j <= 38 (0.1 / dx = 38.73: 39 rows, the last centre
    // at 99.41 mm, 0.59 mm below the top).
    CHECK(centres_in(0.0, 0.2, dx) == 77);
    CHECK(centres_in(0.0, 0.1, dx) == 39);
    CHECK(lattice_fill(*rectangle({0.0, 0.0}, {0.2, 0.1}), dx).size() == 77u * 39u);
    // Schaefer 2017 quotes 77 x 38 particles: whole cells only, the rectangle
    // floor(L / dx) dx x floor(H / dx) dx (examples/soil_collapse.py).
    const auto pts = lattice_fill(*rectangle({0.0, 0.0}, {77 * dx, 38 * dx}), dx);
    CHECK(pts.size() == 77u * 38u);
    std::set<std::pair<long, long>> cells;
    for (const Point& p : pts) {
        CHECK(p[2] == 0.0);
        const double i = p[0] / dx - 0.5, j = p[1] / dx - 0.5;
        // Every point is a cell centre, inside the rectangle.
        CHECK(std::abs(i - std::round(i)) < 1e-9);
        CHECK(std::abs(j - std::round(j)) < 1e-9);
        CHECK(p[0] > 0.0);
        CHECK(p[0] < 77 * dx);
        CHECK(p[1] > 0.0);
        CHECK(p[1] < 38 * dx);
        cells.insert({std::lround(i), std::lround(j)});
    }
    CHECK(cells.size() == pts.size());  // no duplicates
}

TEST_CASE("lattice_fill: counts follow the cell-centre rule for shifted rectangles and boxes") {
    const double dx = 1.0e-3;
    const Point origin{0.25e-3, -0.4e-3, 0.1e-3};
    const double lo[3] = {0.0123, -0.0456, 0.003}, hi[3] = {0.0611, -0.0099, 0.0217};
    const auto pts2 = lattice_fill(*rectangle({lo[0], lo[1]}, {hi[0], hi[1]}), dx, origin);
    const long nx = centres_in(lo[0], hi[0], dx, origin[0]);
    const long ny = centres_in(lo[1], hi[1], dx, origin[1]);
    const long nz = centres_in(lo[2], hi[2], dx, origin[2]);
    CHECK(pts2.size() == static_cast<std::size_t>(nx * ny));
    const auto pts3 = lattice_fill(*box({lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}), dx, origin);
    CHECK(pts3.size() == static_cast<std::size_t>(nx * ny * nz));
    for (const Point& p : pts3)
        for (int d = 0; d < 3; ++d) {
            CHECK(p[d] >= lo[d]);
            CHECK(p[d] < hi[d]);
        }
}

TEST_CASE("lattice_fill: area = count dx^2 within 2 % (and within the perimeter bound)") {
    const double dx = 5e-4;
    const double lx = 0.2037, ly = 0.0981;
    const auto pts = lattice_fill(*rectangle({0.0113, 0.0271}, {0.0113 + lx, 0.0271 + ly}), dx);
    const double area = lx * ly;
    const double filled = static_cast<double>(pts.size()) * dx * dx;
    CHECK(filled == doctest::Approx(area).epsilon(0.02));
    // Each side of a cell-centred fill is off by less than one spacing.
    CHECK(std::abs(filled - area) <= dx * (lx + ly) + dx * dx);
    const double vol = lx * ly * 0.05;
    const auto pts3 = lattice_fill(*box({0.0113, 0.0271, 0.0}, {0.0113 + lx, 0.0271 + ly, 0.05}), 2e-3);
    CHECK(static_cast<double>(pts3.size()) * 8e-9 == doctest::Approx(vol).epsilon(0.05));
}

TEST_CASE("shapes: half-open rectangles, union and difference") {
    const ShapePtr a = rectangle({0.0, 0.0}, {1.0, 1.0});
    const ShapePtr b = rectangle({0.5, 0.5}, {2.0, 2.0});
    CHECK(a->dim() == 2);
    CHECK(a->contains({0.0, 0.0, 0.0}));   // lo is inside
    CHECK_FALSE(a->contains({1.0, 0.5, 0.0}));  // hi is outside
    CHECK_FALSE(a->contains({0.5, 1.0, 0.0}));
    CHECK_FALSE(a->contains({-1e-12, 0.5, 0.0}));
    const ShapePtr u = unite(a, b);
    const ShapePtr d = subtract(a, b);
    const Point only_a{0.2, 0.2, 0}, only_b{1.5, 1.5, 0}, both{0.7, 0.7, 0}, neither{1.5, 0.2, 0};
    CHECK(u->contains(only_a));
    CHECK(u->contains(only_b));
    CHECK(u->contains(both));
    CHECK_FALSE(u->contains(neither));
    CHECK(d->contains(only_a));
    CHECK_FALSE(d->contains(only_b));
    CHECK_FALSE(d->contains(both));
    CHECK_FALSE(d->contains(neither));
    // Bounds: union covers both, difference those of a.
    CHECK(u->bounds().lo[0] == 0.0);
    CHECK(u->bounds().hi[0] == 2.0);
    CHECK(u->bounds().hi[1] == 2.0);
    CHECK(d->bounds().hi[0] == 1.0);
    // 3D box.
    const ShapePtr c = box({0, 0, 0}, {1, 2, 3});
    CHECK(c->dim() == 3);
    CHECK(c->contains({0.5, 1.9, 2.9}));
    CHECK_FALSE(c->contains({0.5, 1.9, 3.0}));
}

TEST_CASE("lattice_fill of combined shapes: counts add up, no overlaps (walls around soil)") {
    // The collapse geometry: an L-shaped wall = outer rectangle minus the inside, filled with
    // the same lattice as the soil, must not overlap the soil and must tile the outer rectangle.
    const double dx = 2.582e-3;
    const double t = 3 * dx;
    const ShapePtr outer = rectangle({-t, -t}, {0.3, 0.12});
    const ShapePtr inside = rectangle({0.0, 0.0}, {1.3, 1.12});
    const ShapePtr soil = rectangle({0.0, 0.0}, {77 * dx, 38 * dx});
    const auto walls = lattice_fill(*subtract(outer, inside), dx);
    const auto all = lattice_fill(*outer, dx);
    const auto in = lattice_fill(*subtract(outer, subtract(outer, inside)), dx);
    CHECK(walls.size() + in.size() == all.size());
    CHECK(walls.size() == static_cast<std::size_t>(centres_in(-t, 0.3, dx) * centres_in(-t, 0.12, dx) -
                                                   centres_in(0.0, 0.3, dx) * centres_in(0.0, 0.12, dx)));
    const auto s = lattice_fill(*soil, dx);
    CHECK(s.size() == 77u * 38u);
    std::set<std::tuple<long, long>> cells;
    for (const Point& p : walls) cells.insert({std::lround(p[0] / dx - 0.5), std::lround(p[1] / dx - 0.5)});
    for (const Point& p : s) cells.insert({std::lround(p[0] / dx - 0.5), std::lround(p[1] / dx - 0.5)});
    CHECK(cells.size() == walls.size() + s.size());
    // Union of two overlapping rectangles counts each cell once.
    const auto un = lattice_fill(*unite(rectangle({0, 0}, {0.01, 0.01}), rectangle({0.005, 0}, {0.02, 0.01})), 1e-3);
    CHECK(un.size() == 20u * 10u);
}

TEST_CASE("bad input throws: spacing, degenerate shapes, mixed dimensions") {
    const ShapePtr r = rectangle({0, 0}, {1, 1});
    CHECK_THROWS_AS(lattice_fill(*r, 0.0), std::invalid_argument);
    CHECK_THROWS_AS(lattice_fill(*r, -1e-3), std::invalid_argument);
    CHECK_THROWS_AS(lattice_fill(*r, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    CHECK_THROWS_AS(lattice_fill(*r, std::numeric_limits<double>::infinity()), std::invalid_argument);
    CHECK_THROWS_WITH_AS(lattice_fill(*r, 0.0), doctest::Contains("spacing"), std::invalid_argument);
    CHECK_THROWS_AS(rectangle({0, 0}, {0, 1}), std::invalid_argument);
    CHECK_THROWS_AS(rectangle({0, 2}, {1, 1}), std::invalid_argument);
    CHECK_THROWS_AS(rectangle({0, std::nan("")}, {1, 1}), std::invalid_argument);
    CHECK_THROWS_AS(box({0, 0, 1}, {1, 1, 1}), std::invalid_argument);
    CHECK_THROWS_AS(unite(r, box({0, 0, 0}, {1, 1, 1})), std::invalid_argument);
    CHECK_THROWS_AS(subtract(r, nullptr), std::invalid_argument);
}

TEST_CASE("lattice_fill: a cell centre exactly on the lower edge is inside, on the upper edge outside") {
    // Half-open [lo, hi) with exactly representable numbers: centres (i + 1/2) 0.25.
    const auto pts = lattice_fill(*rectangle({0.125, 0.375}, {1.125, 0.875}), 0.25);
    // x: 0.125, 0.375, 0.625, 0.875 (1.125 excluded); y: 0.375, 0.625 (0.875 excluded).
    CHECK(pts.size() == 4u * 2u);
    double xmin = 1e9, ymin = 1e9;
    for (const Point& p : pts) {
        xmin = std::min(xmin, p[0]);
        ymin = std::min(ymin, p[1]);
    }
    CHECK(xmin == 0.125);
    CHECK(ymin == 0.375);
    const auto cube = lattice_fill(*box({0.125, 0.125, 0.125}, {0.625, 0.625, 0.625}), 0.25);
    CHECK(cube.size() == 8u);
}
