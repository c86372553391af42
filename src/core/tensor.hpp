// Small tensor algebra for the constitutive laws: symmetric 3x3 tensors stored as six
// components (order XX YY ZZ XY XZ YZ, see particles.hpp) and spin tensors stored as their
// three independent components (xy, xz, yz) of the antisymmetric part W = (L - L^T)/2.
#pragma once

#include <array>
#include <cmath>

#include "core/particles.hpp"

namespace regosph {

using SymTensor = std::array<double, kSymComponents>;
// Independent components of an antisymmetric tensor: W_xy, W_xz, W_yz (W_yx = -W_xy, ...).
using Spin = std::array<double, 3>;

inline double trace(const SymTensor& t) { return t[XX] + t[YY] + t[ZZ]; }

inline SymTensor deviator(const SymTensor& t) {
    const double m = trace(t) / 3.0;
    return {t[XX] - m, t[YY] - m, t[ZZ] - m, t[XY], t[XZ], t[YZ]};
}

// A:B for symmetric tensors (off-diagonal terms count twice).
inline double double_dot(const SymTensor& a, const SymTensor& b) {
    return a[XX] * b[XX] + a[YY] * b[YY] + a[ZZ] * b[ZZ] +
           2.0 * (a[XY] * b[XY] + a[XZ] * b[XZ] + a[YZ] * b[YZ]);
}

// Second invariant of the deviator, J2 = S:S/2.
inline double second_invariant(const SymTensor& t) {
    const SymTensor s = deviator(t);
    return 0.5 * double_dot(s, s);
}

// Objective part of the Jaumann rate, sigma R^T + R sigma = W sigma - sigma W
// (Schaefer et al. 2017 eq. 22), for a symmetric sigma and spin W.
inline SymTensor jaumann_rotation_term(const SymTensor& s, const Spin& w) {
    // With M = W sigma: sigma W = -M^T (W antisymmetric, sigma symmetric), so the term is
    // M + M^T, written out for W = [[0, a, b], [-a, 0, c], [-b, -c, 0]] (the six entries of a
    // symmetric result, ~20 flops instead of the 54 of two full matrix products).
    const double a = w[0], b = w[1], c = w[2];
    return {2.0 * (a * s[XY] + b * s[XZ]),
            2.0 * (c * s[YZ] - a * s[XY]),
            -2.0 * (b * s[XZ] + c * s[YZ]),
            a * (s[YY] - s[XX]) + b * s[YZ] + c * s[XZ],
            b * (s[ZZ] - s[XX]) + a * s[YZ] - c * s[XY],
            c * (s[ZZ] - s[YY]) - a * s[XZ] - b * s[XY]};
}

}  // namespace regosph
