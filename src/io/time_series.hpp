// Diagnostics time series (t, dt, energies, momentum, ...) as a CSV file that pandas reads
// with pd.read_csv: one header line, then one line per append(), numbers in full precision.
#pragma once

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace regosph::io {

class CsvTimeSeries {
public:
    // Creates (truncates) `file` and writes the header; columns carry their units, e.g.
    // "time [s]". Throws std::runtime_error naming the file if it cannot be opened.
    // keep_rows_up_to [s] (a restart): keep the existing rows whose first column (time) is at
    // most this, drop the rest; the existing header must match.
    CsvTimeSeries(std::filesystem::path file, std::vector<std::string> columns_with_units,
                  double keep_rows_up_to = std::numeric_limits<double>::quiet_NaN());

    // Writes one row and flushes it, so that a killed run keeps every finished line. Throws
    // std::runtime_error naming the file if the row size differs from the column count or the
    // write fails (then the file is cut back to its complete rows, and no more rows go in).
    void append(const std::vector<double>& row);

    void flush();

    const std::filesystem::path& path() const { return file_; }
    const std::vector<std::string>& columns() const { return columns_; }
    // Every row of the file: those kept from before a restart and those appended since.
    const std::vector<std::vector<double>>& rows() const { return rows_; }

private:
    std::filesystem::path file_;
    std::size_t n_columns_;
    std::vector<std::string> columns_;
    std::vector<std::vector<double>> rows_;
    std::ofstream out_;
    std::uintmax_t complete_bytes_ = 0;  // size of the file up to its last complete row
};

}  // namespace regosph::io
