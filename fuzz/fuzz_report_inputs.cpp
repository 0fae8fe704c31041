// libFuzzer target: the readers of the offline side that take untrusted bytes. The first byte
// picks one: 0 the findings document, 1 ELF build ids and symbol tables, 2 llvm-symbolizer's JSON
// lines, 3 a report.json as the gate and the HTML page read it, 4 a report.json through the typed
// reader (report_reader.h) and back through the writer, 5 a gate result through the common loader
// (common/json_input.h) from a file (in memory). Each must either accept the input or throw
// memfloor::Error.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/findings.h"
#include "common/error.h"
#include "common/json_input.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "report/report_reader.h"
#include "reports/gate.h"
#include "reports/html_report.h"
#include "symbols/elf_build_id.h"
#include "symbols/elf_symbols.h"
#include "symbols/llvm_symbolizer.h"

namespace {

// What the reader reads, the writer writes, and that reads back into the same text.
void checkReportRoundTrip(const nlohmann::json& doc) {
  using namespace memfloor;
  const std::string text = report::toJsonText(report::readReport(doc, "fuzz.json"));
  const nlohmann::json again = nlohmann::json::parse(text);
  report::checkReportSchema(again, "the written report");
  if (report::toJsonText(report::readReport(again, "written.json")) != text) {
    std::fprintf(stderr, "fuzz check failed: writer -> reader -> writer changed the report\n");
    std::abort();
  }
}

// A file in memory (memfd), rewritten for each input: nothing is left on disk. Its name under
// /proc/self/fd opens it as a regular file, which is what the loader reads.
std::string scratchFile(const std::string& bytes) {
  static const int fd = ::memfd_create("memfloor_fuzz", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    std::perror("fuzz_report_inputs: memfd");
    std::abort();
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memfloor;
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 6) {
      case 0:
        analysis::parseFindings(bytes, "fuzz.json");
        break;
      case 1: {
        symbols::ReadAt read = symbols::bytesReader(bytes);
        symbols::elfBuildId(read);
        symbols::nameByElfSymbols(symbols::elfFunctions(read), {0, 1, 0x1000, UINT64_MAX});
        break;
      }
      case 2:
        symbols::parseSymbolizerJson(bytes, 8);
        break;
      case 3: {
        nlohmann::json report = common::parseJson(bytes, "fuzz.json");
        reports::extractMetrics(report, "fuzz.json");
        reports::renderHtml(report);
        break;
      }
      case 4:
        checkReportRoundTrip(
            common::parseJsonDocument(bytes, report::kReportDocument, "fuzz.json"));
        break;
      case 5:
        reports::loadGateJson(scratchFile(bytes));
        break;
    }
  } catch (const Error&) {
    // a clear error is the expected answer to bad input
  }
  return 0;
}
