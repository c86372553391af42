// Cubic B-spline kernel, SPEC.md section 1: support radius = h, W = 0 for r >= h,
//   W = sigma (6 q^3 - 6 q^2 + 1)  (q < 1/2),   W = sigma 2 (1 - q)^3  (1/2 <= q <= 1),
//   sigma = 40 / (7 pi h^2) in 2D, 8 / (pi h^3) in 3D.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "sph/kernel.hpp"

namespace kernel = regosph::kernel;

namespace {

// Composite Gauss-Legendre (5 points) quadrature of f over [a, b] with n panels. The kernel is a
// piecewise polynomial with a break at q = 1/2, so integrating each piece separately with a
// rule exact for degree 9 gives the integral to round-off.
template <class F>
double gauss5(F f, double a, double b, int n) {
    static const double xg[5] = {0.0, -0.5384693101056831, 0.5384693101056831,
                                 -0.9061798459386640, 0.9061798459386640};
    static const double wg[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                 0.2369268850561891, 0.2369268850561891};
    double sum = 0.0;
    const double w = (b - a) / n;
    for (int i = 0; i < n; ++i) {
        const double lo = a + i * w, mid = lo + 0.5 * w;
        for (int k = 0; k < 5; ++k) sum += 0.5 * w * wg[k] * f(mid + 0.5 * w * xg[k]);
    }
    return sum;
}

template <int Dim>
double radial_integral(double h) {
    // int W dV = int_0^h W(r) 2 pi r dr (2D) or int_0^h W(r) 4 pi r^2 dr (3D)
    const auto integrand = [h](double r) {
        const double shell = Dim == 2 ? 2.0 * std::numbers::pi * r
                                      : 4.0 * std::numbers::pi * r * r;
        return kernel::value<Dim>(r, h) * shell;
    };
    return gauss5(integrand, 0.0, 0.5 * h, 50) + gauss5(integrand, 0.5 * h, h, 50);
}

// Lattice sums around the particle at the origin of a square (2D) or cubic (3D) lattice of
// spacing dx with support radius h: S0 = sum_b V_b W_ab (self included) and
// G = sum_b V_b grad_a W_ab, grad_a W_ab = dW/dr (x_a - x_b) / r.
template <int Dim>
void lattice_sums(double dx, double h, double& s0, double (&g)[3]) {
    s0 = 0.0;
    g[0] = g[1] = g[2] = 0.0;
    const int n = static_cast<int>(std::ceil(h / dx)) + 1;
    const double vol = std::pow(dx, Dim);
    const int kmax = Dim == 3 ? n : 0;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j)
            for (int k = -kmax; k <= kmax; ++k) {
                const double xb[3] = {i * dx, j * dx, k * dx};
                const double r = std::sqrt(xb[0] * xb[0] + xb[1] * xb[1] + xb[2] * xb[2]);
                s0 += vol * kernel::value<Dim>(r, h);
                if (r > 0.0) {
                    const double f = kernel::derivative<Dim>(r, h) / r;
                    for (int d = 0; d < 3; ++d) g[d] += vol * f * (0.0 - xb[d]);
                }
            }
}

}  // namespace

TEST_CASE("kernel: normalisation, int W dV = 1 in 2D and 3D (SPEC 1)") {
    for (const double h : {1.0, 0.0125, 3.7}) {
        CAPTURE(h);
        CHECK(radial_integral<2>(h) == doctest::Approx(1.0).epsilon(1e-4));
        CHECK(radial_integral<3>(h) == doctest::Approx(1.0).epsilon(1e-4));
        // The normalisation constants as printed in SPEC 1.
        CHECK(kernel::normalisation<2>(h) ==
              doctest::Approx(40.0 / (7.0 * std::numbers::pi * h * h)).epsilon(1e-15));
        CHECK(kernel::normalisation<3>(h) ==
              doctest::Approx(8.0 / (std::numbers::pi * h * h * h)).epsilon(1e-15));
    }
}

TEST_CASE("kernel: W(0) = sigma, W >= 0, compact support W(r >= h) = 0 (SPEC 1)") {
    const double h = 0.02;
    CHECK(kernel::value<2>(0.0, h) == doctest::Approx(kernel::normalisation<2>(h)));
    CHECK(kernel::value<3>(0.0, h) == doctest::Approx(kernel::normalisation<3>(h)));
    CHECK(kernel::value<2>(h, h) == 0.0);
    CHECK(kernel::value<3>(h, h) == 0.0);
    CHECK(kernel::value<2>(1.5 * h, h) == 0.0);
    CHECK(kernel::value<3>(7.0 * h, h) == 0.0);
    CHECK(kernel::derivative<2>(h, h) == 0.0);
    CHECK(kernel::derivative<3>(1.2 * h, h) == 0.0);
    // Just inside the support the value is positive and tends to zero like (1 - q)^3.
    const double r = h * (1.0 - 1e-3);
    CHECK(kernel::value<2>(r, h) > 0.0);
    CHECK(kernel::value<2>(r, h) ==
          doctest::Approx(kernel::normalisation<2>(h) * 2e-9).epsilon(1e-6));
    for (int i = 0; i <= 1000; ++i) {
        const double q = i / 1000.0;
        CHECK(kernel::value<2>(q * h, h) >= 0.0);
        CHECK(kernel::derivative<3>(q * h, h) <= 0.0);  // monotonically decreasing
    }
}

