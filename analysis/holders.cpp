// Holders: matching a census's storages to live blocks, and each census to its idle window.
#include "analysis/holders.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace memfloor::analysis {
namespace {

constexpr std::string_view kViaSeparator = " > ";

// Why the bytes no storage lies in are not seen, in one line.
std::string notSeenReason(const HeldBy& h, bool blocks) {
  if (h.not_seen.count == 0) return {};
  std::string reason =
      blocks ? "kept by C++ only (no Python path reaches them): autograd engine buffers, cuBLAS "
               "workspaces, allocator-internal blocks"
             : "no found storage lies in them: library workspaces and buffers kept by C++ only, or "
               "memory an allocator caches (the trace has no allocator blocks of this device)";
  if (!h.complete) reason = "the census stopped at its object limit, or " + reason;
  return reason;
}

std::vector<std::string> splitVia(std::string_view via) {
  std::vector<std::string> out;
  while (!via.empty()) {
    const size_t end = via.find(kViaSeparator);
    out.emplace_back(via.substr(0, end));
    via =
        end == std::string_view::npos ? std::string_view{} : via.substr(end + kViaSeparator.size());
  }
  return out;
}

// The idle window (0-based) that contains `ns`: from the end of a complete iteration to the start
// of the next; nullopt before the first iteration and inside one.
std::optional<uint32_t> windowOf(const std::vector<IterationSpan>& spans, uint64_t ns) {
  auto after = std::upper_bound(spans.begin(), spans.end(), ns,
                                [](uint64_t t, const IterationSpan& s) { return t < s.start_ns; });
  if (after == spans.begin()) return std::nullopt;
  const IterationSpan& span = *(after - 1);
  if (!span.complete || ns < span.end_ns) return std::nullopt;
  return static_cast<uint32_t>(after - 1 - spans.begin());
}

}  // namespace

void Holders::onCensus(const trace::Event& e, uint16_t slot, bool blocks, uint32_t started,
                       LiveSet& live) {
  open_.reset();  // a census's storages follow it: those of the one before have all come
  // The device's census before, if no iteration began since: in the same window (or iteration),
  // so never used.
  auto [before, known] = last_of_device_.try_emplace(e.device, taken_.size());
  if (!known) {
    Taken& previous = taken_[before->second];
    if (previous.started == started) {
      previous.superseded = true;
      previous.groups = {};
    }
    before->second = taken_.size();
  }
  Taken& taken = taken_.emplace_back();
  taken.census = trace::toCensus(e);
  taken.started = started;
  taken.blocks = blocks;
  Open open;
  open.taken = taken_.size() - 1;
  open.slot = slot;
  open.remaining = taken.census.storages;
  if (slot != kNoSlot) {
    live.forEach([&](const LiveAlloc& a) {
      if (a.slot == slot) open.live.push_back(a);
    });
  }
  std::sort(open.live.begin(), open.live.end(),
            [](const LiveAlloc& a, const LiveAlloc& b) { return a.address < b.address; });
  for (const LiveAlloc& a : open.live) taken.live.add(a.size);
  open.matched.assign(open.live.size(), false);
  if (open.remaining > 0) open_ = std::move(open);
}

// The allocation that begins at `address`, else the one that contains it (storages begin at a
// block's start under PyTorch's allocator; inside a device allocation without blocks).
const LiveAlloc* Holders::blockAt(const Open& open, uint64_t address, size_t& index) const {
  auto after = std::upper_bound(open.live.begin(), open.live.end(), address,
                                [](uint64_t a, const LiveAlloc& b) { return a < b.address; });
  if (after == open.live.begin()) return nullptr;
  const LiveAlloc& block = *(after - 1);
  if (address - block.address >= block.size) return nullptr;
  index = static_cast<size_t>(after - 1 - open.live.begin());
  return &block;
}

uint32_t Holders::track(uint16_t slot, uint64_t address, LiveSet& live) {
  auto [it, inserted] =
      tracked_.try_emplace({slot, address}, static_cast<uint32_t>(free_ns_.size()));
  if (inserted) {
    free_ns_.push_back(kNotFreed);
    live.addFlag(slot, address, kHeldByCensus);
  }
  return it->second;
}

void Holders::onHeld(const trace::Event& e, LiveSet& live) {
  if (!open_) return;
  const trace::Census& census = taken_[open_->taken].census;
  if (census.device != e.device || census.timestamp != e.timestamp) return;
  Open& open = *open_;
  Taken& taken = taken_[open.taken];
  taken.storages.found.add(e.size);
  size_t index = 0;
  const LiveAlloc* block = blockAt(open, e.address, index);
  if (block == nullptr) {
    taken.storages.not_matched.add(e.size);
  } else if (open.matched[index]) {
    taken.storages.same_block.add(e.size);
  } else {
    open.matched[index] = true;
    const Block held{block->size, block->site, track(open.slot, block->address, live),
                     block->flags};
    auto [group, inserted] = open.groups.try_emplace(e.stack, taken.groups.size());
    if (inserted) {
      const bool known = e.kind < trace::kHeldRoleCount;
      taken.groups.push_back(
          {e.stack,
           e.stream,
           e.address,
           {},
           0,
           known ? static_cast<trace::HeldRole>(e.kind) : trace::HeldRole::kOther,
           false,
           held});
    }
    Group& g = taken.groups[group->second];
    if (g.via == trace::kNoId) g.via = e.stream;  // the first storage reached through a graph
    g.blocks.add(block->size);
    g.storage_bytes += e.size;
    g.shared = g.shared || e.thread > 1;
  }
  if (--open.remaining == 0) open_.reset();
}

