// The rank environment and the TCP rendezvous that connects each rank to its pipeline neighbours.
#include "rank_rendezvous.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace refmodel {

namespace {

// The handshake, every field a big-endian u32. Each rank r > 0 sends a hello to rank 0, and rank
// r + 1 sends one to rank r on the link between them:
//
//   magic "MFRV" | version | world size | rank | listening port (0 on the last rank, which has none)
//
// Rank 0 answers each rank, once all have joined:
//
//   magic | token size | token bytes | address size | address bytes | port
//
// where address:port is the previous neighbour's listener (empty and 0 for rank 1, whose previous
// neighbour is rank 0 and whose link to it is the rendezvous connection).
constexpr std::uint32_t kMagic = 0x4d465256;  // "MFRV"
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHelloWords = 5;
constexpr std::size_t kMaxTokenBytes = 4096;  // NCCL's unique id is 128 bytes
constexpr std::size_t kMaxAddressBytes = 255;
constexpr std::uint32_t kMaxPort = 65535;

void putU32(std::vector<std::byte>& out, std::uint32_t value) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xffU));
}

// The big-endian u32 at word `index` of `in`.
std::uint32_t getU32(const std::byte* in, std::size_t index = 0) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value = (value << 8) | std::to_integer<std::uint32_t>(in[4 * index + i]);
  }
  return value;
}

std::uint32_t readU32(int fd, const std::string& peer, const Deadline& deadline) {
  std::array<std::byte, 4> bytes{};
  recvAll(fd, peer, bytes.data(), bytes.size(), &deadline);
  return getU32(bytes.data());
}

void checkMagic(std::uint32_t magic, const std::string& peer) {
  if (magic != kMagic) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", magic);
    throw RankError(peer + ": bad rendezvous magic " + hex + " (not a rank of this job?)");
  }
}

struct Hello {
  int world_size = 0;
  int rank = 0;
  int port = 0;  // where the sender listens for its next neighbour; 0 on the last rank
};

void sendHello(int fd, const std::string& peer, const Hello& hello) {
  std::vector<std::byte> out;
  for (const std::uint32_t word :
       {kMagic, kVersion, static_cast<std::uint32_t>(hello.world_size),
        static_cast<std::uint32_t>(hello.rank), static_cast<std::uint32_t>(hello.port)}) {
    putU32(out, word);
  }
  sendAll(fd, peer, out.data(), out.size());
}

// Reads a hello and checks it against the receiver's world size; the caller checks the rank.
Hello readHello(int fd, const std::string& peer, int world_size, const Deadline& deadline) {
  std::array<std::byte, kHelloWords * 4> in{};
  recvAll(fd, peer, in.data(), in.size(), &deadline);
  checkMagic(getU32(in.data()), peer);
  const std::uint32_t version = getU32(in.data(), 1);
  const std::uint32_t world = getU32(in.data(), 2);
  const std::uint32_t rank = getU32(in.data(), 3);
  const std::uint32_t port = getU32(in.data(), 4);
  if (version != kVersion) {
    throw RankError(peer + ": rendezvous version " + std::to_string(version) + ", expected " +
                    std::to_string(kVersion));
  }
  if (world != static_cast<std::uint32_t>(world_size)) {
    throw RankError(peer + ": world size " + std::to_string(world) + " disagrees with this rank's " +
                    std::to_string(world_size));
  }
  if (rank == 0 || rank >= world) {
    throw RankError(peer + ": rank " + std::to_string(rank) + " is out of range for world size " +
                    std::to_string(world));
  }
  const bool last = rank + 1 == world;
  if (port > kMaxPort || (port == 0) != last) {
    throw RankError(peer + ": rank " + std::to_string(rank) + " gives listening port " +
                    std::to_string(port));
  }
  return {world_size, static_cast<int>(rank), static_cast<int>(port)};
}

