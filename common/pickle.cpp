// Pickle values' accessors and the entry points of the restricted reader.
#include "common/pickle.h"

#include <fmt/core.h>

#include <cassert>
#include <utility>

#include "common/error.h"
#include "common/input_file.h"
#include "common/pickle_machine.h"
#include "common/pickle_opcodes.h"
#include "common/pickle_store.h"

namespace memfloor::common {

bool PickleValue::boolean() const {
  assert(kind_ == PickleKind::kBool && "boolean() of a bool");
  return u_.boolean;
}

int64_t PickleValue::integer() const {
  assert(kind_ == PickleKind::kInt && "integer() of an int");
  return u_.integer;
}

double PickleValue::number() const {
  assert(kind_ == PickleKind::kFloat && "number() of a float");
  return u_.number;
}

std::string_view PickleValue::text() const {
  if (kind_ != PickleKind::kStr && kind_ != PickleKind::kBytes) return {};
  return {u_.text, size_};
}

std::span<const PickleValue* const> PickleValue::items() const {
  if (kind_ != PickleKind::kList && kind_ != PickleKind::kTuple && kind_ != PickleKind::kSet) {
    return {};
  }
  return {u_.items, size_};
}

std::span<const PickleEntry> PickleValue::entries() const {
  if (kind_ != PickleKind::kDict) return {};
  return {u_.entries, size_};
}

const PickleValue* PickleValue::find(std::string_view key) const {
  const std::span<const PickleEntry> all = entries();
  // From the back: of a key set twice, the later counts (as in Python).
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->key->kind_ == PickleKind::kStr && it->key->text() == key) return it->value;
  }
  return nullptr;
}

const PickleValue* PickleValue::find(int64_t key) const {
  const std::span<const PickleEntry> all = entries();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->key->kind_ == PickleKind::kInt && it->key->u_.integer == key) return it->value;
  }
  return nullptr;
}

PickleDocument::PickleDocument(std::unique_ptr<PickleStore> store, const PickleValue* root)
    : store_(std::move(store)), root_(root) {}
PickleDocument::PickleDocument(PickleDocument&&) noexcept = default;
PickleDocument& PickleDocument::operator=(PickleDocument&&) noexcept = default;
PickleDocument::~PickleDocument() = default;

namespace {

void checkSize(size_t size, const std::string& name) {
  if (size > kMaxPickleInputBytes) {
    throw Error(
        fmt::format("{}: the pickle is too large: {} bytes, more than the {} bytes "
                    "memfloor reads",
                    name, size, kMaxPickleInputBytes));
  }
}

PickleDocument readPickleBytes(std::string bytes, const std::string& name) {
  return PickleMachine(std::make_unique<PickleStore>(std::move(bytes)), name).run();
}

}  // namespace

PickleDocument readPickle(std::span<const uint8_t> bytes, const std::string& name) {
  checkSize(bytes.size(), name);
  return readPickleBytes(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                         name);
}

PickleDocument readPickleFile(const std::string& path, std::string_view what) {
  std::string bytes = InputFile(path, what).readAll(kMaxPickleInputBytes);
  if (bytes.empty()) throw Error(fmt::format("{}: the {} is empty", path, what));
  return readPickleBytes(std::move(bytes), path);
}

bool looksLikePickle(std::span<const uint8_t> first) {
  constexpr int kFirstWithProto = 2;  // the first protocol that begins with PROTO
  return first.size() >= 2 && first[0] == static_cast<uint8_t>(PickleOp::kProto) &&
         first[1] >= kFirstWithProto && first[1] <= kHighestPickleProtocol;
}

std::string_view toString(PickleKind kind) {
  switch (kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return "bool";
    case PickleKind::kInt:
      return "int";
    case PickleKind::kFloat:
      return "float";
    case PickleKind::kStr:
      return "str";
    case PickleKind::kBytes:
      return "bytes";
    case PickleKind::kList:
      return "list";
    case PickleKind::kTuple:
      return "tuple";
    case PickleKind::kSet:
      return "set";
    case PickleKind::kDict:
      return "dict";
  }
  return "value";
}

}  // namespace memfloor::common
