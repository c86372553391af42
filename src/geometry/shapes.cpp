// The primitives of shapes.hpp with their exact signed distances. Combinations and transforms
// live in shape_operations.cpp.
#include "geometry/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "geometry/shape_checks.hpp"

namespace regosph::geometry {

namespace {

constexpr double kPi = std::numbers::pi;

// Distance from q to the segment [a, b] in the x-y plane [m].
double segment_distance(double qx, double qy, double ax, double ay, double bx, double by) {
    const double ex = bx - ax, ey = by - ay;
    const double len2 = ex * ex + ey * ey;
    double t = len2 > 0.0 ? ((qx - ax) * ex + (qy - ay) * ey) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(qx - (ax + t * ex), qy - (ay + t * ey));
}

// Signed distance of a box from the per-axis excess q_d = |p_d - centre_d| - half_d:
// |max(q, 0)| outside, max_d q_d inside (exact).
template <int N>
double box_distance(const std::array<double, N>& q) {
    double outside2 = 0.0, inside = -INFINITY;
    for (double qd : q) {
        if (qd > 0.0) outside2 += qd * qd;
        inside = std::max(inside, qd);
    }
    return std::sqrt(outside2) + std::min(inside, 0.0);
}

// Signed distance of the extrusion of a 2D region (distance d2 in the plane) over [z0, z1).
double extrusion_distance(double d2, double z, double z0, double z1) {
    return box_distance<2>({d2, std::max(z0 - z, z - z1)});
}

class AxisAlignedBox final : public Shape {
public:
    AxisAlignedBox(Point lo, Point hi, int dim, const char* name) : lo_(lo), hi_(hi), dim_(dim) {
        for (int d = 0; d < dim; ++d) {
            const std::string axis(1, "xyz"[d]);
            require_finite(name, "lo." + axis, lo[d]);
            require_finite(name, "hi." + axis, hi[d]);
            if (!(hi[d] > lo[d]))
                throw std::invalid_argument(std::string(name) + ": upper corner must exceed lower corner in " +
                                            axis + " (lo." + axis + " = " + number(lo[d]) + " m, hi." +
                                            axis + " = " + number(hi[d]) + " m)");
        }
    }
    bool contains(const Point& p) const override {
        for (int d = 0; d < dim_; ++d)
            if (p[d] < lo_[d] || p[d] >= hi_[d]) return false;
        return true;
    }
    double signed_distance(const Point& p) const override {
        std::array<double, 3> q{};
        for (int d = 0; d < 3; ++d)
            q[d] = d < dim_ ? std::abs(p[d] - 0.5 * (lo_[d] + hi_[d])) - 0.5 * (hi_[d] - lo_[d]) : -INFINITY;
        return box_distance<3>(q);
    }
    BoundingBox bounds() const override { return {lo_, hi_}; }
    int dim() const override { return dim_; }

private:
    Point lo_, hi_;
    int dim_;
};

// Disc (2D) or ball (3D).
class Ball final : public Shape {
public:
    Ball(Point centre, double radius, int dim) : c_(centre), r_(radius), dim_(dim) {}
    bool contains(const Point& p) const override { return distance2(p) < r_ * r_; }
    double signed_distance(const Point& p) const override { return std::sqrt(distance2(p)) - r_; }
    BoundingBox bounds() const override {
        BoundingBox b{c_, c_};
        for (int d = 0; d < dim_; ++d) {
            b.lo[d] -= r_;
            b.hi[d] += r_;
        }
        return b;
    }
    int dim() const override { return dim_; }

private:
    double distance2(const Point& p) const {
        double s = 0.0;
        for (int d = 0; d < dim_; ++d) s += (p[d] - c_[d]) * (p[d] - c_[d]);
        return s;
    }
    Point c_;
    double r_;
    int dim_;
};

// Annular sector r_in <= r < r_out, start <= polar angle <= start + opening; opening = 360
// degrees gives the full annulus.
class AnnularSector final : public Shape {
public:
    AnnularSector(std::array<double, 2> c, double r_in, double r_out, double start_deg, double opening_deg)
        : c_(c), r_in_(r_in), r_out_(r_out), start_deg_(start_deg), opening_deg_(opening_deg),
          full_(opening_deg >= 360.0) {
        const double a0 = start_deg * kPi / 180.0, a1 = (start_deg + opening_deg) * kPi / 180.0;
        u0_ = {std::cos(a0), std::sin(a0)};
        u1_ = {std::cos(a1), std::sin(a1)};
    }
    bool contains(const Point& p) const override {
        const double qx = p[0] - c_[0], qy = p[1] - c_[1];
        const double r2 = qx * qx + qy * qy;
        return r2 >= r_in_ * r_in_ && r2 < r_out_ * r_out_ && in_wedge(qx, qy);
    }
    double signed_distance(const Point& p) const override {
        const double qx = p[0] - c_[0], qy = p[1] - c_[1];
        const double r = std::hypot(qx, qy);
        const double radial = std::max(r_in_ - r, r - r_out_);  // exact for the full annulus
        if (full_) return radial;
        // The two radial end caps; outside the wedge the nearest boundary point is on one of
        // them (an arc's interior point is nearest only along its own radius).
        const double cap = std::min(
            segment_distance(qx, qy, r_in_ * u0_[0], r_in_ * u0_[1], r_out_ * u0_[0], r_out_ * u0_[1]),
            segment_distance(qx, qy, r_in_ * u1_[0], r_in_ * u1_[1], r_out_ * u1_[0], r_out_ * u1_[1]));
        if (!in_wedge(qx, qy)) return cap;
        return radial >= 0.0 ? radial : -std::min(-radial, cap);
    }
    BoundingBox bounds() const override {
        // Extremes among the four corners and the outer arc's crossings of the axes.
        std::vector<std::array<double, 2>> pts{{r_in_ * u0_[0], r_in_ * u0_[1]},
                                               {r_out_ * u0_[0], r_out_ * u0_[1]},
                                               {r_in_ * u1_[0], r_in_ * u1_[1]},
                                               {r_out_ * u1_[0], r_out_ * u1_[1]}};
        for (int k = 0; k < 4; ++k)
            if (full_ || wedge_offset(90.0 * k) <= opening_deg_) {
                const double a = k * kPi / 2.0;
                pts.push_back({r_out_ * std::round(std::cos(a)), r_out_ * std::round(std::sin(a))});
            }
        BoundingBox b{{INFINITY, INFINITY, 0.0}, {-INFINITY, -INFINITY, 0.0}};
        for (const auto& q : pts)
            for (int d = 0; d < 2; ++d) {
                b.lo[d] = std::min(b.lo[d], c_[d] + q[d]);
                b.hi[d] = std::max(b.hi[d], c_[d] + q[d]);
            }
        return b;
    }
    int dim() const override { return 2; }

private:
    // Polar angle minus the start angle, in [0, 360) degrees.
    double wedge_offset(double angle_deg) const {
        double a = std::fmod(angle_deg - start_deg_, 360.0);
        return a < 0.0 ? a + 360.0 : a;
    }
    bool in_wedge(double qx, double qy) const {
        return full_ || wedge_offset(std::atan2(qy, qx) * 180.0 / kPi) <= opening_deg_;
    }
    std::array<double, 2> c_;
    double r_in_, r_out_, start_deg_, opening_deg_;
    bool full_;
    std::array<double, 2> u0_{}, u1_{};  // unit vectors along the two end caps
};

class Polygon final : public Shape {
public:
    explicit Polygon(std::vector<std::array<double, 2>> v) : v_(std::move(v)) {}
    bool contains(const Point& p) const override {
        // Crossing number (even-odd rule) of a ray towards +x; an edge counts for y in
        // [min y, max y) of its ends, so shared vertices are crossed once.
        bool inside = false;
        for (std::size_t i = 0, j = v_.size() - 1; i < v_.size(); j = i++) {
            const auto& a = v_[i];
            const auto& b = v_[j];
            if ((a[1] > p[1]) != (b[1] > p[1]) &&
                p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0])
                inside = !inside;
        }
        return inside;
    }
    double signed_distance(const Point& p) const override {
        double d = INFINITY;
        for (std::size_t i = 0, j = v_.size() - 1; i < v_.size(); j = i++)
            d = std::min(d, segment_distance(p[0], p[1], v_[j][0], v_[j][1], v_[i][0], v_[i][1]));
        return contains(p) ? -d : d;
    }
    BoundingBox bounds() const override {
        BoundingBox b{{INFINITY, INFINITY, 0.0}, {-INFINITY, -INFINITY, 0.0}};
        for (const auto& q : v_)
            for (int d = 0; d < 2; ++d) {
                b.lo[d] = std::min(b.lo[d], q[d]);
                b.hi[d] = std::max(b.hi[d], q[d]);
            }
        return b;
    }
    int dim() const override { return 2; }

private:
    std::vector<std::array<double, 2>> v_;
};

// Sign of the turn a -> b -> c (twice the signed triangle area).
double orientation(const std::array<double, 2>& a, const std::array<double, 2>& b,
                   const std::array<double, 2>& c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

bool on_segment(const std::array<double, 2>& a, const std::array<double, 2>& b,
                const std::array<double, 2>& c) {
    return std::min(a[0], b[0]) <= c[0] && c[0] <= std::max(a[0], b[0]) &&
           std::min(a[1], b[1]) <= c[1] && c[1] <= std::max(a[1], b[1]);
}

// Do the closed segments [a, b] and [c, d] share a point?
bool segments_meet(const std::array<double, 2>& a, const std::array<double, 2>& b,
                   const std::array<double, 2>& c, const std::array<double, 2>& d) {
    const double o1 = orientation(a, b, c), o2 = orientation(a, b, d);
    const double o3 = orientation(c, d, a), o4 = orientation(c, d, b);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return true;
    return (o1 == 0 && on_segment(a, b, c)) || (o2 == 0 && on_segment(a, b, d)) ||
           (o3 == 0 && on_segment(c, d, a)) || (o4 == 0 && on_segment(c, d, b));
}

// Extrusion of a 2D shape along z.
class Extrusion final : public Shape {
public:
    Extrusion(ShapePtr s, double z0, double z1) : s_(std::move(s)), z0_(z0), z1_(z1) {}
    bool contains(const Point& p) const override {
        return p[2] >= z0_ && p[2] < z1_ && s_->contains({p[0], p[1], 0.0});
    }
    double signed_distance(const Point& p) const override {
        return extrusion_distance(s_->signed_distance({p[0], p[1], 0.0}), p[2], z0_, z1_);
    }
    BoundingBox bounds() const override {
        BoundingBox b = s_->bounds();
        b.lo[2] = z0_;
        b.hi[2] = z1_;
        return b;
    }
    int dim() const override { return 3; }

private:
    ShapePtr s_;
    double z0_, z1_;
};

std::array<double, 2> checked_centre(const char* name, std::array<double, 2> c) {
    require_finite(name, "centre.x", c[0]);
    require_finite(name, "centre.y", c[1]);
    return c;
}

void check_z_range(const char* name, double z0, double z1) {
    require_finite(name, "z0", z0);
    require_finite(name, "z1", z1);
    if (!(z1 > z0))
        throw std::invalid_argument(std::string(name) + ": z1 = " + number(z1) +
                                    " m must exceed z0 = " + number(z0) + " m");
}

}  // namespace

std::string number(double x) {
    std::ostringstream os;
    os.precision(10);
    os << x;
    return os.str();
}

void require_finite(const std::string& where, const std::string& field, double x) {
    if (!std::isfinite(x))
        throw std::invalid_argument(where + ": " + field + " = " + number(x) + " must be a finite number");
}

void require_positive(const std::string& where, const std::string& field, double x) {
    require_finite(where, field, x);
    if (!(x > 0.0))
        throw std::invalid_argument(where + ": " + field + " = " + number(x) + " m must be positive");
}

void require_shape(const std::string& where, const ShapePtr& s, const std::string& field) {
    if (!s) throw std::invalid_argument(where + ": " + field + " is an empty shape (None)");
}

ShapePtr rectangle(std::array<double, 2> lo, std::array<double, 2> hi) {
    return std::make_shared<AxisAlignedBox>(Point{lo[0], lo[1], 0.0}, Point{hi[0], hi[1], 0.0}, 2,
                                            "rectangle");
}

ShapePtr box(Point lo, Point hi) { return std::make_shared<AxisAlignedBox>(lo, hi, 3, "box"); }

ShapePtr disc(std::array<double, 2> centre, double radius) {
    checked_centre("disc", centre);
    require_positive("disc", "radius", radius);
    return std::make_shared<Ball>(Point{centre[0], centre[1], 0.0}, radius, 2);
}

ShapePtr sphere(Point centre, double radius) {
    for (int d = 0; d < 3; ++d) require_finite("sphere", std::string("centre.") + "xyz"[d], centre[d]);
    require_positive("sphere", "radius", radius);
    return std::make_shared<Ball>(centre, radius, 3);
}

namespace {
void check_radii(const char* name, double r_in, double r_out) {
    require_finite(name, "r_in", r_in);
    require_positive(name, "r_out", r_out);
    if (r_in < 0.0)
        throw std::invalid_argument(std::string(name) + ": r_in = " + number(r_in) + " m must not be negative");
    if (!(r_in < r_out))
        throw std::invalid_argument(std::string(name) + ": r_in = " + number(r_in) +
                                    " m must be less than r_out = " + number(r_out) + " m");
}
}  // namespace

ShapePtr annulus(std::array<double, 2> centre, double r_in, double r_out) {
    checked_centre("annulus", centre);
    check_radii("annulus", r_in, r_out);
    return std::make_shared<AnnularSector>(centre, r_in, r_out, 0.0, 360.0);
}

ShapePtr annular_sector(std::array<double, 2> centre, double r_in, double r_out,
                        double start_angle_deg, double opening_deg) {
    checked_centre("annular_sector", centre);
    check_radii("annular_sector", r_in, r_out);
    require_finite("annular_sector", "start_angle", start_angle_deg);
    require_finite("annular_sector", "opening", opening_deg);
    if (!(opening_deg > 0.0 && opening_deg < 360.0))
        throw std::invalid_argument("annular_sector: opening = " + number(opening_deg) +
                                    " degrees must lie in (0, 360) (use annulus for a full ring)");
    return std::make_shared<AnnularSector>(centre, r_in, r_out, start_angle_deg, opening_deg);
}

ShapePtr polygon(const std::vector<std::array<double, 2>>& vertices) {
    const std::size_t n = vertices.size();
    if (n < 3)
        throw std::invalid_argument("polygon: vertices: need at least 3, got " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < 2; ++d)
            require_finite("polygon", "vertices[" + std::to_string(i) + "]." + "xy"[d], vertices[i][d]);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& a = vertices[i];
        const auto& b = vertices[(i + 1) % n];
        if (a == b)
            throw std::invalid_argument("polygon: vertices[" + std::to_string(i) + "] and vertices[" +
                                        std::to_string((i + 1) % n) + "] coincide");
        // Non-adjacent edges must not meet (a simple polygon).
        for (std::size_t j = i + 2; j < n; ++j) {
            if (i == 0 && j == n - 1) continue;
            if (segments_meet(a, b, vertices[j], vertices[(j + 1) % n]))
                throw std::invalid_argument("polygon: vertices: edges " + std::to_string(i) + " and " +
                                            std::to_string(j) + " cross (the polygon must be simple)");
        }
    }
    double twice_area = 0.0;  // shoelace formula
    for (std::size_t i = 0, j = n - 1; i < n; j = i++)
        twice_area += vertices[j][0] * vertices[i][1] - vertices[i][0] * vertices[j][1];
    if (!(std::abs(twice_area) > 0.0))
        throw std::invalid_argument("polygon: vertices enclose zero area");
    return std::make_shared<Polygon>(vertices);
}

ShapePtr cylinder(std::array<double, 2> centre, double radius, double z0, double z1) {
    checked_centre("cylinder", centre);
    require_positive("cylinder", "radius", radius);
    check_z_range("cylinder", z0, z1);
    return std::make_shared<Extrusion>(std::make_shared<Ball>(Point{centre[0], centre[1], 0.0}, radius, 2),
                                       z0, z1);
}

ShapePtr extrude(ShapePtr shape2d, double z0, double z1) {
    require_shape("extrude", shape2d, "shape");
    if (shape2d->dim() != 2) throw std::invalid_argument("extrude: shape must be 2D");
    check_z_range("extrude", z0, z1);
    return std::make_shared<Extrusion>(std::move(shape2d), z0, z1);
}

}  // namespace regosph::geometry
