// Geometry primitives for building setups: shapes that answer "is this point inside" and
// their bounding boxes, combined by union and difference. Lattice fills turn a shape into
// particle positions (lattice.hpp).
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
    virtual BoundingBox bounds() const = 0;
    virtual int dim() const = 0;
};

using ShapePtr = std::shared_ptr<Shape>;

// Axis-aligned rectangle [lo, hi) in the x-y plane (2D).
ShapePtr rectangle(std::array<double, 2> lo, std::array<double, 2> hi);
// Axis-aligned box [lo, hi) (3D).
ShapePtr box(Point lo, Point hi);
// Points in a or b.
ShapePtr unite(ShapePtr a, ShapePtr b);
// Points in a and not in b.
ShapePtr subtract(ShapePtr a, ShapePtr b);

}  // namespace regosph::geometry
