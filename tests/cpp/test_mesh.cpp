// Closed triangle meshes as shapes (geometry/triangle_mesh.hpp): a cube mesh is the box it
// bounds, point for point, even for lattice points on its faces, edges and corners (the ray
// test's edge and vertex cases); a sphere and a torus mesh match the analytic solids within
// their facetting; inverted meshes are turned round; bad meshes are refused, naming the mesh.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "geometry/lattice.hpp"
#include "geometry/shapes.hpp"
#include "geometry/triangle_mesh.hpp"

using namespace regosph::geometry;

namespace {

using Triangles = std::vector<std::array<std::int64_t, 3>>;
struct Mesh {
    std::vector<Point> vertices;
    Triangles triangles;
};

// The surface of the box [lo, hi] with every face cut into n x n squares of two triangles each
// (so that edges run along the faces and their diagonals), outward-facing.
Mesh cube_mesh(Point lo, Point hi, int n) {
    Mesh m;
    std::map<Point, std::int64_t> index;
    const auto vertex = [&](const Point& p) {
        const auto [it, fresh] = index.emplace(p, static_cast<std::int64_t>(m.vertices.size()));
        if (fresh) m.vertices.push_back(p);
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;  // (u, v, axis) right-handed
            const auto at = [&](int i, int j) {
                Point p{};
                p[axis] = side ? hi[axis] : lo[axis];
                p[u] = lo[u] + (hi[u] - lo[u]) * i / n;
                p[v] = lo[v] + (hi[v] - lo[v]) * j / n;
                return vertex(p);
            };
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const std::int64_t a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
                    // u x v = +axis: counter-clockwise in (u, v) faces +axis (outward on the hi side).
                    if (side) m.triangles.push_back({a, b, c}), m.triangles.push_back({a, c, d});
                    else m.triangles.push_back({a, c, b}), m.triangles.push_back({a, d, c});
                }
        }
    return m;
}

// Icosahedron subdivided `level` times, vertices pushed onto the sphere, outward-facing.
Mesh icosphere(Point centre, double radius, int level) {
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    std::vector<Point> v{{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                         {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    Triangles f{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    const auto unit = [](Point p) {
        const double r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        return Point{p[0] / r, p[1] / r, p[2] / r};
    };
    for (Point& p : v) p = unit(p);
    for (int l = 0; l < level; ++l) {
        std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> mid;
        const auto midpoint = [&](std::int64_t a, std::int64_t b) {
            const auto key = std::minmax(a, b);
            const auto it = mid.find(key);
            if (it != mid.end()) return it->second;
            v.push_back(unit({v[a][0] + v[b][0], v[a][1] + v[b][1], v[a][2] + v[b][2]}));
            return mid[key] = static_cast<std::int64_t>(v.size() - 1);
        };
        Triangles g;
        for (const auto& [a, b, c] : f) {
            const std::int64_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
            g.insert(g.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
        }
        f = std::move(g);
    }
    for (Point& p : v) p = {centre[0] + radius * p[0], centre[1] + radius * p[1], centre[2] + radius * p[2]};
    return {v, f};
}

// Torus about the z axis (radii R, r), nu x nv quads of two triangles, outward-facing.
Mesh torus(double R, double r, int nu, int nv) {
    Mesh m;
    const double two_pi = 2.0 * std::numbers::pi;
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            const double a = two_pi * i / nu, b = two_pi * j / nv;
            m.vertices.push_back({(R + r * std::cos(b)) * std::cos(a), (R + r * std::cos(b)) * std::sin(a), r * std::sin(b)});
        }
    const auto id = [&](int i, int j) { return static_cast<std::int64_t>((i % nu) * nv + (j % nv)); };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j)
            m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)}),
                m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    return m;
}

