// A minimal single-threaded scheduler for C++20 coroutines: a ready queue, bare yields and timer sleeps.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

namespace parbench::coro {

class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;

  void make_ready(std::coroutine_handle<> handle) { ready_.push_back(handle); }

  void wake_at(Clock::time_point deadline, std::coroutine_handle<> handle) {
    timers_.push({deadline, next_timer_++, handle});
  }

  // Resumes ready coroutines in FIFO order until none is ready or sleeping.
  void run() {
    for (;;) {
      while (!ready_.empty()) {
        const auto handle = ready_.front();
        ready_.pop_front();
        handle.resume();
      }
      if (timers_.empty()) return;
      std::this_thread::sleep_until(timers_.top().deadline);
      const auto now = Clock::now();
      while (!timers_.empty() && timers_.top().deadline <= now) {
        ready_.push_back(timers_.top().handle);
        timers_.pop();
      }
    }
  }

 private:
  struct Timer {
    Clock::time_point deadline;
    std::uint64_t order;  // keeps equal deadlines first-in first-out
    std::coroutine_handle<> handle;
    bool operator>(const Timer& other) const {
      return deadline != other.deadline ? deadline > other.deadline : order > other.order;
    }
  };
  std::deque<std::coroutine_handle<>> ready_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t next_timer_ = 0;
};

// A coroutine nobody awaits: it starts at once and frees its own frame when it returns.
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

// co_await yield_now(s): go to the back of the ready queue (a bare yield).
inline auto yield_now(Scheduler& scheduler) {
  struct Awaiter {
    Scheduler& scheduler;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> self) const { scheduler.make_ready(self); }
    void await_resume() const noexcept {}
  };
  return Awaiter{scheduler};
}

// co_await sleep_for(s, d): a timer sleep; other coroutines run meanwhile.
inline auto sleep_for(Scheduler& scheduler, std::chrono::milliseconds duration) {
  struct Awaiter {
    Scheduler& scheduler;
    Scheduler::Clock::time_point deadline;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> self) const { scheduler.wake_at(deadline, self); }
    void await_resume() const noexcept {}
  };
  return Awaiter{scheduler, Scheduler::Clock::now() + duration};
}

// A mailbox of one value and one waiting coroutine, woken through the scheduler (not resumed
// inline, so a chain of a million sends does not nest a million frames on the stack). Receiving
// takes the value out, so two coroutines can pass a value back and forth through two of them.
template <class T>
class Mailbox {
 public:
  void send(T value, Scheduler& scheduler) {
    value_ = value;
    has_value_ = true;
    if (waiter_) scheduler.make_ready(std::exchange(waiter_, nullptr));
  }

  auto receive() {
    struct Awaiter {
      Mailbox& slot;
      bool await_ready() const noexcept { return slot.has_value_; }
      void await_suspend(std::coroutine_handle<> self) noexcept { slot.waiter_ = self; }
      T await_resume() const noexcept {
        slot.has_value_ = false;
        return slot.value_;
      }
    };
    return Awaiter{*this};
  }

  bool has_value() const { return has_value_; }
  T value() const { return value_; }

 private:
  T value_{};
  bool has_value_ = false;
  std::coroutine_handle<> waiter_;
};

}  // namespace parbench::coro
