#include "parallel/domain.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "parallel/mpi_env.hpp"
#include "parallel/redistribute.hpp"

namespace regosph::parallel {

namespace {

constexpr int kTagHaloCount = 7101;
constexpr int kTagHaloData = 7102;
constexpr int kTagHaloUpdate = 7103;
// Bisection steps per cut: the bracket shrinks to 2^-52 of the particles' extent.
constexpr int kCutIterations = 52;

double weight(const ParticleSet& p, std::size_t i) {
    return p.kind[i] == ParticleKind::dynamic ? 1.0 : Domain::kBoundaryWeight;
}

// Axis-aligned box of a rank's owned particles; empty when lo > hi.
struct Box {
    double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
    double hi[3] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity()};
    bool empty() const { return lo[0] > hi[0]; }
};

// Squared distance from point x to box b (0 inside), over the first dim axes.
double distance2(const double* x, const Box& b, int dim) {
    double d2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double gap = std::max({0.0, b.lo[d] - x[d], x[d] - b.hi[d]});
        d2 += gap * gap;
    }
    return d2;
}

// Squared distance between two boxes; symmetric bit for bit, so that two ranks agree on
// whether they are halo partners.
double distance2(const Box& a, const Box& b, int dim) {
    double d2 = 0.0;
    for (int d = 0; d < dim; ++d) {
        const double gap = std::max({0.0, b.lo[d] - a.hi[d], a.lo[d] - b.hi[d]});
        d2 += gap * gap;
    }
    return d2;
}

// Appends the raw bytes of a[i] for every i in `list` to buf.
template <class T>
void pack(std::vector<char>& buf, const std::vector<T>& a, const std::vector<std::uint32_t>& list) {
    const std::size_t at = buf.size();
    buf.resize(at + list.size() * sizeof(T));
    char* out = buf.data() + at;
    for (const std::uint32_t i : list) {
        std::memcpy(out, &a[i], sizeof(T));
        out += sizeof(T);
    }
}

// Reads count values from buf at `offset` into a[first], a[first + 1], ...
template <class T>
void unpack_range(const std::vector<char>& buf, std::size_t& offset, std::vector<T>& a,
                  std::size_t first, std::size_t count) {
    if (count > 0) std::memcpy(&a[first], buf.data() + offset, count * sizeof(T));
    offset += count * sizeof(T);
}

// Reads values from buf at `offset` into a[i] for every i in `list`.
template <class T>
void unpack_list(const std::vector<char>& buf, std::size_t& offset, std::vector<T>& a,
                 const std::vector<std::uint32_t>& list) {
    const char* in = buf.data() + offset;
    for (const std::uint32_t i : list) {
        std::memcpy(&a[i], in, sizeof(T));
        in += sizeof(T);
    }
    offset += list.size() * sizeof(T);
}

// Calls fn(array) for the arrays update_halo refreshes: the fields of the table
// (core/fields.hpp) marked for this kind of update, each with the components that can be
// non-zero in p.dim dimensions, in table order.
template <class Fn>
void for_each_halo_field(ParticleSet& p, HaloFields fields, Fn&& fn) {
    const unsigned use = fields == HaloFields::dynamic_state ? kHaloState : kHaloBoundary;
    for_each_field(p, [&](const FieldInfo& f, auto& a) {
        if (!(f.use & use)) return;
        for (const int c : active_components(kComponents<std::remove_cvref_t<decltype(a)>>, p.dim))
            fn(component(a, static_cast<std::size_t>(c)));
    });
}

}  // namespace

double Domain::load(const ParticleSet& p) {
    double w = 0.0;
    for (std::size_t i = 0; i < p.owned(); ++i) w += weight(p, i);
    return w;
}

int Domain::owner(const std::array<double, 3>& x) const {
    if (tree_.empty()) return 0;
    int k = 0;
    while (tree_[k].axis >= 0) k = tree_[k].child[x[tree_[k].axis] < tree_[k].cut ? 0 : 1];
    return tree_[k].rank_lo;
}

