// run.json across restarts. A continued run (a restart from a checkpoint, or a second run() into
// the same directory in the same process) compares its description with the one run.json
// recorded: physics and setup must not change unless the user asks for it, while the end time,
// the output intervals, the rank count, the code version and the command line may. Each
// continuation is then recorded in run.json ("restarts": when, from where, what changed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace regosph::io {

struct FieldChange {
    // Path of the field in run.json; list entries are named by their "name":
    // "physics.gravity_m_s2", "materials[soil].friction_angle_deg", "bodies[brush]".
    std::string field;
    std::string before, after;  // JSON text; "absent" when the field is new or gone
};

// The fields whose values differ between two descriptions (JSON text), in the order of the
// recorded one. The recorded start time and restarts are not compared.
std::vector<FieldChange> changed_fields(const std::string& recorded, const std::string& now);

// Whether a continued run may change `field` without being asked (see above).
bool changes_freely(const std::string& field);

// Throws std::invalid_argument listing every change that neither changes freely nor is
// allowed by `allow_changes` (each entry a field path, or a prefix of paths ending before a
// '.' or '[': "physics", "materials[soil]"). An entry that names no field of `now` is an
// error too (a misspelt allowance would otherwise pass unnoticed). `where` opens the message.
void check_changes(const std::vector<FieldChange>& changes,
                   const std::vector<std::string>& allow_changes, const std::string& now,
                   const std::string& where);

struct ContinuationRecord {
    std::string from;       // the checkpoint file, or "the state in memory (same process)"
    double time_s = 0.0;    // where the run continues
    std::int64_t step = 0;
    std::vector<FieldChange> changes;
};

// The run.json of the continued run: the new description with the recorded start time, and
// the recorded restarts followed by this one (with the current UTC time).
std::string continued_description(const std::string& recorded, const std::string& now,
                                  const ContinuationRecord& record);

// The current time as UTC ISO 8601, "2026-11-24T04:45:11Z".
std::string utc_timestamp();

}  // namespace regosph::io