// Where the previous neighbour listens, and rank 0's token.
struct Answer {
  std::vector<std::byte> token;
  std::string host;
  int port = 0;
};

void sendAnswer(int fd, const std::string& peer, std::span<const std::byte> token,
                const std::string& host, int port) {
  std::vector<std::byte> out;
  putU32(out, kMagic);
  putU32(out, static_cast<std::uint32_t>(token.size()));
  out.insert(out.end(), token.begin(), token.end());
  putU32(out, static_cast<std::uint32_t>(host.size()));
  for (const char c : host) out.push_back(static_cast<std::byte>(c));
  putU32(out, static_cast<std::uint32_t>(port));
  sendAll(fd, peer, out.data(), out.size());
}

void checkSize(const std::string& where, const char* what, std::size_t size, std::size_t limit) {
  if (size > limit) {
    throw RankError(where + ": " + what + " of " + std::to_string(size) + " bytes (at most " +
                    std::to_string(limit) + ")");
  }
}

// A length from the wire, checked against its bound before anything is sized by it.
std::size_t readSize(int fd, const std::string& peer, const char* what, std::size_t limit,
                     const Deadline& deadline) {
  const std::uint32_t size = readU32(fd, peer, deadline);
  checkSize(peer, what, size, limit);
  return size;
}

Answer readAnswer(int fd, const std::string& peer, const Deadline& deadline) {
  checkMagic(readU32(fd, peer, deadline), peer);
  Answer answer;
  answer.token.resize(readSize(fd, peer, "token", kMaxTokenBytes, deadline));
  recvAll(fd, peer, answer.token.data(), answer.token.size(), &deadline);
  answer.host.resize(readSize(fd, peer, "address", kMaxAddressBytes, deadline));
  recvAll(fd, peer, answer.host.data(), answer.host.size(), &deadline);
  const std::uint32_t port = readU32(fd, peer, deadline);
  if (port > kMaxPort) throw RankError(peer + ": neighbour port " + std::to_string(port));
  answer.port = static_cast<int>(port);
  return answer;
}

std::string peerName(const std::string& host, int port, int rank) {
  return hostPort(host, port) + " (rank " + std::to_string(rank) + ")";
}

// Rank 0's listener on MASTER_ADDR:MASTER_PORT, the first of its addresses that binds.
Fd listenAtMaster(const RankEnv& env, const std::string& where) {
  std::string why;
  const AddressList list = resolve(env.master_addr, env.master_port, true, why);
  if (!list) throw RankError(where + ": cannot resolve " + env.master_addr + ": " + why);
  int error = 0;
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    Fd fd = listenAt(a->ai_addr, a->ai_addrlen, true, error);
    if (fd.valid()) return fd;
  }
  throw RankError(where + ": rank 0 cannot listen: " + errorText(error));
}

