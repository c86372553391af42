// Minimal JSON writer for run.json and reports (no parsing needed in C++), plus the helpers
// that record what a run was made with.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "materials/material.hpp"

namespace regosph::io {

class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(const std::string& k);
    JsonWriter& value(const std::string& v);
    JsonWriter& value(double v);
    JsonWriter& value(const std::vector<double>& v);
    template <class T>
    JsonWriter& field(const std::string& k, const T& v) {
        key(k);
        if constexpr (std::is_integral_v<T>)
            return value(static_cast<double>(v));
        else
            return value(v);
    }
    std::string str() const { return out_.str(); }

private:
    void separate();
    std::ostringstream out_;
    std::vector<bool> first_{true};  // per nesting level: nothing written yet
    bool after_key_ = false;
};

std::string version_string();  // "0.1.0 (git describe)"

void write_material(JsonWriter& j, const Material& m);

// Write text to `file` via a temporary name and a rename, so that readers never see a
// partial file. Throws std::runtime_error naming the file.
void write_text_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace regosph::io
