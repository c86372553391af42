#include "core/principal_stresses.hpp"

#include <cmath>

namespace regosph {

Principal principal_stresses(const SymTensor& s) {
    Principal p;
    if (s[XZ] == 0.0 && s[YZ] == 0.0) {
        const double mean = 0.5 * (s[XX] + s[YY]);
        const double half_difference = 0.5 * (s[XX] - s[YY]);
        const double radius = std::sqrt(half_difference * half_difference + s[XY] * s[XY]);
        // cos and sin of the major direction's angle theta from cos(2 theta) = d / r and
        // sin(2 theta) = xy / r by half-angle formulas, each from the side without cancellation.
        double c = 1.0, n = 0.0;
        if (radius > 0.0) {
            if (half_difference >= 0.0) {
                c = std::sqrt(0.5 * (radius + half_difference) / radius);
                n = s[XY] / (2.0 * radius * c);
            } else {
                n = std::copysign(std::sqrt(0.5 * (radius - half_difference) / radius), s[XY]);
                c = s[XY] / (2.0 * radius * n);
            }
        }
        const double major = mean + radius, minor = mean - radius;
        const Eigen::Vector3d u(c, n, 0.0), w(-n, c, 0.0), z(0.0, 0.0, 1.0);
        // zz is the largest, the middle or the smallest of the three.
        if (s[ZZ] >= major) {
            p.value = {s[ZZ], major, minor};
            p.direction << z, u, w;
        } else if (s[ZZ] >= minor) {
            p.value = {major, s[ZZ], minor};
            p.direction << u, z, w;
        } else {
            p.value = {major, minor, s[ZZ]};
            p.direction << u, w, z;
        }
        return p;
    }
    Eigen::Matrix3d m;
    m << s[XX], s[XY], s[XZ], s[XY], s[YY], s[YZ], s[XZ], s[YZ], s[ZZ];
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(m);
    for (int k = 0; k < 3; ++k) {  // ascending -> descending
        p.value[k] = eig.eigenvalues()[2 - k];
        p.direction.col(k) = eig.eigenvectors().col(2 - k);
    }
    return p;
}

SymTensor from_principal(const std::array<double, 3>& value, const Eigen::Matrix3d& v) {
    SymTensor s{};
    constexpr int row[kSymComponents] = {0, 1, 2, 0, 0, 1}, col[kSymComponents] = {0, 1, 2, 1, 2, 2};
    for (int c = 0; c < kSymComponents; ++c)
        s[c] = value[0] * v(row[c], 0) * v(col[c], 0) + value[1] * v(row[c], 1) * v(col[c], 1) +
               value[2] * v(row[c], 2) * v(col[c], 2);
    return s;
}

}  // namespace regosph
