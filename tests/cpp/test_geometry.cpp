// Shapes and lattice fills (geometry/shapes.hpp, geometry/lattice.hpp): the fill takes the
// cell-centred points origin + (i + 1/2) dx inside the shape; shapes are half-open [lo, hi).
// Signed distances of every primitive, transforms, offsets and wall layers, square/hexagonal/
// cubic fills (count x spacing^dim = area), graded fills (no overlap, bulk density kept).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

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

TEST_CASE("geometry: lattice_fill: the paper's soil block at 2.582 mm") {
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

TEST_CASE("geometry: lattice_fill: counts follow the cell-centre rule for shifted rectangles and boxes") {
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

TEST_CASE("geometry: lattice_fill: area = count dx^2 within 2 % (and within the perimeter bound)") {
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

TEST_CASE("geometry: shapes: half-open rectangles, union and difference") {
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

TEST_CASE("geometry: lattice_fill of combined shapes: counts add up, no overlaps (walls around soil)") {
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

TEST_CASE("geometry: bad input throws: spacing, degenerate shapes, mixed dimensions") {
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

TEST_CASE("geometry: lattice_fill: a cell centre exactly on the lower edge is inside, on the upper edge outside") {
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

// --- signed distances, primitives, transforms (geometry/shapes.hpp) ----------------------------

namespace {

constexpr double kPi = 3.14159265358979323846;

// Pseudo-random points in a box (fixed seed: the same points every run).
std::vector<Point> random_points(const Point& lo, const Point& hi, int dim, std::size_t n, unsigned seed) {
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ seed;
    const auto uniform = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    std::vector<Point> pts(n);
    for (auto& p : pts)
        for (int d = 0; d < dim; ++d) p[d] = lo[d] + (hi[d] - lo[d]) * uniform();
    return pts;
}

// Count x spacing^dim of a fill.
double filled(const std::vector<Point>& pts, double spacing, int dim) {
    return static_cast<double>(pts.size()) * std::pow(spacing, dim);
}

}  // namespace

TEST_CASE("geometry: signed_distance: 2D primitives at known points") {
    const ShapePtr r = rectangle({0, 0}, {2, 1});
    CHECK(r->signed_distance({1, 0.5, 0}) == doctest::Approx(-0.5));
    CHECK(r->signed_distance({1, 0.9, 0}) == doctest::Approx(-0.1));
    CHECK(r->signed_distance({3, 0.5, 0}) == doctest::Approx(1.0));
    CHECK(r->signed_distance({3, 2, 0}) == doctest::Approx(std::sqrt(2.0)));

    const ShapePtr d = disc({1, 1}, 0.5);
    CHECK(d->signed_distance({1, 1, 0}) == doctest::Approx(-0.5));
    CHECK(d->signed_distance({2, 1, 0}) == doctest::Approx(0.5));
    CHECK(d->signed_distance({1, 1.3, 0}) == doctest::Approx(-0.2));

    const ShapePtr a = annulus({0, 0}, 1.0, 2.0);
    CHECK(a->signed_distance({1.5, 0, 0}) == doctest::Approx(-0.5));
    CHECK(a->signed_distance({0, -1.2, 0}) == doctest::Approx(-0.2));
    CHECK(a->signed_distance({0.25, 0, 0}) == doctest::Approx(0.75));  // in the hole
    CHECK(a->signed_distance({3, 0, 0}) == doctest::Approx(1.0));

    // Quarter ring between 0 and 90 degrees.
    const ShapePtr s = annular_sector({0, 0}, 1.0, 2.0, 0.0, 90.0);
    CHECK(s->signed_distance({1.5, 0.5, 0}) == doctest::Approx(std::hypot(1.5, 0.5) - 2.0));
    CHECK(s->signed_distance({1.2, 0.1, 0}) == doctest::Approx(-0.1));  // nearest: the end cap y = 0
    CHECK(s->signed_distance({1.5, -0.5, 0}) == doctest::Approx(0.5));  // below the cap
    CHECK(s->signed_distance({-1, -1, 0}) == doctest::Approx(std::sqrt(5.0)));  // nearest: a corner
    CHECK(s->signed_distance({0.2, 0.2, 0}) == doctest::Approx(1.0 - std::hypot(0.2, 0.2)));
    CHECK(s->signed_distance({0, 3, 0}) == doctest::Approx(1.0));
    // The same band turned to start at 180 degrees: (1.5, 0.5) is now outside by a cap.
    const ShapePtr s180 = annular_sector({0, 0}, 1.0, 2.0, 180.0, 90.0);
    CHECK(s180->contains({-1.5, -0.5, 0}));
    CHECK_FALSE(s180->contains({1.5, 0.5, 0}));

    // Right triangle 3-4-5, both orientations: the incircle centre (1, 1) is 1 from all sides.
    for (const auto& verts : {std::vector<std::array<double, 2>>{{0, 0}, {4, 0}, {0, 3}},
                              std::vector<std::array<double, 2>>{{0, 3}, {4, 0}, {0, 0}}}) {
        const ShapePtr t = polygon(verts);
        CHECK(t->signed_distance({1, 1, 0}) == doctest::Approx(-1.0));
        CHECK(t->signed_distance({5, 0, 0}) == doctest::Approx(1.0));
        CHECK(t->signed_distance({4, 3, 0}) == doctest::Approx(12.0 / 5.0));  // to 3x + 4y = 12
        CHECK(t->contains({1, 1, 0}));
        CHECK_FALSE(t->contains({3, 2, 0}));
    }
}

TEST_CASE("geometry: signed_distance: 3D primitives, extrusion, translation and rotation") {
    const ShapePtr b = box({0, 0, 0}, {1, 2, 3});
    CHECK(b->signed_distance({0.5, 1, 1.5}) == doctest::Approx(-0.5));
    CHECK(b->signed_distance({2, 1, 1.5}) == doctest::Approx(1.0));
    CHECK(b->signed_distance({2, 3, 4}) == doctest::Approx(std::sqrt(3.0)));
    const ShapePtr e = extrude(rectangle({0, 0}, {1, 2}), 0, 3);
    CHECK(e->dim() == 3);
    for (const Point& p : random_points({-1, -1, -1}, {2, 3, 4}, 3, 500, 7))
        CHECK(e->signed_distance(p) == doctest::Approx(b->signed_distance(p)));

    CHECK(sphere({0, 0, 0}, 1.0)->signed_distance({0, 0, 3}) == doctest::Approx(2.0));
    const ShapePtr c = cylinder({0, 0}, 1.0, 0.0, 2.0);
    CHECK(c->signed_distance({0, 0, 1}) == doctest::Approx(-1.0));
    CHECK(c->signed_distance({0, 0, 1.5}) == doctest::Approx(-0.5));
    CHECK(c->signed_distance({3, 0, 1}) == doctest::Approx(2.0));
    CHECK(c->signed_distance({2, 0, 3}) == doctest::Approx(std::sqrt(2.0)));  // to the rim
    CHECK(c->contains({0.5, 0.5, 0.0}));
    CHECK_FALSE(c->contains({0.5, 0.5, 2.0}));

    const ShapePtr t = translate(rectangle({0, 0}, {2, 1}), {1, -1, 0});
    CHECK(t->signed_distance({2, -0.5, 0}) == doctest::Approx(-0.5));
    CHECK(t->bounds().lo[0] == doctest::Approx(1.0));
    // A quarter turn about the origin maps [0, 2) x [0, 1) onto (-1, 0] x [0, 2).
    const ShapePtr q = rotate(rectangle({0, 0}, {2, 1}), 90.0);
    CHECK(q->contains({-0.5, 1.5, 0}));
    CHECK_FALSE(q->contains({0.5, 1.5, 0}));
    CHECK(q->signed_distance({-0.5, 1.0, 0}) == doctest::Approx(-0.5));
    CHECK(q->bounds().lo[0] == -1.0);
    CHECK(q->bounds().hi[1] == 2.0);
    // About another point: the rectangle's corner (2, 1) turned by 180 degrees about (2, 1) stays.
    const ShapePtr h = rotate(rectangle({0, 0}, {2, 1}), 180.0, {2, 1});
    CHECK(h->contains({3, 1.5, 0}));
    CHECK_FALSE(h->contains({1, 0.5, 0}));
    // A 30 degree turn of the long rectangle (bristle) about its base.
    const ShapePtr bristle = rotate(rectangle({0, -0.5}, {10, 0.5}), 30.0);
    const double c30 = std::cos(kPi / 6), s30 = std::sin(kPi / 6);
    CHECK(bristle->contains({9.9 * c30, 9.9 * s30, 0}));
    CHECK(bristle->signed_distance({5 * c30, 5 * s30, 0}) == doctest::Approx(-0.5));
    CHECK(bristle->signed_distance({12 * c30, 12 * s30, 0}) == doctest::Approx(2.0));
    // 3D rotation about z through (1, 0): a box turns, z untouched.
    const ShapePtr bz = rotate(box({1, 0, 0}, {3, 1, 1}), 90.0, {1, 0});
    CHECK(bz->contains({0.5, 1.5, 0.5}));
    CHECK_FALSE(bz->contains({0.5, 1.5, 1.5}));
}

TEST_CASE("geometry: contains and the sign of signed_distance agree on random points") {
    const ShapePtr hub = disc({0, 0}, 0.015);
    ShapePtr brush = hub;
    for (int k = 0; k < 12; ++k)
        brush = unite(brush, rotate(rectangle({0.0, -0.001}, {0.035, 0.001}), 30.0 * k));
    const std::vector<ShapePtr> shapes{
        rectangle({-0.02, -0.01}, {0.03, 0.02}),
        hub,
        annulus({0.001, -0.002}, 0.01, 0.03),
        annular_sector({0, 0}, 0.036, 0.04, 230.0, 80.0),
        annular_sector({0, 0}, 0.0, 0.04, -30.0, 300.0),
        polygon({{-0.03, -0.03}, {0.04, -0.02}, {0.0, 0.0}, {0.03, 0.04}, {-0.02, 0.03}}),  // non-convex
        brush,
        subtract(rectangle({-0.04, -0.04}, {0.04, 0.04}), hub),
        intersect(hub, rectangle({0, -0.04}, {0.04, 0.04})),
        translate(rotate(polygon({{0, 0}, {0.02, 0}, {0.0, 0.01}}), 47.0, {0.01, 0.0}), {0.003, 0.004, 0}),
        offset(brush, 0.002),
        wall_layer(rectangle({-0.02, -0.02}, {0.02, 0.01}), 0.005),
    };
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        CAPTURE(k);
        std::size_t inside = 0, agree = 0, tested = 0;
        for (const Point& p : random_points({-0.05, -0.05, 0}, {0.05, 0.05, 0}, 2, 4000, 11 + k)) {
            const double d = shapes[k]->signed_distance(p);
            if (std::abs(d) < 1e-12) continue;  // on the boundary: the half-open rule decides
            ++tested;
            if (shapes[k]->contains(p)) ++inside;
            if (shapes[k]->contains(p) == (d < 0.0)) ++agree;
            // The bounding box encloses every contained point.
            if (shapes[k]->contains(p)) {
                const BoundingBox b = shapes[k]->bounds();
                CHECK(p[0] >= b.lo[0]);
                CHECK(p[0] <= b.hi[0]);
                CHECK(p[1] >= b.lo[1]);
                CHECK(p[1] <= b.hi[1]);
            }
        }
        CHECK(agree == tested);
        CHECK(inside > 0u);  // the sample reaches inside, so the check can fail
    }
    const ShapePtr c3 = subtract(cylinder({0, 0}, 0.03, -0.02, 0.02), sphere({0.01, 0, 0}, 0.015));
    for (const Point& p : random_points({-0.05, -0.05, -0.05}, {0.05, 0.05, 0.05}, 3, 3000, 5)) {
        const double d = c3->signed_distance(p);
        if (std::abs(d) > 1e-12) CHECK(c3->contains(p) == (d < 0.0));
    }
}

TEST_CASE("geometry: rotate by 360 degrees (and -720) keeps every membership") {
    const ShapePtr s = unite(annular_sector({0.01, 0}, 0.02, 0.03, 20.0, 80.0),
                             polygon({{0, 0}, {0.03, 0.01}, {0.01, 0.04}}));
    const ShapePtr full = rotate(s, 360.0, {0.013, -0.007});
    const ShapePtr back = rotate(s, -720.0, {0.5, 0.5});
    const ShapePtr quarter = rotate(s, 90.0, {0.013, -0.007});
    std::size_t differ_quarter = 0;
    for (const Point& p : random_points({-0.05, -0.05, 0}, {0.05, 0.05, 0}, 2, 20000, 3)) {
        CHECK(full->contains(p) == s->contains(p));
        CHECK(back->contains(p) == s->contains(p));
        CHECK(full->signed_distance(p) == s->signed_distance(p));
        if (quarter->contains(p) != s->contains(p)) ++differ_quarter;
    }
    CHECK(differ_quarter > 100u);  // a non-trivial turn does change memberships
}

TEST_CASE("geometry: filled area = count x spacing^2 within 2 % on square and hexagonal lattices") {
    const double dx = 5e-4;
    const std::vector<std::pair<ShapePtr, double>> cases{
        {rectangle({0.0013, -0.0021}, {0.0613, 0.0379}), 0.06 * 0.04},
        {disc({0.0011, 0.0023}, 0.02), kPi * 0.02 * 0.02},
        {annulus({-0.0007, 0.0004}, 0.015, 0.035), kPi * (0.035 * 0.035 - 0.015 * 0.015)},
        // The shield: an 80 degree arc band, 5 mm thick.
        {annular_sector({0.0003, 0.0001}, 0.040, 0.045, 230.0, 80.0),
         kPi * (0.045 * 0.045 - 0.040 * 0.040) * 80.0 / 360.0},
        // Non-convex pentagon (shoelace area computed below), clockwise.
        {polygon({{-0.02, 0.03}, {0.03, 0.04}, {0.0, 0.0}, {0.04, -0.02}, {-0.03, -0.03}}), 0.0},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
        double area = cases[k].second;
        if (area == 0.0) {
            const double v[5][2] = {{-0.02, 0.03}, {0.03, 0.04}, {0.0, 0.0}, {0.04, -0.02}, {-0.03, -0.03}};
            for (int i = 0, j = 4; i < 5; j = i++) area += 0.5 * (v[j][0] * v[i][1] - v[i][0] * v[j][1]);
            area = std::abs(area);
        }
        for (Lattice lat : {Lattice::square, Lattice::hexagonal}) {
            CAPTURE(k);
            CAPTURE(lattice_name(lat));
            const auto pts = lattice_fill(*cases[k].first, dx, {0, 0, 0}, lat);
            CHECK(filled(pts, dx, 2) == doctest::Approx(area).epsilon(0.02));
            for (const Point& p : pts) REQUIRE(cases[k].first->contains(p));
        }
    }
    // 3D: cylinder and box volumes with spacing^3 on the cubic lattice.
    const double d3 = 1e-3;
    const auto cyl = lattice_fill(*cylinder({0.0004, 0.0002}, 0.02, -0.01, 0.0213), d3, {0, 0, 0}, Lattice::cubic);
    CHECK(filled(cyl, d3, 3) == doctest::Approx(kPi * 0.02 * 0.02 * 0.0313).epsilon(0.02));
    const auto bx = lattice_fill(*box({0.0002, 0, -0.0104}, {0.0402, 0.0307, 0.02}), d3);
    CHECK(filled(bx, d3, 3) == doctest::Approx(0.04 * 0.0307 * 0.0304).epsilon(0.02));
    const auto ex = lattice_fill(*extrude(annulus({0, 0}, 0.01, 0.02), 0, 0.01), d3);
    CHECK(filled(ex, d3, 3) == doctest::Approx(kPi * 3e-4 * 0.01).epsilon(0.03));
}

TEST_CASE("geometry: hexagonal lattice: nearest neighbours at spacing sqrt(2/sqrt(3)), six of them") {
    const double s = 1e-3, a = s * std::sqrt(2.0 / std::sqrt(3.0));
    const auto pts = lattice_fill(*rectangle({0, 0}, {0.02, 0.02}), s, {0, 0, 0}, Lattice::hexagonal);
    const Point centre{0.01, 0.01, 0};
    std::size_t best = 0;
    for (std::size_t i = 1; i < pts.size(); ++i)
        if (std::hypot(pts[i][0] - centre[0], pts[i][1] - centre[1]) <
            std::hypot(pts[best][0] - centre[0], pts[best][1] - centre[1]))
            best = i;
    double nearest = INFINITY;
    int at_a = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        if (i == best) continue;
        const double r = std::hypot(pts[i][0] - pts[best][0], pts[i][1] - pts[best][1]);
        nearest = std::min(nearest, r);
        if (std::abs(r - a) < 1e-9) ++at_a;
    }
    CHECK(nearest == doctest::Approx(a));
    CHECK(at_a == 6);
}

TEST_CASE("geometry: offset and wall_layer: exact for primitives and unions") {
    const double a = 0.1, b = 0.06, t = 0.0075;
    const ShapePtr r = rectangle({0.0, 0.0}, {a, b});
    // The grown rectangle has rounded corners: area (a + 2t)(b + 2t) - (4 - pi) t^2.
    const double layer = 2.0 * t * (a + b) + kPi * t * t;
    const double dx = 2.5e-4;
    const auto pts = lattice_fill(*wall_layer(r, t), dx);
    CHECK(filled(pts, dx, 2) == doctest::Approx(layer).epsilon(0.02));
    for (const Point& p : pts) {
        REQUIRE_FALSE(r->contains(p));
        REQUIRE(r->signed_distance(p) < t);
    }
    // Offset of a disc is the bigger disc; of a union, the union of the offsets.
    const ShapePtr grown = offset(disc({0, 0}, 0.01), 0.005);
    CHECK(grown->signed_distance({0.02, 0, 0}) == doctest::Approx(0.005));
    CHECK(grown->contains({0.0149, 0, 0}));
    CHECK_FALSE(grown->contains({0.0151, 0, 0}));
    const ShapePtr two = offset(unite(disc({0, 0}, 0.01), disc({0.05, 0}, 0.01)), 0.005);
    CHECK(two->contains({0.0649, 0, 0}));
    CHECK_FALSE(two->contains({0.0651, 0, 0}));
    CHECK_FALSE(two->contains({0.025, 0, 0}));
    // A negative offset shrinks.
    CHECK_FALSE(offset(r, -0.01)->contains({0.005, 0.03, 0}));
    CHECK(offset(r, -0.01)->contains({0.015, 0.03, 0}));
    // Difference: the signed distance is a bound (|d| <= true distance) with the right sign, so
    // the grown shape contains every point within the distance.
    const ShapePtr frame = subtract(rectangle({0, 0}, {1, 1}), rectangle({0.2, 0.2}, {0.8, 0.8}));
    CHECK(frame->signed_distance({0.5, 0.5, 0}) > 0.0);
    CHECK(frame->signed_distance({0.5, 0.5, 0}) <= 0.3 + 1e-12);
    CHECK(offset(frame, 0.05)->contains({0.5, 0.24, 0}));
}

// --- graded (variable-resolution) fills ---------------------------------------------------------

namespace {

// Smallest distance between a point of `a` and a point of `b` (brute force over a coarse grid).
double closest_pair(const std::vector<Point>& a, const std::vector<Point>& b) {
    double best = INFINITY;
    for (const Point& p : a)
        for (const Point& q : b)
            best = std::min(best, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
    return best;
}

// Particle mass per area of a zone in units of the bulk density: count x spacing^dim / area.
double mass_per_area(const ZoneFill& z, double area, int dim) { return filled(z.positions, z.spacing, dim) / area; }

}  // namespace

TEST_CASE("geometry: graded_fill: aligned zones meet at exactly the mean spacing, keep the bulk density") {
    // Fine inner block (1 mm), coarse damping frame around it (2 mm), common origin.
    const double sf = 1e-3, sc = 2e-3;
    const ShapePtr inner = rectangle({-0.0403, -0.0297}, {0.0403, 0.0});
    const ShapePtr outer = rectangle({-0.1, -0.08}, {0.1, 0.0});
    const auto z = graded_fill({{inner, sf}, {outer, sc}});
    REQUIRE(z.size() == 2u);
    CHECK(z[0].spacing == sf);
    CHECK(z[1].spacing == sc);
    const double a_in = 0.0806 * 0.0297, a_out = 0.2 * 0.08 - a_in;
    CHECK(mass_per_area(z[0], a_in, 2) == doctest::Approx(1.0).epsilon(0.02));
    CHECK(mass_per_area(z[1], a_out, 2) == doctest::Approx(1.0).epsilon(0.02));
    CHECK(filled(z[0].positions, sf, 2) + filled(z[1].positions, sc, 2) ==
          doctest::Approx(0.2 * 0.08).epsilon(1e-9));  // integer ratio: the area is tiled exactly
    CHECK(closest_pair(z[0].positions, z[1].positions) >= 0.5 * sf);
    // Row gap at the right interface: for each fine row, last fine x to first coarse x.
    std::size_t rows = 0;
    for (const Point& f : z[0].positions) {
        if (f[0] < 0.03 || f[1] > -0.002) continue;
        bool last = true;
        for (const Point& g : z[0].positions)
            if (g[1] == f[1] && g[0] > f[0]) last = false;
        if (!last) continue;
        double first = INFINITY;
        for (const Point& c : z[1].positions)
            if (std::abs(c[1] - f[1]) < 0.5 * sc && c[0] > f[0]) first = std::min(first, c[0]);
        CHECK(first - f[0] == doctest::Approx(0.5 * (sf + sc)));
        ++rows;
    }
    CHECK(rows > 10u);
}

TEST_CASE("geometry: graded_fill: curved and non-commensurate zones never overlap, leave no hole, keep the bulk density") {
    const double sf = 1e-3;
    const Point c{0.0013, -0.0007, 0};
    for (double ratio : {2.0, 2.6}) {
        for (Lattice lat : {Lattice::square, Lattice::hexagonal}) {
            CAPTURE(ratio);
            CAPTURE(lattice_name(lat));
            const double sc = ratio * sf;
            const ShapePtr inner = disc({c[0], c[1]}, 0.025);
            const ShapePtr mid = disc({c[0], c[1]}, 0.05);
            // The outer square spans whole coarse cells, so its own edges add no count error.
            const double h = 20.0 * 2.0 * sc;
            const ShapePtr outer = rectangle({-h, -h}, {h, h});
            const auto z = graded_fill({{inner, sf}, {mid, sc}, {outer, 2.0 * sc}}, lat, {0.0002, 0.0005, 0});
            REQUIRE(z.size() == 3u);
            const double a0 = kPi * 0.025 * 0.025, a1 = kPi * 0.05 * 0.05 - a0, a2 = 4 * h * h - a0 - a1;
            CHECK(mass_per_area(z[0], a0, 2) == doctest::Approx(1.0).epsilon(0.02));
            CHECK(mass_per_area(z[1], a1, 2) == doctest::Approx(1.0).epsilon(0.02));
            CHECK(mass_per_area(z[2], a2, 2) == doctest::Approx(1.0).epsilon(0.02));
            for (std::size_t k = 0; k + 1 < z.size(); ++k)
                CHECK(closest_pair(z[k].positions, z[k + 1].positions) >= 0.5 * z[k].spacing);
            // No hole at an interface: every point within two coarse spacings of it is as close
            // to a particle as points inside the coarse lattice are (its covering radius,
            // spacing/sqrt(2) square, a/sqrt(3) hexagonal), within 5 %.
            const double cover = lat == Lattice::square ? sc / std::sqrt(2.0)
                                                        : sc * std::sqrt(2.0 / std::sqrt(3.0)) / std::sqrt(3.0);
            std::vector<Point> near;
            for (const auto& zone : z)
                for (const Point& p : zone.positions)
                    if (std::abs(std::hypot(p[0] - c[0], p[1] - c[1]) - 0.025) < 3.0 * sc) near.push_back(p);
            double widest = 0.0;
            for (const Point& q : random_points({-1, 0.025 - 2 * sc, 0}, {1, 0.025 + 2 * sc, 0}, 2, 3000, 17)) {
                const Point p{c[0] + q[1] * std::cos(kPi * q[0]), c[1] + q[1] * std::sin(kPi * q[0]), 0};
                double nearest = INFINITY;
                for (const Point& x : near) nearest = std::min(nearest, std::hypot(p[0] - x[0], p[1] - x[1]));
                widest = std::max(widest, nearest);
            }
            CHECK(widest <= 1.05 * cover);
            CHECK(widest >= 0.5 * cover);  // the sample does reach into the coarse lattice
        }
    }
}

TEST_CASE("geometry: graded_fill: 3D cubic zones") {
    const auto z = graded_fill({{box({-0.01, -0.01, -0.01}, {0.01, 0.01, 0.0}), 1e-3},
                                {box({-0.02, -0.02, -0.02}, {0.02, 0.02, 0.0}), 2e-3}});
    CHECK(filled(z[0].positions, 1e-3, 3) == doctest::Approx(0.02 * 0.02 * 0.01).epsilon(0.02));
    CHECK(filled(z[1].positions, 2e-3, 3) == doctest::Approx(0.04 * 0.04 * 0.02 - 4e-6).epsilon(0.02));
    CHECK(closest_pair(z[0].positions, z[1].positions) >= 0.5e-3);
}

TEST_CASE("geometry: bad geometry input throws, naming the field") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(disc({0, 0}, -1.0), doctest::Contains("radius"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(disc({nan, 0}, 1.0), doctest::Contains("centre.x"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annulus({0, 0}, 2.0, 1.0), doctest::Contains("r_in"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annulus({0, 0}, 1.0, 1.0), doctest::Contains("r_out"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annulus({0, 0}, -0.1, 1.0), doctest::Contains("r_in"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annular_sector({0, 0}, 1, 2, 0, 0), doctest::Contains("opening"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annular_sector({0, 0}, 1, 2, 0, 360), doctest::Contains("opening"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(annular_sector({0, 0}, 1, 2, nan, 80), doctest::Contains("start_angle"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(polygon({{0, 0}, {1, 0}}), doctest::Contains("vertices"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(polygon({{0, 0}, {1, 0}, {2, 0}}), doctest::Contains("area"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(polygon({{0, 0}, {1, nan}, {2, 1}}), doctest::Contains("vertices[1].y"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(polygon({{0, 0}, {1, 1}, {1, 0}, {0, 1}}), doctest::Contains("simple"),
                         std::invalid_argument);  // a bow tie
    CHECK_THROWS_WITH_AS(cylinder({0, 0}, 1.0, 1.0, 0.0), doctest::Contains("z1"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(cylinder({0, 0}, 0.0, 0.0, 1.0), doctest::Contains("cylinder: radius"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(sphere({0, 0, 0}, nan), doctest::Contains("radius"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(extrude(box({0, 0, 0}, {1, 1, 1}), 0, 1), doctest::Contains("2D"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(rotate(disc({0, 0}, 1), nan), doctest::Contains("angle"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(translate(disc({0, 0}, 1), {0, 0, 1}), doctest::Contains("offset.z"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(wall_layer(disc({0, 0}, 1), 0.0), doctest::Contains("thickness"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(offset(nullptr, 1.0), doctest::Contains("shape"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(intersect(disc({0, 0}, 1), sphere({0, 0, 0}, 1)), doctest::Contains("2D and a 3D"),
                         std::invalid_argument);
    // Lattices: dimension mismatch, unknown name, a fill too big to hold, NaN origin.
    CHECK_THROWS_WITH_AS(lattice_fill(*disc({0, 0}, 1), 0.1, {0, 0, 0}, Lattice::cubic),
                         doctest::Contains("lattice"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(lattice_fill(*box({0, 0, 0}, {1, 1, 1}), 0.1, {0, 0, 0}, Lattice::hexagonal),
                         doctest::Contains("lattice"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(parse_lattice("hex"), doctest::Contains("lattice"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(lattice_fill(*rectangle({0, 0}, {1, 1}), 1e-5), doctest::Contains("spacing"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(lattice_fill(*rectangle({0, 0}, {1, 1}), 0.1, {0, nan, 0}), doctest::Contains("origin.y"),
                         std::invalid_argument);
    // Graded fills: order and spacing of zones.
    const ShapePtr r = rectangle({0, 0}, {1, 1});
    CHECK_THROWS_WITH_AS(graded_fill({}), doctest::Contains("zones"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(graded_fill({{r, 0.02}, {r, 0.01}}), doctest::Contains("zones[1].spacing"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(graded_fill({{r, 0.01}, {r, -1.0}}), doctest::Contains("zones[1].spacing"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(graded_fill({{r, 0.01}, {nullptr, 0.02}}), doctest::Contains("zones[1].shape"),
                         std::invalid_argument);
}
