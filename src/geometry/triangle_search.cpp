// The two spatial indexes of triangle_search.hpp. Compiled with -ffp-contract=off (CMakeLists):
// the crossing count relies on f(a, b) = -f(b, a) bit for bit, which a fused multiply-add would
// break.
#include "geometry/triangle_search.hpp"

#include <algorithm>
#include <cmath>

#include "geometry/vector_ops.hpp"

namespace regosph::geometry {

namespace {

using vec::cross;
using vec::dot;
using vec::sub;

double segment_distance2(const Point& p, const Point& a, const Point& b) {
    const Point ab = sub(b, a), ap = sub(p, a);
    const double len2 = dot(ab, ab);
    const double t = len2 > 0.0 ? std::clamp(dot(ap, ab) / len2, 0.0, 1.0) : 0.0;
    const Point d{ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return dot(d, d);
}

BoundingBox empty_box() { return {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}}; }

void grow(BoundingBox& box, const Point& p) {
    for (int d = 0; d < 3; ++d) {
        box.lo[d] = std::min(box.lo[d], p[d]);
        box.hi[d] = std::max(box.hi[d], p[d]);
    }
}

BoundingBox box_of(const TriangleCorners& t) {
    BoundingBox b = empty_box();
    grow(b, t.a);
    grow(b, t.b);
    grow(b, t.c);
    return b;
}

double box_distance2(const Point& p, const BoundingBox& b) {
    double s = 0.0;
    for (int d = 0; d < 3; ++d) {
        const double e = std::max({b.lo[d] - p[d], 0.0, p[d] - b.hi[d]});
        s += e * e;
    }
    return s;
}

// Edge function of the directed edge (a, b) about the ray through p: twice the signed area of
// (p, a, b) projected on the (v, w) plane, and its sign for the point p + (0, eps, eps^2) in
// (u, v, w) as eps -> 0 (symbolic perturbation): where the area is 0, the eps term
// (a_w - b_w) decides, then the eps^2 term (b_v - a_v). Both are antisymmetric in (a, b), so
// two triangles sharing an edge see opposite signs and a ray through the edge crosses exactly
// one of them. The sign is 0 only for an edge parallel to the ray.
struct EdgeValue {
    double f;
    int sign;
};
EdgeValue edge(const Point& a, const Point& b, const Point& p, int v, int w) {
    const double f = (a[v] - p[v]) * (b[w] - p[w]) - (a[w] - p[w]) * (b[v] - p[v]);
    if (f != 0.0) return {f, f > 0.0 ? 1 : -1};
    if (a[w] != b[w]) return {0.0, a[w] > b[w] ? 1 : -1};
    if (a[v] != b[v]) return {0.0, b[v] > a[v] ? 1 : -1};
    return {0.0, 0};
}

}  // namespace

std::vector<TriangleCorners> corners_of(const std::vector<Point>& vertices, const std::vector<Triangle>& triangles) {
    std::vector<TriangleCorners> out;
    out.reserve(triangles.size());
    for (const Triangle& t : triangles) out.push_back({vertices[t[0]], vertices[t[1]], vertices[t[2]]});
    return out;
}

double triangle_distance2(const Point& p, const TriangleCorners& t) {
    const Point ab = sub(t.b, t.a), ac = sub(t.c, t.a), ap = sub(p, t.a);
    const Point n = cross(ab, ac);
    // The foot of the perpendicular lies inside when p is on the inner side of all three edges.
    if (dot(cross(ab, ap), n) >= 0.0 && dot(cross(sub(t.c, t.b), sub(p, t.b)), n) >= 0.0 &&
        dot(cross(sub(t.a, t.c), sub(p, t.c)), n) >= 0.0) {
        const double h = dot(ap, n);
        return h * h / dot(n, n);
    }
    return std::min({segment_distance2(p, t.a, t.b), segment_distance2(p, t.b, t.c),
                     segment_distance2(p, t.c, t.a)});
}

// --- RayCrossings ------------------------------------------------------------------------------

RayCrossings::RayCrossings(const std::vector<TriangleCorners>& triangles) : tris_(triangles) {
    box_ = empty_box();
    for (const TriangleCorners& t : tris_) {
        grow(box_, t.a);
        grow(box_, t.b);
        grow(box_, t.c);
    }
    const Point extent = sub(box_.hi, box_.lo);
    u_ = static_cast<int>(std::min_element(extent.begin(), extent.end()) - extent.begin());
    v_ = (u_ + 1) % 3;
    w_ = (u_ + 2) % 3;
    shadows_.reserve(tris_.size());
    for (const TriangleCorners& t : tris_) {
        const BoundingBox b = box_of(t);
        shadows_.push_back({b.lo[u_], b.hi[u_], b.lo[v_], b.hi[v_], b.lo[w_], b.hi[w_]});
    }
    // About two cells per triangle, square-ish cells over the shadow of the mesh.
    const double lv = extent[v_], lw = extent[w_];
    const double target = 2.0 * static_cast<double>(tris_.size());
    const double nv = std::clamp(std::round(std::sqrt(target * lv / lw)), 1.0, 2048.0);
    cells_ = {static_cast<int>(nv), static_cast<int>(std::clamp(std::round(target / nv), 1.0, 2048.0))};
    origin_ = {box_.lo[v_], box_.lo[w_]};
    inv_cell_ = {cells_[0] / lv, cells_[1] / lw};

    // Compressed rows: count, prefix-sum, fill. A triangle goes into every cell its shadow's
    // box touches; cell() is monotone, so the cell of any point in that box is among them.
    const std::size_t n_cells = static_cast<std::size_t>(cells_[0]) * static_cast<std::size_t>(cells_[1]);
    start_.assign(n_cells + 1, 0);
    const auto for_cells = [&](const Shadow& s, auto&& visit) {
        for (int j = cell(s.w_lo, 1); j <= cell(s.w_hi, 1); ++j)
            for (int i = cell(s.v_lo, 0); i <= cell(s.v_hi, 0); ++i)
                visit(static_cast<std::size_t>(j) * cells_[0] + i);
    };
    for (const Shadow& s : shadows_) for_cells(s, [&](std::size_t k) { ++start_[k + 1]; });
    for (std::size_t k = 0; k < n_cells; ++k) start_[k + 1] += start_[k];
    items_.resize(start_[n_cells]);
    std::vector<std::uint32_t> next(start_.begin(), start_.end() - 1);
    for (std::uint32_t t = 0; t < shadows_.size(); ++t)
        for_cells(shadows_[t], [&](std::size_t k) { items_[next[k]++] = t; });
}

int RayCrossings::cell(double x, int k) const {
    const double i = std::floor((x - origin_[k]) * inv_cell_[k]);
    return static_cast<int>(std::clamp(i, 0.0, static_cast<double>(cells_[k] - 1)));
}

int RayCrossings::winding_number(const Point& p) const {
    for (int d = 0; d < 3; ++d)
        if (!(p[d] >= box_.lo[d] && p[d] <= box_.hi[d])) return 0;  // NaN: outside too
    const std::size_t k = static_cast<std::size_t>(cell(p[w_], 1)) * cells_[0] + cell(p[v_], 0);
    int winding = 0;
    for (std::uint32_t i = start_[k]; i < start_[k + 1]; ++i) {
        const std::uint32_t t = items_[i];
        const Shadow& s = shadows_[t];
        // Closed-box rejection (conservative; the edge tests decide the boundary cases). A
        // triangle wholly behind p (u_hi <= p_u) cannot be crossed strictly ahead of it.
        if (p[u_] >= s.u_hi || p[v_] < s.v_lo || p[v_] > s.v_hi || p[w_] < s.w_lo || p[w_] > s.w_hi)
            continue;
        const TriangleCorners& c = tris_[t];
        const EdgeValue ab = edge(c.a, c.b, p, v_, w_);
        if (ab.sign == 0) continue;
        const EdgeValue bc = edge(c.b, c.c, p, v_, w_);
        if (bc.sign != ab.sign) continue;
        const EdgeValue ca = edge(c.c, c.a, p, v_, w_);
        if (ca.sign != ab.sign) continue;
        // The crossing's u lies ahead of p iff sum_i lambda_i (u_i - p_u) > 0, with barycentric
        // weights lambda = (f_bc, f_ca, f_ab) / (their sum, of sign ab.sign).
        if (p[u_] < s.u_lo) {
            winding += ab.sign;
            continue;
        }
        const double ahead = bc.f * (c.a[u_] - p[u_]) + ca.f * (c.b[u_] - p[u_]) + ab.f * (c.c[u_] - p[u_]);
        if (ahead * ab.sign > 0.0) winding += ab.sign;
    }
    return winding;
}

// --- NearestTriangle ---------------------------------------------------------------------------

NearestTriangle::NearestTriangle(const std::vector<TriangleCorners>& triangles) : tris_(triangles) {
    order_.resize(tris_.size());
    for (std::uint32_t t = 0; t < order_.size(); ++t) order_[t] = t;
    nodes_.push_back({});
    build(0, 0, static_cast<std::uint32_t>(tris_.size()));
    // Store the triangles in leaf order, so that a leaf reads contiguous memory.
    std::vector<TriangleCorners> sorted;
    sorted.reserve(tris_.size());
    for (std::uint32_t t : order_) sorted.push_back(tris_[t]);
    tris_ = std::move(sorted);
    order_.clear();
    order_.shrink_to_fit();
}

void NearestTriangle::build(std::uint32_t node, std::uint32_t begin, std::uint32_t end) {
    BoundingBox box = empty_box(), centres = empty_box();
    const auto centre = [&](std::uint32_t t) {
        const TriangleCorners& c = tris_[t];
        return Point{(c.a[0] + c.b[0] + c.c[0]) / 3.0, (c.a[1] + c.b[1] + c.c[1]) / 3.0,
                     (c.a[2] + c.b[2] + c.c[2]) / 3.0};
    };
    for (std::uint32_t i = begin; i < end; ++i) {
        const BoundingBox b = box_of(tris_[order_[i]]);
        grow(box, b.lo);
        grow(box, b.hi);
        grow(centres, centre(order_[i]));
    }
    nodes_[node].box = box;
    if (end - begin <= 4) {
        nodes_[node].first = begin;
        nodes_[node].count = end - begin;
        return;
    }
    // Median split along the longest extent of the triangle centres.
    const Point extent = sub(centres.hi, centres.lo);
    const int axis = static_cast<int>(std::max_element(extent.begin(), extent.end()) - extent.begin());
    const std::uint32_t mid = begin + (end - begin) / 2;
    std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                     [&](std::uint32_t x, std::uint32_t y) { return centre(x)[axis] < centre(y)[axis]; });
    const auto left = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back({});
    nodes_.push_back({});
    nodes_[node].first = left;
    nodes_[node].count = 0;
    build(left, begin, mid);
    build(left + 1, mid, end);
}

double NearestTriangle::distance2(const Point& p) const {
    double best = INFINITY;
    // Depth-first, nearer child first; a box no nearer than the best triangle is skipped.
    std::array<std::pair<std::uint32_t, double>, 128> stack;
    std::size_t top = 0;
    stack[top++] = {0u, box_distance2(p, nodes_[0].box)};
    while (top > 0) {
        const auto [n, d2] = stack[--top];
        if (d2 >= best) continue;
        const Node& node = nodes_[n];
        if (node.count > 0) {
            for (std::uint32_t i = node.first; i < node.first + node.count; ++i)
                best = std::min(best, triangle_distance2(p, tris_[i]));
            continue;
        }
        const double dl = box_distance2(p, nodes_[node.first].box);
        const double dr = box_distance2(p, nodes_[node.first + 1].box);
        const bool left_first = dl <= dr;
        stack[top++] = {left_first ? node.first + 1 : node.first, left_first ? dr : dl};
        stack[top++] = {left_first ? node.first : node.first + 1, left_first ? dl : dr};
    }
    return best;
}

}  // namespace regosph::geometry
