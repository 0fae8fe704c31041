// A run's facts in report.json (runs[].trace, process, anomalies, detection): written and read
// back (docs/report-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/json_fields.h"
#include "report/model.h"

namespace memfloor::report {

// runs[].trace: the input, the run's time span and its record counts.
nlohmann::json traceJson(const Report& r);
void readTrace(const common::JsonFields& f, const nlohmann::json& j, const std::string& c,
               Report& r);

nlohmann::json processJson(const ProcessMeta& p);
ProcessMeta readProcess(const common::JsonFields& f, const nlohmann::json& j, const std::string& c);

// `blocks`: the run has allocator blocks (only then is blocks_outside_segments written).
nlohmann::json anomaliesJson(const Anomalies& a, bool blocks);
Anomalies readAnomalies(const common::JsonFields& f, const nlohmann::json& j, const std::string& c);

// runs[].detection: null unless the iterations were detected; absent in older reports.
nlohmann::json detectionJson(const std::optional<DetectedPeriod>& d);
std::optional<DetectedPeriod> readDetection(const common::JsonFields& f, const nlohmann::json& run,
                                            const std::string& rc);

}  // namespace memfloor::report
