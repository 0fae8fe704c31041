// TCP for the ranks of one job: a connected stream (StreamSocket), and the pieces a rendezvous sets
// one up with, every wait bounded by one deadline: descriptors, whole sends and receives, name
// resolution, listening, accepting and connecting with retries.
#pragma once

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace refmodel {

// A rank-setup or link failure; the message names the address, the rank and what went wrong.
class RankError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A connected TCP stream (move-only; closes its descriptor). Reads and writes loop over partial
// transfers and EINTR; both throw RankError naming the peer on an error or an early end of stream.
class StreamSocket {
 public:
  StreamSocket(int fd, std::string peer);
  ~StreamSocket();
  StreamSocket(StreamSocket&& other) noexcept;
  StreamSocket& operator=(StreamSocket&& other) noexcept;
  StreamSocket(const StreamSocket&) = delete;
  StreamSocket& operator=(const StreamSocket&) = delete;

  void writeAll(const void* data, std::size_t size);
  void readAll(void* data, std::size_t size);
  // Ends both directions: a reader blocked in readAll (another thread) returns with an error.
  void shutdown();
  const std::string& peer() const { return peer_; }

 private:
  int fd_ = -1;
  std::string peer_;  // "host:port (rank N)", for messages
};

using Clock = std::chrono::steady_clock;

// strerror's text for `error`.
std::string errorText(int error);

// A descriptor owned while a connection is set up; StreamSocket takes it over.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// The one deadline every wait of a setup shares, and its length for messages.
struct Deadline {
  Clock::time_point at;
  std::chrono::milliseconds length;

  bool passed() const { return Clock::now() >= at; }
  int remainingMs() const {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(at - Clock::now()).count();
    return static_cast<int>(std::clamp<std::int64_t>(left, 0, INT_MAX));
  }
  std::string text() const {
    const auto ms = length.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  }
};

// Waits until `fd` has `events` (or an error or hang-up, which the next call reports); false when
// the deadline passes first.
bool waitFor(int fd, short events, const Deadline& deadline);

// Sends all `size` bytes (over partial sends and EINTR); throws RankError naming `peer`.
void sendAll(int fd, const std::string& peer, const void* data, std::size_t size);

// With a deadline, polls before each read so that a silent peer cannot hold the caller past it.
void recvAll(int fd, const std::string& peer, void* data, std::size_t size,
             const Deadline* deadline);

// "host:port", with IPv6 addresses in brackets.
std::string hostPort(const std::string& host, int port);

// The numeric host and the port of a socket address.
std::pair<std::string, int> numericAddress(const sockaddr_storage& addr, socklen_t size);

// The numeric host and the port a socket is bound to.
std::pair<std::string, int> localAddress(int fd);

using AddressList = std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)>;

// The addresses of host:port; nullptr and the reason when it does not resolve.
AddressList resolve(const std::string& host, int port, bool passive, std::string& why);

// TCP_NODELAY: the handshake's and the links' small messages go out at once.
void setNoDelay(int fd);

// A listening socket (non-blocking, so that a connection that vanishes between poll and accept
// cannot block the accept); an invalid Fd and `error` set when a step fails.
Fd listenAt(const sockaddr* addr, socklen_t size, bool reuse_address, int& error);

// A connection accepted, and where it came from.
struct Accepted {
  Fd fd;
  std::string host;
  int port = 0;
};

// The next connection on `listener`; nullopt when the deadline passes first.
std::optional<Accepted> acceptWithin(int listener, const Deadline& deadline);

// Connects to host:port, retrying every kRetryPause until the deadline.
Fd connectWithin(const std::string& host, int port, const std::string& who,
                 const Deadline& deadline);

}  // namespace refmodel
