// Spatial indexes over the triangles of a closed mesh (triangle_mesh.hpp):
//  - RayCrossings: a uniform grid over the triangles' shadows on the plane across the ray axis,
//    answering "winding number about p" by the signed crossings of one axis-parallel ray;
//  - NearestTriangle: a bounding-volume hierarchy (median splits, boxes of up to 4 triangles)
//    answering "distance from p to the nearest triangle" by branch and bound.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "geometry/shapes.hpp"

namespace regosph::geometry {

using Triangle = std::array<std::uint32_t, 3>;  // vertex indices, counter-clockwise seen from outside

struct TriangleCorners {
    Point a, b, c;  // [m]
};

std::vector<TriangleCorners> corners_of(const std::vector<Point>& vertices,
                                        const std::vector<Triangle>& triangles);

// Squared distance from p to the closed triangle [m^2].
double triangle_distance2(const Point& p, const TriangleCorners& t);

class RayCrossings {
public:
    // The ray runs along the axis of the mesh's smallest extent (fewest triangles per ray).
    explicit RayCrossings(const std::vector<TriangleCorners>& triangles);
    // Sum over the triangles crossed strictly ahead of p along +axis of +1 (the triangle faces
    // along the ray: the ray leaves the solid) or -1 (it enters). See triangle_mesh.hpp for the
    // treatment of edges and vertices.
    int winding_number(const Point& p) const;
    int axis() const { return u_; }

private:
    struct Shadow {  // a triangle's bounding box in the ray frame (u along the ray)
        double u_lo, u_hi, v_lo, v_hi, w_lo, w_hi;
    };
    int cell(double x, int k) const;  // grid index along v (k = 0) or w (k = 1), clamped
    std::vector<TriangleCorners> tris_;
    std::vector<Shadow> shadows_;
    int u_ = 0, v_ = 1, w_ = 2;
    BoundingBox box_;
    std::array<double, 2> origin_{}, inv_cell_{};  // grid corner [m], 1 / cell size [1/m]
    std::array<int, 2> cells_{1, 1};
    std::vector<std::uint32_t> start_, items_;  // triangles of cell k: items_[start_[k] .. start_[k+1])
};

class NearestTriangle {
public:
    explicit NearestTriangle(const std::vector<TriangleCorners>& triangles);
    // Squared distance from p to the nearest triangle [m^2].
    double distance2(const Point& p) const;

private:
    struct Node {
        BoundingBox box;
        std::uint32_t first = 0;  // leaf: first entry of order_; inner node: left child (right = first + 1)
        std::uint32_t count = 0;  // triangles of a leaf; 0 for an inner node
    };
    void build(std::uint32_t node, std::uint32_t begin, std::uint32_t end);
    std::vector<TriangleCorners> tris_;  // in leaf order
    std::vector<std::uint32_t> order_;
    std::vector<Node> nodes_;
};

}  // namespace regosph::geometry
