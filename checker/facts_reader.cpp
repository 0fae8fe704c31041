// FactsReader: a SAX handler that fills the facts structs as nlohmann's parser reports the tokens
// (facts_reader.h says why and when it gives up).
#include "checker/facts_reader.h"

#include <array>
#include <cstddef>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace memfloor::checker {
namespace {

using nlohmann::json;

// The facts document and the front end's envelope, as read.
struct FactsDocument {
  std::string schema;
  Facts facts;
};
struct Envelope {
  std::string schema;
  FactsDocument facts;
  FrontEndOutput out;
};

// Thrown at the first token not read as factsFromJson would read it: the caller reads the text
// through the DOM instead.
struct NotRead {};

[[noreturn]] void notRead() { throw NotRead{}; }

// A member of a struct by its name in the document; `get` returns it from the struct.
template <typename Get>
struct Member {
  std::string_view name;
  Get get;
};
// A member, or a member of a member: at<&FactsDocument::facts, &Facts::units>("units").
template <auto... kPath>
constexpr auto at(std::string_view name) {
  constexpr auto kGet = [](auto& s) -> auto& { return (s.*....*kPath); };
  return Member<decltype(kGet)>{name, kGet};
}

// The members of each struct read: facts.cpp's NLOHMANN_DEFINE_TYPE lists. `kRequired`: the bits
// (by position) of the members that must be there; the others default, as there.
template <typename T>
struct Shape {
  static constexpr bool kStruct = false;
};
template <>
struct Shape<SourceLoc> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&SourceLoc::file>("file"), at<&SourceLoc::line>("line"),
                      at<&SourceLoc::column>("column"), at<&SourceLoc::offset>("offset"));
};
template <>
struct Shape<FieldFact> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers = std::make_tuple(
      at<&FieldFact::key>("key"), at<&FieldFact::name>("name"), at<&FieldFact::record>("record"),
      at<&FieldFact::kind>("kind"), at<&FieldFact::loc>("loc"));
};
template <>
struct Shape<FunctionFact> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&FunctionFact::key>("key"), at<&FunctionFact::display>("display"),
                      at<&FunctionFact::record>("record"), at<&FunctionFact::kind>("kind"),
                      at<&FunctionFact::overrides>("overrides"),
                      at<&FunctionFact::null_checks>("null_checks"), at<&FunctionFact::loc>("loc"));
};
template <>
struct Shape<FieldEvent> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&FieldEvent::kind>("kind"), at<&FieldEvent::field>("field"),
                      at<&FieldEvent::function>("function"), at<&FieldEvent::idiom>("idiom"),
                      at<&FieldEvent::through_this>("through_this"), at<&FieldEvent::loc>("loc"),
                      at<&FieldEvent::per_call>("per_call"));
};
template <>
struct Shape<Candidate> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&Candidate::method>("method"), at<&Candidate::field>("field"),
                      at<&Candidate::name>("name"), at<&Candidate::all_paths>("all_paths"),
                      at<&Candidate::loc>("loc"), at<&Candidate::checked_paths>("checked_paths"));
};
template <>
struct Shape<PathFacts> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&PathFacts::direct>("direct"), at<&PathFacts::candidates>("candidates"),
                      at<&PathFacts::event>("event"), at<&PathFacts::event_idiom>("event_idiom"));
};
template <>
struct Shape<CallSite> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers = std::make_tuple(
      at<&CallSite::method>("method"), at<&CallSite::method_display>("method_display"),
      at<&CallSite::receiver_record>("receiver_record"), at<&CallSite::field>("field"),
      at<&CallSite::function>("function"), at<&CallSite::handle>("handle"),
      at<&CallSite::handle_is_pointer>("handle_is_pointer"),
      at<&CallSite::persistent>("persistent"), at<&CallSite::loc>("loc"),
      at<&CallSite::released>("released"), at<&CallSite::fix_after>("fix_after"),
      at<&CallSite::fix_indent>("fix_indent"), at<&CallSite::guard_at>("guard_at"));
};
template <>
struct Shape<DerefSite> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&DerefSite::field>("field"), at<&DerefSite::function>("function"),
                      at<&DerefSite::handle>("handle"), at<&DerefSite::loc>("loc"),
                      at<&DerefSite::guarded>("guarded"));
};
template <>
struct Shape<CallEdge> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0;
  static constexpr auto kMembers =
      std::make_tuple(at<&CallEdge::caller>("caller"), at<&CallEdge::callee>("callee"),
                      at<&CallEdge::on_this>("on_this"), at<&CallEdge::loc>("loc"));
};
// facts.cpp's readFacts: every section but "call_edges" (added within memfloor.facts/1).
template <>
struct Shape<FactsDocument> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0xff;  // all but the last
  using D = FactsDocument;
  static constexpr auto kMembers = std::make_tuple(
      at<&D::schema>("schema"), at<&D::facts, &Facts::units>("units"),
      at<&D::facts, &Facts::records>("records"), at<&D::facts, &Facts::fields>("fields"),
      at<&D::facts, &Facts::functions>("functions"), at<&D::facts, &Facts::events>("events"),
      at<&D::facts, &Facts::calls>("calls"), at<&D::facts, &Facts::derefs>("derefs"),
      at<&D::facts, &Facts::call_edges>("call_edges"));
};
// python_front_end.cpp's readPythonFacts: all of them.
template <>
struct Shape<Envelope> {
  static constexpr bool kStruct = true;
  static constexpr uint32_t kRequired = 0x1f;
  static constexpr auto kMembers =
      std::make_tuple(at<&Envelope::schema>("schema"), at<&Envelope::facts>("facts"),
                      at<&Envelope::out, &FrontEndOutput::errors>("errors"),
                      at<&Envelope::out, &FrontEndOutput::files>("files"),
                      at<&Envelope::out, &FrontEndOutput::bytes>("bytes"));
};

