// The host-staged stage link: device -> host copy, the neighbour's socket, host -> device copy.
#include "host_link.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "context.h"
#include "cuda_check.h"

namespace refmodel {

namespace {

// Larger than any boundary tensor the model makes; a length past it is a corrupt stream.
constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 40;

// The messages a neighbour's reader thread has read, in order, or why it stopped.
class Inbox {
 public:
  void push(std::vector<std::byte> message) {
    {
      std::lock_guard lock(mutex_);
      messages_.push_back(std::move(message));
    }
    ready_.notify_one();
  }
  void fail(std::string why) {
    {
      std::lock_guard lock(mutex_);
      error_ = std::move(why);
    }
    ready_.notify_one();
  }
  std::vector<std::byte> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !messages_.empty() || error_.has_value(); });
    if (messages_.empty()) throw RankError(*error_);
    std::vector<std::byte> message = std::move(messages_.front());
    messages_.pop_front();
    return message;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::vector<std::byte>> messages_;
  std::optional<std::string> error_;
};

struct Neighbour {
  int rank = -1;
  std::unique_ptr<StreamSocket> socket;
  Inbox inbox;
  std::thread reader;
};

void readMessages(StreamSocket& socket, Inbox& inbox) {
  try {
    for (;;) {
      std::uint64_t size = 0;
      socket.readAll(&size, sizeof size);
      if (size > kMaxMessageBytes) {
        throw RankError(socket.peer() + ": message of " + std::to_string(size) + " bytes");
      }
      std::vector<std::byte> message(size);
      socket.readAll(message.data(), message.size());
      inbox.push(std::move(message));
    }
  } catch (const std::exception& e) {
    inbox.fail(e.what());
  }
}

class HostLink final : public StageLink {
 public:
  HostLink(const RankEnv& env, NeighbourLinks links) : rank_(env.rank) {
    add(env.rank - 1, std::move(links.previous));
    add(env.rank + 1, std::move(links.next));
  }
  ~HostLink() override {
    for (auto& n : neighbours_) {
      n->socket->shutdown();
      n->reader.join();
    }
  }
  HostLink(const HostLink&) = delete;
  HostLink& operator=(const HostLink&) = delete;

  void exchange(Context& ctx, const std::vector<LinkOp>& ops) override {
    // Sends first: the peer's reader drains them whatever the peer does next.
    for (const LinkOp& op : ops) {
      if (!op.send) continue;
      staging_.resize(op.tensor.nbytes());
      REFMODEL_CUDA(cudaMemcpyAsync(staging_.data(), op.tensor.data(), staging_.size(),
                                    cudaMemcpyDeviceToHost, ctx.stream()));
      REFMODEL_CUDA(cudaStreamSynchronize(ctx.stream()));
      StreamSocket& socket = *neighbour(op.peer_rank).socket;
      const std::uint64_t size = staging_.size();
      socket.writeAll(&size, sizeof size);
      socket.writeAll(staging_.data(), staging_.size());
    }
    for (const LinkOp& op : ops) {
      if (op.send) continue;
      const std::vector<std::byte> message = neighbour(op.peer_rank).inbox.pop();
      if (message.size() != op.tensor.nbytes()) {
        throw RankError("rank " + std::to_string(op.peer_rank) + " sent " +
                        std::to_string(message.size()) + " bytes to rank " + std::to_string(rank_) +
                        ", which expected " + std::to_string(op.tensor.nbytes()));
      }
      REFMODEL_CUDA(cudaMemcpyAsync(op.tensor.data(), message.data(), message.size(),
                                    cudaMemcpyHostToDevice, ctx.stream()));
      REFMODEL_CUDA(cudaStreamSynchronize(ctx.stream()));  // the message dies at scope end
    }
  }

  std::string describe() const override { return "host"; }

 private:
  void add(int rank, std::unique_ptr<StreamSocket> socket) {
    if (!socket) return;
    auto n = std::make_unique<Neighbour>();
    n->rank = rank;
    n->socket = std::move(socket);
    Neighbour* raw = n.get();
    n->reader = std::thread([raw] { readMessages(*raw->socket, raw->inbox); });
    neighbours_.push_back(std::move(n));
  }
  Neighbour& neighbour(int rank) {
    for (auto& n : neighbours_) {
      if (n->rank == rank) return *n;
    }
    throw RankError("rank " + std::to_string(rank_) + " has no link to rank " + std::to_string(rank));
  }

  int rank_;
  std::vector<std::unique_ptr<Neighbour>> neighbours_;
  std::vector<std::byte> staging_;
};

}  // namespace

std::unique_ptr<StageLink> makeHostLink(const RankEnv& env, NeighbourLinks links) {
  return std::make_unique<HostLink>(env, std::move(links));
}

}  // namespace refmodel
