// echo-server: seq, a std::thread per connection, or one epoll loop on a thread of its own; every
// model reads exactly the header, then exactly len bytes, waits, and writes the reply in one send.
#include "workloads/echo_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <queue>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "registry.hpp"

namespace parbench::echo_server {

namespace {

constexpr int kBacklog = 4096;  // the kernel caps it at net.core.somaxconn
// A stats line waits (this long at most) until every connection it counted is closed on the
// server's side: the client may read the last reply before the server's thread counts it.
constexpr auto kSettle = std::chrono::seconds(2);

const char* const kSeq = "one connection at a time on one thread: the accept loop serves a connection to its end "
                         "(blocking recv/send) before it accepts the next";
const char* const kThreads = "one std::thread per connection (detached, 8 MiB stack reserve), blocking recv/send, "
                             "std::this_thread::sleep_for for the wait";
const char* const kEpoll = "one epoll loop (level-triggered) on one thread of its own: non-blocking sockets, one "
                           "timerfd for every connection's wait (a heap of deadlines)";

WorkloadInfo describe() {
  ModelInfo seq{"seq", "seq", false, "", "", {}};
  ModelInfo threads{"threads", "threads", false, "", "", {}};
  ModelInfo epoll{"epoll", "event-loop", false, "", "", {}};
  seq.detail = kSeq;
  threads.detail = kThreads;
  epoll.detail = kEpoll;
  return {"echo-server", {"wait_us", "port"}, {seq, threads, epoll}};
}

std::int64_t threads_now() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoll(line.substr(8));
  }
  return 0;
}

// What a stats line reports, counted by every connection's thread at once.
struct Tally {
  std::atomic<std::int64_t> accepted{0}, replies{0}, open{0}, threads_peak{0};
  std::atomic<bool> ended{false};

  void opened() {
    accepted.fetch_add(1);
    open.fetch_add(1);
  }
  void saw_threads() {
    const std::int64_t now = threads_now();
    std::int64_t peak = threads_peak.load();
    while (now > peak && !threads_peak.compare_exchange_weak(peak, now)) {
    }
  }
  struct Served {
    std::int64_t accepted, replies, threads_peak;
  };
  // What one stats line reports since the line before, once every counted connection is closed.
  Served take() {
    const auto deadline = std::chrono::steady_clock::now() + kSettle;
    while (open.load() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const std::int64_t now = threads_now();
    const std::int64_t peak = std::max(threads_peak.exchange(now), now);
    return {accepted.exchange(0), replies.exchange(0), peak};
  }
};

std::uint32_t payload_length(const char* header) {
  std::uint32_t length;
  std::memcpy(&length, header + 4, 4);
  return ntohl(length);
}

int listen_on(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, kBacklog) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    throw std::runtime_error("echo-server cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

void no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Exactly `size` bytes, never more (the next request stays in the kernel); false at EOF or an error.
bool recv_exactly(int fd, char* into, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = recv(fd, into + got, size - got, MSG_WAITALL);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      return false;
    }
  }
  return true;
}

