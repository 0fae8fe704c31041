// Tests of cli/gate_command: reports on disk in, exit code and files out.
#include "cli/gate_command.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/command.h"
#include "common/error.h"
#include "tests/reports/report_doc_builder.h"
#include "tests/scratch_dir.h"

using namespace memfloor;

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("gate_test") {}
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json report(uint64_t idle_floor) {
  testing::MemorySpec m;
  m.idle_floor = idle_floor;
  m.peak = 2 * idle_floor;
  return testing::oneRunReport(m);
}

// runGate with the table and annotations sent to a scratch file.
int gate(const cli::GateRequest& request) {
  std::FILE* sink = std::tmpfile();
  int code = cli::runGate(request, sink);
  std::fclose(sink);
  return code;
}

}  // namespace

TEST_CASE("gate command: exit 0 on pass, 1 on regression, with JSON and Markdown written") {
  TempDir dir;
  cli::GateRequest request;
  request.baseline_path = dir.write("base.json", report(100 * kMiB).dump());
  request.current_path = dir.write("same.json", report(100 * kMiB).dump());
  request.json_path = dir.file("gate.json");
  request.markdown_path = dir.file("summary.md");
  request.annotations = true;
  CHECK(gate(request) == cli::kExitOk);
  CHECK(nlohmann::json::parse(read(request.json_path)).at("verdict") == "pass");

  request.current_path = dir.write("grown.json", report(110 * kMiB).dump());
  CHECK(gate(request) == cli::kExitFinding);
  nlohmann::json result = nlohmann::json::parse(read(request.json_path));
  CHECK(result.at("schema") == "memfloor.gate/1");
  CHECK(result.at("verdict") == "regression");
  CHECK(result.at("current") == request.current_path);
  // The Markdown file is appended to, as $GITHUB_STEP_SUMMARY is.
  std::string md = read(request.markdown_path);
  CHECK(md.find("### memfloor gate: pass") < md.find("### memfloor gate: **regression**"));

  request.thresholds.idle_floor = {20 * kMiB, 0};  // +10 MiB
  request.thresholds.peak = {20 * kMiB, 0};        // +20 MiB
  CHECK(gate(request) == cli::kExitOk);
}

TEST_CASE("gate command: an unusable baseline or current is an error, never a pass") {
  TempDir dir;
  cli::GateRequest request;
  request.current_path = dir.write("cur.json", report(kMiB).dump());
  auto fails = [&](const std::string& baseline, const std::string& text) {
    request.baseline_path = baseline;
    CHECK_THROWS_AS(gate(request), Error);
    CHECK_THROWS_WITH(gate(request),
                      Catch::Contains("baseline report: " + baseline) && Catch::Contains(text));
  };
  fails(dir.file("missing.json"), "cannot open");
  fails(dir.write("corrupt.json", R"({"schema": "memfloor.report/2", "ru)"), "not JSON");
  fails(dir.write("v1.json", R"({"schema": "memfloor.report/1", "trace": {}})"),
        "memfloor.report/1");
  fails(dir.write("norun.json", R"({"schema": "memfloor.report/2"})"), "runs: missing");

  request.baseline_path = request.current_path;
  request.current_path = dir.file("gone.json");
  CHECK_THROWS_WITH(gate(request), Catch::Contains("current report: " + request.current_path));
}

TEST_CASE("gate command: --update-baseline checks current and copies it, exit 0") {
  TempDir dir;
  cli::GateRequest request;
  request.update_baseline = true;
  request.baseline_path = dir.file("baseline.json");  // need not exist yet
  std::string text = report(5 * kMiB).dump(1);
  request.current_path = dir.write("cur.json", text);
  CHECK(gate(request) == cli::kExitOk);
  CHECK(read(request.baseline_path) == text);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
    CHECK_FALSE(entry.path().extension() == ".tmp");  // no temporary file is left
  }

  // An unusable current never becomes the baseline.
  request.current_path = dir.write("bad.json", "{}");
  CHECK_THROWS_WITH(gate(request), Catch::Contains("current report: ") &&
                                       Catch::Contains("not a memfloor report"));
  CHECK(read(request.baseline_path) == text);
}
