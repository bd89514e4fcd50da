// sim/parallel: runs [first, last) in chunks over threads. Each thread takes the next chunk in
// turn and calls fn(thread, begin, end) with its own state (thread 0 is the caller's), so the
// caller merges per-thread tallies afterwards. What a run computes depends only on its index,
// never on which thread ran it. An error in any thread stops the others and is rethrown. When
// `stop` is set, no new chunk starts (the caller keeps the tallies of the chunks done).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"

namespace rb {

template <class Fn>
void run_chunked(int threads, std::uint64_t first, std::uint64_t last, std::uint64_t chunk,
                 const std::function<void(std::uint64_t, std::uint64_t)>& progress, Fn&& fn,
                 const std::atomic<bool>* stop = nullptr) {
  std::atomic<std::uint64_t> next{first};
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  auto work = [&](int t) {
    try {
      for (;;) {
        if (stop && stop->load()) {
          next = last;
          break;
        }
        const std::uint64_t begin = next.fetch_add(chunk);
        if (begin >= last) break;
        fn(t, begin, std::min(last, begin + chunk));
      }
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
      next = last;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  if (progress) {
    std::thread main_worker(work, 0);
    while (next.load() < last) {
      progress(std::min(next.load(), last), last);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    main_worker.join();
  } else {
    work(0);
  }
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (!e.empty()) throw ScriptError(e);
  if (progress && !(stop && stop->load())) progress(last, last);
}

}  // namespace rb
