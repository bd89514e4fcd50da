#include "http.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include <httplib.h>

#include <fmt/format.h>

#include "base/error.hpp"

namespace rb::serve {

namespace {

std::atomic<bool> stop_requested{false};
extern "C" void on_stop_signal(int) {
  stop_requested = true;
}

void send(httplib::Response& res, const Reply& r) {
  res.status = r.status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(r.text(), "application/json");
}

std::map<std::string, std::string> query_of(const httplib::Request& req) {
  std::map<std::string, std::string> q;
  for (const auto& [k, v] : req.params) q.emplace(k, v);  // the first of a repeated key
  return q;
}

const char* content_type(const std::string& name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  if (name.ends_with(".png")) return "image/png";
  return "application/octet-stream";
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool ipv6(const std::string& s) {
  in6_addr a{};
  return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

bool wildcard(const std::string& host) {
  return host == "0.0.0.0" || host == "::" || host.empty();
}

// 127.0.0.0/8, ::1 or localhost: only this machine reaches it
bool loopback(const std::string& host) {
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  in6_addr a6{};
  if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
  return lower(host) == "localhost";
}

// A name as the Host header writes it: lower case, an IPv6 address in brackets.
std::string host_name(const std::string& name) {
  return ipv6(name) ? "[" + lower(name) + "]" : lower(name);
}

// ---------------------------------------------------------------- slow clients

using Clock = std::chrono::steady_clock;

// What one request may take: the time its line, headers and body have to arrive (from its first
// byte), the bytes they may hold, and the time its answer has to be taken.
struct Limits {
  Clock::duration request;
  Clock::duration answer;
  std::size_t bytes;
};

// Why the last request read on this thread was cut (the error handler runs on the thread that
// read it, right after).
enum class Cut { none, deadline, too_large };
thread_local Cut request_cut = Cut::none;

// A connection's socket for cpp-httplib, read against one deadline for the whole request and
// written against one for the whole answer. The library's own stream (SocketStream) has a
// timeout per read and per write only, so a client that sends a byte every few seconds, or
// reads one, holds a worker thread for as long as it likes; and it reads a line whole before it
// measures it, so the bytes a request may send are counted here too.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, const Limits& limits) : sock_(sock), limits_(limits) {}

  // Waits at most `idle` for the next request's first byte (keep-alive), while open(); then
  // starts that request's clocks.
  bool next_request(Clock::duration idle, const std::function<bool()>& open) {
    const auto end = Clock::now() + idle;
    while (begin_ == end_) {
      if (!open() || Clock::now() >= end) return false;
      // in slices, so that a server that stops does not wait for an idle connection
      if (wait(POLLIN, std::min(end, Clock::now() + std::chrono::milliseconds(100)))) break;
    }
    read_until_ = Clock::now() + limits_.request;
    answer_until_.reset();
    read_bytes_ = 0;
    request_cut = Cut::none;
    return true;
  }

  bool is_readable() const override { return begin_ < end_ || wait(POLLIN, read_until_); }
  bool is_writable() const override {
    return wait(POLLOUT, answer_until_.value_or(Clock::now() + limits_.answer));
  }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      if (read_bytes_ >= limits_.bytes) {
        request_cut = Cut::too_large;
        return -1;
      }
      ssize_t n = -1;
      do {
        if (!wait(POLLIN, read_until_)) {
          request_cut = Cut::deadline;
          return -1;
        }
        n = ::recv(sock_, buffer_, sizeof buffer_, MSG_DONTWAIT);
      } while (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
      read_bytes_ += end_;
    }
    const std::size_t k = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, k);
    begin_ += k;
    return static_cast<ssize_t>(k);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!answer_until_) answer_until_ = Clock::now() + limits_.answer;
    for (;;) {
      if (!wait(POLLOUT, *answer_until_)) return -1;
      const ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address(true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address(false, ip, port);
  }
  int socket() const override { return sock_; }

 private:
  // Whether the socket is ready for `events` before `until` (a hang-up or an error counts: the
  // read or write that follows tells which).
  bool wait(short events, Clock::time_point until) const {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{sock_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r >= 0) return r > 0;
      if (errno != EINTR) return false;
    }
  }