// What a frame of the reader's stack can be: an object or an array being read.
using Target =
    std::variant<Envelope*, FactsDocument*, SourceLoc*, PathFacts*, Candidate*, FieldFact*,
                 FunctionFact*, FieldEvent*, CallSite*, DerefSite*, CallEdge*,
                 std::vector<std::string>*, std::vector<Candidate>*, std::vector<FieldEvent>*,
                 std::vector<CallSite>*, std::vector<DerefSite>*, std::vector<CallEdge>*,
                 std::map<std::string, std::vector<std::string>>*,
                 std::map<std::string, FieldFact>*, std::map<std::string, FunctionFact>*>;

template <typename T, typename Variant>
struct IsAlternative;
template <typename T, typename... A>
struct IsAlternative<T, std::variant<A...>> : std::disjunction<std::is_same<T, A>...> {};
template <typename T>
constexpr bool kFrame = IsAlternative<T*, Target>::value;

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename T>
struct IsMap<std::map<std::string, T>> : std::true_type {};

// The position of `key` among T's members, -1 when it is none of them.
template <typename T>
int memberIndex(std::string_view key) {
  static constexpr auto kNames = std::apply(
      [](const auto&... m) { return std::array<std::string_view, sizeof...(m)>{m.name...}; },
      Shape<T>::kMembers);
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// Calls f with the member of `s` at `index`.
template <typename T, typename F, std::size_t... I>
void visitMember(T& s, int index, F& f, std::index_sequence<I...> /*members*/) {
  static_cast<void>(
      ((index == static_cast<int>(I) && (f(std::get<I>(Shape<T>::kMembers).get(s)), true)) || ...));
}

struct Frame {
  Target target;
  int member = -1;        // a struct's member whose value comes next
  uint32_t seen = 0;      // a struct's members read so far, by position
  void* entry = nullptr;  // a map's entry whose value comes next
};

class FactsReader {
 public:
  explicit FactsReader(Target root) : root_(root) {}

  // nlohmann's SAX interface, by its names.
  // NOLINTBEGIN(readability-identifier-naming)
  bool null() { notRead(); }
  bool boolean(bool v) {
    atSlot([v](auto& slot) {
      if constexpr (std::is_same_v<std::decay_t<decltype(slot)>, bool>) {
        slot = v;
      } else {
        notRead();
      }
    });
    return true;
  }
  // nlohmann reports integers >= 0 as unsigned, the others as integers.
  bool number_integer(json::number_integer_t v) {
    atSlot([v](auto& slot) {
      if constexpr (std::is_same_v<std::decay_t<decltype(slot)>, int>) {
        if (v < std::numeric_limits<int>::min()) notRead();
        slot = static_cast<int>(v);
      } else {
        notRead();
      }
    });
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    atSlot([v](auto& slot) {
      using Slot = std::decay_t<decltype(slot)>;
      if constexpr (std::is_same_v<Slot, int>) {
        if (v > static_cast<uint64_t>(std::numeric_limits<int>::max())) notRead();
        slot = static_cast<int>(v);
      } else if constexpr (std::is_same_v<Slot, uint64_t>) {
        slot = v;
      } else {
        notRead();
      }
    });
    return true;
  }
  bool number_float(json::number_float_t /*v*/, const json::string_t& /*s*/) { notRead(); }
  bool string(json::string_t& v) {
    atSlot([&v](auto& slot) {
      using Slot = std::decay_t<decltype(slot)>;
      if constexpr (std::is_same_v<Slot, std::string>) {
        slot = std::move(v);
      } else if constexpr (std::is_enum_v<Slot>) {
        if (!enumFromName(v, slot)) notRead();
      } else {
        notRead();
      }
    });
    return true;
  }
  bool binary(json::binary_t& /*v*/) { notRead(); }
  bool start_object(std::size_t /*elements*/) {
    atSlot([this](auto& slot) {
      using Slot = std::decay_t<decltype(slot)>;
      if constexpr (kFrame<Slot> && (Shape<Slot>::kStruct || IsMap<Slot>::value)) {
        stack_.push_back(Frame{&slot});
      } else {
        notRead();
      }
    });
    return true;
  }
  bool key(json::string_t& k) {
    Frame& top = stack_.back();
    std::visit([&](auto* target) { onKey(*target, top, k); }, top.target);
    return true;
  }
  bool end_object() {
    std::visit([this](auto* target) { onEnd(*target); }, stack_.back().target);
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    atSlot([this](auto& slot) {
      using Slot = std::decay_t<decltype(slot)>;
      if constexpr (kFrame<Slot> && IsVector<Slot>::value) {
        stack_.push_back(Frame{&slot});
      } else {
        notRead();
      }
    });
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  template <typename Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& /*e*/) {
    return false;  // the DOM reader says what is wrong
  }
  // NOLINTEND(readability-identifier-naming)

 private:
  // Calls f with where the next value goes: the root, the member named by the last key, a new
  // element of an array, the map entry made by the last key.
  template <typename F>
  void atSlot(F&& f) {
    if (stack_.empty()) {
      if (root_read_) notRead();
      root_read_ = true;
      std::visit([&f](auto* root) { f(*root); }, root_);
      return;
    }
    Frame& top = stack_.back();  // f may push a frame: `top` is not used after it
    std::visit([&](auto* target) { slot(*target, top, f); }, top.target);
  }

  template <typename T, typename F>
  static void slot(T& s, Frame& top, F& f) {
    if constexpr (IsVector<T>::value) {
      f(s.emplace_back());
    } else if constexpr (IsMap<T>::value) {
      auto* entry = static_cast<typename T::mapped_type*>(top.entry);
      if (entry == nullptr) notRead();
      top.entry = nullptr;
      f(*entry);
    } else {
      const int index = top.member;
      if (index < 0) notRead();
      top.member = -1;
      constexpr std::size_t kCount = std::tuple_size_v<decltype(Shape<T>::kMembers)>;
      visitMember(s, index, f, std::make_index_sequence<kCount>());
    }
  }

  template <typename T>
  static void onKey(T& s, Frame& top, json::string_t& k) {
    if constexpr (IsMap<T>::value) {
      auto [it, inserted] = s.try_emplace(std::move(k));
      if (!inserted) notRead();  // the DOM keeps the last one: its reader is asked
      top.entry = &it->second;
    } else if constexpr (Shape<T>::kStruct) {
      const int index = memberIndex<T>(k);
      if (index < 0 || (top.seen >> index & 1U) != 0) notRead();
      top.seen |= 1U << index;
      top.member = index;
    } else {
      notRead();  // a key in an array: the parser reports no such thing
    }
  }

  template <typename T>
  void onEnd(T& /*s*/) {
    if constexpr (Shape<T>::kStruct) {
      if ((stack_.back().seen & Shape<T>::kRequired) != Shape<T>::kRequired) notRead();
    }
  }

  Target root_;
  bool root_read_ = false;
  std::vector<Frame> stack_;
};

// The characters of a text in pieces, as nlohmann's iterator input reads them (an input iterator
// of char); the default one is the end.
class PieceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  PieceIterator() = default;
  explicit PieceIterator(const std::vector<std::string>& pieces) : pieces_(&pieces) { settle(); }

  reference operator*() const { return *at_; }
  PieceIterator& operator++() {
    if (++at_ == end_) {
      ++piece_;
      settle();
    }
    return *this;
  }
  bool operator==(const PieceIterator& other) const { return at_ == other.at_; }
  bool operator!=(const PieceIterator& other) const { return at_ != other.at_; }

 private:
  // At the start of the first piece from piece_ on that is not empty, or at the end (null).
  void settle() {
    at_ = end_ = nullptr;
    for (; piece_ < pieces_->size(); ++piece_) {
      const std::string& piece = (*pieces_)[piece_];
      if (!piece.empty()) {
        at_ = piece.data();
        end_ = piece.data() + piece.size();
        return;
      }
    }
  }

  const std::vector<std::string>* pieces_ = nullptr;
  std::size_t piece_ = 0;
  const char* at_ = nullptr;
  const char* end_ = nullptr;
};