TEST_CASE("kernel: value and derivative are continuous at q = 1/2") {
    const double h = 0.7;
    const double r_half = 0.5 * h;
    const double below = std::nextafter(r_half, 0.0);
    // Both branches give sigma / 4 at q = 1/2 and a slope of -(6 sigma / h) / 4.
    CHECK(kernel::value<2>(below, h) == doctest::Approx(kernel::value<2>(r_half, h)).epsilon(1e-12));
    CHECK(kernel::value<3>(below, h) == doctest::Approx(kernel::value<3>(r_half, h)).epsilon(1e-12));
    CHECK(kernel::value<2>(r_half, h) == doctest::Approx(0.25 * kernel::normalisation<2>(h)));
    CHECK(kernel::derivative<2>(below, h) ==
          doctest::Approx(kernel::derivative<2>(r_half, h)).epsilon(1e-12));
    CHECK(kernel::derivative<3>(below, h) ==
          doctest::Approx(kernel::derivative<3>(r_half, h)).epsilon(1e-12));
    CHECK(kernel::derivative<2>(r_half, h) ==
          doctest::Approx(-1.5 * kernel::normalisation<2>(h) / h));
}

TEST_CASE("kernel: derivative matches central finite differences of the value") {
    const double h = 0.013;
    const double step = 1e-6 * h;
    for (int i = 1; i < 200; ++i) {
        const double q = i / 200.0;
        if (std::abs(q - 0.5) < 1e-3) continue;  // the second derivative jumps at q = 1/2
        const double r = q * h;
        CAPTURE(q);
        const double fd2 =
            (kernel::value<2>(r + step, h) - kernel::value<2>(r - step, h)) / (2.0 * step);
        const double fd3 =
            (kernel::value<3>(r + step, h) - kernel::value<3>(r - step, h)) / (2.0 * step);
        // Scale: the largest |dW/dr| is 6 sigma / h * 1/3 at q = 1/3.
        const double scale2 = 2.0 * kernel::normalisation<2>(h) / h;
        const double scale3 = 2.0 * kernel::normalisation<3>(h) / h;
        CHECK(std::abs(kernel::derivative<2>(r, h) - fd2) <= 1e-6 * scale2);
        CHECK(std::abs(kernel::derivative<3>(r, h) - fd3) <= 1e-6 * scale3);
    }
    // At r = 0 the derivative vanishes (smooth peak).
    CHECK(kernel::derivative<2>(0.0, h) == 0.0);
}

TEST_CASE("kernel: lattice sums, sum V_b grad W = 0 and sum V_b W ~ 1 at h = 2.5 dx") {
    const double dx = 2.582e-3;
    const double h = 2.5 * dx;
    SUBCASE("2D square lattice") {
        double s0, g[3];
        lattice_sums<2>(dx, h, s0, g);
        for (double c : g) CHECK(std::abs(c) <= 1e-10 / h);
        // Partition of unity of the SPH interpolation, to 2 % on a regular lattice.
        CHECK(s0 == doctest::Approx(1.0).epsilon(0.02));
    }
    SUBCASE("3D cubic lattice") {
        double s0, g[3];
        lattice_sums<3>(dx, h, s0, g);
        for (double c : g) CHECK(std::abs(c) <= 1e-10 / h);
        CHECK(s0 == doctest::Approx(1.0).epsilon(0.02));
    }
}

TEST_CASE("kernel: gradient_factor(r, h) = (dW/dr) / r, the factor of grad_a W_ab = F (x_a - x_b)") {
    for (const double h : {0.0125, 1.0, 3.3}) {
        for (int i = 1; i < 1000; ++i) {
            const double r = h * i / 1000.0;
            CAPTURE(h);
            CAPTURE(i);
            // Round-off relative to the largest value 12 sigma / h^2 (1 - q loses digits
            // near q = 1, where both forms compute q differently).
            CHECK(kernel::gradient_factor<2>(r, h) ==
                  doctest::Approx(kernel::derivative<2>(r, h) / r)
                      .epsilon(1e-13)
                      .scale(12.0 * kernel::normalisation<2>(h) / (h * h)));
            CHECK(kernel::gradient_factor<3>(r, h) ==
                  doctest::Approx(kernel::derivative<3>(r, h) / r)
                      .epsilon(1e-13)
                      .scale(12.0 * kernel::normalisation<3>(h) / (h * h)));
        }
        CHECK(kernel::gradient_factor<2>(h, h) == 0.0);
        CHECK(kernel::gradient_factor<3>(1.5 * h, h) == 0.0);
        // Bounded at r -> 0: (6 sigma / h^2) (3 q - 2) -> -12 sigma / h^2.
        const double r0 = 1e-9 * h;
        CHECK(kernel::gradient_factor<2>(r0, h) ==
              doctest::Approx(-12.0 * kernel::normalisation<2>(h) / (h * h)).epsilon(1e-8));
        CHECK(kernel::gradient_factor<3>(r0, h) ==
              doctest::Approx(-12.0 * kernel::normalisation<3>(h) / (h * h)).epsilon(1e-8));
    }
}