void Holders::onClose(const LiveAlloc& alloc, uint64_t timestamp) {
  auto it = tracked_.find({alloc.slot, alloc.address});
  if (it == tracked_.end()) return;
  free_ns_[it->second] = timestamp;
  tracked_.erase(it);
}

HeldBy Holders::heldBy(const Taken& t, const HoldersContext& context, uint32_t window,
                       HolderHistory& history) const {
  const trace::Census& c = t.census;
  HeldBy h;
  h.device = c.device;
  h.timestamp = c.timestamp;
  h.step = c.step;
  h.objects = c.objects;
  h.duration_ns = c.duration_ns;
  h.complete = c.complete;
  h.allocated = t.live.bytes;
  h.storages = t.storages;
  std::vector<HolderHistory::Entry> entries;
  for (const Group& g : t.groups) {
    const uint64_t freed = free_ns_[g.first.tracked];
    const BlockFate fate{(g.first.flags & kBornPersistent) != 0,
                         freed != kNotFreed && context.run_end_ns && freed <= *context.run_end_ns,
                         context.never_freed->fateOf(g.first.site)};
    // A block's tracking index is its identity: a block freed and allocated again at the same
    // address (a caching allocator's reuse) is tracked anew.
    entries.push_back({context.symbols->string(g.path), g.first.tracked, g.role, timeClass(fate)});
    h.held += g.blocks;
  }
  const std::vector<HolderClass> classes = history.next(entries, censusName(c.step, window + 1));
  for (size_t i = 0; i < t.groups.size(); ++i) {
    const Group& g = t.groups[i];
    Holder& holder = h.holders.emplace_back();
    holder.path = entries[i].path;
    holder.bytes = g.blocks.bytes;
    holder.count = g.blocks.count;
    holder.storage_bytes = g.storage_bytes;
    holder.address = g.address;
    holder.role = g.role;
    holder.cls = classes[i].cls;
    holder.rule = classes[i].rule;
    if (g.via != trace::kNoId) holder.via_graph = splitVia(context.symbols->string(g.via));
    holder.shared = g.shared;
    holder.stack = context.retention->site(g.first.site).stack;
    h.by_class.of(holder.cls) += g.blocks;
  }
  h.not_seen = {t.live.bytes - h.held.bytes, t.live.count - h.held.count};
  h.not_seen_reason = notSeenReason(h, t.blocks);
  // Ranked as sites are: what the iterations keep (inter-iteration, leak) first, then persistent
  // state, each by bytes; so the cut keeps what a user must change.
  std::stable_sort(h.holders.begin(), h.holders.end(), [](const Holder& a, const Holder& b) {
    const bool a_kept = a.cls != RetentionClass::kPersistent;
    const bool b_kept = b.cls != RetentionClass::kPersistent;
    if (a_kept != b_kept) return a_kept;
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.path < b.path;
  });
  for (size_t i = context.max_holders; i < h.holders.size(); ++i) {
    h.holders_left_out.add(h.holders[i].bytes);
  }
  if (h.holders.size() > context.max_holders) h.holders.resize(context.max_holders);
  return h;
}

HeldByWindows Holders::finish(const std::vector<IterationSpan>& spans,
                              const HoldersContext& context) {
  open_.reset();
  HeldByWindows out;
  out.windows.resize(spans.size());
  out.count.taken = static_cast<uint32_t>(taken_.size());
  // Per window and device, the last census there.
  std::vector<std::map<uint32_t, size_t>> last(spans.size());
  for (size_t i = 0; i < taken_.size(); ++i) {
    const trace::Census& c = taken_[i].census;
    const std::optional<uint32_t> window = windowOf(spans, c.timestamp);
    if (!window) {
      out.count.outside.push_back({c.timestamp, c.device, c.step});
      continue;
    }
    ++out.count.in_idle_windows;
    last[*window][c.device] = i;
  }
  std::map<uint32_t, HolderHistory> history;  // per device
  for (uint32_t w = 0; w < last.size(); ++w) {
    for (const auto& [device, taken] : last[w]) {
      out.windows[w].push_back(heldBy(taken_[taken], context, w, history[device]));
    }
  }
  return out;
}

}  // namespace memfloor::analysis
