// How many threads this process has, as the kernel lists them: the tests' check that a model made
// (or did not make, or ended) its threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <thread>

inline std::size_t os_threads() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
  return count;
}

// The count once threads that were joined have left /proc: the kernel wakes a joiner before it
// unlinks the exited task, so for a moment a joined thread is still listed. A thread that is still
// alive never leaves, and the count stays above `before` after the two seconds.
inline std::size_t os_threads_settled(std::size_t before) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (os_threads() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return os_threads();
}
