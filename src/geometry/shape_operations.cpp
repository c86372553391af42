// Combinations (union, difference, intersection), transforms (translation, rotation) and offsets
// of shapes (shapes.hpp). Signed distances of combinations follow the usual min/max rules:
// union min(a, b), intersection max(a, b), difference max(a, -b) — exact where shapes.hpp says,
// a bound with the right sign elsewhere.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "geometry/shape_checks.hpp"
#include "geometry/shapes.hpp"

namespace regosph::geometry {

namespace {

class Combination final : public Shape {
public:
    enum class Op { unite, subtract, intersect };
    Combination(ShapePtr a, ShapePtr b, Op op, const char* name) : a_(std::move(a)), b_(std::move(b)), op_(op) {
        require_shape(name, a_, "first shape");
        require_shape(name, b_, "second shape");
        if (a_->dim() != b_->dim())
            throw std::invalid_argument(std::string(name) + ": cannot combine a 2D and a 3D shape");
    }
    bool contains(const Point& p) const override {
        switch (op_) {
            case Op::unite: return a_->contains(p) || b_->contains(p);
            case Op::subtract: return a_->contains(p) && !b_->contains(p);
            case Op::intersect: return a_->contains(p) && b_->contains(p);
        }
        return false;
    }
    double signed_distance(const Point& p) const override {
        const double da = a_->signed_distance(p), db = b_->signed_distance(p);
        switch (op_) {
            case Op::unite: return std::min(da, db);
            case Op::subtract: return std::max(da, -db);
            case Op::intersect: return std::max(da, db);
        }
        return da;
    }
    BoundingBox bounds() const override {
        BoundingBox box = a_->bounds();
        if (op_ == Op::subtract) return box;
        const BoundingBox other = b_->bounds();
        for (int d = 0; d < 3; ++d) {
            if (op_ == Op::unite) {
                box.lo[d] = std::min(box.lo[d], other.lo[d]);
                box.hi[d] = std::max(box.hi[d], other.hi[d]);
            } else {
                box.lo[d] = std::max(box.lo[d], other.lo[d]);
                box.hi[d] = std::min(box.hi[d], other.hi[d]);
            }
        }
        return box;
    }
    int dim() const override { return a_->dim(); }

private:
    ShapePtr a_, b_;
    Op op_;
};

class Translated final : public Shape {
public:
    Translated(ShapePtr s, Point offset) : s_(std::move(s)), t_(offset) {}
    bool contains(const Point& p) const override { return s_->contains(back(p)); }
    double signed_distance(const Point& p) const override { return s_->signed_distance(back(p)); }
    BoundingBox bounds() const override {
        BoundingBox b = s_->bounds();
        for (int d = 0; d < 3; ++d) {
            b.lo[d] += t_[d];
            b.hi[d] += t_[d];
        }
        return b;
    }
    int dim() const override { return s_->dim(); }

private:
    Point back(const Point& p) const { return {p[0] - t_[0], p[1] - t_[1], p[2] - t_[2]}; }
    ShapePtr s_;
    Point t_;
};

// Rotation about the z axis through `about`: x' = a + R(theta) (x - a).
class Rotated final : public Shape {
public:
    Rotated(ShapePtr s, double angle_deg, std::array<double, 2> about) : s_(std::move(s)), a_(about) {
        double m = std::fmod(angle_deg, 360.0);
        if (m < 0.0) m += 360.0;
        // Quarter turns exactly, so that 360 degrees is the identity bit for bit.
        if (m == 0.0) identity_ = true;
        else if (m == 90.0) cos_ = 0.0, sin_ = 1.0;
        else if (m == 180.0) cos_ = -1.0, sin_ = 0.0;
        else if (m == 270.0) cos_ = 0.0, sin_ = -1.0;
        else cos_ = std::cos(m * std::numbers::pi / 180.0), sin_ = std::sin(m * std::numbers::pi / 180.0);
    }
    bool contains(const Point& p) const override { return s_->contains(turn(p, -sin_)); }
    double signed_distance(const Point& p) const override { return s_->signed_distance(turn(p, -sin_)); }
    BoundingBox bounds() const override {
        // Box of the turned corners of the original box.
        const BoundingBox in = s_->bounds();
        BoundingBox b{{INFINITY, INFINITY, in.lo[2]}, {-INFINITY, -INFINITY, in.hi[2]}};
        for (double x : {in.lo[0], in.hi[0]})
            for (double y : {in.lo[1], in.hi[1]}) {
                const Point q = turn({x, y, 0.0}, sin_);
                for (int d = 0; d < 2; ++d) {
                    b.lo[d] = std::min(b.lo[d], q[d]);
                    b.hi[d] = std::max(b.hi[d], q[d]);
                }
            }
        return b;
    }
    int dim() const override { return s_->dim(); }

private:
    // Turn p about a_ by the angle with cosine cos_ and sine `sine` (-sin_ turns back).
    Point turn(const Point& p, double sine) const {
        if (identity_) return p;
        const double x = p[0] - a_[0], y = p[1] - a_[1];
        return {a_[0] + cos_ * x - sine * y, a_[1] + sine * x + cos_ * y, p[2]};
    }
    ShapePtr s_;
    std::array<double, 2> a_;
    double cos_ = 1.0, sin_ = 0.0;
    bool identity_ = false;  // a whole number of turns
};

// {p : signed_distance(p) < distance}.
class Offset final : public Shape {
public:
    Offset(ShapePtr s, double distance) : s_(std::move(s)), r_(distance) {}
    bool contains(const Point& p) const override { return s_->signed_distance(p) < r_; }
    double signed_distance(const Point& p) const override { return s_->signed_distance(p) - r_; }
    BoundingBox bounds() const override {
        BoundingBox b = s_->bounds();
        const double grow = std::max(r_, 0.0);
        for (int d = 0; d < s_->dim(); ++d) {
            b.lo[d] -= grow;
            b.hi[d] += grow;
        }
        return b;
    }
    int dim() const override { return s_->dim(); }

private:
    ShapePtr s_;
    double r_;
};

}  // namespace

ShapePtr unite(ShapePtr a, ShapePtr b) {
    return std::make_shared<Combination>(std::move(a), std::move(b), Combination::Op::unite, "unite");
}

ShapePtr subtract(ShapePtr a, ShapePtr b) {
    return std::make_shared<Combination>(std::move(a), std::move(b), Combination::Op::subtract, "subtract");
}

ShapePtr intersect(ShapePtr a, ShapePtr b) {
    return std::make_shared<Combination>(std::move(a), std::move(b), Combination::Op::intersect, "intersect");
}

ShapePtr translate(ShapePtr shape, Point offset) {
    require_shape("translate", shape, "shape");
    for (int d = 0; d < 3; ++d) require_finite("translate", std::string("offset.") + "xyz"[d], offset[d]);
    if (shape->dim() == 2 && offset[2] != 0.0)
        throw std::invalid_argument("translate: offset.z = " + number(offset[2]) +
                                    " m must be 0 for a 2D shape");
    return std::make_shared<Translated>(std::move(shape), offset);
}

ShapePtr rotate(ShapePtr shape, double angle_deg, std::array<double, 2> about) {
    require_shape("rotate", shape, "shape");
    require_finite("rotate", "angle", angle_deg);
    require_finite("rotate", "about.x", about[0]);
    require_finite("rotate", "about.y", about[1]);
    return std::make_shared<Rotated>(std::move(shape), angle_deg, about);
}

ShapePtr offset(ShapePtr shape, double distance) {
    require_shape("offset", shape, "shape");
    require_finite("offset", "distance", distance);
    return std::make_shared<Offset>(std::move(shape), distance);
}

ShapePtr wall_layer(ShapePtr shape, double thickness) {
    require_shape("wall_layer", shape, "shape");
    require_positive("wall_layer", "thickness", thickness);
    return subtract(offset(shape, thickness), shape);
}

}  // namespace regosph::geometry
