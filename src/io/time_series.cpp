#include "io/time_series.hpp"

#include "io/json.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <iomanip>
#include <locale>
#include <stdexcept>

namespace regosph::io {

namespace {

// A header field as CSV needs it: quoted (quotes doubled) only if it holds a separator.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

CsvTimeSeries::CsvTimeSeries(std::filesystem::path file, std::vector<std::string> columns,
                             double keep_rows_up_to)
    : file_(std::move(file)), n_columns_(columns.size()), columns_(columns) {
    if (columns.empty())
        throw std::runtime_error("time series file '" + file_.string() + "' has no columns");
    std::string header;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        if (c > 0) header += ',';
        header += csv_field(columns[c]);
    }

    // Continuing a run: keep the header and the rows up to the restart time, drop later ones
    // (written after the checkpoint the run restarts from), so the series has no duplicates.
    std::vector<std::string> kept;
    if (!std::isnan(keep_rows_up_to)) {
        std::ifstream in(file_, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t pos = 0;
        bool first = true;
        // Complete lines only: a run killed while writing leaves a last line without '\n'.
        for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
            const std::string line = text.substr(pos, nl - pos);
            if (first) {
                if (line != header)
                    throw std::runtime_error("time series file '" + file_.string() +
                                             "' has other columns than this run writes");
                first = false;
                continue;
            }
            const auto fields = 1 + static_cast<std::size_t>(std::count(line.begin(), line.end(), ','));
            if (fields == n_columns_ && std::strtod(line.c_str(), nullptr) <= keep_rows_up_to)
                kept.push_back(line);
        }
    }
    // The header and the kept rows replace the file in one rename: a failure (a full disk)
    // leaves the old file as it was.
    std::string text = header + '\n';
    for (const auto& line : kept) {
        text += line + '\n';
        std::vector<double> row;
        const char* c = line.c_str();
        for (std::size_t k = 0; k < n_columns_; ++k) {
            char* end = nullptr;
            row.push_back(std::strtod(c, &end));
            c = (*end == ',') ? end + 1 : end;
        }
        rows_.push_back(std::move(row));
    }
    write_text_atomically(file_, text);
    out_.open(file_, std::ios::app);
    if (!out_)
        throw std::runtime_error("cannot open time series file '" + file_.string() +
                                 "': " + std::strerror(errno));
    // "C" number format whatever the global locale, and 17 significant digits so that every
    // double reads back exactly.
    out_.imbue(std::locale::classic());
    out_ << std::setprecision(17);
    complete_bytes_ = text.size();
}

void CsvTimeSeries::append(const std::vector<double>& row) {
    if (row.size() != n_columns_)
        throw std::runtime_error("time series file '" + file_.string() + "': row has " +
                                 std::to_string(row.size()) + " values, expected " +
                                 std::to_string(n_columns_));
    for (std::size_t c = 0; c < row.size(); ++c) out_ << (c ? "," : "") << row[c];
    out_ << '\n';
    flush();
    rows_.push_back(row);
}

void CsvTimeSeries::flush() {
    out_.flush();
    if (out_) {
        complete_bytes_ = static_cast<std::uintmax_t>(out_.tellp());
        return;
    }
    // A full disk, say: drop whatever part of a line reached the file, so that it keeps whole
    // rows only, and refuse further rows.
    const std::string reason = std::strerror(errno);
    out_.close();
    std::error_code ignored;
    std::filesystem::resize_file(file_, complete_bytes_, ignored);
    throw std::runtime_error("cannot write time series file '" + file_.string() + "': " + reason);
}

}  // namespace regosph::io
