// serve/http: `rulebench serve`: the API (api.hpp) and the page (web/ at the repository root:
// plain HTML, CSS and JavaScript, no build step, nothing fetched from elsewhere) over HTTP with
// cpp-httplib, bound to 127.0.0.1 by default.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>

#include "api.hpp"

namespace rb::serve {

struct ServeOptions {
  ApiOptions api;
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (the address is printed)
  fs::path web;     // the page's folder ("": <root>/web)
  // For a caller that runs the server in a thread (the tests): serve() also stops when *stop
  // becomes true, and calls listening(port) once it is bound (before it prints its address).
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int port)> listening;
};

// Serves until SIGINT or SIGTERM (or *stop); prints the address on `out` first. Returns the exit
// code.
int serve(const ServeOptions& options, std::ostream& out);

}  // namespace rb::serve
