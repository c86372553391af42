// Input checks shared by the geometry sources: each throws std::invalid_argument naming the
// function (`where`) and the offending field.
#pragma once

#include <string>

#include "geometry/shapes.hpp"

namespace regosph::geometry {

std::string number(double x);  // shortest readable form for messages
void require_finite(const std::string& where, const std::string& field, double x);
void require_positive(const std::string& where, const std::string& field, double x);  // [m]
void require_shape(const std::string& where, const ShapePtr& s, const std::string& field);

}  // namespace regosph::geometry