  void address(bool peer, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    auto* sa = reinterpret_cast<sockaddr*>(&a);
    if ((peer ? ::getpeername(sock_, sa, &len) : ::getsockname(sock_, sa, &len)) != 0) return;
    char host[NI_MAXHOST], service[NI_MAXSERV];
    if (::getnameinfo(sa, len, host, sizeof host, service, sizeof service,
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = std::atoi(service);
    }
  }

  int sock_;
  Limits limits_;
  Clock::time_point read_until_;
  std::optional<Clock::time_point> answer_until_;
  std::size_t read_bytes_ = 0;
  char buffer_[4096];
  std::size_t begin_ = 0, end_ = 0;  // what buffer_ holds that was not read yet
};

// cpp-httplib's server, with DeadlineStream for its connections. It overrides the one virtual
// function that serves an accepted connection (Server::process_and_close_socket: the library's
// keep-alive loop around its own SocketStream) with the same loop around a DeadlineStream, and
// hands each request to the library's process_request (protected), so reading, routing and
// answering stay the library's.
class HttpServer final : public httplib::Server {
 public:
  explicit HttpServer(const Limits& limits) : limits_(limits) {}

 private:
  bool process_and_close_socket(int sock) override {
    DeadlineStream stream(sock, limits_);
    const auto open = [this] { return svr_sock_ != INVALID_SOCKET; };
    bool ok = false;
    for (std::size_t left = keep_alive_max_count_;
         left > 0 && stream.next_request(std::chrono::seconds(keep_alive_timeout_sec_), open);
         --left) {
      bool closed = false;
      ok = process_request(stream, left == 1, closed, nullptr);
      if (!ok || closed) break;
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  Limits limits_;
};

std::string machine_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace

bool HostAllowlist::accepts(std::string_view header) const {
  const std::string h = lower(header);
  const std::string p = ":" + std::to_string(port);
  for (const std::string& n : names)
    if (h == n + p || (port == 80 && h == n)) return true;
  return false;
}

std::string HostAllowlist::shown() const {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n + ":" + std::to_string(port);
  return out;
}

HostAllowlist host_allowlist(const std::string& host, int port,
                             const std::vector<std::string>& allow_hosts,
                             const std::string& machine) {
  HostAllowlist list;
  list.port = port;
  const auto add = [&](const std::string& name) {
    const std::string n = host_name(name);
    if (!n.empty() && std::find(list.names.begin(), list.names.end(), n) == list.names.end())
      list.names.push_back(n);
  };
  if (!wildcard(host)) add(host);
  if (loopback(host) || wildcard(host))
    for (const char* n : {"localhost", "127.0.0.1", "::1"}) add(n);
  if (!loopback(host)) add(machine);
  for (const std::string& given : allow_hosts) {
    // an IPv6 address may come in brackets, as a URL writes it
    const bool bracketed = given.size() > 2 && given.front() == '[' && given.back() == ']' &&
                           ipv6(given.substr(1, given.size() - 2));
    const std::string a = bracketed ? given.substr(1, given.size() - 2) : given;
    const bool plain = !a.empty() && a.find_first_of("/\\ \t[]@?#") == std::string::npos &&
                       (a.find(':') == std::string::npos || ipv6(a));
    if (!plain)
      throw UsageError("serve --allow-host '" + given +
                       "': a host name or address, without a port (the server's port is added)");
    add(a);
  }
  return list;
}

int serve(const ServeOptions& given, std::ostream& out) {
  ServeOptions options = given;
  options.api.root = fs::absolute(options.api.root).lexically_normal();
  if (!fs::is_directory(options.api.root / "scripts"))
    throw UsageError("serve: no scripts/ folder in " + options.api.root.string() + " (--root)");
  for (fs::path& d : options.api.pack_dirs) {
    if (!fs::is_directory(d)) throw UsageError("serve --packs: no folder " + d.string());
    d = fs::absolute(d).lexically_normal();
  }
  const fs::path web =
      fs::absolute(options.web.empty() ? options.api.root / "web" : options.web).lexically_normal();
  if (!fs::is_regular_file(web / "index.html"))
    throw UsageError("serve: no page at " + (web / "index.html").string());
  // every path the server uses is absolute now; the working folder becomes the repository, so
  // that nothing a request names is found relative to wherever serve was started
  fs::current_path(options.api.root);
  Api api(options.api);
  constexpr std::size_t kMaxBody = 2u << 20;
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  // a request's line and headers get 64 KB besides the body
  HttpServer server(
      {seconds(options.request_seconds), seconds(options.answer_seconds), kMaxBody + (64u << 10)});
  // The requests are short (a run is a job, polled). What runs content (check, trace, a run
  // started with wait) holds a thread and is capped by --jobs (api.hpp); the other threads are
  // for everything else, the page's polling first: a slow client holds one for request_seconds
  // at most.
  const int workers = std::max(1, options.api.jobs) + 8;
  server.new_task_queue = [workers] {
    return new httplib::ThreadPool(static_cast<std::size_t>(workers));
  };
  server.set_payload_max_length(kMaxBody);
  int port = options.port;

  // A page elsewhere (another site in the same browser) must not drive this server: the Host
  // header must name this server (no DNS rebinding), and a POST must say it sends JSON (a form
  // from another site cannot, without a CORS preflight that this server never answers).
  // Whatever address it listens on (host_allowlist; the port is set once bound).
  HostAllowlist hosts = host_allowlist(options.host, port, options.allow_hosts, machine_name());
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    const std::string host = req.get_header_value("Host");
    if (!hosts.accepts(host)) {
      send(res,
           {403,
            {{"error", "this server answers requests for Host " + hosts.shown() + " only, not '" +
                           host.substr(0, 100) + "' (serve --allow-host NAME adds a name)"},
             {"status", 403}}});
      return httplib::Server::HandlerResponse::Handled;
    }
    if ((req.method == "POST" || req.method == "DELETE") &&
        req.get_header_value("Content-Type").rfind("application/json", 0) != 0 &&
        !(req.method == "DELETE" && req.body.empty())) {
      send(res, {415,
                 {{"error", "send the request as JSON (Content-Type: application/json)"},
                  {"status", 415}}});
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  server.Get("/api/.*", [&](const httplib::Request& req, httplib::Response& res) {
    send(res, api.get(req.path, query_of(req)));
  });
  server.Post("/api/.*", [&](const httplib::Request& req, httplib::Response& res) {
    send(res, api.post(req.path, req.body));
  });
  server.Delete("/api/.*", [&](const httplib::Request& req, httplib::Response& res) {
    send(res, api.del(req.path));
  });
  // the page: the files directly in web/, by plain names only (no folders, no "..")
  server.Get(R"(/([A-Za-z0-9_-]+\.(html|js|css|svg|png))?)", [&](const httplib::Request& req,
                                                                 httplib::Response& res) {
    const std::string name = req.matches[1].str().empty() ? "index.html" : req.matches[1].str();
    std::ifstream in(web / name, std::ios::binary);
    if (!in) {
      res.status = 404;
      res.set_content("no page " + name + "\n", "text/plain");
      return;
    }
    std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, content_type(name));
  });
  // what cpp-httplib answers by itself (no route, a body above the limit, a request the stream
  // cut) is JSON too
  server.set_error_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (request_cut == Cut::deadline) res.status = 408;
    if (request_cut == Cut::too_large) res.status = 413;
    const std::string what =
        request_cut == Cut::deadline
            ? fmt::format("the request (its headers and body) did not arrive within {:g} s",
                          options.request_seconds)
        : request_cut == Cut::too_large
            ? "the request is above 2 MB (and 64 KB for its line and headers)"
        : res.status == 413 ? "the request body is above 2 MB"
        : res.status == 404 ? "no page " + req.path.substr(0, 100)
                            : "the request could not be read";
    send(res, {res.status, {{"error", what}, {"status", res.status}}});
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        send(res, {500, {{"error", what}, {"status", 500}}});
      });

  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) throw UsageError("serve: cannot listen on " + options.host);
  } else if (!server.bind_to_port(options.host, port)) {
    throw UsageError("serve: cannot listen on " + options.host + ":" + std::to_string(port) +
                     " (in use? --port 0 takes any free port)");
  }
  const std::string shown =
      options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  hosts.port = port;
  if (options.listening) options.listening(port);
  out << "rulebench serve: http://" << shown << ":" << port << "/  (Ctrl-C stops)\n"
      << "  listening on "
      << (wildcard(options.host) ? "every address of this machine" : options.host)
      << (loopback(options.host) ? " (this machine only)" : "") << "; answers requests for Host "
      << hosts.shown() << " (more: --allow-host NAME)" << std::endl;
  if (!loopback(options.host))
    std::cerr << "warning: serving on " << options.host
              << ": anyone who reaches this address can run simulations here" << std::endl;

  stop_requested = false;
  auto previous_int = std::signal(SIGINT, on_stop_signal);
  auto previous_term = std::signal(SIGTERM, on_stop_signal);
  std::atomic<bool> done{false};
  const auto stopping = [&] { return stop_requested || (options.stop && *options.stop); };
  std::thread watcher([&] {
    while (!done && !stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    api.cancel_all();  // a request waiting for a run gets its partial result, then the server stops
    server.stop();
  });
  const bool ok = server.listen_after_bind();
  done = true;
  watcher.join();
  api.stop_all();
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  if (!ok && !stopping()) {
    std::cerr << "error: serve: the server stopped unexpectedly\n";
    return 2;
  }
  return 0;
}

}  // namespace rb::serve
