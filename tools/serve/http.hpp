// serve/http: `rulebench serve`: the API (api.hpp) and the page (web/ at the repository root:
// plain HTML, CSS and JavaScript, no build step, nothing fetched from elsewhere) over HTTP with
// cpp-httplib, bound to 127.0.0.1 by default.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"

namespace rb::serve {

struct ServeOptions {
  ApiOptions api;
  std::string host = "127.0.0.1";
  int port = 8080;                       // 0: any free port (the address is printed)
  fs::path web;                          // the page's folder ("": <root>/web)
  std::vector<std::string> allow_hosts;  // --allow-host: more names the Host header may carry
  // A slow client cannot hold a thread: a request's line, headers and body must arrive within
  // request_seconds of its first byte, and its answer be taken within answer_seconds.
  double request_seconds = 10;
  double answer_seconds = 60;
  // For a caller that runs the server in a thread (the tests): serve() also stops when *stop
  // becomes true, and calls listening(port) once it is bound (before it prints its address).
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int port)> listening;
};

// The Host header values the server answers: a page of another site that reaches it by DNS
// rebinding sends a name that site controls, which is not on the list (403).
//   - the address or name it is bound to (IPv6 in brackets), except a wildcard (0.0.0.0, ::);
//   - bound to loopback (127.0.0.0/8, ::1, localhost) or to a wildcard: localhost, 127.0.0.1
//     and [::1];
//   - bound to anything else (a wildcard, a LAN address, a name): the machine's host name too
//     (`machine`, from gethostname), which is how others usually reach it;
//   - each --allow-host name (for an address or name the machine is reached by, e.g. behind
//     0.0.0.0).
// Names match without regard to case, followed by ":PORT" (or nothing when the port is 80).
struct HostAllowlist {
  std::vector<std::string> names;  // lower case, IPv6 addresses in brackets
  int port = 0;
  bool accepts(std::string_view host_header) const;
  std::string shown() const;  // "127.0.0.1:8080, localhost:8080, [::1]:8080"
};
// Throws UsageError for an --allow-host that is not a host name or address (empty, with a
// port, a path or spaces).
HostAllowlist host_allowlist(const std::string& host, int port,
                             const std::vector<std::string>& allow_hosts,
                             const std::string& machine);

// Serves until SIGINT or SIGTERM (or *stop); prints the address on `out` first. Returns the exit
// code.
int serve(const ServeOptions& options, std::ostream& out);

}  // namespace rb::serve
