#include "core/principal_stresses.hpp"

#include <algorithm>
#include <cmath>

namespace regosph {

Principal principal_stresses(const SymTensor& s) {
    std::array<double, 3> value{};
    Eigen::Matrix3d vectors = Eigen::Matrix3d::Zero();
    if (s[XZ] == 0.0 && s[YZ] == 0.0) {
        const double mean = 0.5 * (s[XX] + s[YY]);
        const double radius = std::hypot(0.5 * (s[XX] - s[YY]), s[XY]);
        const double angle = 0.5 * std::atan2(2.0 * s[XY], s[XX] - s[YY]);
        const double c = std::cos(angle), n = std::sin(angle);
        value = {mean + radius, mean - radius, s[ZZ]};
        vectors.col(0) << c, n, 0.0;
        vectors.col(1) << -n, c, 0.0;
        vectors.col(2) << 0.0, 0.0, 1.0;
    } else {
        Eigen::Matrix3d m;
        m << s[XX], s[XY], s[XZ], s[XY], s[YY], s[YZ], s[XZ], s[YZ], s[ZZ];
        const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(m);
        for (int k = 0; k < 3; ++k) value[k] = eig.eigenvalues()[k];
        vectors = eig.eigenvectors();
    }
    std::array<int, 3> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int a, int b) { return value[a] > value[b]; });
    Principal p;
    for (int k = 0; k < 3; ++k) {
        p.value[k] = value[order[k]];
        p.direction.col(k) = vectors.col(order[k]);
    }
    return p;
}

SymTensor from_principal(const std::array<double, 3>& value, const Eigen::Matrix3d& v) {
    const Eigen::Matrix3d m =
        v * Eigen::Vector3d(value[0], value[1], value[2]).asDiagonal() * v.transpose();
    SymTensor s{};
    s[XX] = m(0, 0), s[YY] = m(1, 1), s[ZZ] = m(2, 2);
    s[XY] = m(0, 1), s[XZ] = m(0, 2), s[YZ] = m(1, 2);
    return s;
}

}  // namespace regosph
