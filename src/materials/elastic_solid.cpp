#include "materials/elastic_solid.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/eigen.hpp"
#include "core/principal_stresses.hpp"

namespace regosph {

double murnaghan_energy(const ElasticSolid& m, double rho) {
    const double n = m.murnaghan_n;
    const double eps = rho / m.density - 1.0;  // x - 1
    const double scale = m.bulk_modulus / (n * m.density);
    if (std::abs(eps) < 1e-2) {
        // Taylor series in eps: the bracket is sum_{k>=2} c_k eps^k with
        // c_k = (n-2)(n-3)...(n-k) / k! + (-1)^k (from (1+eps)^(n-1) / (n-1) and 1/(1+eps));
        // 14 terms reach round-off for |eps| < 1e-2.
        double bracket = 0.0, binomial = 1.0, power = eps, sign = -1.0;
        for (int k = 2; k <= 15; ++k) {
            binomial *= (n - static_cast<double>(k)) / static_cast<double>(k);  // (n-2)...(n-k)/k!
            power *= eps;
            sign = -sign;
            bracket += (binomial + sign) * power;
        }
        return scale * bracket;
    }
    const double x = 1.0 + eps;
    const double growth = n == 1.0 ? std::log(x) : (murnaghan_power(x, n - 1.0) - 1.0) / (n - 1.0);
    return scale * (growth + 1.0 / x - 1.0);
}

SymTensor artificial_stress(double epsilon, const SymTensor& sigma, double rho, int dim) {
    SymTensor r{};
    if (dim == 2) {
        const PlaneTensor plane =
            artificial_stress_plane(epsilon, sigma[XX], sigma[YY], sigma[XY], rho);
        r[XX] = plane.xx;
        r[YY] = plane.yy;
        r[XY] = plane.xy;
        return r;
    }
    // No tensile principal stress when sigma is negative semidefinite: every principal minor
    // of -sigma is >= 0 (Sylvester's criterion for semidefinite matrices). Then R = 0 without
    // the eigen-decomposition (~150 ns of trigonometric functions), which is most of a
    // compressed body, and all of one at rest with sigma = 0.
    const bool compressive = principal_values_at_most(sigma, 0.0);
    if (compressive) return r;
    const double inv_rho2 = 1.0 / (rho * rho);
    Eigen::Matrix3d s;
    s << sigma[XX], sigma[XY], sigma[XZ], sigma[XY], sigma[YY], sigma[YZ], sigma[XZ], sigma[YZ],
        sigma[ZZ];
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig;
    eig.computeDirect(s);
    Eigen::Vector3d rp;
    for (int k = 0; k < 3; ++k) rp[k] = principal_correction(epsilon, eig.eigenvalues()[k], inv_rho2);
    const Eigen::Matrix3d& v = eig.eigenvectors();
    const Eigen::Matrix3d R = v * rp.asDiagonal() * v.transpose();
    return {R(0, 0), R(1, 1), R(2, 2), R(0, 1), R(0, 2), R(1, 2)};
}

namespace {
[[noreturn]] void fail(const std::string& material, const std::string& message) {
    throw std::invalid_argument("material '" + material + "': " + message);
}

std::string number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}
}  // namespace

ElasticModuli elastic_moduli(const std::string& material, std::optional<double> K,
                             std::optional<double> mu, std::optional<double> E,
                             std::optional<double> nu) {
    const int given = K.has_value() + mu.has_value() + E.has_value() + nu.has_value();
    if (given != 2)
        fail(material, "give exactly two of bulk_modulus, shear_modulus, youngs_modulus and "
                       "poisson_ratio (" + std::to_string(given) + " given)");
    const auto finite = [&](const char* field, const std::optional<double>& v) {
        if (v && !std::isfinite(*v)) fail(material, std::string(field) + " = " + number(*v) +
                                                        " must be a finite number");
    };
    finite("bulk_modulus", K);
    finite("shear_modulus", mu);
    finite("youngs_modulus", E);
    finite("poisson_ratio", nu);
    if (nu && !(*nu > -1.0 && *nu < 0.5))
        fail(material, "poisson_ratio = " + number(*nu) + " must lie in (-1, 0.5)");
    if (E && !(*E > 0.0)) fail(material, "youngs_modulus = " + number(*E) + " Pa must be positive");

    // Isotropic linear elasticity: K = E / (3 (1 - 2 nu)), mu = E / (2 (1 + nu)).
    ElasticModuli m;
    if (K && mu) {
        m = {*K, *mu};
    } else if (K && nu) {
        m = {*K, 3.0 * *K * (1.0 - 2.0 * *nu) / (2.0 * (1.0 + *nu))};
    } else if (K && E) {
        // nu = (3K - E) / (6K) lies in (-1, 0.5) exactly when 0 < E < 9K.
        if (*K > 0.0 && !(*E < 9.0 * *K))
            fail(material, "youngs_modulus = " + number(*E) + " Pa must be below 9 bulk_modulus = " +
                               number(9.0 * *K) + " Pa (Poisson's ratio > -1)");
        m = {*K, 3.0 * *K * *E / (9.0 * *K - *E)};
    } else if (mu && nu) {
        m = {2.0 * *mu * (1.0 + *nu) / (3.0 * (1.0 - 2.0 * *nu)), *mu};
    } else if (mu && E) {
        // nu = E / (2 mu) - 1 lies in (-1, 0.5) exactly when 0 < E < 3 mu.
        if (!(*E < 3.0 * *mu))
            fail(material, "youngs_modulus = " + number(*E) + " Pa must be below 3 shear_modulus = " +
                               number(3.0 * *mu) + " Pa (Poisson's ratio < 0.5)");
        m = {*E * *mu / (3.0 * (3.0 * *mu - *E)), *mu};
    } else {  // E and nu
        m = {*E / (3.0 * (1.0 - 2.0 * *nu)), *E / (2.0 * (1.0 + *nu))};
    }
    if (!(m.bulk_modulus > 0.0))
        fail(material, "bulk_modulus = " + number(m.bulk_modulus) + " Pa must be positive");
    if (!(m.shear_modulus >= 0.0))
        fail(material, "shear_modulus = " + number(m.shear_modulus) + " Pa must not be negative");
    return m;
}

void ElasticSolid::validate(const std::string& material) const {
    checks::positive(material, "density", density, "kg/m^3");
    checks::positive(material, "bulk_modulus", bulk_modulus, "Pa");
    checks::non_negative(material, "shear_modulus", shear_modulus, "Pa");
    if (!(std::isfinite(murnaghan_n) && murnaghan_n > 0.0))
        checks::fail(material, "murnaghan_n", murnaghan_n, "must be > 0");
    checks::in_range(material, "artificial_stress", artificial_stress, 0.0, 1.0);
    if (!(std::isfinite(artificial_stress_exponent) && artificial_stress_exponent > 0.0))
        checks::fail(material, "artificial_stress_exponent", artificial_stress_exponent, "must be > 0");
    checks::in_range(material, "xsph", xsph, 0.0, 1.0);
}

std::vector<ModelParameter> ElasticSolid::parameters() const {
    return {{"density_kg_m3", density},
            {"bulk_modulus_Pa", bulk_modulus},
            {"shear_modulus_Pa", shear_modulus},
            {"murnaghan_n", murnaghan_n},
            {"artificial_stress", artificial_stress},
            {"artificial_stress_exponent", artificial_stress_exponent},
            {"xsph", xsph}};
}

}  // namespace regosph
