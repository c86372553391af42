// Cubic B-spline kernel (Monaghan & Lattanzio 1985) in the convention of SPEC.md section 1:
// the support radius equals the smoothing length h, W = 0 for r >= h.
#pragma once

#include <numbers>
#include <type_traits>

namespace regosph::kernel {

// The functions below take one pair (T = double) or the eight pairs of a block of the pair
// loop at once (T = an 8-lane vector of GCC's vector extensions, equations.cpp): their
// arithmetic and selects `c ? a : b` read the same for both. splat<T>(x): the constant x as a
// T.
template <class T>
inline T splat(double x) {
    if constexpr (std::is_same_v<T, double>)
        return x;
    else
        return T{} + x;
}

// Normalisation sigma: 40/(7 pi h^2) in 2D, 8/(pi h^3) in 3D (SPEC.md section 1).
template <int Dim>
constexpr double normalisation(double h) {
    static_assert(Dim == 2 || Dim == 3);
    if constexpr (Dim == 2) {
        return 40.0 / (7.0 * std::numbers::pi * h * h);
    } else {
        return 8.0 / (std::numbers::pi * h * h * h);
    }
}

// W(r, h), SPEC.md section 1.
template <int Dim>
constexpr double value(double r, double h) {
    const double q = r / h;
    const double s = normalisation<Dim>(h);
    if (q < 0.5) return s * (6.0 * q * q * q - 6.0 * q * q + 1.0);
    if (q < 1.0) {
        const double u = 1.0 - q;
        return s * 2.0 * u * u * u;
    }
    return 0.0;
}

// dW/dr (r, h), SPEC.md section 1. Non-positive everywhere.
template <int Dim>
constexpr double derivative(double r, double h) {
    const double q = r / h;
    const double f = 6.0 * normalisation<Dim>(h) / h;
    if (q < 0.5) return f * (3.0 * q * q - 2.0 * q);
    if (q < 1.0) {
        const double u = 1.0 - q;
        return -f * u * u;
    }
    return 0.0;
}

// (dW/dr) / r for 0 < r < h, the factor that turns x_a - x_b into grad_a W_ab. One division
// gives both 1/h and 1/r (this sits in the innermost pair loop).
template <int Dim>
inline double gradient_factor(double r, double h) {
    const double d = 1.0 / (h * r);
    const double inv_h = r * d;
    const double q = r * inv_h;
    double f = 6.0 * normalisation<Dim>(1.0) * inv_h * inv_h * inv_h;  // 6 sigma / h
    if constexpr (Dim == 3) f *= inv_h;
    if (q < 0.5) return f * inv_h * (3.0 * q - 2.0);
    const double u = 1.0 - q;
    return q < 1.0 ? -f * u * u * (h * d) : 0.0;
}

// Shape of the spline, W(r, h) = normalisation(h) shape(r / h): 6 q^3 - 6 q^2 + 1 for
// q < 1/2, 2 (1 - q)^3 for 1/2 <= q < 1, 0 beyond (SPEC.md section 1). Both branches are
// evaluated and one is selected, so that vectorised loops can call it.
template <class T>
inline T shape(T q) {
    const T u = 1.0 - q;
    const T inner = 6.0 * q * q * q - 6.0 * q * q + 1.0;
    const T outer = 2.0 * u * u * u;
    const T w = q < 0.5 ? inner : outer;
    return q < 1.0 ? w : splat<T>(0.0);
}

// What the pair loop needs of one pair at distance 0 < r, in branch-free form, given
// d = 1 / (h r) (which the caller may compute together with other reciprocals): the gradient
// factor of gradient_factor (the same operations; 0 for r >= h), 1 / h, and q = r / h for
// shape(q).
template <class T>
struct PairFactors {
    T gradient;  // (dW/dr) / r [1/m^(Dim+2)]
    T inv_h;     // 1 / h [1/m]
    T q;         // r / h [-]
};

template <int Dim, class T>
inline PairFactors<T> pair_factors(T r, T h, T d) {
    const T inv_h = r * d;
    const T q = r * inv_h;
    T f = 6.0 * normalisation<Dim>(1.0) * inv_h * inv_h * inv_h;  // 6 sigma / h
    if constexpr (Dim == 3) f *= inv_h;
    const T u = 1.0 - q;
    const T outer = q < 1.0 ? -f * u * u * (h * d) : splat<T>(0.0);
    return {q < 0.5 ? f * inv_h * (3.0 * q - 2.0) : outer, inv_h, q};
}

}  // namespace regosph::kernel