double longest_edge(const Mesh& m) {
    double longest = 0.0;
    for (const auto& t : m.triangles)
        for (int k = 0; k < 3; ++k) {
            const Point &a = m.vertices[t[k]], &b = m.vertices[t[(k + 1) % 3]];
            longest = std::max(longest, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
        }
    return longest;
}

std::string error_of(const Mesh& m, const std::string& name = "bad.stl") {
    try {
        triangle_mesh(name, m.vertices, m.triangles);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("mesh: a cube mesh is its box, point for point, on faces, edges and corners too") {
    // Three boxes whose smallest extents lie along x, y and z, so the ray runs along each axis.
    for (const auto& [lo, hi] : {std::pair<Point, Point>{{0.0, 0.0, 0.0}, {0.5, 1.0, 1.0}},
                                 {{0.0, 0.0, 0.0}, {1.0, 0.5, 1.0}},
                                 {{-0.25, 0.0, 0.125}, {0.75, 1.0, 0.625}}}) {
        const Mesh m = cube_mesh(lo, hi, 4);
        const auto mesh = triangle_mesh("cube", m.vertices, m.triangles);
        const ShapePtr ref = box(lo, hi);
        CHECK_FALSE(mesh->mesh().reoriented);
        CHECK(mesh->mesh().volume == doctest::Approx((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])));
        // Lattice points exactly on the faces, the face grid's edges and diagonals, the corners
        // (multiples of 1/16 m, exact in binary): the same half-open membership as box().
        const double dx = 0.0625;
        const Point origin{-0.5 * dx, -0.5 * dx, -0.5 * dx};
        const auto filled = lattice_fill(*mesh, dx, origin), expected = lattice_fill(*ref, dx, origin);
        CHECK(filled.size() == expected.size());
        CHECK(filled == expected);
        std::size_t on_boundary = 0;
        for (double x = lo[0] - dx; x <= hi[0] + dx; x += dx)
            for (double y = lo[1] - dx; y <= hi[1] + dx; y += dx)
                for (double z = lo[2] - dx; z <= hi[2] + dx; z += dx) {
                    const Point p{x, y, z};
                    if (std::abs(ref->signed_distance(p)) == 0.0) ++on_boundary;
                    REQUIRE(mesh->contains(p) == ref->contains(p));
                }
        CHECK(on_boundary > 300);
        // Signed distances agree with the exact box distance, inside and outside.
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(-0.5, 1.5);
        for (int i = 0; i < 2000; ++i) {
            const Point p{u(rng), u(rng), u(rng)};
            REQUIRE(mesh->signed_distance(p) == doctest::Approx(ref->signed_distance(p)).epsilon(1e-12).scale(1.0));
        }
    }
}

TEST_CASE("mesh: a sphere mesh matches the ball: filled volume within 1 %, distance within 1 % of an edge") {
    const Point c{0.01, -0.02, 0.03};
    const double r = 0.05;
    const Mesh m = icosphere(c, r, 5);  // 20 480 triangles
    const auto mesh = triangle_mesh("sphere", m.vertices, m.triangles);
    const ShapePtr ball = sphere(c, r);
    const double volume = 4.0 / 3.0 * std::numbers::pi * r * r * r;
    CHECK(mesh->mesh().triangles.size() == 20480u);
    CHECK(mesh->mesh().volume == doctest::Approx(volume).epsilon(0.01));
    const double dx = r / 20.0;
    const auto filled = lattice_fill(*mesh, dx), exact = lattice_fill(*ball, dx);
    CHECK(static_cast<double>(filled.size()) * dx * dx * dx == doctest::Approx(volume).epsilon(0.01));
    CHECK(static_cast<double>(filled.size()) == doctest::Approx(static_cast<double>(exact.size())).epsilon(0.01));
    const double edge = longest_edge(m);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-2.0 * r, 2.0 * r);
    double worst = 0.0;
    for (int i = 0; i < 3000; ++i) {
        const Point p{c[0] + u(rng), c[1] + u(rng), c[2] + u(rng)};
        worst = std::max(worst, std::abs(mesh->signed_distance(p) - ball->signed_distance(p)));
        // Inscribed facets: the mesh never contains a point the ball does not.
        if (mesh->contains(p)) REQUIRE(ball->contains(p));
    }
    MESSAGE("sphere mesh: worst signed-distance error " << worst / edge << " of the longest edge " << edge);
    CHECK(worst < 0.01 * edge);
}

TEST_CASE("mesh: a torus (rays crossing four sheets) matches the analytic torus away from its facets") {
    const double R = 0.3, r = 0.1;
    const Mesh m = torus(R, r, 96, 48);
    const auto mesh = triangle_mesh("torus", m.vertices, m.triangles);
    const double facet = longest_edge(m);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-0.45, 0.45);
    int compared = 0;
    for (int i = 0; i < 20000; ++i) {
        const Point p{u(rng), u(rng), 0.5 * u(rng)};
        const double sd = std::hypot(std::hypot(p[0], p[1]) - R, p[2]) - r;  // exact torus
        if (std::abs(sd) < facet) continue;  // within the facetting
        ++compared;
        REQUIRE(mesh->contains(p) == (sd < 0.0));
        REQUIRE(mesh->winding_number(p) == (sd < 0.0 ? 1 : 0));
    }
    CHECK(compared > 15000);
    CHECK(mesh->mesh().volume == doctest::Approx(2.0 * std::numbers::pi * std::numbers::pi * R * r * r).epsilon(0.01));
}

