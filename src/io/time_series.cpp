#include "io/time_series.hpp"

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

CsvTimeSeries::CsvTimeSeries(std::filesystem::path file, std::vector<std::string> columns)
    : file_(std::move(file)), n_columns_(columns.size()), out_(file_, std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot open time series file '" + file_.string() + "'");
    if (columns.empty())
        throw std::runtime_error("time series file '" + file_.string() + "' has no columns");
    // "C" number format whatever the global locale, and 17 significant digits so that every
    // double reads back exactly.
    out_.imbue(std::locale::classic());
    out_ << std::setprecision(17);
    for (std::size_t c = 0; c < columns.size(); ++c)
        out_ << (c ? "," : "") << csv_field(columns[c]);
    out_ << '\n';
    flush();
}

void CsvTimeSeries::append(const std::vector<double>& row) {
    if (row.size() != n_columns_)
        throw std::runtime_error("time series file '" + file_.string() + "': row has " +
                                 std::to_string(row.size()) + " values, expected " +
                                 std::to_string(n_columns_));
    for (std::size_t c = 0; c < row.size(); ++c) out_ << (c ? "," : "") << row[c];
    out_ << '\n';
    flush();
}

void CsvTimeSeries::flush() {
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write time series file '" + file_.string() + "'");
}

}  // namespace regosph::io
