#include "sph/body_loads.hpp"

#include <algorithm>
#include <tuple>

#include "parallel/mpi_env.hpp"

namespace regosph {

namespace {
constexpr int kShareDoubles = 8;  // id, body, force[3], torque[3]: ids and body indices are
                                  // exact in a double below 2^53
}  // namespace

std::vector<BodyLoad> sum_load_shares(std::vector<LoadShare>& shares, std::size_t n_bodies) {
    std::vector<double> packed;
    packed.reserve(shares.size() * kShareDoubles);
    for (const LoadShare& s : shares) {
        packed.push_back(static_cast<double>(s.id));
        packed.push_back(static_cast<double>(s.body));
        packed.insert(packed.end(), s.force, s.force + 3);
        packed.insert(packed.end(), s.torque, s.torque + 3);
    }
    const std::vector<double> all = mpi::allgather(packed);  // rank order; a no-op without MPI
    std::vector<LoadShare> every(all.size() / kShareDoubles);
    for (std::size_t k = 0; k < every.size(); ++k) {
        const double* r = all.data() + k * kShareDoubles;
        every[k].id = static_cast<std::int64_t>(r[0]);
        every[k].body = static_cast<std::int32_t>(r[1]);
        std::copy(r + 2, r + 5, every[k].force);
        std::copy(r + 5, r + 8, every[k].torque);
    }
    // A particle's shares all come from its owner rank and one thread, in row order: a stable
    // sort by (id, body) gives the same sequence on any decomposition.
    std::stable_sort(every.begin(), every.end(), [](const LoadShare& x, const LoadShare& y) {
        return std::tie(x.id, x.body) < std::tie(y.id, y.body);
    });
    std::vector<BodyLoad> loads(n_bodies);
    for (const LoadShare& s : every) {
        BodyLoad& L = loads[static_cast<std::size_t>(s.body)];
        for (int d = 0; d < 3; ++d) {
            L.force[d] += s.force[d];
            L.torque[d] += s.torque[d];
        }
    }
    return loads;
}

void add_scaled(std::vector<BodyLoad>& a, const std::vector<BodyLoad>& b, double w) {
    a.resize(std::max(a.size(), b.size()));
    for (std::size_t k = 0; k < b.size(); ++k)
        for (int d = 0; d < 3; ++d) {
            a[k].force[d] += w * b[k].force[d];
            a[k].torque[d] += w * b[k].torque[d];
            a[k].contact_force[d] += w * b[k].contact_force[d];
            a[k].contact_torque[d] += w * b[k].contact_torque[d];
        }
}

}  // namespace regosph
