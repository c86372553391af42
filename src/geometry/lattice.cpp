#include "geometry/lattice.hpp"

#include <cmath>
#include <stdexcept>

namespace regosph::geometry {

std::vector<Point> lattice_fill(const Shape& shape, double spacing, Point origin) {
    if (!(std::isfinite(spacing) && spacing > 0.0))
        throw std::invalid_argument("lattice_fill: spacing must be a positive length in m");
    const int dim = shape.dim();
    const BoundingBox b = shape.bounds();
    // Index range of lattice cells whose centres can fall inside the bounding box.
    long lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) {
        lo[d] = static_cast<long>(std::floor((b.lo[d] - origin[d]) / spacing - 0.5));
        hi[d] = static_cast<long>(std::ceil((b.hi[d] - origin[d]) / spacing - 0.5));
    }
    std::vector<Point> points;
    for (long k = lo[2]; k <= hi[2]; ++k)
        for (long j = lo[1]; j <= hi[1]; ++j)
            for (long i = lo[0]; i <= hi[0]; ++i) {
                Point p{origin[0] + (static_cast<double>(i) + 0.5) * spacing,
                        origin[1] + (static_cast<double>(j) + 0.5) * spacing,
                        dim == 3 ? origin[2] + (static_cast<double>(k) + 0.5) * spacing : 0.0};
                if (shape.contains(p)) points.push_back(p);
            }
    return points;
}

}  // namespace regosph::geometry
