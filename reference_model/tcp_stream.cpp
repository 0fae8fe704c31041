// TCP for the ranks of one job: a connected stream, and the deadline-bounded steps that set one up.
#include "tcp_stream.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

namespace refmodel {

namespace {

constexpr auto kRetryPause = std::chrono::milliseconds(50);

// A connection to itself: what connecting to a free port in the ephemeral range can give on
// loopback (TCP simultaneous open) while the listener is not up yet.
bool connectedToItself(int fd) {
  sockaddr_storage local{};
  sockaddr_storage remote{};
  socklen_t local_size = sizeof local;
  socklen_t remote_size = sizeof remote;
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) == 0 &&
         ::getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &remote_size) == 0 &&
         local_size == remote_size && std::memcmp(&local, &remote, local_size) == 0;
}

// One connection attempt (non-blocking, so that an unanswered SYN waits no longer than the
// deadline); an invalid Fd and `error` set when it fails.
Fd connectOnce(const addrinfo& a, const Deadline& deadline, int& error) {
  Fd fd(::socket(a.ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, a.ai_protocol));
  if (!fd.valid()) {
    error = errno;
    return Fd();
  }
  if (::connect(fd.get(), a.ai_addr, a.ai_addrlen) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) {
      error = errno;
      return Fd();
    }
    if (!waitFor(fd.get(), POLLOUT, deadline)) {
      error = ETIMEDOUT;
      return Fd();
    }
    socklen_t size = sizeof error;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
    if (error != 0) return Fd();
  }
  if (connectedToItself(fd.get())) {
    error = ECONNREFUSED;
    return Fd();
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    error = errno;
    return Fd();
  }
  setNoDelay(fd.get());
  return fd;
}

}  // namespace

StreamSocket::StreamSocket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

StreamSocket::~StreamSocket() {
  if (fd_ >= 0) ::close(fd_);
}

StreamSocket::StreamSocket(StreamSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), peer_(std::move(other.peer_)) {}

StreamSocket& StreamSocket::operator=(StreamSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    peer_ = std::move(other.peer_);
  }
  return *this;
}

void StreamSocket::writeAll(const void* data, std::size_t size) { sendAll(fd_, peer_, data, size); }

void StreamSocket::readAll(void* data, std::size_t size) {
  recvAll(fd_, peer_, data, size, nullptr);
}

void StreamSocket::shutdown() {
  // ENOTCONN when the peer is gone already: nothing is left to end.
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

std::string errorText(int error) { return std::generic_category().message(error); }

bool waitFor(int fd, short events, const Deadline& deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, deadline.remainingMs());
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw RankError(std::string("poll failed: ") + errorText(errno));
  }
}

void sendAll(int fd, const std::string& peer, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::send(fd, bytes + done, size - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw RankError(peer + ": send failed after " + std::to_string(done) + " of " +
                      std::to_string(size) + " bytes: " + errorText(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void recvAll(int fd, const std::string& peer, void* data, std::size_t size,
             const Deadline* deadline) {
  auto* bytes = static_cast<char*>(data);
  std::size_t done = 0;
  const auto progress = [&] { return std::to_string(done) + " of " + std::to_string(size) + " bytes"; };
  while (done < size) {
    if (deadline != nullptr && !waitFor(fd, POLLIN, *deadline)) {
      throw RankError(peer + ": no answer within " + deadline->text() + " (" + progress() + ")");
    }
    const ssize_t n = ::recv(fd, bytes + done, size - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw RankError(peer + ": receive failed after " + progress() + ": " + errorText(errno));
    }
    if (n == 0) throw RankError(peer + ": connection closed after " + progress());
    done += static_cast<std::size_t>(n);
  }
}

std::string hostPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::pair<std::string, int> numericAddress(const sockaddr_storage& addr, socklen_t size) {
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  const int rc = ::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), size, host, sizeof host,
                               service, sizeof service, NI_NUMERICHOST | NI_NUMERICSERV);
  if (rc != 0) throw RankError(std::string("getnameinfo failed: ") + ::gai_strerror(rc));
  return {host, std::atoi(service)};
}

std::pair<std::string, int> localAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t size = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    throw RankError(std::string("getsockname failed: ") + errorText(errno));
  }
  return numericAddress(addr, size);
}

AddressList resolve(const std::string& host, int port, bool passive, std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list);
  if (rc != 0) {
    why = rc == EAI_SYSTEM ? errorText(errno) : ::gai_strerror(rc);
    return {nullptr, &::freeaddrinfo};
  }
  return {list, &::freeaddrinfo};
}

void setNoDelay(int fd) {
  const int on = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) {
    throw RankError(std::string("setting TCP_NODELAY failed: ") + errorText(errno));
  }
}

Fd listenAt(const sockaddr* addr, socklen_t size, bool reuse_address, int& error) {
  Fd fd(::socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  const int on = 1;
  if (!fd.valid() ||
      (reuse_address && ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) ||
      ::bind(fd.get(), addr, size) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) {
    error = errno;
    return Fd();
  }
  return fd;
}

std::optional<Accepted> acceptWithin(int listener, const Deadline& deadline) {
  while (waitFor(listener, POLLIN, deadline)) {
    sockaddr_storage addr{};
    socklen_t size = sizeof addr;
    Fd fd(::accept4(listener, reinterpret_cast<sockaddr*>(&addr), &size, SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) {
        continue;
      }
      throw RankError(std::string("accept failed: ") + errorText(errno));
    }
    setNoDelay(fd.get());
    auto [host, port] = numericAddress(addr, size);
    return Accepted{std::move(fd), std::move(host), port};
  }
  return std::nullopt;
}

Fd connectWithin(const std::string& host, int port, const std::string& who,
                 const Deadline& deadline) {
  std::string why;
  for (;;) {
    if (const AddressList list = resolve(host, port, false, why)) {
      int error = 0;
      for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
        Fd fd = connectOnce(*a, deadline, error);
        if (fd.valid()) return fd;
      }
      why = errorText(error);
    }
    if (deadline.passed()) {
      throw RankError(who + " could not connect to " + hostPort(host, port) + " within " +
                      deadline.text() + ": " + why);
    }
    std::this_thread::sleep_for(
        std::min<Clock::duration>(kRetryPause, deadline.at - Clock::now()));
  }
}

}  // namespace refmodel
