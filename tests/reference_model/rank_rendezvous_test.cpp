// The rank environment and the TCP rendezvous, with ranks as threads on loopback (no GPU).
#include "rank_rendezvous.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace refmodel {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kJoinTimeout{5000};  // ample: a loopback rendezvous takes a few ms
constexpr milliseconds kMissTimeout{300};   // for a rank that never comes
constexpr milliseconds kShortTimeout{150};

std::optional<RankEnv> envFrom(const std::map<std::string, std::string>& vars) {
  return rankEnvFrom([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

std::string envError(const std::map<std::string, std::string>& vars) {
  try {
    envFrom(vars);
  } catch (const RankError& e) {
    return e.what();
  }
  return "no error";
}

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

struct RankResult {
  NeighbourLinks links;
  std::string error;  // empty when the rendezvous succeeded
};

// Runs each of `envs` as a thread; ranks of the world not in `envs` never join.
std::vector<RankResult> runRanks(const std::vector<RankEnv>& envs, std::span<const std::byte> token,
                                 milliseconds timeout) {
  std::vector<RankResult> results(envs.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        const auto mine = envs[i].rank == 0 ? token : std::span<const std::byte>{};
        results[i].links = rendezvous(envs[i], mine, timeout);
      } catch (const std::exception& e) {
        results[i].error = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

std::vector<RankEnv> worldOf(int world_size, const std::vector<int>& ranks,
                             const std::string& addr = "127.0.0.1") {
  const int port = freeLoopbackPort();
  std::vector<RankEnv> envs;
  for (const int r : ranks) envs.push_back(RankEnv{r, world_size, r, addr, port});
  return envs;
}

std::vector<RankEnv> fullWorld(int world_size, const std::string& addr = "127.0.0.1") {
  std::vector<int> ranks;
  for (int r = 0; r < world_size; ++r) ranks.push_back(r);
  return worldOf(world_size, ranks, addr);
}

std::vector<std::byte> pattern(std::size_t size, int seed) {
  constexpr std::size_t kPrime = 251;  // the pattern does not repeat with a power of two
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 7 + seed) % kPrime);
  return bytes;
}

// Writes `out` and reads as many bytes back, on one socket.
std::vector<std::byte> exchange(StreamSocket& socket, const std::vector<std::byte>& out) {
  socket.writeAll(out.data(), out.size());
  std::vector<std::byte> in(out.size());
  socket.readAll(in.data(), in.size());
  return in;
}

void checkLinks(std::vector<RankResult>& results, const std::vector<std::byte>& token) {
  const std::size_t world = results.size();
  for (std::size_t r = 0; r < world; ++r) {
    INFO("rank " << r);
    REQUIRE(results[r].error.empty());
    CHECK(results[r].links.token == token);
    CHECK((results[r].links.previous == nullptr) == (r == 0));
    CHECK((results[r].links.next == nullptr) == (r + 1 == world));
  }
  constexpr std::size_t kBytes = 6000;
  for (std::size_t r = 0; r + 1 < world; ++r) {
    INFO("link " << r << " - " << r + 1);
    const std::vector<std::byte> down = pattern(kBytes, static_cast<int>(r));
    const std::vector<std::byte> up = pattern(kBytes, static_cast<int>(r) + 100);
    std::vector<std::byte> got_up;
    std::thread lower([&] { got_up = exchange(*results[r].links.next, down); });
    const std::vector<std::byte> got_down = exchange(*results[r + 1].links.previous, up);
    lower.join();
    CHECK(got_down == down);
    CHECK(got_up == up);
  }
}

// A raw client of rank 0's port; retries while rank 0 is not listening yet.
int connectRaw(int port) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    const sockaddr_in addr = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return fd;
    ::close(fd);
    std::this_thread::sleep_for(milliseconds(10));
  }
  FAIL("rank 0 does not listen on port " << port);
  return -1;
}

TEST_CASE("rankEnvFrom reads the launcher's variables", "[rendezvous]") {
  CHECK_FALSE(envFrom({}).has_value());
  CHECK_FALSE(envFrom({{"WORLD_SIZE", "4"}}).has_value());

  const auto full = envFrom({{"RANK", "2"},
                             {"WORLD_SIZE", "4"},
                             {"LOCAL_RANK", "0"},
                             {"MASTER_ADDR", "10.0.0.7"},
                             {"MASTER_PORT", "1234"}});
  REQUIRE(full.has_value());
  CHECK(full->rank == 2);
  CHECK(full->world_size == 4);
  CHECK(full->local_rank == 0);
  CHECK(full->master_addr == "10.0.0.7");
  CHECK(full->master_port == 1234);

  const auto defaults = envFrom({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
  REQUIRE(defaults.has_value());
  CHECK(defaults->local_rank == 1);
  CHECK(defaults->master_addr == "127.0.0.1");
  CHECK(defaults->master_port == 29500);
}

TEST_CASE("rankEnvFrom names the variable and value it rejects", "[rendezvous]") {
  using Vars = std::map<std::string, std::string>;
  const Vars ok{{"RANK", "1"}, {"WORLD_SIZE", "2"}};
  const auto with = [&](const std::string& name, const std::string& value) {
    Vars vars = ok;
    vars[name] = value;
    return envError(vars);
  };
  CHECK(envError({{"RANK", "0"}}) == "RANK is set but WORLD_SIZE is not");
  CHECK(with("RANK", "abc") == "RANK=abc is not a number");
  CHECK(with("RANK", "1x") == "RANK=1x is not a number");
  CHECK(with("RANK", " 1") == "RANK= 1 is not a number");
  CHECK(with("RANK", "") == "RANK= is not a number");
  CHECK(with("RANK", "99999999999") == "RANK=99999999999 is out of range");
  CHECK(with("RANK", "-1") == "RANK=-1 is negative");
  CHECK(with("RANK", "3") == "RANK=3 is not below WORLD_SIZE=2");
  CHECK(with("WORLD_SIZE", "two") == "WORLD_SIZE=two is not a number");
  CHECK(with("WORLD_SIZE", "0") == "WORLD_SIZE=0 is not a positive number");
  CHECK(with("LOCAL_RANK", "2") == "LOCAL_RANK=2 is not below WORLD_SIZE=2");
  CHECK(with("LOCAL_RANK", "x") == "LOCAL_RANK=x is not a number");
  CHECK(with("MASTER_ADDR", "") == "MASTER_ADDR is set but empty");
  CHECK(with("MASTER_PORT", "0") == "MASTER_PORT=0 is not in 1..65535");
  CHECK(with("MASTER_PORT", "65536") == "MASTER_PORT=65536 is not in 1..65535");
  CHECK(with("MASTER_PORT", "http") == "MASTER_PORT=http is not a number");
}

TEST_CASE("one rank needs no sockets", "[rendezvous]") {
  const std::vector<std::byte> token = pattern(16, 1);
  std::vector<RankResult> results = runRanks(worldOf(1, {0}), token, kShortTimeout);
  checkLinks(results, token);
}

TEST_CASE("every rank gets the token and links to its neighbours", "[rendezvous]") {
  const std::vector<std::byte> token = pattern(128, 3);
  for (const int world : {2, 4}) {
    INFO("world size " << world);
    std::vector<RankResult> results = runRanks(fullWorld(world), token, kJoinTimeout);
    checkLinks(results, token);
  }
}

TEST_CASE("MASTER_ADDR may be a host name", "[rendezvous]") {
  std::vector<RankResult> results = runRanks(fullWorld(3, "localhost"), {}, kJoinTimeout);
  checkLinks(results, {});
}

TEST_CASE("a rank that never joins is named when the timeout passes", "[rendezvous]") {
  const std::vector<RankResult> results = runRanks(worldOf(4, {0, 1, 3}), {}, kMissTimeout);
  CHECK_THAT(results[0].error, Catch::Contains("rank 2 of 4 did not join within 300 ms"));
  CHECK_THAT(results[0].error, Catch::Contains("127.0.0.1:"));
  CHECK_FALSE(results[1].error.empty());
  CHECK_FALSE(results[2].error.empty());

  const std::vector<RankResult> alone = runRanks(worldOf(3, {0}), {}, kShortTimeout);
  CHECK_THAT(alone[0].error, Catch::Contains("ranks 1, 2 of 3 did not join"));
}

TEST_CASE("a rank with nothing to connect to gives up at the timeout", "[rendezvous]") {
  const std::vector<RankResult> results = runRanks(worldOf(2, {1}), {}, kShortTimeout);
  CHECK_THAT(results[0].error, Catch::Contains("rank 1 could not connect to 127.0.0.1:"));
  CHECK_THAT(results[0].error, Catch::Contains("within 150 ms"));
}

TEST_CASE("rank 0 rejects a bad hello", "[rendezvous]") {
  SECTION("garbage") {
    const std::vector<RankEnv> envs = worldOf(2, {0});
    std::vector<RankResult> results;
    std::thread rank0([&] { results = runRanks(envs, {}, kJoinTimeout); });
    const int fd = connectRaw(envs[0].master_port);
    const char garbage[] = "GET / HTTP/1.0\r\n\r\n  ";
    CHECK(::send(fd, garbage, sizeof garbage, MSG_NOSIGNAL) > 0);
    rank0.join();
    ::close(fd);
    CHECK_THAT(results[0].error, Catch::Contains("bad rendezvous magic"));
  }
  SECTION("a world size that disagrees") {
    std::vector<RankEnv> envs = worldOf(2, {0, 1});
    envs[1].world_size = 3;
    const std::vector<RankResult> results = runRanks(envs, {}, kJoinTimeout);
    CHECK_THAT(results[0].error, Catch::Contains("world size 3 disagrees"));
    CHECK_FALSE(results[1].error.empty());
  }
  SECTION("a rank that joins twice") {
    const std::vector<RankResult> results = runRanks(worldOf(3, {0, 1, 1}), {}, kJoinTimeout);
    CHECK_THAT(results[0].error, Catch::Contains("rank 1 joined twice"));
  }
}

TEST_CASE("shutdown wakes a reader blocked in another thread", "[rendezvous]") {
  std::vector<RankResult> results = runRanks(fullWorld(2), {}, kJoinTimeout);
  REQUIRE(results[1].error.empty());
  StreamSocket& socket = *results[1].links.previous;
  std::string error;
  std::thread reader([&] {
    try {
      std::array<std::byte, 8> buffer{};
      socket.readAll(buffer.data(), buffer.size());
    } catch (const RankError& e) {
      error = e.what();
    }
  });
  constexpr milliseconds kReaderStart{20};  // the reader is most likely blocked by then
  std::this_thread::sleep_for(kReaderStart);
  socket.shutdown();
  reader.join();
  CHECK_THAT(error, Catch::Contains("connection closed after 0 of 8 bytes"));
  CHECK_THAT(error, Catch::Contains("(rank 0)"));
}

}  // namespace
}  // namespace refmodel
