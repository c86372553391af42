// close_mesh (triangle_mesh.hpp): merge coincident vertices, refuse meshes that do not bound a
// solid, turn round a mesh that faces inward.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "geometry/shape_checks.hpp"
#include "geometry/triangle_mesh.hpp"
#include "geometry/vector_ops.hpp"

namespace regosph::geometry {

namespace {

using vec::cross;
using vec::norm;
using vec::sub;

// A triangle is degenerate when twice its area is below this fraction of its longest edge
// squared (sin of its smallest angle below ~1e-12: zero to round-off).
constexpr double kDegenerateArea = 1e-12;

std::string point_text(const Point& p) {
    // Starting from a std::string: `const char* + std::string&&` draws GCC 12's false
    // -Wrestrict (PR 105651).
    return std::string("(") + number(p[0]) + ", " + number(p[1]) + ", " + number(p[2]) + ")";
}


// Vertices with identical coordinates become one; returns the new index of every input vertex
// and keeps one copy of each position in `merged`.
std::vector<std::uint32_t> merge_vertices(const std::vector<Point>& vertices, std::vector<Point>& merged) {
    std::vector<std::uint32_t> order(vertices.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return vertices[a] < vertices[b]; });
    std::vector<std::uint32_t> remap(vertices.size());
    merged.clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i == 0 || vertices[order[i]] != vertices[order[i - 1]]) merged.push_back(vertices[order[i]]);
        remap[order[i]] = static_cast<std::uint32_t>(merged.size() - 1);
    }
    return remap;
}

void check_degenerate(const std::string& where, const std::vector<Point>& v, const std::vector<Triangle>& tris) {
    std::size_t count = 0, first = 0;
    for (std::size_t t = 0; t < tris.size(); ++t) {
        const Point &a = v[tris[t][0]], &b = v[tris[t][1]], &c = v[tris[t][2]];
        const double longest = std::max({norm(sub(b, a)), norm(sub(c, b)), norm(sub(a, c))});
        if (norm(cross(sub(b, a), sub(c, a))) <= kDegenerateArea * longest * longest) {
            if (count++ == 0) first = t;
        }
    }
    if (count > 0) {
        const Triangle& t = tris[first];
        throw std::invalid_argument(where + ": " + std::to_string(count) +
                                    " degenerate triangle(s) of zero area, e.g. triangle " + std::to_string(first) +
                                    " with corners " + point_text(v[t[0]]) + ", " + point_text(v[t[1]]) + ", " +
                                    point_text(v[t[2]]));
    }
}

// Every edge must belong to exactly two triangles, which traverse it in opposite directions.
void check_closed_and_oriented(const std::string& where, const std::vector<Point>& v,
                               const std::vector<Triangle>& tris) {
    struct HalfEdge {
        std::uint32_t lo, hi;  // vertex indices, lo < hi
        bool forward;          // the triangle runs lo -> hi
        std::uint32_t triangle;
    };
    std::vector<HalfEdge> edges;
    edges.reserve(3 * tris.size());
    for (std::uint32_t t = 0; t < tris.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t a = tris[t][k], b = tris[t][(k + 1) % 3];
            edges.push_back({std::min(a, b), std::max(a, b), a < b, t});
        }
    std::sort(edges.begin(), edges.end(), [](const HalfEdge& x, const HalfEdge& y) {
        return std::tie(x.lo, x.hi, x.triangle) < std::tie(y.lo, y.hi, y.triangle);
    });
    std::size_t open = 0, crowded = 0, same_way = 0;
    std::string open_example, crowded_example, same_way_example;
    const auto edge_text = [&](const HalfEdge& e) {
        return "the edge " + point_text(v[e.lo]) + " - " + point_text(v[e.hi]) + " of triangle " +
               std::to_string(e.triangle);
    };
    for (std::size_t i = 0; i < edges.size();) {
        std::size_t j = i;
        while (j < edges.size() && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi) ++j;
        if (j - i == 1) {
            if (open++ == 0) open_example = edge_text(edges[i]);
        } else if (j - i > 2) {
            if (crowded++ == 0) crowded_example = edge_text(edges[i]);
        } else if (edges[i].forward == edges[i + 1].forward) {
            if (same_way++ == 0)
                same_way_example = "triangles " + std::to_string(edges[i].triangle) + " and " +
                                   std::to_string(edges[i + 1].triangle) + " at the edge " +
                                   point_text(v[edges[i].lo]) + " - " + point_text(v[edges[i].hi]);
        }
        i = j;
    }
    if (open > 0 || crowded > 0) {
        std::string what = where + ": the mesh is not closed:";
        if (open > 0)
            what += ' ' + std::to_string(open) + " edge(s) belong to one triangle only (a hole), e.g. " + open_example;
        if (open > 0 && crowded > 0) what += ";";
        if (crowded > 0)
            what += ' ' + std::to_string(crowded) + " edge(s) are shared by more than two triangles, e.g. " +
                    crowded_example;
        throw std::invalid_argument(what);
    }
    if (same_way > 0)
        throw std::invalid_argument(where + ": inconsistent orientation: " + std::to_string(same_way) +
                                    " edge(s) run the same way in both their triangles, e.g. " + same_way_example +
                                    " (one of them is flipped against its neighbours)");
}

}  // namespace

