// Tests of PrefixMap: OLD=NEW rules, whole-component matching, and symbolizeTrace rewriting paths.
#include "symbols/prefix_map.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/error.h"
#include "symbols/trace_symbolize.h"
#include "tests/analysis/trace_builder.h"
#include "tests/trace/trace_test_util.h"
#include "trace/reader.h"
#include "trace/sink.h"
#include "trace/source.h"
#include "trace/writer.h"

namespace memfloor::symbols {
namespace {

PrefixMap mapOf(const std::vector<std::string>& rules) {
  PrefixMap map;
  for (const std::string& rule : rules) map.add(rule);
  return map;
}

TEST_CASE("PrefixMap parses OLD=NEW at the first '='", "[prefix_map]") {
  CHECK(PrefixMap::checkRule("/work/main=").empty());
  CHECK(PrefixMap::checkRule("/a=/b").empty());
  CHECK(mapOf({"/a=b=c"}).apply("/a/x") == "b=c/x");  // NEW may hold '='
  CHECK(PrefixMap().empty());
  CHECK_FALSE(mapOf({"/a="}).empty());
}

TEST_CASE("PrefixMap rejects a rule without '=' or without OLD", "[prefix_map]") {
  CHECK_THAT(PrefixMap::checkRule("/work/main"),
             Catch::Contains("'/work/main'") && Catch::Contains("expected OLD=NEW"));
  CHECK_THAT(PrefixMap::checkRule(""), Catch::Contains("expected OLD=NEW"));
  CHECK_THAT(PrefixMap::checkRule("=/opt"), Catch::Contains("OLD (before the '=') is empty"));
  PrefixMap map;
  CHECK_THROWS_AS(map.add("/work/main"), Error);
  CHECK_THROWS_WITH(map.add("=x"), Catch::Contains("'=x'"));
  CHECK(map.empty());  // a bad rule adds nothing
}

TEST_CASE("PrefixMap matches whole leading components", "[prefix_map]") {
  PrefixMap map = mapOf({"/work/main=/src"});
  CHECK(map.apply("/work/main/reference_model/allocator.cpp") ==
        "/src/reference_model/allocator.cpp");
  CHECK(map.apply("/work/main") == "/src");
  CHECK(map.apply("/work/mainline/x") == "/work/mainline/x");
  CHECK(map.apply("/work/mai") == "/work/mai");
  CHECK(map.apply("/other/work/main/x") == "/other/work/main/x");  // leading only
  CHECK(map.apply("work/main/x") == "work/main/x");
  CHECK(map.apply("") == "");
}

TEST_CASE("PrefixMap: a trailing '/' of OLD or NEW does not change the result", "[prefix_map]") {
  for (const char* rule :
       {"/work/main=/src", "/work/main/=/src", "/work/main=/src/", "/work/main//=/src/"}) {
    INFO(rule);
    PrefixMap map = mapOf({rule});
    CHECK(map.apply("/work/main/a/b.cpp") == "/src/a/b.cpp");
    CHECK(map.apply("/work/mainline/a") == "/work/mainline/a");
  }
}

TEST_CASE("PrefixMap: an empty NEW makes the path relative", "[prefix_map]") {
  PrefixMap map = mapOf({"/work/main/="});
  CHECK(map.apply("/work/main/reference_model/allocator.cpp") == "reference_model/allocator.cpp");
  CHECK(map.apply("/work/main//x.cpp") == "x.cpp");
  CHECK(map.apply("/work/main") == ".");
  CHECK(mapOf({"/="}).apply("/usr/include/c++/12/vector") == "usr/include/c++/12/vector");
}

TEST_CASE("PrefixMap: the first rule that matches wins", "[prefix_map]") {
  PrefixMap specific_first = mapOf({"/work/main/build=", "/work/main=/src"});
  CHECK(specific_first.apply("/work/main/build/bin/model") == "bin/model");
  CHECK(specific_first.apply("/work/main/model.cpp") == "/src/model.cpp");
  PrefixMap general_first = mapOf({"/work/main=/src", "/work/main/build="});
  CHECK(general_first.apply("/work/main/build/bin/model") == "/src/build/bin/model");
  // A rule's output is not matched again by the next rules.
  CHECK(mapOf({"/a=/b", "/b=/c"}).apply("/a/x") == "/b/x");
  CHECK(mapOf({"/a=/b"}).apply("/usr/lib/x.so") == "/usr/lib/x.so");
}

TEST_CASE("PrefixMap matches relative OLD against relative paths", "[prefix_map]") {
  PrefixMap map = mapOf({"build-hook/dist=lib"});
  CHECK(map.apply("build-hook/dist/libmemfloor_hook.so") == "lib/libmemfloor_hook.so");
  CHECK(map.apply("/build-hook/dist/libmemfloor_hook.so") ==
        "/build-hook/dist/libmemfloor_hook.so");
}

// Resolves every offset of libtrain.so to one frame in a file under /work/main.
class BuildTreeResolver : public symbols::FrameResolver {
 public:
  std::vector<std::vector<symbols::SourceLocation>> resolve(
      std::string_view, std::string_view, const std::vector<uint64_t>& offsets) override {
    std::vector<std::vector<symbols::SourceLocation>> out(offsets.size());
    for (auto& chain : out) chain = {{"Layer::forward", "/work/main/src/layer.cpp", 7}};
    return out;
  }
};

TEST_CASE("symbolizeTrace rewrites module paths and frame files by the prefix map",
          "[prefix_map]") {
  analysis::test::TraceBuilder t;
  trace::StackId stack =
      t.stack({{"", "", 0, "/work/main/build/libtrain.so", 0x40},
               {"main", "/work/main/src/train.cpp", 3, "/usr/lib/libc.so.6", 0}});
  t.record(trace::Property{t.name("note"), t.name("/work/main/build/train --fast")});
  t.alloc(100, 0x1000, 64, {.stack = stack});
  trace::testing::Bytes in_bytes =
      trace::testing::writeBinary(t.records(), trace::Writer::kDefaultChunkBytes, true, 200);

  trace::MemorySource in(in_bytes, "in");
  trace::MemorySink out_sink;
  trace::Writer out(out_sink);
  REQUIRE(out.begin());
  BuildTreeResolver resolver;
  symbols::SymbolizeStats stats =
      symbols::symbolizeTrace(in, out, resolver, mapOf({"/work/main/build=", "/work/main="}));
  CHECK(stats.resolved == 1);
  CHECK(stats.rewritten == 3);  // the module, the recorded file, the resolved file

  trace::TraceEnd end;
  symbols::Symbols symbols;
  std::vector<std::string> texts;
  for (const trace::Record& record :
       trace::testing::readAll<trace::FileOrderReader>(out_sink.bytes(), &end)) {
    std::visit(
        [&](const auto& r) {
          if constexpr (requires { symbols.add(r); }) symbols.add(r);
          if constexpr (std::is_same_v<std::decay_t<decltype(r)>, trace::StringDef>) {
            texts.push_back(r.text);
          }
        },
        record);
  }
  REQUIRE(end.ending == trace::Ending::kTrailer);
  symbols::Stack s = symbols.stack(stack);
  REQUIRE(s.frames.size() == 2);
  CHECK(s.frames[0].module == "libtrain.so");
  CHECK(s.frames[0].file == "src/layer.cpp");
  CHECK(s.frames[1].module == "/usr/lib/libc.so.6");
  CHECK(s.frames[1].file == "src/train.cpp");
  // What is not a module path or a frame file keeps its text.
  CHECK(std::count(texts.begin(), texts.end(), "/work/main/build/train --fast") == 1);
  for (const std::string& text : texts) {
    if (text.find("--fast") == std::string::npos)
      CHECK(text.find("/work/main") == std::string::npos);
  }
}

}  // namespace
}  // namespace memfloor::symbols
