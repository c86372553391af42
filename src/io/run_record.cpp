#include "io/run_record.hpp"

#include <algorithm>
#include <ctime>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace regosph::io {

namespace {

using Json = nlohmann::ordered_json;
using Fields = std::vector<std::pair<std::string, Json>>;

// Kept from the first run, or written by the continuation itself: never compared.
const std::vector<std::string> kNotCompared = {"run.start_time_s", "restarts"};

// What may change when a run continues: how far it goes and how often it writes, how many
// ranks share it, the code version (a rebuild) and the command line that asked for it.
const std::vector<std::string> kFreeFields = {
    "run.end_time_s", "run.snapshot_interval_s", "run.diagnostics_every", "run.observe_every",
    "run.checkpoint_every", "run.checkpoint_interval_s", "run.mpi_ranks", "regosph_version",
    "metadata.command"};

Json parse(const std::string& text, const std::string& what) {
    try {
        return Json::parse(text);
    } catch (const std::exception& e) {
        throw std::invalid_argument(what + " is not valid JSON (" + e.what() + ")");
    }
}

bool named_list(const Json& j) {
    return j.is_array() && !j.empty() && std::all_of(j.begin(), j.end(), [](const Json& e) {
               return e.is_object() && e.contains("name") && e["name"].is_string();
           });
}

// Leaves of a description as (path, value); lists of named objects by name, so that the
// fields of one body stay comparable when another is added.
void flatten(const Json& j, const std::string& path, Fields& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) flatten(v, path.empty() ? k : path + "." + k, out);
    } else if (named_list(j)) {
        for (const Json& e : j) flatten(e, path + "[" + e["name"].get<std::string>() + "]", out);
    } else {
        out.emplace_back(path, j);
    }
}

bool covered(const std::string& field, const std::string& prefix) {
    return field == prefix ||
           (field.starts_with(prefix) && (field[prefix.size()] == '.' || field[prefix.size()] == '['));
}

bool covered_by_any(const std::string& field, const std::vector<std::string>& prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](const std::string& p) { return covered(field, p); });
}

Fields leaves(const std::string& text, const std::string& what) {
    Fields out;
    flatten(parse(text, what), "", out);
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const auto& f) { return covered_by_any(f.first, kNotCompared); }),
              out.end());
    return out;
}

const Json* find(const Fields& fields, const std::string& path) {
    for (const auto& [p, v] : fields)
        if (p == path) return &v;
    return nullptr;
}

}  // namespace

std::vector<FieldChange> changed_fields(const std::string& recorded, const std::string& now) {
    const Fields before = leaves(recorded, "the recorded run.json");
    const Fields after = leaves(now, "the new description");
    std::vector<FieldChange> changes;
    for (const auto& [path, value] : before) {
        const Json* other = find(after, path);
        if (!other)
            changes.push_back({path, value.dump(), "absent"});
        else if (*other != value)
            changes.push_back({path, value.dump(), other->dump()});
    }
    for (const auto& [path, value] : after)
        if (!find(before, path)) changes.push_back({path, "absent", value.dump()});
    return changes;
}

std::string utc_timestamp() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

bool changes_freely(const std::string& field) { return covered_by_any(field, kFreeFields); }

void check_changes(const std::vector<FieldChange>& changes,
                   const std::vector<std::string>& allow_changes, const std::string& now,
                   const std::string& where) {
    const Fields fields = leaves(now, "the new description");
    for (const std::string& a : allow_changes) {
        const bool names_a_field = std::any_of(fields.begin(), fields.end(),
                                               [&](const auto& f) { return covered(f.first, a); });
        if (!names_a_field)
            throw std::invalid_argument(where + "allow_changes: '" + a +
                                        "' names no field of run.json (examples: "
                                        "'physics.gravity_m_s2', 'materials[soil]', 'bodies')");
    }
    std::string refused;
    for (const FieldChange& c : changes)
        if (!changes_freely(c.field) && !covered_by_any(c.field, allow_changes))
            refused += "\n  " + c.field + ": " + c.before + " -> " + c.after;
    if (!refused.empty())
        throw std::invalid_argument(
            where + "the setup differs from the one the run was started with (run.json):" +
            refused +
            "\nA continued run may change only its end time, output intervals and checkpoint "
            "settings. Restore these fields, start a new run, or allow the changes explicitly "
            "(allow_changes, --allow-change FIELD).");
}

std::string continued_description(const std::string& recorded, const std::string& now,
                                  const ContinuationRecord& r) {
    const Json old = parse(recorded, "the recorded run.json");
    Json out = parse(now, "the new description");
    if (old.contains("run") && old["run"].contains("start_time_s") && out.contains("run"))
        out["run"]["start_time_s"] = old["run"]["start_time_s"];
    Json restarts = old.contains("restarts") && old["restarts"].is_array() ? old["restarts"]
                                                                           : Json::array();
    Json changed = Json::array();
    for (const FieldChange& c : r.changes)
        changed.push_back({{"field", c.field}, {"before", c.before}, {"after", c.after}});
    restarts.push_back({{"at_utc", utc_timestamp()},
                        {"from", r.from},
                        {"time_s", r.time_s},
                        {"step", r.step},
                        {"changed", changed}});
    out["restarts"] = restarts;
    return out.dump();
}

}  // namespace regosph::io
