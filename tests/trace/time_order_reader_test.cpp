// Tests of trace/time_order_reader.cpp: stable timestamp order across chunks, definitions first,
// the trailer last, and the same endings as the file-order reader on damaged files.
#include <time.h>

#include <random>

#include "common/error.h"
#include "trace/codec.h"
#include "trace/reader.h"
#include "trace_test_util.h"

namespace memfloor::trace {
namespace {

using testing::Bytes;

// Events are allocs whose correlation is their file index; definitions are strings whose id is
// their file index + 1. So every delivered record can be traced back to its place in the file.
std::vector<Record> jitteredTrace(std::mt19937_64& rng, size_t events, uint64_t jitter,
                                  uint64_t tie_every) {
  std::vector<Record> records;
  for (size_t i = 0; i < events; ++i) {
    if (rng() % 8 == 0) {
      records.emplace_back(StringDef{static_cast<StringId>(records.size() + 1), "s"});
    }
    uint64_t ts = 1000 + i * 10 + rng() % (jitter + 1);
    if (tie_every != 0 && i % tie_every == 0) ts = 1000 + (i / 50) * 500;  // many equal stamps
    Alloc a = testing::makeAlloc(ts, 0x1000 + i);
    a.correlation = records.size();
    records.emplace_back(a);
  }
  return records;
}

size_t fileIndex(const Record& r) {
  if (const auto* a = std::get_if<Alloc>(&r)) return a->correlation;
  return std::get<StringDef>(r).id - 1;
}

// Checks what TimeOrderReader must deliver for `input` (file order, trailer excluded).
void checkTimeOrder(const std::vector<Record>& input, const std::vector<Record>& output,
                    bool trailer) {
  std::vector<Record> expected_timed;
  std::vector<Record> expected_untimed;
  for (const Record& r : input) (isTimed(r) ? expected_timed : expected_untimed).push_back(r);
  std::stable_sort(
      expected_timed.begin(), expected_timed.end(),
      [](const Record& a, const Record& b) { return timestampOf(a) < timestampOf(b); });
  std::vector<Record> timed;
  std::vector<Record> untimed;
  std::vector<size_t> untimed_before(input.size() + 1, 0);  // untimed records with index < i
  for (size_t i = 0; i < input.size(); ++i) {
    untimed_before[i + 1] = untimed_before[i] + (isTimed(input[i]) ? 0 : 1);
  }
  size_t body = output.size();
  if (trailer) {
    REQUIRE(!output.empty());
    CHECK(std::holds_alternative<Trailer>(output.back()));
    --body;
  }
  for (size_t i = 0; i < body; ++i) {
    const Record& r = output[i];
    if (isTimed(r)) {
      // every definition that precedes this event in the file has been delivered
      CHECK(untimed.size() >= untimed_before[fileIndex(r)]);
      timed.push_back(r);
    } else {
      untimed.push_back(r);
    }
  }
  CHECK(timed == expected_timed);
  CHECK(untimed == expected_untimed);
}

// The same stream through nextBatch(): each batch holds records or events, never both, and the
// events of a batch are in timestamp order.
std::vector<Record> readBatches(const Bytes& bytes) {
  MemorySource source(bytes, "test.mftrace");
  TimeOrderReader reader(source);
  std::vector<Record> out;
  TimeOrderReader::Batch batch;
  while (reader.nextBatch(batch)) {
    CHECK(batch.records.empty() != batch.events.empty());
    for (Record& r : batch.records) out.push_back(std::move(r));
    for (size_t i = 0; i < batch.events.size(); ++i) {
      if (i > 0) CHECK(batch.events[i - 1]->timestamp <= batch.events[i]->timestamp);
      Record r;
      toRecord(*batch.events[i], r);
      out.push_back(r);
    }
  }
  return out;
}

TEST_CASE("out-of-order chunks are delivered in timestamp order", "[trace][time_order]") {
  std::mt19937_64 rng(42);
  for (uint64_t jitter : {0, 30, 2000, 100000}) {
    for (uint32_t chunk_bytes : {256u, 4096u}) {
      INFO("jitter " << jitter << " chunk_bytes " << chunk_bytes);
      const std::vector<Record> input = jitteredTrace(rng, 3000, jitter, jitter == 30 ? 7 : 0);
      const Bytes file = testing::writeBinary(input, chunk_bytes, true, 1);
      TraceEnd end;
      const std::vector<Record> output = testing::readAll<TimeOrderReader>(file, &end);
      checkTimeOrder(input, output, true);
      CHECK(readBatches(file) == output);
      CHECK(end.ending == Ending::kTrailer);
      CHECK(end.records == input.size() + 1);
      CHECK(end.chunks == testing::chunkSpans(file).size());
    }
  }
}

TEST_CASE("equal timestamps keep file order across and within chunks", "[trace][time_order]") {
  std::vector<Record> input;
  for (uint64_t i = 0; i < 300; ++i) {
    Alloc a = testing::makeAlloc(i % 3 == 0 ? 500 : 1000 - i, 0x10);
    a.correlation = i;
    input.emplace_back(a);
  }
  const Bytes file = testing::writeBinary(input, 256, false);
  checkTimeOrder(input, testing::readAll<TimeOrderReader>(file), false);
}

// Two writers, each buffering its records and flushing them as a block (as the hook's threads and
// CUPTI's buffers do): one writes every fifth record, so its blocks span several of the other's
// and the reader merges two, then more, interleaved runs. Coarse timestamps make ties across them.
TEST_CASE("interleaved writer buffers merge in stable order", "[trace][time_order]") {
  for (size_t block : {size_t{10}, size_t{40}, size_t{200}}) {
    for (uint32_t chunk_bytes : {256u, 1024u, 65536u}) {
      INFO("block " << block << " chunk_bytes " << chunk_bytes);
      std::vector<Record> input;
      std::vector<Alloc> buffers[2];
      auto flush = [&](std::vector<Alloc>& buffer) {
        for (Alloc& a : buffer) {
          a.correlation = input.size();
          input.emplace_back(a);
        }
        buffer.clear();
      };
      for (uint64_t i = 0; i < 4000; ++i) {
        std::vector<Alloc>& buffer = buffers[i % 5 == 0 ? 0 : 1];
        buffer.push_back(testing::makeAlloc(1000 + i / 3, 0x1000 + i));
        if (buffer.size() == block) flush(buffer);
      }
      flush(buffers[0]);
      flush(buffers[1]);
      const Bytes file = testing::writeBinary(input, chunk_bytes, true, 0);
      const std::vector<Record> output = testing::readAll<TimeOrderReader>(file);
      checkTimeOrder(input, output, true);
      CHECK(readBatches(file) == output);
    }
  }
}

TEST_CASE("a very late early record holds back only what it must", "[trace][time_order]") {
  std::vector<Record> input;
  for (uint64_t i = 0; i < 200; ++i) {
    Alloc a = testing::makeAlloc(1000 + i, 0x10);
    a.correlation = i;
    input.emplace_back(a);
  }
  Alloc early = testing::makeAlloc(1, 0x20);
  early.correlation = input.size();
  input.emplace_back(early);  // in the last chunk, earliest of all
  const Bytes file = testing::writeBinary(input, 256, true, 0);
  const std::vector<Record> output = testing::readAll<TimeOrderReader>(file);
  checkTimeOrder(input, output, true);
  CHECK(output.front() == Record{early});
}

TEST_CASE("definitions arrive before the events that use them", "[trace][time_order]") {
  // chunk 1: an event at t=100; chunk 2: a string then a marker using it at t=50.
  MemorySink sink;
  Writer writer(sink);
  REQUIRE(writer.begin());
  REQUIRE(writer.write(testing::makeAlloc(100, 1)));
  REQUIRE(writer.flush());
  REQUIRE(writer.writeString(1, "iteration 0"));
  REQUIRE(writer.write(Marker{50, 1, 0, 1, 0, MarkerType::kPush}));
  REQUIRE(writer.write(Dropped{DropSource::kCupti, 2}));
  REQUIRE(writer.finish(200));
  const std::vector<Record> output = testing::readAll<TimeOrderReader>(sink.bytes());
  const std::vector<Record> expected{StringDef{1, "iteration 0"}, Dropped{DropSource::kCupti, 2},
                                     Marker{50, 1, 0, 1, 0, MarkerType::kPush},
                                     testing::makeAlloc(100, 1), Trailer{4, 200}};
  CHECK(output == expected);
}

TEST_CASE("every record type, time order", "[trace][time_order]") {
  const std::vector<Record> input = testing::everyRecordType();
  const Bytes file = testing::writeBinary(input, 256, true, 7);
  const std::vector<Record> output = testing::readAll<TimeOrderReader>(file);
  REQUIRE(output.size() == input.size() + 1);
  uint64_t last = 0;
  for (const Record& r : output) {
    if (!isTimed(r)) continue;
    CHECK(timestampOf(r) >= last);
    last = timestampOf(r);
  }
  CHECK(output.back() == Record{Trailer{input.size(), 7}});
}

TEST_CASE("damaged files end like the file-order reader says", "[trace][time_order]") {
  std::mt19937_64 rng(7);
  std::vector<Record> input = jitteredTrace(rng, 150, 400, 0);
  const Bytes file = testing::writeBinary(input, 256, true, 3);
  input.emplace_back(Trailer{input.size(), 3});
  const auto spans = testing::chunkSpans(file);
  auto compare = [&](const Bytes& bytes) {
    TraceEnd file_end;
    TraceEnd time_end;
    std::vector<Record> in_file_order;
    try {
      in_file_order = testing::readAll<FileOrderReader>(bytes, &file_end);
    } catch (const Error&) {
      CHECK_THROWS_AS(testing::readAll<TimeOrderReader>(bytes), Error);
      return;
    }
    const std::vector<Record> in_time_order = testing::readAll<TimeOrderReader>(bytes, &time_end);
    CHECK(time_end.ending == file_end.ending);
    CHECK(time_end.offset == file_end.offset);
    CHECK(time_end.detail == file_end.detail);
    CHECK(time_end.chunks == file_end.chunks);
    CHECK(time_end.records == file_end.records);
    const bool trailer =
        !in_file_order.empty() && std::holds_alternative<Trailer>(in_file_order.back());
    if (trailer) in_file_order.pop_back();
    checkTimeOrder(in_file_order, in_time_order, trailer);
  };
  for (size_t length = 0; length <= file.size(); length += 1) {
    INFO("length " << length);
    compare(Bytes(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(length)));
  }
  for (int trial = 0; trial < 300; ++trial) {
    Bytes damaged = file;
    const size_t at = rng() % damaged.size();
    damaged[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    INFO("flip at " << at);
    compare(damaged);
  }
  CHECK(spans.size() > 5);
}

TEST_CASE("a chunk that verifies but does not decode: earlier chunks are all delivered",
          "[trace][time_order]") {
  // chunk 0: events at 100 and 300; chunk 1: an event at 200 whose flags are out of range (only
  // seen when it is delivered), then one at 400.
  auto alloc = [](int64_t delta, uint64_t flags) {
    return testing::makeRecord(8, {codec::zigzag(delta), 0, 0, 0, 0x10, 8, 0, 0, 0, flags});
  };
  const Bytes first =
      testing::makeChunk(testing::concat({alloc(100, 0), alloc(200, 0)}), 2, 100, 300);
  const Bytes second =
      testing::makeChunk(testing::concat({alloc(200, 999), alloc(200, 0)}), 2, 200, 400);
  const Bytes file = testing::concat({testing::fileHeader(), first, second});
  TraceEnd end;
  const std::vector<Record> records = testing::readAll<TimeOrderReader>(file, &end);
  REQUIRE(records.size() == 2);
  CHECK(timestampOf(records[0]) == 100);
  CHECK(timestampOf(records[1]) == 300);
  CHECK(end.ending == Ending::kCorrupt);
  CHECK(end.offset == kFileHeaderSize + first.size());
  CHECK(end.detail == "alloc (type 8) at body offset 0: value too large for its field");
  CHECK(end.chunks == 1);
  TraceEnd file_end;
  testing::readAll<FileOrderReader>(file, &file_end);
  CHECK(file_end.offset == end.offset);
  CHECK(file_end.detail == end.detail);
}

TEST_CASE("fuzz findings kept in testdata read in time order without a crash",
          "[trace][time_order]") {
  for (const std::string& path : testing::testdataFiles("regressions/binary")) {
    INFO(path);
    const Bytes bytes = testing::readFile(path);
    try {
      testing::readAll<TimeOrderReader>(bytes);
    } catch (const Error&) {
    }
  }
}

double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Millions of records per second of thread CPU time, the best of three runs.
template <typename Reader>
double throughput(const Source& source, uint64_t expected) {
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double start = cpuSeconds();
    Reader reader(source);
    Record r;
    uint64_t n = 0;
    while (reader.next(r)) ++n;
    const double seconds = cpuSeconds() - start;
    best = std::max(best, static_cast<double>(n) / seconds / 1e6);
    CHECK(n == expected);
  }
  return best;
}

// Not run by default: `memfloor_trace_tests "[.bench]"` prints the readers' throughput on a
// synthetic alloc/free trace, with timestamps in order and jittered by up to 2 us.
TEST_CASE("reader throughput", "[.bench]") {
  constexpr uint64_t kRecords = 4'000'000;
  for (uint64_t jitter : {uint64_t{0}, uint64_t{2000}}) {
    std::mt19937_64 rng(1);
    MemorySink sink;
    Writer writer(sink);
    REQUIRE(writer.begin());
    for (uint64_t i = 0; i < kRecords; i += 2) {
      Alloc a;
      a.timestamp = 1'000'000'000 + i * 50 + rng() % (jitter + 1);
      a.address = 0x7f0000000000 + (rng() % 100000) * 512;
      a.size = 512u << (rng() % 8);
      a.thread = 12345;
      a.stream = 7;
      a.correlation = i;
      a.stack = static_cast<uint32_t>(rng() % 500 + 1);
      a.flags = kMemoryFlagAsync;
      Free f;
      static_cast<MemoryEvent&>(f) = a;
      f.timestamp = a.timestamp + 20 + rng() % (jitter + 1);
      f.correlation = i + 1;
      REQUIRE((writer.write(a) && writer.write(f)));
    }
    REQUIRE(writer.finish(0));
    MemorySource source(sink.bytes(), "bench");
    WARN("jitter " << jitter << " ns, " << sink.bytes().size() / kRecords
                   << " bytes/record: file order "
                   << throughput<FileOrderReader>(source, kRecords + 1)
                   << " M records/s, time order "
                   << throughput<TimeOrderReader>(source, kRecords + 1) << " M records/s");
  }
}

}  // namespace
}  // namespace memfloor::trace
