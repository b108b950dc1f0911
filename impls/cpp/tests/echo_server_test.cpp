// echo-server against workloads/echo-server.md: each model served in this process over pipes for
// stdin and stdout, spoken to over real sockets: the vector, random payloads, the wait, the stats
// line, threads per connection, the end of stdin.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ext/stdio_filebuf.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "os_threads.hpp"
#include "workloads/echo_server.hpp"

using namespace parbench;
using namespace std::chrono_literals;

namespace {

const std::vector<std::string> kModels = {"seq", "threads", "epoll"};

std::int64_t number_after(const std::string& line, const std::string& key) {
  const std::size_t at = line.find("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::stoll(line.substr(at + key.size() + 3));
}

// One served call: serve() on a thread, its stdin and stdout pipes held here.
class Served {
 public:
  Served(const std::string& model, int wait_us) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe");
    stdin_ = in[1];
    stdout_ = fdopen(out[0], "r");
    const std::vector<std::string> args = {"parbench-cpp", "echo-server", "--model", model, "--wait-us", std::to_string(wait_us)};
    thread_ = std::thread([this, args, in_fd = in[0], out_fd = out[1]] {
      __gnu_cxx::stdio_filebuf<char> in_buffer(in_fd, std::ios::in), out_buffer(out_fd, std::ios::out);
      std::istream input(&in_buffer);
      std::ostream output(&out_buffer);
      std::vector<char*> argv;
      for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
      echo_server::serve(Invocation::parse(static_cast<int>(argv.size()), argv.data()), input, output);
      finished_ = true;
    });
    const std::string ready = line();
    EXPECT_NE(ready.find("\"ready\":\"none\""), std::string::npos) << ready;
    EXPECT_NE(ready.find("\"model_detail\":\""), std::string::npos) << ready;
    port_ = static_cast<int>(number_after(ready, "port"));
  }
  ~Served() {
    if (stdin_ >= 0) close_stdin();
    thread_.join();
    fclose(stdout_);
  }

  int connect() const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
  std::string stats(int variant) {
    const std::string text = std::to_string(variant) + "\n";
    EXPECT_EQ(write(stdin_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    return line();
  }
  // Ends stdin: serve() returns within 2 s and the port no longer listens.
  void close_stdin() {
    close(stdin_);
    stdin_ = -1;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!finished_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(finished_) << "still serving after the end of stdin";
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << "still listening";
    close(fd);
  }

 private:
  std::string line() {
    char buffer[4096];
    return fgets(buffer, sizeof buffer, stdout_) ? std::string(buffer) : std::string();
  }
  int stdin_ = -1;
  FILE* stdout_ = nullptr;
  int port_ = 0;
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

std::string request(std::uint32_t id, const std::string& payload) {
  std::string message(8, '\0');
  const std::uint32_t id_be = htonl(id), len_be = htonl(static_cast<std::uint32_t>(payload.size()));
  std::memcpy(message.data(), &id_be, 4);
  std::memcpy(message.data() + 4, &len_be, 4);
  return message + payload;
}

void send_request(int fd, std::uint32_t id, const std::string& payload) {
  const std::string message = request(id, payload);
  ASSERT_EQ(send(fd, message.data(), message.size(), MSG_NOSIGNAL), static_cast<ssize_t>(message.size()));
}

// What arrives within `timeout`, up to `size` bytes (fewer at EOF or when time is up).
std::string receive(int fd, std::size_t size, std::chrono::milliseconds timeout = 20s) {
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (got.size() < size) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd wanted{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&wanted, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[70000];
    const ssize_t n = recv(fd, buffer, std::min(sizeof buffer, size - got.size()), 0);
    if (n <= 0) break;
    got.append(buffer, static_cast<std::size_t>(n));
  }
  return got;
}

std::string reply_to(std::uint32_t id, std::string payload) {
  std::reverse(payload.begin(), payload.end());
  return request(id, payload);
}

int at_once(const std::string& model) { return model == "seq" ? 1 : 6; }

}  // namespace

TEST(EchoServer, ReplyIsTheHeaderThenThePayloadReversed) {
  std::string message = request(1, "abc");
  echo_server::make_reply(message.data(), message.size());
  EXPECT_EQ(message, std::string("\0\0\0\1\0\0\0\3cba", 11));
}

TEST(EchoServer, TheSpecVector) {
  for (const std::string& model : kModels) {
    Served server(model, 0);
    const int fd = server.connect();
    send_request(fd, 1, "abc");
    EXPECT_EQ(receive(fd, 11), std::string("\0\0\0\1\0\0\0\3cba", 11)) << model;
    close(fd);
  }
}

TEST(EchoServer, RandomPayloadsOverConcurrentConnectionsThenTheStatsLine) {
  std::mt19937 random(12345);
  for (const std::string& model : kModels) {
    Served server(model, 2000);
    int replies = 0;
    for (int round = 0; round < 2; ++round) {  // in lockstep: no more connections than the model serves at once
      std::vector<int> fds;
      for (int k = 0; k < at_once(model); ++k) fds.push_back(server.connect());
      for (std::uint32_t r = 0; r < 4; ++r) {
        std::vector<std::string> payloads;
        for (std::size_t k = 0; k < fds.size(); ++k) {
          std::string payload(r * 100 + k, '\0');
          for (char& c : payload) c = static_cast<char>(random());
          payloads.push_back(payload);
          send_request(fds[k], static_cast<std::uint32_t>(1000 * k) + r, payload);
        }
        for (std::size_t k = 0; k < fds.size(); ++k) {
          EXPECT_EQ(receive(fds[k], 8 + payloads[k].size()), reply_to(static_cast<std::uint32_t>(1000 * k) + r, payloads[k])) << model;
          ++replies;
        }
      }
      for (int fd : fds) close(fd);
    }
    const std::string line = server.stats(7);
    EXPECT_EQ(number_after(line, "rep"), 7) << line;
    EXPECT_EQ(number_after(line, "items"), replies) << line;
    EXPECT_EQ(number_after(line, "replies"), replies) << line;
    EXPECT_EQ(number_after(line, "accepted"), 2 * at_once(model)) << line;
    EXPECT_NE(line.find("\"checksum\":\"served\""), std::string::npos) << line;
    EXPECT_EQ(number_after(server.stats(8), "items"), 0) << model << ": counted since the line before";
  }
}

TEST(EchoServer, ALenOver65536ClosesThatConnectionOnly) {
  for (const std::string& model : kModels) {
    Served server(model, 0);
    const int bad = server.connect();
    const char header[8] = {0, 0, 0, 2, 0, 1, 0, 1};
    send(bad, header, 8, 0);
    EXPECT_EQ(receive(bad, 100), "") << model;
    close(bad);
    const int good = server.connect();
    send_request(good, 3, "xy");
    EXPECT_EQ(receive(good, 10), reply_to(3, "xy")) << model;
    close(good);
  }
}

TEST(EchoServer, AShortRequestAtEOFGetsNoReply) {
  for (const std::string& model : kModels) {
    Served server(model, 0);
    const int fd = server.connect();
    const std::string partial = request(4, "abcdefghij").substr(0, 11);
    send(fd, partial.data(), partial.size(), 0);
    shutdown(fd, SHUT_WR);
    EXPECT_EQ(receive(fd, 100), "") << model;
    close(fd);
  }
}

// With wait_us 2,000 and 20 connections kept open, a concurrent model answers every one (in reverse
// order here); seq answers only the first until it is closed.
TEST(EchoServer, TheWaitHoldsOnlyWhatTheModelServesAtOnce) {
  for (const std::string& model : kModels) {
    Served server(model, 2000);
    std::vector<int> fds;
    for (std::uint32_t k = 0; k < 20; ++k) {
      fds.push_back(server.connect());
      send_request(fds.back(), k, "wait");
    }
    const int served = model == "seq" ? 1 : 20;
    for (int k = served - 1; k >= 0; --k) EXPECT_EQ(receive(fds[static_cast<std::size_t>(k)], 12), reply_to(static_cast<std::uint32_t>(k), "wait")) << model;
    if (served < 20) {
      EXPECT_EQ(receive(fds[1], 1, 300ms), "") << model << ": answered while the first stayed open";
      close(fds[0]);
      fds[0] = -1;
      EXPECT_EQ(receive(fds[1], 12), reply_to(1, "wait")) << model;
    }
    for (int fd : fds) if (fd >= 0) close(fd);
  }
}

// wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot answer
// the 20th before 20 × 200 ms however fast the machine; a concurrent one answers all of them about
// 200 ms after they were sent (the bound is the serial floor, not a speed).
TEST(EchoServer, TheWaitsOf20ConnectionsOverlap) {
  for (const std::string model : {"threads", "epoll"}) {
    Served server(model, 200000);
    const auto started = std::chrono::steady_clock::now();
    std::vector<int> fds;
    for (std::uint32_t k = 0; k < 20; ++k) {
      fds.push_back(server.connect());
      send_request(fds.back(), k, "overlap");
    }
    for (std::uint32_t k = 0; k < 20; ++k) EXPECT_EQ(receive(fds[k], 15), reply_to(k, "overlap")) << model;
    EXPECT_LT(std::chrono::steady_clock::now() - started, 20 * 200ms) << model << ": as if one after another";
    for (int fd : fds) close(fd);
  }
}

// threads makes an OS thread per open connection; the epoll loop does not (40 connections, one
// exchange each so that every one is being served).
TEST(EchoServer, ThreadsMakesAnOSThreadPerOpenConnectionAndEpollDoesNot) {
  constexpr std::size_t open = 40;
  for (const std::string model : {"threads", "epoll"}) {
    Served server(model, 0);
    const std::size_t before = os_threads();
    std::vector<int> fds;
    for (std::uint32_t k = 0; k < open; ++k) {
      fds.push_back(server.connect());
      send_request(fds.back(), k, "t");
      EXPECT_EQ(receive(fds.back(), 9), reply_to(k, "t"));
    }
    const std::size_t now = os_threads();
    for (int fd : fds) close(fd);
    EXPECT_GE(number_after(server.stats(0), "threads_peak"), 1);
    if (model == "threads") {
      EXPECT_GE(now, before + open) << before << " before";
    } else {
      EXPECT_LT(now, before + 3) << before << " before";
    }
  }
}

TEST(EchoServer, EndOfStdinEndsTheServerWithAConnectionOpen) {
  for (const std::string& model : kModels) {
    Served server(model, 0);
    const int fd = server.connect();
    send_request(fd, 1, "abc");
    EXPECT_EQ(receive(fd, 11), reply_to(1, "abc"));
    server.close_stdin();
    close(fd);
  }
}

TEST(EchoServer, BadArgumentsAreUsageErrors) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--wait-us", "-1"}, {"--wait-us", "10000001"},
                                                {"--port", "70000"}, {"--workers", "2"}}) {
    std::vector<std::string> args = {"parbench-cpp", "echo-server", "--model", "seq"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    std::istringstream in;
    std::ostringstream out;
    EXPECT_THROW(echo_server::serve(Invocation::parse(static_cast<int>(argv.size()), argv.data()), in, out), UsageError)
        << extra[0] << " " << extra[1];
  }
}