// A rank's listener for its next neighbour: the address rank 0 sees it connect from (the local
// address of `to_master`), on an ephemeral port.
Fd listenBeside(int to_master, const std::string& where) {
  sockaddr_storage addr{};
  socklen_t size = sizeof addr;
  if (::getsockname(to_master, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    throw RankError(where + ": getsockname failed: " + errorText(errno));
  }
  if (addr.ss_family == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port = 0;
  } else {
    reinterpret_cast<sockaddr_in*>(&addr)->sin_port = 0;
  }
  int error = 0;
  Fd fd = listenAt(reinterpret_cast<const sockaddr*>(&addr), size, false, error);
  if (!fd.valid()) throw RankError(where + ": cannot listen for the next rank: " + errorText(error));
  return fd;
}

// "rank 2" or "ranks 2, 3": the ranks not yet joined, of 1 .. world - 1.
std::string missingRanks(const std::vector<std::optional<Accepted>>& joined) {
  std::string list;
  int count = 0;
  for (std::size_t r = 1; r < joined.size(); ++r) {
    if (joined[r]) continue;
    list += (count++ == 0 ? "" : ", ") + std::to_string(r);
  }
  return (count == 1 ? "rank " : "ranks ") + list;
}

// Rank 0: accepts every other rank, then answers each with the token and its previous
// neighbour's listener.
NeighbourLinks serveRendezvous(const RankEnv& env, std::span<const std::byte> token,
                               const Deadline& deadline) {
  const std::string where = "rendezvous on " + hostPort(env.master_addr, env.master_port);
  checkSize(where, "token", token.size(), kMaxTokenBytes);
  const Fd listener = listenAtMaster(env, where);
  // Per rank: its rendezvous connection, with `port` replaced by where it listens.
  std::vector<std::optional<Accepted>> joined(static_cast<std::size_t>(env.world_size));
  for (int waiting = env.world_size - 1; waiting > 0; --waiting) {
    std::optional<Accepted> a = acceptWithin(listener.get(), deadline);
    if (!a) {
      throw RankError(where + ": " + missingRanks(joined) + " of " +
                      std::to_string(env.world_size) + " did not join within " + deadline.text());
    }
    const std::string peer = where + ": " + hostPort(a->host, a->port);
    const Hello hello = readHello(a->fd.get(), peer, env.world_size, deadline);
    auto& slot = joined[static_cast<std::size_t>(hello.rank)];
    if (slot) throw RankError(peer + ": rank " + std::to_string(hello.rank) + " joined twice");
    a->port = hello.port;
    slot = std::move(a);
  }
  for (std::size_t r = 1; r < joined.size(); ++r) {
    const Accepted& a = *joined[r];
    const std::string peer = peerName(a.host, a.port, static_cast<int>(r));
    if (r == 1) {
      sendAnswer(a.fd.get(), peer, token, "", 0);
    } else {
      sendAnswer(a.fd.get(), peer, token, joined[r - 1]->host, joined[r - 1]->port);
    }
  }
  NeighbourLinks links;
  links.token.assign(token.begin(), token.end());
  Accepted& first = *joined[1];
  links.next =
      std::make_unique<StreamSocket>(first.fd.release(), peerName(first.host, first.port, 1));
  return links;
}

// The link to rank env.rank + 1: exactly one connection on `listener`, which says it is that rank.
std::unique_ptr<StreamSocket> acceptNext(const RankEnv& env, int listener,
                                         const Deadline& deadline) {
  const int next = env.rank + 1;
  std::optional<Accepted> a = acceptWithin(listener, deadline);
  if (!a) {
    throw RankError("rank " + std::to_string(env.rank) + ": rank " + std::to_string(next) +
                    " did not connect within " + deadline.text());
  }
  std::string peer = peerName(a->host, a->port, next);
  const Hello hello = readHello(a->fd.get(), peer, env.world_size, deadline);
  if (hello.rank != next) {
    throw RankError(peer + ": rank " + std::to_string(hello.rank) + " connected, expected rank " +
                    std::to_string(next));
  }
  return std::make_unique<StreamSocket>(a->fd.release(), std::move(peer));
}

// Rank r > 0: joins at rank 0, then links to rank r - 1 and accepts rank r + 1.
NeighbourLinks joinRendezvous(const RankEnv& env, const Deadline& deadline) {
  const std::string who = "rank " + std::to_string(env.rank);
  const std::string master = peerName(env.master_addr, env.master_port, 0);
  Fd to_master = connectWithin(env.master_addr, env.master_port, who, deadline);
  const bool has_next = env.rank + 1 < env.world_size;
  Fd listener;
  int port = 0;
  if (has_next) {
    listener = listenBeside(to_master.get(), who);
    port = localAddress(listener.get()).second;
  }
  sendHello(to_master.get(), master, {env.world_size, env.rank, port});
  Answer answer = readAnswer(to_master.get(), master, deadline);

  NeighbourLinks links;
  links.token = std::move(answer.token);
  if (env.rank == 1) {
    links.previous = std::make_unique<StreamSocket>(to_master.release(), master);
  } else {
    if (answer.host.empty() || answer.port == 0) {
      throw RankError(master + ": no address for rank " + std::to_string(env.rank - 1));
    }
    const std::string peer = peerName(answer.host, answer.port, env.rank - 1);
    Fd fd = connectWithin(answer.host, answer.port, who, deadline);
    sendHello(fd.get(), peer, {env.world_size, env.rank, port});
    links.previous = std::make_unique<StreamSocket>(fd.release(), peer);
  }
  if (has_next) links.next = acceptNext(env, listener.get(), deadline);
  return links;
}

int parseInt(const char* name, std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  const std::string what = std::string(name) + "=" + std::string(text);
  if (ec == std::errc::result_out_of_range) throw RankError(what + " is out of range");
  if (ec != std::errc{} || stop != end) throw RankError(what + " is not a number");
  return value;
}

// RANK and LOCAL_RANK: 0 <= value < WORLD_SIZE.
int parseRank(const char* name, const char* text, int world_size) {
  const int value = parseInt(name, text);
  const std::string what = std::string(name) + "=" + text;
  if (value < 0) throw RankError(what + " is negative");
  if (value >= world_size) {
    throw RankError(what + " is not below WORLD_SIZE=" + std::to_string(world_size));
  }
  return value;
}

}  // namespace