bool send_all(int fd, const char* from, std::size_t size) {
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = send(fd, from + sent, size - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

// One connection to its end with blocking I/O; EOF, a len over the limit or a reset end it quietly.
void serve_blocking(int fd, std::chrono::microseconds wait, Tally& tally) {
  no_delay(fd);
  std::vector<char> message(8);
  while (recv_exactly(fd, message.data(), 8)) {
    const std::uint32_t length = payload_length(message.data());
    if (length > kMaxPayload) break;
    message.resize(8 + length);
    if (!recv_exactly(fd, message.data() + 8, length)) break;
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
    make_reply(message.data(), message.size());
    if (!send_all(fd, message.data(), message.size())) break;
    tally.replies.fetch_add(1);
    message.resize(8);
  }
  close(fd);
  tally.open.fetch_sub(1);
}

// Accepts until the listener is shut down (EINVAL), handing each counted connection to `serve`;
// then closes the listener (here, so no accept(2) can run on a descriptor number reused meanwhile).
template <class Serve>
void accept_loop(int listener, Tally& tally, Serve&& serve) {
  for (;;) {
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      tally.opened();
      serve(fd);
    } else if (errno == EINVAL || errno == EBADF) {
      close(listener);
      return;
    } else if (errno != EINTR) {
      std::cerr << "echo-server accept: " << std::strerror(errno) << std::endl;  // out of descriptors: go on
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

// ---- the epoll loop ----

class EpollLoop {
 public:
  EpollLoop(int listener, std::chrono::microseconds wait, std::shared_ptr<Tally> tally)
      : listener_(listener), wait_(wait), tally_(std::move(tally)) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    stop_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_ < 0 || timer_ < 0 || stop_ < 0) throw LimitReached(std::string("epoll: ") + std::strerror(errno));
    watch(listener_, EPOLLIN, EPOLL_CTL_ADD);
    watch(timer_, EPOLLIN, EPOLL_CTL_ADD);
    watch(stop_, EPOLLIN, EPOLL_CTL_ADD);
  }
  ~EpollLoop() {
    for (auto& [fd, connection] : connections_) close(fd);
    close(epoll_);
    close(timer_);
    close(stop_);
  }
  void stop() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(stop_, &one, sizeof one);
  }
  void run() {
    std::vector<epoll_event> events(1024);
    for (;;) {
      const int ready = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), -1);
      for (int k = 0; k < ready; ++k) {
        const int fd = events[static_cast<std::size_t>(k)].data.fd;
        const std::uint32_t what = events[static_cast<std::size_t>(k)].events;
        if (fd == stop_) return;
        if (fd == listener_) {
          accept_all();
        } else if (fd == timer_) {
          wake_due();
        } else if (what & (EPOLLERR | EPOLLHUP)) {
          drop(fd);
        } else if (what & EPOLLOUT) {
          write_reply(fd);
        } else {
          read_request(fd);
        }
      }
    }
  }

 private:
  enum class State { header, payload, waiting, writing };
  struct Connection {
    State state = State::header;
    std::vector<char> message = std::vector<char>(8);
    std::size_t done = 0;  // bytes read of the part being read, or written of the reply
  };
  struct Due {
    std::chrono::steady_clock::time_point at;
    int fd;
    bool operator>(const Due& other) const { return at > other.at; }
  };

  void watch(int fd, std::uint32_t events, int op) const {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    epoll_ctl(epoll_, op, fd, &event);
  }
  void accept_all() {
    for (;;) {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno != EAGAIN && errno != EINTR) std::cerr << "echo-server accept: " << std::strerror(errno) << std::endl;
        return;
      }
      no_delay(fd);
      tally_->opened();
      connections_.emplace(fd, Connection{});
      watch(fd, EPOLLIN, EPOLL_CTL_ADD);
    }
  }
  void drop(int fd) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    connections_.erase(fd);
    tally_->open.fetch_sub(1);
  }
  // Reads what the part in hand still lacks, never more.
  void read_request(int fd) {
    Connection& connection = connections_.at(fd);
    const std::size_t size = connection.message.size();
    const ssize_t n = recv(fd, connection.message.data() + 8 * (connection.state == State::payload) + connection.done,
                           (connection.state == State::payload ? size - 8 : 8) - connection.done, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return drop(fd);
    if (n < 0) return;
    connection.done += static_cast<std::size_t>(n);
    if (connection.state == State::header && connection.done == 8) {
      const std::uint32_t length = payload_length(connection.message.data());
      if (length > kMaxPayload) return drop(fd);
      connection.message.resize(8 + length);
      connection.state = State::payload;
      connection.done = 0;
    }
    if (connection.state == State::payload && connection.done == connection.message.size() - 8) request_read(fd, connection);
  }
  // The whole request is in: wait (off the loop's interest list, so nothing more is read), or reply.
  void request_read(int fd, Connection& connection) {
    if (wait_.count() == 0) return start_reply(fd, connection);
    connection.state = State::waiting;
    watch(fd, 0, EPOLL_CTL_MOD);
    const Due due{std::chrono::steady_clock::now() + wait_, fd};
    const bool earliest = deadlines_.empty() || due.at < deadlines_.top().at;
    deadlines_.push(due);
    if (earliest) arm(due.at);
  }
  void arm(std::chrono::steady_clock::time_point at) const {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
    itimerspec spec{};
    spec.it_value.tv_sec = ns / 1'000'000'000;
    spec.it_value.tv_nsec = ns % 1'000'000'000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;  // 0 disarms
    timerfd_settime(timer_, TFD_TIMER_ABSTIME, &spec, nullptr);  // steady_clock is CLOCK_MONOTONIC
  }
  void wake_due() {
    std::uint64_t expirations;
    [[maybe_unused]] const ssize_t n = read(timer_, &expirations, sizeof expirations);
    const auto now = std::chrono::steady_clock::now();
    while (!deadlines_.empty() && deadlines_.top().at <= now) {
      const int fd = deadlines_.top().fd;
      deadlines_.pop();
      const auto found = connections_.find(fd);
      if (found != connections_.end() && found->second.state == State::waiting) start_reply(fd, found->second);
    }
    if (!deadlines_.empty()) arm(deadlines_.top().at);
  }
  void start_reply(int fd, Connection& connection) {
    make_reply(connection.message.data(), connection.message.size());
    connection.state = State::writing;
    connection.done = 0;
    write_reply(fd);
  }
  void write_reply(int fd) {
    Connection& connection = connections_.at(fd);
    while (connection.done < connection.message.size()) {
      const ssize_t n = send(fd, connection.message.data() + connection.done, connection.message.size() - connection.done,
                             MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return watch(fd, EPOLLOUT, EPOLL_CTL_MOD);
      if (n < 0) return drop(fd);
      connection.done += static_cast<std::size_t>(n);
    }
    tally_->replies.fetch_add(1);
    connection.state = State::header;
    connection.done = 0;
    connection.message.resize(8);
    watch(fd, EPOLLIN, EPOLL_CTL_MOD);
  }

  int listener_, epoll_ = -1, timer_ = -1, stop_ = -1;
  std::chrono::microseconds wait_;
  std::shared_ptr<Tally> tally_;
  std::unordered_map<int, Connection> connections_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> deadlines_;
};

std::int64_t bounded(const Invocation& call, const std::string& name, std::int64_t high) {
  const std::int64_t value = call.integer_or(name, 0);
  if (value < 0 || value > high)
    throw UsageError("--" + (name == "wait_us" ? std::string("wait-us") : name) + " must be from 0 to " + std::to_string(high) + ", got " + std::to_string(value));
  return value;
}

void run(const Invocation& call) { serve(call, std::cin, std::cout); }

const WorkloadRegistration registered{describe, run};

}  // namespace

