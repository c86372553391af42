// Tensor helpers and the objective (Jaumann) rotation term of S17-22:
//   d sigma / dt = ... + sigma R^T + R sigma = W sigma - sigma W,  W = (L - L^T) / 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "core/tensor.hpp"

using namespace regosph;

namespace {

SymTensor random_tensor(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    SymTensor t;
    for (auto& c : t) c = scale * u(rng);
    return t;
}

Spin random_spin(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    return {scale * u(rng), scale * u(rng), scale * u(rng)};
}

double norm(const SymTensor& t) { return std::sqrt(double_dot(t, t)); }

// Third invariant det(sigma).
double determinant(const SymTensor& s) {
    return s[XX] * (s[YY] * s[ZZ] - s[YZ] * s[YZ]) - s[XY] * (s[XY] * s[ZZ] - s[YZ] * s[XZ]) +
           s[XZ] * (s[XY] * s[YZ] - s[YY] * s[XZ]);
}

SymTensor axpy(const SymTensor& y, double a, const SymTensor& x) {
    SymTensor r;
    for (int c = 0; c < kSymComponents; ++c) r[c] = y[c] + a * x[c];
    return r;
}

}  // namespace

TEST_CASE("tensor helpers: trace, deviator, double dot, J2") {
    const SymTensor s{1.0, 2.0, 6.0, 0.5, -1.0, 2.0};
    CHECK(trace(s) == 9.0);
    const SymTensor d = deviator(s);
    CHECK(trace(d) == doctest::Approx(0.0).scale(1.0));
    CHECK(d[XX] == -2.0);
    CHECK(d[XY] == 0.5);
    // Off-diagonal components count twice in A:B.
    CHECK(double_dot(s, SymTensor{0, 0, 0, 1, 0, 0}) == 1.0);
    CHECK(double_dot(s, SymTensor{1, 1, 1, 0, 0, 0}) == 9.0);
    // J2 = ((s1-s2)^2 + (s2-s3)^2 + (s3-s1)^2)/6 + s12^2 + s13^2 + s23^2
    const double j2 = ((1.0 - 2.0) * (1.0 - 2.0) + (2.0 - 6.0) * (2.0 - 6.0) +
                       (6.0 - 1.0) * (6.0 - 1.0)) / 6.0 + 0.25 + 1.0 + 4.0;
    CHECK(second_invariant(s) == doctest::Approx(j2).epsilon(1e-15));
}

TEST_CASE("Jaumann term of a pure rotation leaves I1 and J2 rates zero (objectivity)") {
    std::mt19937_64 rng(314159);
    for (int i = 0; i < 1000; ++i) {
        const SymTensor s = random_tensor(rng, 1e4);
        const Spin w = random_spin(rng, 30.0);
        const SymTensor j = jaumann_rotation_term(s, w);
        const double scale = norm(s) * std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        CAPTURE(i);
        // dI1/dt = tr(W s - s W) = 0
        CHECK(std::abs(trace(j)) <= 1e-14 * scale);
        // dJ2/dt = S : dS/dt = S : (W s - s W) = 0
        CHECK(std::abs(double_dot(deviator(s), j)) <= 1e-14 * scale * norm(s));
        // d det(s)/dt = det(s) tr(s^-1 (W s - s W)) = 0 as well; checked via the integral below.
    }
}

TEST_CASE("Jaumann term: sign for a counterclockwise rigid rotation in the x-y plane") {
    // v = Omega (-y, x): L = [[0, -Omega], [Omega, 0]], W_xy = (L_xy - L_yx)/2 = -Omega.
    // A uniaxial tension sigma_xx = s carried along by the rotation, sigma' = Q sigma Q^T,
    // acquires d sigma_xy / dt = Omega s and d sigma_xx / dt = 0 at t = 0.
    const double omega = 2.5, s = 1000.0;
    const SymTensor j = jaumann_rotation_term(SymTensor{s, 0, 0, 0, 0, 0}, Spin{-omega, 0, 0});
    CHECK(j[XY] == doctest::Approx(omega * s));
    CHECK(j[XX] == 0.0);
    CHECK(j[YY] == 0.0);
    CHECK(j[ZZ] == 0.0);
    CHECK(j[XZ] == 0.0);
    CHECK(j[YZ] == 0.0);
}

TEST_CASE("Jaumann term integrated over a full turn returns the initial stress (RK4)") {
    std::mt19937_64 rng(2718);
    for (int trial = 0; trial < 5; ++trial) {
        const SymTensor s0 = random_tensor(rng, 1e4);
        const Spin w = random_spin(rng, 10.0);
        // sigma(t) = exp(W t) sigma0 exp(-W t): a rotation at rate |w| about the axial vector.
        const double rate = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        const double period = 2.0 * std::numbers::pi / rate;
        const int n = 4000;
        const double dt = period / n;
        SymTensor s = s0;
        double max_i1_drift = 0.0, max_j2_drift = 0.0, max_det_drift = 0.0;
        const double i1 = trace(s0), j2 = second_invariant(s0), det = determinant(s0);
        bool moved = false;
        for (int k = 0; k < n; ++k) {
            const SymTensor k1 = jaumann_rotation_term(s, w);
            const SymTensor k2 = jaumann_rotation_term(axpy(s, 0.5 * dt, k1), w);
            const SymTensor k3 = jaumann_rotation_term(axpy(s, 0.5 * dt, k2), w);
            const SymTensor k4 = jaumann_rotation_term(axpy(s, dt, k3), w);
            for (int c = 0; c < kSymComponents; ++c)
                s[c] += dt / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
            max_i1_drift = std::max(max_i1_drift, std::abs(trace(s) - i1));
            max_j2_drift = std::max(max_j2_drift, std::abs(second_invariant(s) - j2));
            max_det_drift = std::max(max_det_drift, std::abs(determinant(s) - det));
            if (k == n / 2) {
                SymTensor d = s;
                for (int c = 0; c < kSymComponents; ++c) d[c] -= s0[c];
                moved = norm(d) > 1e-3 * norm(s0);  // half a turn later the tensor differs
            }
        }
        const double scale = norm(s0);
        CAPTURE(trial);
        CHECK(moved);
        CHECK(max_i1_drift <= 1e-8 * scale);
        CHECK(max_j2_drift <= 1e-8 * scale * scale);
        CHECK(max_det_drift <= 1e-8 * scale * scale * scale);
        for (int c = 0; c < kSymComponents; ++c)
            CHECK(s[c] == doctest::Approx(s0[c]).epsilon(1e-8).scale(scale));
    }
}