// Reads the text from `first` to `last` into `root`; false when the reader gave up.
template <typename Root, typename Iterator>
bool readInto(Iterator first, Iterator last, Root& root) {
  FactsReader reader(&root);
  try {
    return json::sax_parse(std::move(first), std::move(last), &reader, json::input_format_t::json,
                           /*strict=*/true);
  } catch (const NotRead&) {
    return false;
  }
}

template <typename Iterator>
std::optional<FrontEndOutput> readEnvelope(Iterator first, Iterator last, std::string_view schema) {
  Envelope envelope;
  if (!readInto(std::move(first), std::move(last), envelope) || envelope.schema != schema ||
      envelope.facts.schema != kFactsSchema) {
    return std::nullopt;
  }
  envelope.out.facts = std::move(envelope.facts.facts);
  return std::move(envelope.out);
}

}  // namespace

std::optional<Facts> readFactsText(std::string_view text) {
  FactsDocument doc;
  if (!readInto(text.begin(), text.end(), doc) || doc.schema != kFactsSchema) return std::nullopt;
  return std::move(doc.facts);
}

std::optional<FrontEndOutput> readFrontEndText(std::string_view text, std::string_view schema) {
  return readEnvelope(text.begin(), text.end(), schema);
}

std::optional<FrontEndOutput> readFrontEndText(const std::vector<std::string>& pieces,
                                               std::string_view schema) {
  return readEnvelope(PieceIterator(pieces), PieceIterator(), schema);
}

}  // namespace memfloor::checker
