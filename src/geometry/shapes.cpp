#include "geometry/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace regosph::geometry {

namespace {

class AxisAlignedBox final : public Shape {
public:
    AxisAlignedBox(Point lo, Point hi, int dim) : lo_(lo), hi_(hi), dim_(dim) {
        for (int d = 0; d < dim; ++d) {
            if (!(std::isfinite(lo[d]) && std::isfinite(hi[d])))
                throw std::invalid_argument("shape: corner coordinates must be finite numbers");
            if (!(hi[d] > lo[d]))
                throw std::invalid_argument("shape: upper corner must exceed lower corner in " +
                                            std::string(1, "xyz"[d]));
        }
    }
    bool contains(const Point& p) const override {
        for (int d = 0; d < dim_; ++d)
            if (p[d] < lo_[d] || p[d] >= hi_[d]) return false;
        return true;
    }
    BoundingBox bounds() const override { return {lo_, hi_}; }
    int dim() const override { return dim_; }

private:
    Point lo_, hi_;
    int dim_;
};

class Combination final : public Shape {
public:
    enum class Op { unite, subtract };
    Combination(ShapePtr a, ShapePtr b, Op op) : a_(std::move(a)), b_(std::move(b)), op_(op) {
        if (!a_ || !b_) throw std::invalid_argument("shape: cannot combine an empty shape");
        if (a_->dim() != b_->dim())
            throw std::invalid_argument("shape: cannot combine a 2D and a 3D shape");
    }
    bool contains(const Point& p) const override {
        return op_ == Op::unite ? (a_->contains(p) || b_->contains(p))
                                : (a_->contains(p) && !b_->contains(p));
    }
    BoundingBox bounds() const override {
        BoundingBox box = a_->bounds();
        if (op_ == Op::unite) {
            const BoundingBox other = b_->bounds();
            for (int d = 0; d < 3; ++d) {
                box.lo[d] = std::min(box.lo[d], other.lo[d]);
                box.hi[d] = std::max(box.hi[d], other.hi[d]);
            }
        }
        return box;
    }
    int dim() const override { return a_->dim(); }

private:
    ShapePtr a_, b_;
    Op op_;
};

}  // namespace

ShapePtr rectangle(std::array<double, 2> lo, std::array<double, 2> hi) {
    return std::make_shared<AxisAlignedBox>(Point{lo[0], lo[1], 0.0}, Point{hi[0], hi[1], 0.0}, 2);
}

ShapePtr box(Point lo, Point hi) { return std::make_shared<AxisAlignedBox>(lo, hi, 3); }

ShapePtr unite(ShapePtr a, ShapePtr b) {
    return std::make_shared<Combination>(std::move(a), std::move(b), Combination::Op::unite);
}

ShapePtr subtract(ShapePtr a, ShapePtr b) {
    return std::make_shared<Combination>(std::move(a), std::move(b), Combination::Op::subtract);
}

}  // namespace regosph::geometry
