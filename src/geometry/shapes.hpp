// Geometry primitives for building setups: shapes that answer "is this point inside" and "how
// far is this point from the boundary", with their bounding boxes. They combine by union,
// difference and intersection, move by translation and rotation, and grow by an offset (wall
// layers around a region, SPEC.md section 6). Lattice fills turn a shape into particle
// positions (lattice.hpp).
//
// Signed distance [m]: negative inside, positive outside. It is the exact Euclidean distance to
// the boundary for every primitive and under translation and rotation. For a union it is exact
// outside and a bound inside, for an intersection exact inside and a bound outside, for a
// difference a bound on both sides: |signed_distance| <= true distance, with the right sign.
// `contains` is always exact (its own half-open convention on the boundary, where the signed
// distance is 0).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace regosph::geometry {

using Point = std::array<double, 3>;  // [m]; z = 0 in 2D

struct BoundingBox {
    Point lo{};
    Point hi{};
};

class Shape {
public:
    virtual ~Shape() = default;
    virtual bool contains(const Point& p) const = 0;
    // [m], negative inside; see the file comment for where it is exact.
    virtual double signed_distance(const Point& p) const = 0;
    // Encloses every point the shape contains (2D: z range [0, 0]).
    virtual BoundingBox bounds() const = 0;
    virtual int dim() const = 0;
};

using ShapePtr = std::shared_ptr<Shape>;

// --- 2D primitives (x-y plane) ----------------------------------------------------------------
// Axis-aligned rectangle [lo, hi).
ShapePtr rectangle(std::array<double, 2> lo, std::array<double, 2> hi);
// |p - centre| < radius.
ShapePtr disc(std::array<double, 2> centre, double radius);
// r_in <= |p - centre| < r_out (r_in may be 0).
ShapePtr annulus(std::array<double, 2> centre, double r_in, double r_out);
// The part of an annulus between the polar angles start_angle and start_angle + opening
// [degrees, counter-clockwise from +x], 0 < opening < 360: an arc band (a shield).
ShapePtr annular_sector(std::array<double, 2> centre, double r_in, double r_out,
                        double start_angle_deg, double opening_deg);
// A simple polygon (no self-intersection), vertices in either orientation, >= 3 of them.
ShapePtr polygon(const std::vector<std::array<double, 2>>& vertices);

// --- 3D primitives -----------------------------------------------------------------------------
// Axis-aligned box [lo, hi).
ShapePtr box(Point lo, Point hi);
// |(x, y) - centre| < radius and z0 <= z < z1 (axis along z).
ShapePtr cylinder(std::array<double, 2> centre, double radius, double z0, double z1);
// |p - centre| < radius.
ShapePtr sphere(Point centre, double radius);
// A 2D shape extruded along z over [z0, z1).
ShapePtr extrude(ShapePtr shape2d, double z0, double z1);

// --- combinations ------------------------------------------------------------------------------
// Points in a or b.
ShapePtr unite(ShapePtr a, ShapePtr b);
// Points in a and not in b.
ShapePtr subtract(ShapePtr a, ShapePtr b);
// Points in a and in b.
ShapePtr intersect(ShapePtr a, ShapePtr b);

// --- transforms --------------------------------------------------------------------------------
// The shape moved by `offset` [m] (2D shapes: offset z must be 0).
ShapePtr translate(ShapePtr shape, Point offset);
// The shape turned counter-clockwise by angle_deg [degrees] about the point `about` (3D: about
// the axis parallel to z through (about.x, about.y)). Multiples of 90 degrees are exact.
ShapePtr rotate(ShapePtr shape, double angle_deg, std::array<double, 2> about = {0.0, 0.0});
// Points whose signed distance to `shape` is below `distance` [m]: grows the shape (distance >
// 0) or shrinks it (< 0). Exact for primitives and unions of them (the Minkowski sum with a
// disc/ball); where the signed distance is only a bound, the grown shape contains the exact one.
ShapePtr offset(ShapePtr shape, double distance);
// offset(shape, thickness) minus shape: a layer of the given thickness [m] around the region,
// where wall particles go (SPEC.md section 6: at least one support radius thick).
ShapePtr wall_layer(ShapePtr shape, double thickness);

}  // namespace regosph::geometry
