// JSON for run.json and reports through nlohmann-json (Debian nlohmann-json3-dev), plus the
// helpers that record what a run was made with.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "materials/material.hpp"

namespace regosph::io {

// Keys stay in the order they are written, so that run.json reads in the order of the setup.
// Doubles are written as the shortest text that reads back to the same double; non-finite
// numbers as null.
using Json = nlohmann::ordered_json;

std::string version_string();  // "0.1.0 (git describe)"

// A material's model and parameters for run.json, in SI units with angles in degrees.
Json describe_material(const Material& m);

// Write text to `file` via a temporary name and a rename, so that readers never see a
// partial file. Throws std::runtime_error naming the file.
void write_text_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace regosph::io