// The cuts of one level of the bisection: each active node (slot s of `active`) is cut across
// the longest extent of its particles so that its lower ranks get their share of the weight,
// by bisection of the cut's position (kCutIterations halvings); over all ranks when global.
// upper[s]: the smallest cut found with the lower share reached.
Domain::LevelCuts Domain::level_cuts(const ParticleSet& p, const std::vector<int>& node_of,
                                     const std::vector<int>& slot_of,
                                     const std::vector<int>& active, bool global) const {
    const int dim = p.dim;
    const std::size_t n = p.owned(), K = active.size();
    std::vector<double> lo(3 * K, std::numeric_limits<double>::infinity());
    std::vector<double> hi(3 * K, -std::numeric_limits<double>::infinity());
    std::vector<double> total(K, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const int s = slot_of[node_of[i]];
        if (s < 0) continue;
        for (int d = 0; d < dim; ++d) {
            lo[3 * s + d] = std::min(lo[3 * s + d], p.x[d][i]);
            hi[3 * s + d] = std::max(hi[3 * s + d], p.x[d][i]);
        }
        total[s] += weight(p, i);
    }
    if (global) {
        mpi::min_in_place(lo);
        mpi::max_in_place(hi);
        mpi::sum_in_place(total);
    }
    LevelCuts cuts{std::vector<int>(K, 0), std::vector<double>(K)};
    std::vector<int>& axis = cuts.axis;
    std::vector<double> a(K), target(K);
    std::vector<double>& b = cuts.upper;
    for (std::size_t s = 0; s < K; ++s) {
        const Node& node = tree_[active[s]];
        for (int d = 1; d < dim; ++d)
            if (hi[3 * s + d] - lo[3 * s + d] > hi[3 * s + axis[s]] - lo[3 * s + axis[s]])
                axis[s] = d;
        const bool empty = !(lo[3 * s] <= hi[3 * s]);
        a[s] = empty ? 0.0 : lo[3 * s + axis[s]];
        b[s] = empty ? 0.0 : hi[3 * s + axis[s]];
        const int mid = (node.rank_lo + node.rank_hi) / 2;
        target[s] = total[s] * (mid - node.rank_lo) / (node.rank_hi - node.rank_lo);
    }
    std::vector<double> below(K);
    for (int it = 0; it < kCutIterations; ++it) {
        std::fill(below.begin(), below.end(), 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const int s = slot_of[node_of[i]];
            if (s >= 0 && p.x[axis[s]][i] < 0.5 * (a[s] + b[s])) below[s] += weight(p, i);
        }
        if (global) mpi::sum_in_place(below);
        for (std::size_t s = 0; s < K; ++s) {
            const double cut = 0.5 * (a[s] + b[s]);
            (below[s] < target[s] ? a[s] : b[s]) = cut;
        }
    }
    return cuts;
}

void Domain::compute_tree(const ParticleSet& p, bool global) {
    const int ranks = mpi::size();
    const std::size_t n = p.owned();
    tree_.assign(1, Node{0, ranks});
    std::vector<int> node_of(n, 0);
    std::vector<int> frontier{0};
    ++stats_.rebalances;
    for (;;) {
        // Nodes of more than one rank are cut at this level; slot_of maps node -> slot.
        std::vector<int> active;
        for (const int k : frontier)
            if (tree_[k].rank_hi - tree_[k].rank_lo > 1) active.push_back(k);
        if (active.empty()) break;
        const std::size_t K = active.size();
        std::vector<int> slot_of(tree_.size(), -1);
        for (std::size_t s = 0; s < K; ++s) slot_of[active[s]] = static_cast<int>(s);

        const LevelCuts cuts = level_cuts(p, node_of, slot_of, active, global);
        const std::vector<int>& axis = cuts.axis;
        const std::vector<double>& b = cuts.upper;
        std::vector<int> next;
        for (std::size_t s = 0; s < K; ++s) {
            const int k = active[s];
            const int mid = (tree_[k].rank_lo + tree_[k].rank_hi) / 2;
            const int left = static_cast<int>(tree_.size());
            tree_.push_back(Node{tree_[k].rank_lo, mid});
            tree_.push_back(Node{mid, tree_[k].rank_hi});
            tree_[k].axis = axis[s];
            tree_[k].cut = b[s];  // the smallest cut found with the lower share reached
            tree_[k].child[0] = left;
            tree_[k].child[1] = left + 1;
            next.push_back(left);
            next.push_back(left + 1);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const Node& node = tree_[node_of[i]];
            if (node.axis >= 0) node_of[i] = node.child[p.x[node.axis][i] < node.cut ? 0 : 1];
        }
        frontier = std::move(next);
    }
}

Share setup_share(std::size_t n) {
    const auto ranks = static_cast<std::size_t>(mpi::size()), r = static_cast<std::size_t>(mpi::rank());
    const std::size_t q = n / ranks, m = n % ranks;
    const auto start = [&](std::size_t k) { return k * q + std::min(k, m); };
    return {start(r), start(r + 1)};
}