TEST_CASE("mesh: STL-style input (every triangle with its own corners) is merged; inward meshes are turned round") {
    const Mesh m = cube_mesh({0, 0, 0}, {1, 1, 1}, 2);
    Mesh loose, inward = m;
    for (const auto& t : m.triangles) {
        std::array<std::int64_t, 3> own{};
        for (int k = 0; k < 3; ++k) {
            own[k] = static_cast<std::int64_t>(loose.vertices.size());
            loose.vertices.push_back(m.vertices[t[k]]);
        }
        loose.triangles.push_back(own);
    }
    for (auto& t : inward.triangles) std::swap(t[0], t[1]);
    const auto a = triangle_mesh("loose", loose.vertices, loose.triangles);
    const auto b = triangle_mesh("inward", inward.vertices, inward.triangles);
    CHECK(a->mesh().vertices.size() == m.vertices.size());
    CHECK_FALSE(a->mesh().reoriented);
    CHECK(b->mesh().reoriented);
    CHECK(b->mesh().volume == doctest::Approx(1.0));
    CHECK(a->mesh().area == doctest::Approx(6.0));
    for (const Point& p : {Point{0.5, 0.5, 0.5}, Point{0.1, 0.9, 0.3}, Point{1.5, 0.5, 0.5}, Point{0.5, -0.1, 0.5}}) {
        CHECK(a->contains(p) == (p[0] < 1.0 && p[1] >= 0.0));
        CHECK(b->contains(p) == a->contains(p));
        CHECK(b->signed_distance(p) == doctest::Approx(a->signed_distance(p)));
    }
}

TEST_CASE("mesh: overlapping closed parts in one mesh fill their union; transforms and wall layers work") {
    Mesh m = cube_mesh({0, 0, 0}, {1, 1, 1}, 1);
    const Mesh other = cube_mesh({0.5, 0.25, 0.25}, {1.5, 0.75, 0.75}, 1);
    for (auto t : other.triangles) {
        for (auto& i : t) i += static_cast<std::int64_t>(m.vertices.size());
        m.triangles.push_back(t);
    }
    m.vertices.insert(m.vertices.end(), other.vertices.begin(), other.vertices.end());
    const ShapePtr mesh = triangle_mesh("assembly", m.vertices, m.triangles);
    const ShapePtr ref = unite(box({0, 0, 0}, {1, 1, 1}), box({0.5, 0.25, 0.25}, {1.5, 0.75, 0.75}));
    const double dx = 0.05;
    CHECK(lattice_fill(*mesh, dx) == lattice_fill(*ref, dx));
    // Outside the union the distance is exact.
    for (const Point& p : {Point{2.0, 0.5, 0.5}, Point{-0.3, 0.2, 0.4}, Point{1.2, 1.1, 0.5}})
        CHECK(mesh->signed_distance(p) == doctest::Approx(ref->signed_distance(p)));
    // Moved and turned like any shape; a wall layer around it.
    const ShapePtr moved = rotate(translate(mesh, {0.1, 0.2, 0.3}), 90.0, {0.1, 0.2});
    const ShapePtr moved_ref = rotate(translate(ref, {0.1, 0.2, 0.3}), 90.0, {0.1, 0.2});
    CHECK(lattice_fill(*moved, dx) == lattice_fill(*moved_ref, dx));
    CHECK(lattice_fill(*wall_layer(mesh, 0.1), dx).size() == lattice_fill(*wall_layer(ref, 0.1), dx).size());
}

TEST_CASE("mesh: bad meshes are refused with the mesh's name and the fault") {
    const Mesh good = cube_mesh({0, 0, 0}, {1, 1, 1}, 2);
    CHECK(error_of(good).empty());

    CHECK(error_of(Mesh{}).find("bad.stl: the mesh is empty") == 0);

    Mesh open = good;
    open.triangles.pop_back();
    std::string e = error_of(open);
    CHECK(e.find("bad.stl: the mesh is not closed: 3 edge(s) belong to one triangle only") == 0);

    Mesh flipped = good;
    std::swap(flipped.triangles[5][0], flipped.triangles[5][1]);
    e = error_of(flipped);
    CHECK(e.find("bad.stl: inconsistent orientation: 3 edge(s)") == 0);
    CHECK(e.find("triangle") != std::string::npos);

    Mesh doubled = good;
    doubled.triangles.push_back(good.triangles[0]);
    CHECK(error_of(doubled).find("shared by more than two triangles") != std::string::npos);

    Mesh degenerate = good;
    degenerate.vertices.push_back({0.5, 0.5, 2.0});
    const auto n = static_cast<std::int64_t>(degenerate.vertices.size());
    degenerate.triangles.push_back({n - 1, n - 1, 0});
    e = error_of(degenerate);
    CHECK(e.find("bad.stl: 1 degenerate triangle(s) of zero area, e.g. triangle 48") == 0);

    Mesh collinear = good;
    const auto k = static_cast<std::int64_t>(collinear.vertices.size());
    collinear.vertices.insert(collinear.vertices.end(), {{0, 0, 5}, {1, 1, 5}, {2, 2, 5}});
    collinear.triangles.push_back({k, k + 1, k + 2});
    CHECK(error_of(collinear).find("degenerate") != std::string::npos);

    Mesh outside = good;
    outside.triangles[3][1] = 999;
    CHECK(error_of(outside) == "bad.stl: triangle 3 refers to vertex 999, but the mesh has " +
                                   std::to_string(good.vertices.size()) + " vertices");

    Mesh nan = good;
    nan.vertices[2][1] = NAN;
    CHECK(error_of(nan).find("bad.stl: vertex 2 y = nan must be a finite number") == 0);
}
