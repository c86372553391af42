// TriangleMesh (triangle_mesh.hpp): a checked closed mesh answering contains and
// signed_distance through its two spatial indexes (triangle_search.hpp).
#include "geometry/triangle_mesh.hpp"

#include <algorithm>
#include <cmath>

namespace regosph::geometry {

namespace {

BoundingBox corner_box(const ClosedMesh& m) {
    BoundingBox b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (const Triangle& t : m.triangles)
        for (std::uint32_t i : t)
            for (int d = 0; d < 3; ++d) {
                b.lo[d] = std::min(b.lo[d], m.vertices[i][d]);
                b.hi[d] = std::max(b.hi[d], m.vertices[i][d]);
            }
    return b;
}

}  // namespace

TriangleMesh::TriangleMesh(ClosedMesh mesh)
    : mesh_(std::move(mesh)),
      bounds_(corner_box(mesh_)),
      crossings_(corners_of(mesh_.vertices, mesh_.triangles)),
      nearest_(corners_of(mesh_.vertices, mesh_.triangles)) {}

int TriangleMesh::winding_number(const Point& p) const { return crossings_.winding_number(p); }

bool TriangleMesh::contains(const Point& p) const { return winding_number(p) != 0; }

double TriangleMesh::distance(const Point& p) const { return std::sqrt(nearest_.distance2(p)); }

double TriangleMesh::signed_distance(const Point& p) const {
    const double d = distance(p);
    return contains(p) ? -d : d;
}

std::shared_ptr<TriangleMesh> triangle_mesh(const std::string& name, const std::vector<Point>& vertices,
                                            const std::vector<std::array<std::int64_t, 3>>& triangles) {
    return std::make_shared<TriangleMesh>(close_mesh(name, vertices, triangles));
}

}  // namespace regosph::geometry