void Domain::distribute(ParticleSet& p, bool split) {
    p.drop_halo();
    distributed_ = true;
    if (mpi::size() == 1) {
        tree_.assign(1, Node{0, 1});
        return;
    }
    // Whole: every rank computes the same tree alone. Split: from global sums, the same tree
    // (the weights are quarters, their sums exact in any order).
    compute_tree(p, split);
    const int me = mpi::rank();
    if (split) {
        std::vector<int> dest(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) dest[i] = owner({p.x[0][i], p.x[1][i], p.x[2][i]});
        stats_.bytes_sent += redistribute(p, dest);
    }
    std::vector<std::size_t> keep;  // in id order
    for (std::size_t i = 0; i < p.size(); ++i)
        if (owner({p.x[0][i], p.x[1][i], p.x[2][i]}) == me) keep.push_back(i);
    if (split)
        std::sort(keep.begin(), keep.end(), [&](std::size_t a, std::size_t b) { return p.id[a] < p.id[b]; });
    p.permute(keep);
    p.resize(keep.size());
    p.for_each_array([](auto& a) { a.shrink_to_fit(); });  // the rest of the set is gone
}

void Domain::migrate(ParticleSet& p) {
    p.drop_halo();
    const int ranks = mpi::size();
    if (ranks == 1) return;
    ++stats_.migrations;
    const double local = load(p);
    const double heaviest = mpi::max(local), mean = mpi::sum(local) / ranks;
    if (heaviest > (1.0 + kImbalanceTolerance) * mean) compute_tree(p, true);

    const std::size_t n = p.size();
    std::vector<int> dest(n);
    for (std::size_t i = 0; i < n; ++i) dest[i] = owner({p.x[0][i], p.x[1][i], p.x[2][i]});
    const int me = mpi::rank();
    stats_.particles_migrated += std::count_if(dest.begin(), dest.end(), [me](int r) { return r != me; });
    stats_.bytes_sent += redistribute(p, dest);
}

// The ranks whose particles' bounding box lies within `reach` of this rank's (partners_), and
// the owned particles within reach of each partner's box, all of them and by kind (send_,
// send_kind_).
void Domain::select_halo(const ParticleSet& p, double reach) {
    const int ranks = mpi::size(), me = mpi::rank(), dim = p.dim;
    const std::size_t n = p.owned();
    Box mine;
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < dim; ++d) {
            mine.lo[d] = std::min(mine.lo[d], p.x[d][i]);
            mine.hi[d] = std::max(mine.hi[d], p.x[d][i]);
        }
    std::vector<Box> boxes(ranks);
    MPI_Allgather(&mine, sizeof(Box), MPI_BYTE, boxes.data(), sizeof(Box), MPI_BYTE,
                  MPI_COMM_WORLD);
    const double reach2 = reach * reach;
    for (int r = 0; r < ranks; ++r)
        if (r != me && !mine.empty() && !boxes[r].empty() &&
            distance2(mine, boxes[r], dim) < reach2)
            partners_.push_back(r);

    const std::size_t k_partners = partners_.size();
    send_.resize(k_partners);
    for (auto& s : send_kind_) s.resize(k_partners);
    for (std::size_t k = 0; k < k_partners; ++k) {
        const Box& other = boxes[partners_[k]];
        for (std::size_t i = 0; i < n; ++i) {
            const double x[3] = {p.x[0][i], p.x[1][i], p.x[2][i]};
            if (distance2(x, other, dim) >= reach2) continue;
            send_[k].push_back(static_cast<std::uint32_t>(i));
            send_kind_[p.kind[i] == ParticleKind::dynamic ? 0 : 1][k].push_back(
                static_cast<std::uint32_t>(i));
        }
    }
}

void Domain::build_halo(ParticleSet& p, double reach) {
    p.drop_halo();
    partners_.clear();
    send_.clear();
    for (auto& s : send_kind_) s.clear();
    recv_count_.clear();
    for (auto& r : recv_kind_) r.clear();
    const int ranks = mpi::size();
    if (ranks == 1) return;
    ++stats_.halo_builds;
    const std::size_t n = p.owned();
    select_halo(p, reach);
    const std::size_t k_partners = partners_.size();

    // Counts, then every field of the halo particles in one message per partner.
    std::vector<std::uint64_t> out_count(k_partners), in_count(k_partners);
    std::vector<MPI_Request> req;
    for (std::size_t k = 0; k < k_partners; ++k) {
        out_count[k] = send_[k].size();
        req.emplace_back();
        MPI_Irecv(&in_count[k], 1, MPI_UINT64_T, partners_[k], kTagHaloCount, MPI_COMM_WORLD,
                  &req.back());
        req.emplace_back();
        MPI_Isend(&out_count[k], 1, MPI_UINT64_T, partners_[k], kTagHaloCount, MPI_COMM_WORLD,
                  &req.back());
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    req.clear();

    std::size_t bytes_per_particle = 0;
    p.for_each_array([&](auto& a) { bytes_per_particle += sizeof(a[0]); });
    std::vector<std::vector<char>> out(k_partners), in(k_partners);
    for (std::size_t k = 0; k < k_partners; ++k) {
        p.for_each_array([&](auto& a) { pack(out[k], a, send_[k]); });
        in[k].resize(in_count[k] * bytes_per_particle);
        req.emplace_back();
        MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_BYTE, partners_[k],
                  kTagHaloData, MPI_COMM_WORLD, &req.back());
        req.emplace_back();
        MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_BYTE, partners_[k],
                  kTagHaloData, MPI_COMM_WORLD, &req.back());
        stats_.bytes_sent += static_cast<std::int64_t>(out[k].size());
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);

    std::size_t halo = 0;
    for (const auto c : in_count) halo += c;
    p.resize(n + halo);
    p.n_halo = halo;
    stats_.halo_particles = static_cast<std::int64_t>(halo);
    stats_.halo_partners = static_cast<std::int64_t>(k_partners);
    std::size_t first = n;
    for (std::size_t k = 0; k < k_partners; ++k) {
        std::size_t offset = 0;
        p.for_each_array([&](auto& a) { unpack_range(in[k], offset, a, first, in_count[k]); });
        recv_count_.push_back(in_count[k]);
        for (auto& r : recv_kind_) r.emplace_back();
        for (std::size_t j = first; j < first + in_count[k]; ++j)
            recv_kind_[p.kind[j] == ParticleKind::dynamic ? 0 : 1][k].push_back(
                static_cast<std::uint32_t>(j));
        first += in_count[k];
    }
}