void make_reply(char* message, std::size_t size) { std::reverse(message + 8, message + size); }

void serve(const Invocation& call, std::istream& in, std::ostream& out) {
  const WorkloadInfo info = describe();
  const ModelInfo& model = require_known_model(call, info);
  call.accept_only({"wait_us", "port"});
  if (call.workers_given()) throw UsageError("model " + call.model + " of echo-server takes no --workers");
  const std::chrono::microseconds wait(bounded(call, "wait_us", kMaxWaitUs));
  const int listener = listen_on(static_cast<int>(bounded(call, "port", 65535)));
  auto tally = std::make_shared<Tally>();
  std::unique_ptr<EpollLoop> loop;
  std::thread loop_thread;
  try {
    if (call.model == "epoll") {
      fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);  // accept_all drains it
      loop = std::make_unique<EpollLoop>(listener, wait, tally);
      loop_thread = std::thread([&loop] { loop->run(); });
    } else if (call.model == "seq") {
      std::thread([listener, wait, tally] {
        accept_loop(listener, *tally, [&](int fd) { serve_blocking(fd, wait, *tally); });
      }).detach();
    } else {
      std::thread([listener, wait, tally] {
        accept_loop(listener, *tally, [&](int fd) {
          try {
            std::thread([fd, wait, tally] { serve_blocking(fd, wait, *tally); }).detach();
          } catch (const std::system_error& error) {  // its client sees it closed: a result
            std::cerr << "echo-server threads: " << error.what() << "; connection closed" << std::endl;
            close(fd);
            tally->open.fetch_sub(1);
          }
        });
      }).detach();
      // The peak of a thread per connection: /proc/self/status sampled every 5 ms.
      std::thread([tally] {
        while (!tally->ended.load()) {
          tally->saw_threads();
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }).detach();
    }
  } catch (const std::system_error& error) {
    close(listener);
    throw LimitReached(std::string("starting echo-server's threads: ") + error.what());
  }
  out << "{\"ready\":\"none\",\"port\":" << bound_port(listener) << ",\"extra\":{\"model_detail\":"
      << json_string(model.detail) << "}}" << std::endl;
  for (int j = 0;; ++j) {
    const std::optional<std::uint64_t> variant = read_variant(in, j);
    if (!variant) break;
    const Tally::Served served = tally->take();
    out << "{\"rep\":" << *variant << ",\"items\":" << served.replies << ",\"checksum\":\"served\",\"extra\":{\"accepted\":"
        << served.accepted << ",\"replies\":" << served.replies << ",\"threads_peak\":" << served.threads_peak << "}}"
        << std::endl;
  }
  tally->ended.store(true);
  if (loop) {
    loop->stop();
    loop_thread.join();
    loop.reset();
    close(listener);
  } else {
    // Wakes the thread blocked in accept(2), which closes the listener; a seq or threads
    // connection still open stays with its thread until its client closes it or the process exits.
    shutdown(listener, SHUT_RDWR);
  }
}

}  // namespace parbench::echo_server
