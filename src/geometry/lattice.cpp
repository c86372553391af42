#include "geometry/lattice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include "geometry/shape_checks.hpp"

namespace regosph::geometry {

namespace {

using Index = std::array<long, 3>;

struct IndexHash {
    std::size_t operator()(const Index& i) const {
        return static_cast<std::size_t>(i[0] * 73856093L ^ i[1] * 19349663L ^ i[2] * 83492791L);
    }
};

Lattice resolve(Lattice lattice, int dim) {
    if (lattice == Lattice::automatic) return dim == 2 ? Lattice::square : Lattice::cubic;
    if (dim == 3 && lattice != Lattice::cubic)
        throw std::invalid_argument(std::string("lattice: '") + lattice_name(lattice) +
                                    "' is a 2D lattice; a 3D shape takes 'cubic'");
    if (dim == 2 && lattice == Lattice::cubic)
        throw std::invalid_argument("lattice: 'cubic' is a 3D lattice; a 2D shape takes 'square' or 'hexagonal'");
    return lattice;
}

// One lattice: its sites by integer index, the index range that covers a box, and the site
// whose cell (Voronoi cell) holds a point.
class Grid {
public:
    Grid(Lattice kind, double spacing, const Point& origin, int dim)
        : kind_(kind), s_(spacing), o_(origin), dim_(dim) {
        if (kind_ == Lattice::hexagonal) {
            a_ = spacing * std::sqrt(2.0 / std::sqrt(3.0));  // nearest-neighbour distance
            b_ = a_ * std::sqrt(3.0) / 2.0;                   // row pitch
        }
    }

    Point site(long i, long j, long k) const {
        if (kind_ == Lattice::hexagonal)
            return {o_[0] + (static_cast<double>(i) + 0.25 + 0.5 * parity(j)) * a_,
                    o_[1] + (static_cast<double>(j) + 0.5) * b_, 0.0};
        return {o_[0] + (static_cast<double>(i) + 0.5) * s_, o_[1] + (static_cast<double>(j) + 0.5) * s_,
                dim_ == 3 ? o_[2] + (static_cast<double>(k) + 0.5) * s_ : 0.0};
    }

    // Index ranges [lo, hi] whose sites include every site inside `b`; throws when the box holds
    // more than kMaxLatticeSites sites.
    void range(const BoundingBox& b, const std::string& where, Index& lo, Index& hi) const {
        lo = hi = Index{0, 0, 0};
        double pitch[3] = {s_, s_, s_}, shift_lo[3] = {0.5, 0.5, 0.5}, shift_hi[3] = {0.5, 0.5, 0.5};
        if (kind_ == Lattice::hexagonal) {
            pitch[0] = a_, pitch[1] = b_;
            shift_lo[0] = 0.75, shift_hi[0] = 0.25;  // x offsets range over [1/4, 3/4] a
        }
        double sites = 1.0;
        double flo[3] = {0, 0, 0}, fhi[3] = {0, 0, 0};
        for (int d = 0; d < dim_; ++d) {
            flo[d] = std::floor((b.lo[d] - o_[d]) / pitch[d] - shift_lo[d]);
            fhi[d] = std::ceil((b.hi[d] - o_[d]) / pitch[d] - shift_hi[d]);
            if (!(std::isfinite(flo[d]) && std::isfinite(fhi[d])))
                throw std::invalid_argument(where + ": the shape's bounding box is not finite");
            sites *= std::max(fhi[d] - flo[d] + 1.0, 0.0);
        }
        if (sites > kMaxLatticeSites)
            throw std::invalid_argument(where + ": spacing = " + number(s_) + " m would put " + number(sites) +
                                        " lattice sites in the shape's bounding box (limit " +
                                        number(kMaxLatticeSites) + "); use a larger spacing");
        for (int d = 0; d < dim_; ++d) {
            lo[d] = static_cast<long>(flo[d]);
            hi[d] = static_cast<long>(fhi[d]);
        }
    }

    // Index of the site whose cell holds p (square/cubic: the half-open cell; hexagonal: the
    // nearest site of the two rows around p, which contain it).
    Index cell_of(const Point& p) const {
        if (kind_ != Lattice::hexagonal) {
            Index c{0, 0, 0};
            for (int d = 0; d < dim_; ++d) c[d] = static_cast<long>(std::floor((p[d] - o_[d]) / s_));
            return c;
        }
        const long j0 = static_cast<long>(std::floor((p[1] - o_[1]) / b_ - 0.5));
        Index best{0, 0, 0};
        double best_d2 = INFINITY;
        for (long j = j0; j <= j0 + 1; ++j) {
            const long i = std::lround((p[0] - o_[0]) / a_ - 0.25 - 0.5 * parity(j));
            const Point q = site(i, j, 0);
            const double d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]);
            if (d2 < best_d2) best_d2 = d2, best = {i, j, 0};
        }
        return best;
    }

private:
    static double parity(long j) { return static_cast<double>(((j % 2) + 2) % 2); }
    Lattice kind_;
    double s_, a_ = 0.0, b_ = 0.0;
    Point o_;
    int dim_;
};

void check_fill_inputs(const std::string& where, double spacing, const Point& origin) {
    require_positive(where, "spacing", spacing);
    for (int d = 0; d < 3; ++d) require_finite(where, std::string("origin.") + "xyz"[d], origin[d]);
}

// Calls visit(index, site) for every site of the grid in the box (x fastest, then y, then z).
template <class Visit>
void for_each_site(const Grid& grid, const BoundingBox& box, const std::string& where, Visit&& visit) {
    Index lo, hi;
    grid.range(box, where, lo, hi);
    for (long k = lo[2]; k <= hi[2]; ++k)
        for (long j = lo[1]; j <= hi[1]; ++j)
            for (long i = lo[0]; i <= hi[0]; ++i) visit(Index{i, j, k}, grid.site(i, j, k));
}

