#include "http.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <httplib.h>

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
  httplib::Server server;
  // the requests are short (a run is a job, polled); a few threads answer them
  server.new_task_queue = [] { return new httplib::ThreadPool(4); };
  server.set_payload_max_length(2u << 20);
  server.set_read_timeout(10, 0);
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
  // what cpp-httplib answers by itself (no route, a body above the limit) is JSON too
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string what = res.status == 413   ? "the request body is above 2 MB"
                             : res.status == 404 ? "no page " + req.path
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
