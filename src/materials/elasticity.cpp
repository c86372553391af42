#include "materials/elasticity.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace regosph {

Elasticity houlsby_elasticity(double reference_pressure, double exponent, double floor_pressure) {
    return {ElasticityLaw::houlsby, reference_pressure, exponent, floor_pressure};
}

const char* elasticity_name(const Elasticity& e) { return e.linear() ? "linear" : "Houlsby"; }

std::string elasticity_error(const Elasticity& e) {
    if (e.linear()) return {};
    std::ostringstream os;
    if (!(std::isfinite(e.reference_pressure) && e.reference_pressure > 0.0))
        os << "reference_pressure = " << e.reference_pressure << " Pa must be positive";
    else if (!(std::isfinite(e.exponent) && e.exponent >= 0.0 && e.exponent < 1.0))
        os << "exponent = " << e.exponent << " must lie in [0, 1) (moduli ~ (p / p_r)^n)";
    else if (!(std::isfinite(e.floor_pressure) && e.floor_pressure > 0.0))
        os << "floor_pressure = " << e.floor_pressure << " Pa must be positive";
    return os.str();
}

void validate(const Elasticity& e, const std::string& material) {
    const std::string why = elasticity_error(e);
    if (!why.empty())
        throw std::invalid_argument("material '" + material + "': elasticity." + why);
}

void append_parameters(const Elasticity& e, std::vector<ModelParameter>& out) {
    if (e.linear()) return;
    out.push_back({"elasticity_reference_pressure_Pa", e.reference_pressure});
    out.push_back({"elasticity_exponent", e.exponent});
    out.push_back({"elasticity_floor_pressure_Pa", e.floor_pressure});
}

double hooke_strain_energy(double K, double mu, const SymTensor& sigma) {
    const SymTensor S = deviator(sigma);
    const double p = -trace(sigma) / 3.0;
    return double_dot(S, S) / (4.0 * mu) + p * p / (2.0 * K);
}

namespace {
// K(x) = K_r (x / p_r)^n [Pa] at pressure measure x [Pa] given as x^2.
double houlsby_bulk(const Elasticity& e, double K_r, double x2) {
    return K_r * houlsby_stiffness_scale(e, x2);
}
}  // namespace

double houlsby_complementary_energy(const Elasticity& e, double K_r, double G_r,
                                    const SymTensor& sigma) {
    const double n = e.exponent;
    const double P2 = houlsby_pbar_squared(e, K_r, G_r, sigma) + e.floor_pressure * e.floor_pressure;
    return P2 / ((1.0 - n) * (2.0 - n) * houlsby_bulk(e, K_r, P2));
}

SymTensor houlsby_elastic_strain(const Elasticity& e, double K_r, double G_r,
                                 const SymTensor& sigma) {
    const double n = e.exponent;
    const double P2 = houlsby_pbar_squared(e, K_r, G_r, sigma) + e.floor_pressure * e.floor_pressure;
    // eps = (d(pbar^2 / 2) / dsigma) / ((1 - n) K(P)), d(pbar^2 / 2) / dsigma = -p I / 3 + b S
    const double compliance = 1.0 / ((1.0 - n) * houlsby_bulk(e, K_r, P2));
    const double b = 0.5 * (1.0 - n) * K_r / G_r;
    const double p = -trace(sigma) / 3.0;
    const SymTensor S = deviator(sigma);
    SymTensor eps;
    for (int c = 0; c < kSymComponents; ++c) eps[c] = compliance * b * S[c];
    for (int c = XX; c <= ZZ; ++c) eps[c] -= compliance * p / 3.0;
    return eps;
}

double elastic_energy_density(const Elasticity& e, double K, double G, const SymTensor& sigma) {
    if (e.linear()) return hooke_strain_energy(K, G, sigma);
    const double n = e.exponent;
    const double pmin2 = e.floor_pressure * e.floor_pressure;
    const double pbar2 = houlsby_pbar_squared(e, K, G, sigma);
    const double P2 = pbar2 + pmin2;
    // w(P) - w(p_min) = w(p_min) ((P / p_min)^(2 - n) - 1), written without the cancellation
    // of the difference when pbar << p_min.
    const double w_min = pmin2 / ((1.0 - n) * (2.0 - n) * houlsby_bulk(e, K, pmin2));
    const double w_rise = w_min * std::expm1((1.0 - 0.5 * n) * std::log1p(pbar2 / pmin2));
    return pbar2 / ((1.0 - n) * houlsby_bulk(e, K, P2)) - w_rise;
}

}  // namespace regosph