std::optional<RankEnv> rankEnvFrom(const std::function<const char*(const char*)>& getenv) {
  const char* rank = getenv("RANK");
  if (rank == nullptr) return std::nullopt;
  const char* world_size = getenv("WORLD_SIZE");
  if (world_size == nullptr) throw RankError("RANK is set but WORLD_SIZE is not");
  RankEnv env;
  env.world_size = parseInt("WORLD_SIZE", world_size);
  if (env.world_size < 1) {
    throw RankError(std::string("WORLD_SIZE=") + world_size + " is not a positive number");
  }
  env.rank = parseRank("RANK", rank, env.world_size);
  const char* local_rank = getenv("LOCAL_RANK");
  env.local_rank = local_rank != nullptr ? parseRank("LOCAL_RANK", local_rank, env.world_size)
                                         : env.rank;
  if (const char* addr = getenv("MASTER_ADDR")) {
    if (*addr == '\0') throw RankError("MASTER_ADDR is set but empty");
    env.master_addr = addr;
  }
  if (const char* port = getenv("MASTER_PORT")) {
    env.master_port = parseInt("MASTER_PORT", port);
    if (env.master_port < 1 || env.master_port > static_cast<int>(kMaxPort)) {
      throw RankError(std::string("MASTER_PORT=") + port + " is not in 1..65535");
    }
  }
  return env;
}

NeighbourLinks rendezvous(const RankEnv& env, std::span<const std::byte> token,
                          std::chrono::milliseconds timeout) {
  if (env.world_size < 1 || env.rank < 0 || env.rank >= env.world_size) {
    throw RankError("rendezvous: rank " + std::to_string(env.rank) + " of world size " +
                    std::to_string(env.world_size));
  }
  if (env.world_size == 1) {
    NeighbourLinks links;
    links.token.assign(token.begin(), token.end());
    return links;
  }
  const Deadline deadline{Clock::now() + timeout, timeout};
  return env.rank == 0 ? serveRendezvous(env, token, deadline) : joinRendezvous(env, deadline);
}

int freeLoopbackPort() {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw RankError("free port: socket: " + errorText(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  auto* generic = reinterpret_cast<sockaddr*>(&address);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  if (::bind(fd.get(), generic, sizeof address) != 0 ||
      ::getsockname(fd.get(), generic, &length) != 0) {
    throw RankError("free port: none on 127.0.0.1: " + errorText(errno));
  }
  return ntohs(address.sin_port);
}

}  // namespace refmodel
