// Tests of FlatTable: lookups, growth and backward-shift erase against std::unordered_map.
#include "analysis/flat_table.h"

#include <catch2/catch.hpp>
#include <random>
#include <unordered_map>

namespace memfloor::analysis {
namespace {

struct IntEntry {
  using Key = uint64_t;
  uint64_t k = 0;
  uint64_t value = 0;
  bool used = false;
  Key key() const { return k; }
  void setKey(Key key) {
    k = key;
    used = true;
  }
  bool empty() const { return !used; }
  static uint64_t hash(Key key) { return mixHash(key); }
};

// Every key lands on the same home slot: runs wrap around the end of the array.
struct CollidingEntry : IntEntry {
  static uint64_t hash(Key) { return ~0ull; }
};

TEST_CASE("FlatTable finds, inserts and erases", "[flat_table]") {
  FlatTable<IntEntry> table(16);
  bool inserted = false;
  table.findOrInsert(0x1000, inserted).value = 7;
  CHECK(inserted);
  CHECK(table.findOrInsert(0x1000, inserted).value == 7);
  CHECK_FALSE(inserted);
  REQUIRE(table.find(0x1000) != nullptr);
  CHECK(table.find(0x2000) == nullptr);
  table.erase(*table.find(0x1000));
  CHECK(table.find(0x1000) == nullptr);
  CHECK(table.size() == 0);
}

template <typename Entry>
void checkAgainstReference(uint32_t seed, uint64_t key_range, size_t operations) {
  FlatTable<Entry> table(16);
  std::unordered_map<uint64_t, uint64_t> reference;
  std::mt19937_64 rng(seed);
  for (size_t op = 0; op < operations; ++op) {
    uint64_t key = (rng() % key_range) * 512;  // aligned like device addresses
    if (rng() % 3 == 0) {
      Entry* e = table.find(key);
      REQUIRE((e != nullptr) == reference.contains(key));
      if (e != nullptr) {
        table.erase(*e);
        reference.erase(key);
      }
    } else {
      bool inserted = false;
      Entry& e = table.findOrInsert(key, inserted);
      REQUIRE(inserted == !reference.contains(key));
      e.value = op;
      reference[key] = op;
    }
  }
  REQUIRE(table.size() == reference.size());
  for (const auto& [key, value] : reference) {
    Entry* e = table.find(key);
    REQUIRE(e != nullptr);
    CHECK(e->value == value);
  }
  size_t seen = 0;
  table.forEach([&](const Entry& e) {
    ++seen;
    CHECK(reference.at(e.k) == e.value);
  });
  CHECK(seen == reference.size());
}

TEST_CASE("FlatTable matches std::unordered_map under random churn", "[flat_table]") {
  SECTION("spread keys") { checkAgainstReference<IntEntry>(1, 5000, 100000); }
  SECTION("a small key range (heavy reuse)") { checkAgainstReference<IntEntry>(2, 40, 20000); }
  SECTION("every key colliding, runs wrapping around") {
    checkAgainstReference<CollidingEntry>(3, 12, 5000);
  }
}

TEST_CASE("FlatTable stays at most half full", "[flat_table]") {
  FlatTable<IntEntry> table(16);
  bool inserted = false;
  for (uint64_t k = 0; k < 1000; ++k) table.findOrInsert(k, inserted);
  CHECK(table.size() == 1000);
  CHECK(table.capacity() >= 2000);
}

}  // namespace
}  // namespace memfloor::analysis