void Domain::update_halo_values(const ParticleSet& p, std::vector<double>& values, int stride) {
    const std::size_t k_partners = partners_.size();
    if (k_partners == 0) return;
    if (values.size() != p.size() * static_cast<std::size_t>(stride))
        throw std::invalid_argument("update_halo_values: " + std::to_string(values.size()) +
                                    " values for " + std::to_string(p.size()) +
                                    " particles of stride " + std::to_string(stride));
    ++stats_.halo_updates;
    const auto s = static_cast<std::size_t>(stride);
    std::vector<std::vector<double>> out(k_partners), in(k_partners);
    std::vector<MPI_Request> req;
    for (std::size_t k = 0; k < k_partners; ++k) {
        in[k].resize(recv_kind_[0][k].size() * s);
        req.emplace_back();
        MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_DOUBLE, partners_[k],
                  kTagHaloUpdate, MPI_COMM_WORLD, &req.back());
        for (const std::uint32_t i : send_kind_[0][k])
            out[k].insert(out[k].end(), values.begin() + i * s, values.begin() + (i + 1) * s);
        req.emplace_back();
        MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_DOUBLE, partners_[k],
                  kTagHaloUpdate, MPI_COMM_WORLD, &req.back());
        const auto bytes = static_cast<std::int64_t>(out[k].size() * sizeof(double));
        stats_.bytes_sent += bytes;
        stats_.halo_bytes_sent += bytes;
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    for (std::size_t k = 0; k < k_partners; ++k)
        for (std::size_t j = 0; j < recv_kind_[0][k].size(); ++j)
            std::copy(in[k].begin() + j * s, in[k].begin() + (j + 1) * s,
                      values.begin() + recv_kind_[0][k][j] * s);
}

void Domain::update_halo(ParticleSet& p, HaloFields fields) {
    const std::size_t k_partners = partners_.size();
    if (k_partners == 0) return;
    ++stats_.halo_updates;
    const int kind = fields == HaloFields::dynamic_state ? 0 : 1;
    std::size_t bytes_per_particle = 0;
    for_each_halo_field(p, fields, [&](auto& a) { bytes_per_particle += sizeof(a[0]); });
    std::vector<std::vector<char>> out(k_partners), in(k_partners);
    std::vector<MPI_Request> req;
    for (std::size_t k = 0; k < k_partners; ++k) {
        in[k].resize(recv_kind_[kind][k].size() * bytes_per_particle);
        req.emplace_back();
        MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_BYTE, partners_[k],
                  kTagHaloUpdate, MPI_COMM_WORLD, &req.back());
        for_each_halo_field(p, fields, [&](auto& a) { pack(out[k], a, send_kind_[kind][k]); });
        req.emplace_back();
        MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_BYTE, partners_[k],
                  kTagHaloUpdate, MPI_COMM_WORLD, &req.back());
        stats_.bytes_sent += static_cast<std::int64_t>(out[k].size());
        stats_.halo_bytes_sent += static_cast<std::int64_t>(out[k].size());
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    for (std::size_t k = 0; k < k_partners; ++k) {
        std::size_t offset = 0;
        for_each_halo_field(p, fields,
                            [&](auto& a) { unpack_list(in[k], offset, a, recv_kind_[kind][k]); });
    }
}

}  // namespace regosph::parallel
