#include "parallel/redistribute.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "parallel/mpi_env.hpp"

namespace regosph::parallel {

std::int64_t redistribute(ParticleSet& p, const std::vector<int>& dest) {
    p.drop_halo();
    const int ranks = mpi::size();
    const std::size_t n = p.size();
    if (dest.size() != n) throw std::logic_error("redistribute: one destination per particle");
    if (ranks == 1) return 0;
    const int me = mpi::rank();
    std::vector<int> send_count(ranks, 0), recv_count(ranks, 0);
    std::vector<std::size_t> stay;
    std::vector<std::vector<std::size_t>> leaving(ranks);
    for (std::size_t i = 0; i < n; ++i) {
        if (dest[i] == me)
            stay.push_back(i);
        else
            leaving[dest[i]].push_back(i);
        if (dest[i] != me) ++send_count[dest[i]];
    }
    MPI_Alltoall(send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, MPI_COMM_WORLD);
    // One message per destination with every field of its particles, field by field.
    std::size_t particle_bytes = 0;
    p.for_each_array([&](auto& a) { particle_bytes += sizeof(a[0]); });
    std::vector<int> sc(ranks), rc(ranks), sd(ranks, 0), rd(ranks, 0);
    for (int r = 0; r < ranks; ++r) {
        sc[r] = send_count[r] * static_cast<int>(particle_bytes);
        rc[r] = recv_count[r] * static_cast<int>(particle_bytes);
        if (r > 0) {
            sd[r] = sd[r - 1] + sc[r - 1];
            rd[r] = rd[r - 1] + rc[r - 1];
        }
    }
    std::vector<char> out(static_cast<std::size_t>(sd[ranks - 1] + sc[ranks - 1]));
    std::vector<char> in(static_cast<std::size_t>(rd[ranks - 1] + rc[ranks - 1]));
    for (int r = 0; r < ranks; ++r) {
        char* at = out.data() + sd[r];
        p.for_each_array([&](auto& a) {
            for (const std::size_t i : leaving[r]) {
                std::memcpy(at, &a[i], sizeof(a[i]));
                at += sizeof(a[i]);
            }
        });
    }
    MPI_Alltoallv(out.data(), sc.data(), sd.data(), MPI_BYTE, in.data(), rc.data(), rd.data(),
                  MPI_BYTE, MPI_COMM_WORLD);
    const std::size_t received =
        static_cast<std::size_t>(std::accumulate(recv_count.begin(), recv_count.end(), 0L));
    const std::size_t kept = stay.size();
    p.for_each_array([&](auto& a) {
        for (std::size_t j = 0; j < kept; ++j) a[j] = a[stay[j]];  // stay[j] >= j
        a.resize(kept + received);
    });
    std::size_t next = kept;
    for (int r = 0; r < ranks; ++r) {
        const char* at = in.data() + rd[r];
        const std::size_t count = static_cast<std::size_t>(recv_count[r]);
        p.for_each_array([&](auto& a) {
            for (std::size_t j = 0; j < count; ++j) {
                std::memcpy(&a[next + j], at, sizeof(a[0]));
                at += sizeof(a[0]);
            }
        });
        next += count;
    }
    const auto bytes = static_cast<std::int64_t>(out.size());
    return bytes;
}

ParticleSet id_slice(const ParticleSet& p, std::size_t& first, std::size_t& total) {
    const std::size_t n = p.owned();
    const int ranks = mpi::size();
    total = static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(n)));
    std::int64_t lo = total > 0 ? std::numeric_limits<std::int64_t>::max() : 0, hi = -1;
    for (std::size_t i = 0; i < n; ++i) {
        lo = std::min(lo, p.id[i]);
        hi = std::max(hi, p.id[i]);
    }
    lo = mpi::min(lo);
    hi = mpi::max(hi);
    if (ranks > 1 && total > 0 && (lo != 0 || hi != static_cast<std::int64_t>(total) - 1))
        throw std::runtime_error("particle ids are not 0 ... N-1 (found " + std::to_string(lo) +
                                 " ... " + std::to_string(hi) + " for N = " +
                                 std::to_string(total) + ")");
    // Rank r's slice starts at r q + min(r, m), N = q P + m: sizes differ by one at most.
    const std::size_t q = total / ranks, m = total % ranks;
    const auto slice_start = [&](int r) {
        return static_cast<std::size_t>(r) * q + std::min<std::size_t>(r, m);
    };
    ParticleSet slice = p;
    slice.drop_halo();  // the owned particles only
    std::vector<int> dest(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        int lo_r = 0, hi_r = ranks - 1;  // the last rank whose slice starts at or before the id
        while (lo_r < hi_r) {
            const int mid = (lo_r + hi_r + 1) / 2;
            if (slice_start(mid) <= static_cast<std::size_t>(p.id[i]))
                lo_r = mid;
            else
                hi_r = mid - 1;
        }
        dest[i] = lo_r;
    }
    redistribute(slice, dest);
    first = slice_start(mpi::rank());
    std::vector<std::size_t> order(slice.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return slice.id[a] < slice.id[b]; });
    slice.permute(order);
    return slice;
}

}  // namespace regosph::parallel