BoundingBox box_union(BoundingBox a, const BoundingBox& b) {
    for (int d = 0; d < 3; ++d) {
        a.lo[d] = std::min(a.lo[d], b.lo[d]);
        a.hi[d] = std::max(a.hi[d], b.hi[d]);
    }
    return a;
}

}  // namespace

Lattice parse_lattice(const std::string& name) {
    if (name == "auto") return Lattice::automatic;
    if (name == "square") return Lattice::square;
    if (name == "hexagonal") return Lattice::hexagonal;
    if (name == "cubic") return Lattice::cubic;
    throw std::invalid_argument("lattice: '" + name + "' is not one of 'square', 'hexagonal', 'cubic'");
}

const char* lattice_name(Lattice lattice) {
    switch (lattice) {
        case Lattice::automatic: return "auto";
        case Lattice::square: return "square";
        case Lattice::hexagonal: return "hexagonal";
        case Lattice::cubic: return "cubic";
    }
    return "?";
}

std::size_t for_each_lattice_point(const Shape& shape, double spacing, Point origin,
                                   Lattice lattice, const std::function<void(const Point&)>& visit) {
    check_fill_inputs("lattice_fill", spacing, origin);
    const int dim = shape.dim();
    const Grid grid(resolve(lattice, dim), spacing, origin, dim);
    std::size_t count = 0;
    for_each_site(grid, shape.bounds(), "lattice_fill", [&](const Index&, const Point& p) {
        if (!shape.contains(p)) return;
        visit(p);
        ++count;
    });
    return count;
}

std::vector<Point> lattice_fill(const Shape& shape, double spacing, Point origin, Lattice lattice) {
    std::vector<Point> points;
    for_each_lattice_point(shape, spacing, origin, lattice,
                           [&](const Point& p) { points.push_back(p); });
    return points;
}

std::vector<ZoneFill> graded_fill(const std::vector<Zone>& zones, Lattice lattice, Point origin) {
    const std::string where = "graded_fill";
    if (zones.empty()) throw std::invalid_argument(where + ": zones: give at least one (shape, spacing)");
    const std::size_t n = zones.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::string field = "zones[" + std::to_string(k) + "]";
        require_shape(where, zones[k].shape, field + ".shape");
        require_positive(where, field + ".spacing", zones[k].spacing);
        if (zones[k].shape->dim() != zones[0].shape->dim())
            throw std::invalid_argument(where + ": " + field + ".shape: all zones must be 2D or all 3D");
        if (k > 0 && zones[k].spacing < zones[k - 1].spacing)
            throw std::invalid_argument(where + ": " + field + ".spacing = " + number(zones[k].spacing) +
                                        " m is finer than zones[" + std::to_string(k - 1) + "].spacing = " +
                                        number(zones[k - 1].spacing) + " m (order zones from fine to coarse)");
    }
    check_fill_inputs(where, zones[0].spacing, origin);
    const int dim = zones[0].shape->dim();
    const Lattice kind = resolve(lattice, dim);

    std::vector<Grid> grids;
    for (const Zone& z : zones) grids.emplace_back(kind, z.spacing, origin, dim);
    std::vector<std::unordered_set<Index, IndexHash>> taken(n);  // accepted sites per zone
    std::vector<ZoneFill> out(n);
    const double coarsest = zones[n - 1].spacing;

    // Coarse to fine: each zone knows the cells its coarser neighbours occupy.
    for (std::size_t k = n; k-- > 0;) {
        // Sites of zone k lie in its own shape, or near the finer shapes inside a coarser one.
        BoundingBox finer = zones[0].shape->bounds();
        for (std::size_t i = 1; i <= k; ++i) finer = box_union(finer, zones[i].shape->bounds());
        for (int d = 0; d < dim; ++d) finer.lo[d] -= coarsest, finer.hi[d] += coarsest;
        BoundingBox coarser = zones[k].shape->bounds();
        for (std::size_t j = k + 1; j < n; ++j) coarser = box_union(coarser, zones[j].shape->bounds());
        BoundingBox box = box_union(zones[k].shape->bounds(), finer);
        for (int d = 0; d < 3; ++d)
            box.lo[d] = std::max(box.lo[d], coarser.lo[d]), box.hi[d] = std::min(box.hi[d], coarser.hi[d]);

        out[k].spacing = zones[k].spacing;
        const std::string zone_where = where + ": zones[" + std::to_string(k) + "]";
        for_each_site(grids[k], box, zone_where, [&](const Index& index, const Point& p) {
            for (std::size_t i = 0; i < k; ++i)
                if (zones[i].shape->contains(p)) return;  // a finer zone's point
            std::size_t owner = k;
            while (owner < n && !zones[owner].shape->contains(p)) ++owner;
            if (owner == n) return;  // outside every zone
            if (owner > k) {
                // In a coarser zone's region: only to fill the uncovered rim next to the finer
                // shapes, never along the coarser zone's outer boundary.
                double d = INFINITY;
                for (std::size_t i = 0; i <= k; ++i) d = std::min(d, zones[i].shape->signed_distance(p));
                if (!(d < zones[owner].spacing)) return;
            }
            for (std::size_t j = k + 1; j < n; ++j)
                if (taken[j].count(grids[j].cell_of(p))) return;  // inside an accepted coarser cell
            taken[k].insert(index);
            out[k].positions.push_back(p);
        });
    }
    return out;
}

}  // namespace regosph::geometry
