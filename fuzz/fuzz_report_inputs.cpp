// libFuzzer target: the readers of reports/ that take untrusted bytes. The first byte picks one:
// 0 the findings document, 1 ELF build ids, 2 llvm-symbolizer's JSON lines, 3 a report.json as the
// gate and the HTML page read it. Each must either accept the input or throw memfloor::Error.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "symbols/elf_build_id.h"
#include "analysis/findings.h"
#include "reports/gate.h"
#include "reports/html_report.h"
#include "symbols/llvm_symbolizer.h"
#include "common/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor;
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0:
        analysis::parseFindings(bytes, "fuzz.json");
        break;
      case 1:
        symbols::elfBuildId([&bytes](uint64_t offset, size_t n, std::string& out) {
          if (offset > bytes.size() || n > bytes.size() - offset) return false;
          out = bytes.substr(offset, n);
          return true;
        });
        break;
      case 2:
        symbols::parseSymbolizerJson(bytes, 8);
        break;
      case 3: {
        nlohmann::json report = nlohmann::json::parse(bytes, nullptr, false);
        if (report.is_discarded()) break;
        reports::extractMetrics(report, "fuzz.json");
        reports::renderHtml(report);
        break;
      }
    }
  } catch (const Error&) {
    // a clear error is the expected answer to bad input
  }
  return 0;
}
