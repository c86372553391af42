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
    // Full matrices; the result is symmetric by construction.
    const double S[3][3] = {{s[XX], s[XY], s[XZ]}, {s[XY], s[YY], s[YZ]}, {s[XZ], s[YZ], s[ZZ]}};
    const double W[3][3] = {{0.0, w[0], w[1]}, {-w[0], 0.0, w[2]}, {-w[1], -w[2], 0.0}};
    double J[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double acc = 0.0;
            for (int k = 0; k < 3; ++k) acc += W[i][k] * S[k][j] - S[i][k] * W[k][j];
            J[i][j] = acc;
        }
    return {J[0][0], J[1][1], J[2][2], J[0][1], J[0][2], J[1][2]};
}

}  // namespace regosph
