// Small vector operations on 3-component points and vectors [m] of the geometry layer.
#pragma once

#include <array>
#include <cmath>

namespace regosph::geometry::vec {

using V = std::array<double, 3>;

inline V sub(const V& a, const V& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline double dot(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline V cross(const V& a, const V& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline double norm(const V& a) { return std::sqrt(dot(a, a)); }

}  // namespace regosph::geometry::vec
