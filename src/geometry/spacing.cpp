#include "geometry/spacing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

namespace regosph::geometry {

double median_nearest_distance(const std::vector<Point>& points, int dim, double search_radius,
                               std::size_t samples) {
    const std::size_t n = points.size();
    if (n < 2) return std::numeric_limits<double>::quiet_NaN();
    // Cells as wide as the search radius: a neighbour within it lies in the 3^dim cells around.
    const auto cell = [&](const Point& x, int d) {
        return static_cast<std::int64_t>(std::floor(x[d] / search_radius));
    };
    const auto key = [](std::int64_t i, std::int64_t j, std::int64_t k) {
        return (i * 73856093) ^ (j * 19349663) ^ (k * 83492791);
    };
    std::unordered_multimap<std::int64_t, std::size_t> grid;
    grid.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        grid.emplace(key(cell(points[i], 0), cell(points[i], 1), dim == 3 ? cell(points[i], 2) : 0), i);
    const std::size_t stride = std::max<std::size_t>(1, n / std::max<std::size_t>(samples, 1));
    const int kz = dim == 3 ? 1 : 0;
    std::vector<double> nearest;
    for (std::size_t i = 0; i < n; i += stride) {
        const Point& x = points[i];
        double best = std::numeric_limits<double>::infinity();
        for (int a = -1; a <= 1; ++a)
            for (int b = -1; b <= 1; ++b)
                for (int c = -kz; c <= kz; ++c) {
                    const auto range = grid.equal_range(
                        key(cell(x, 0) + a, cell(x, 1) + b, dim == 3 ? cell(x, 2) + c : 0));
                    for (auto it = range.first; it != range.second; ++it) {
                        if (it->second == i) continue;
                        double r2 = 0.0;
                        for (int d = 0; d < dim; ++d) r2 += (points[it->second][d] - x[d]) * (points[it->second][d] - x[d]);
                        best = std::min(best, std::sqrt(r2));
                    }
                }
        nearest.push_back(best <= search_radius ? best : std::numeric_limits<double>::infinity());
    }
    const auto mid = nearest.begin() + static_cast<std::ptrdiff_t>(nearest.size() / 2);
    std::nth_element(nearest.begin(), mid, nearest.end());
    return *mid;
}

}  // namespace regosph::geometry
