// Principal stresses and directions of a symmetric tensor, for the laws and boundary
// conditions that work in the principal frame (Mohr-Coulomb's return, the walls' tension cap).
#pragma once

#include <array>

#include "core/eigen.hpp"
#include "core/tensor.hpp"

namespace regosph {

// Principal values in descending order (tension positive: the first is the major tension, the
// last the most compressive) and their unit directions as columns.
struct Principal {
    std::array<double, 3> value{};
    Eigen::Matrix3d direction = Eigen::Matrix3d::Identity();
};

// Without out-of-plane shear (every 2D state) zz is principal and the in-plane pair has the
// closed form of Mohr's circle; otherwise Eigen's symmetric solver.
Principal principal_stresses(const SymTensor& s);

// sum_k value_k d_k d_k^T for the directions d_k (columns).
SymTensor from_principal(const std::array<double, 3>& value, const Eigen::Matrix3d& direction);

// True when no principal value exceeds `cap`: every principal minor of cap I - s is >= 0
// (Sylvester's criterion for semidefinite matrices), without a decomposition.
inline bool principal_values_at_most(const SymTensor& s, double cap) {
    const double xx = s[XX] - cap, yy = s[YY] - cap, zz = s[ZZ] - cap;
    return xx <= 0.0 && yy <= 0.0 && zz <= 0.0 && xx * yy - s[XY] * s[XY] >= 0.0 &&
           xx * zz - s[XZ] * s[XZ] >= 0.0 && yy * zz - s[YZ] * s[YZ] >= 0.0 &&
           xx * (yy * zz - s[YZ] * s[YZ]) - s[XY] * (s[XY] * zz - s[YZ] * s[XZ]) +
                   s[XZ] * (s[XY] * s[YZ] - yy * s[XZ]) <= 0.0;
}

}  // namespace regosph