ClosedMesh close_mesh(const std::string& name, const std::vector<Point>& vertices,
                      const std::vector<std::array<std::int64_t, 3>>& triangles) {
    const std::string where = name.empty() ? std::string("triangle mesh") : name;
    if (triangles.empty()) throw std::invalid_argument(where + ": the mesh is empty (no triangles)");
    for (std::size_t i = 0; i < vertices.size(); ++i)
        for (int d = 0; d < 3; ++d)
            require_finite(where, "vertex " + std::to_string(i) + " " + "xyz"[d], vertices[i][d]);
    ClosedMesh m;
    m.name = where;
    const std::vector<std::uint32_t> remap = merge_vertices(vertices, m.vertices);
    m.triangles.reserve(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        Triangle tri{};
        for (int k = 0; k < 3; ++k) {
            const std::int64_t i = triangles[t][k];
            if (i < 0 || static_cast<std::size_t>(i) >= vertices.size())
                throw std::invalid_argument(where + ": triangle " + std::to_string(t) + " refers to vertex " +
                                            std::to_string(i) + ", but the mesh has " +
                                            std::to_string(vertices.size()) + " vertices");
            tri[k] = remap[static_cast<std::size_t>(i)];
        }
        m.triangles.push_back(tri);
    }
    check_degenerate(where, m.vertices, m.triangles);
    check_closed_and_oriented(where, m.vertices, m.triangles);

    // Volume by the divergence theorem, V = sum a . (b x c) / 6, about the first vertex (any
    // origin gives the same sum for a closed surface; a nearby one loses fewer digits).
    const Point o = m.vertices[m.triangles[0][0]];
    double six_volume = 0.0, twice_area = 0.0;
    for (const Triangle& t : m.triangles) {
        const Point a = sub(m.vertices[t[0]], o), b = sub(m.vertices[t[1]], o), c = sub(m.vertices[t[2]], o);
        const Point bc = cross(b, c);
        six_volume += a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
        twice_area += norm(cross(sub(b, a), sub(c, a)));
    }
    m.area = 0.5 * twice_area;
    m.volume = six_volume / 6.0;
    if (!(std::abs(m.volume) > 1e-12 * std::pow(m.area, 1.5)))
        throw std::invalid_argument(where + ": the surface encloses no volume (" + number(m.volume) + " m^3)");
    if (m.volume < 0.0) {  // every triangle faces inward: turn the mesh round
        for (Triangle& t : m.triangles) std::swap(t[1], t[2]);
        m.volume = -m.volume;
        m.reoriented = true;
    }
    return m;
}

}  // namespace regosph::geometry
