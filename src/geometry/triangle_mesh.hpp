// A closed triangle mesh (a CAD tool read from STL, OBJ, ...) as a 3D Shape.
//
// Input: vertices [m] and triangles (three vertex indices each). Vertices with identical
// coordinates are merged first (STL stores every corner of every triangle on its own). The mesh
// must then be a closed, consistently oriented surface: no triangle of zero area, every edge
// shared by exactly two triangles that traverse it in opposite directions. A mesh whose
// triangles all face inward (negative enclosed volume; CAD exporters disagree on the
// convention) is turned round, and `reoriented()` says so: its intent is unambiguous, whereas
// a mesh with some triangles flipped against their neighbours is refused (which ones are wrong
// is a guess). Errors are std::invalid_argument naming the mesh (its file) and an offending
// triangle or edge.
//
// contains: the winding number of the surface about the point, counted along the ray towards
// +x (the signed crossings ahead of the point); nonzero means inside, so overlapping closed
// parts (an assembly exported as one file) form their union. A ray through an edge or a vertex
// is resolved by symbolic perturbation (the point shifted by (0, eps, eps^2)), with edge tests
// antisymmetric in the edge's ends, so a crossing on a shared edge counts exactly once. On the
// surface the convention matches box(): a cube mesh holds its lower faces, not its upper ones.
// signed_distance: the exact distance to the nearest triangle [m], negative inside (inside
// overlapping parts it is the distance to the nearest face, a lower bound, as for unions).
// Both use a spatial index, so a lattice fill costs about O(sites log triangles).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "geometry/shapes.hpp"
#include "geometry/triangle_search.hpp"

namespace regosph::geometry {

// A checked mesh: merged vertices, triangles oriented outward.
struct ClosedMesh {
    std::string name;               // names the mesh (its file) in messages
    std::vector<Point> vertices;    // [m]
    std::vector<Triangle> triangles;
    double volume = 0.0;            // enclosed volume [m^3] (divergence theorem)
    double area = 0.0;              // surface area [m^2]
    bool reoriented = false;        // the input faced inward and was turned round
};

// Checks and cleans the input (see the file comment); `name` prefixes every error message.
ClosedMesh close_mesh(const std::string& name, const std::vector<Point>& vertices,
                      const std::vector<std::array<std::int64_t, 3>>& triangles);

class TriangleMesh;
std::shared_ptr<TriangleMesh> triangle_mesh(const std::string& name, const std::vector<Point>& vertices,
                                            const std::vector<std::array<std::int64_t, 3>>& triangles);

class TriangleMesh final : public Shape {
public:
    explicit TriangleMesh(ClosedMesh mesh);
    bool contains(const Point& p) const override;
    double signed_distance(const Point& p) const override;
    BoundingBox bounds() const override { return bounds_; }
    int dim() const override { return 3; }

    const ClosedMesh& mesh() const { return mesh_; }
    // Signed crossings of the ray from p towards +x (the winding number about p).
    int winding_number(const Point& p) const;
    // Distance from p to the nearest triangle [m].
    double distance(const Point& p) const;

private:
    ClosedMesh mesh_;
    BoundingBox bounds_;
    RayCrossings crossings_;
    NearestTriangle nearest_;
};

}  // namespace regosph::geometry
