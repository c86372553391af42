// Cubic B-spline kernel (Monaghan & Lattanzio 1985) in the convention of SPEC.md section 1:
// the support radius equals the smoothing length h, W = 0 for r >= h.
#pragma once

#include <numbers>

namespace regosph::kernel {

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

}  // namespace regosph::kernel
