#include "api.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "content/toml_read.hpp"
#include "exact/explore.hpp"
#include "form.hpp"
#include "sim/compare.hpp"
#include "sim/link_import.hpp"
#include "sim/simulate.hpp"
#include "toml_json.hpp"

namespace rb::serve {

using nlohmann::json;

namespace {

// A request the API refuses before anything runs, with its HTTP status.
struct RequestError : Error {
  RequestError(int status, const std::string& message) : Error(message), status(status) {}
  int status;
};

Reply error_reply(int status, const std::string& message) {
  return {status, json{{"error", message}, {"status", status}}};
}

// How deep a request body may nest arrays and objects. The parser does not recurse, but dump(),
// comparison and copies of a value do, one stack frame per level: a 200 KB body can nest 100 000
// arrays, so the depth is bounded while the body is parsed, before anything walks it.
constexpr int kMaxJsonDepth = 64;

// At most the first 60 bytes of a text a request sent (cut where a UTF-8 character starts), for
// an error message: a request's text can be megabytes, and the message is sent back.
std::string excerpt(std::string_view text) {
  constexpr std::size_t kMax = 60;
  if (text.size() <= kMax) return std::string(text);
  std::size_t n = kMax;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n)) + fmt::format("... ({} bytes)", text.size());
}

// A value a request sent, described for an error message: a number, true, false or null as
// written, a string quoted (an excerpt), an array or object by its size only.
std::string describe(const json& v) {
  if (v.is_array()) return fmt::format("an array of {} item{}", v.size(), v.size() == 1 ? "" : "s");
  if (v.is_object())
    return fmt::format("an object of {} key{}", v.size(), v.size() == 1 ? "" : "s");
  if (v.is_string()) return "'" + excerpt(v.get_ref<const std::string&>()) + "'";
  return v.dump();
}

// The status of an error of the engine: the command line's usage and content errors are the
// request's (400); a script that fails while it runs is 422.
// An exact exploration's time limit on the server (the command line's is 600 s): a page waits
// for it, and the explorations that take longer (a Red Alert combat phase) are for the command
// line.
constexpr double kExactSeconds = 120;
// What an exact exploration may take on the server, in MiB (the command line's --max-memory
// default): the chain, and best play's trees of choices.
constexpr std::uint64_t kExactMemoryMiB = ExactRunOptions{}.max_bytes >> 20;

int status_of(const std::exception& e) {
  if (const auto* r = dynamic_cast<const RequestError*>(&e)) return r->status;
  if (dynamic_cast<const ScriptError*>(&e)) return 422;
  if (dynamic_cast<const Error*>(&e)) return 400;
  return 500;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// Only the keys `allowed`; an unknown one is named with the nearest allowed key.
void expect_keys(const json& request, const std::vector<std::string>& allowed,
                 const std::string& what) {
  if (!request.is_object()) throw RequestError(400, what + ": the request body is a JSON object");
  for (const auto& [k, v] : request.items())
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      throw RequestError(400, what + ": unknown key '" + excerpt(k) + "'" +
                                  did_you_mean(k, allowed) + "; expected: " + join(allowed));
}

// A whole number in [lo, hi], written as a JSON number or as a string of digits (a seed beyond
// 2^53 does not survive JavaScript's numbers). The messages are the command line's.
std::uint64_t whole(const json& request, const std::string& key, std::uint64_t fallback,
                    std::uint64_t lo, std::uint64_t hi) {
  if (!request.contains(key) || request[key].is_null()) return fallback;
  const json& v = request[key];
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  std::uint64_t n = 0;
  if (v.is_number_unsigned()) {
    n = v.get<std::uint64_t>();
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec == std::errc::invalid_argument || p != s.data() + s.size())
      throw RequestError(
          400, key + ": " + describe(v) + " is not a whole number (expected " + range + ")");
    if (ec == std::errc::result_out_of_range)
      throw RequestError(400,
                         key + ": " + describe(v) + " is out of range (expected " + range + ")");
  } else {
    throw RequestError(
        400, key + ": " + describe(v) + " is not a whole number (expected " + range + ")");
  }
  if (n < lo || n > hi)
    throw RequestError(
        400, key + ": " + std::to_string(n) + " is out of range (expected " + range + ")");
  return n;
}

std::vector<std::string> strings(const json& request, const std::string& key) {
  std::vector<std::string> out;
  if (!request.contains(key) || request[key].is_null()) return out;
  const json& v = request[key];
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array()) throw RequestError(400, key + ": a list of strings");
  for (const json& s : v) {
    if (!s.is_string()) throw RequestError(400, key + ": a list of strings, not " + describe(s));
    out.push_back(s.get<std::string>());
  }
  return out;
}

json parse_body(std::string_view body) {
  if (body.empty()) return json::object();
  // called as each value is read, with the number of arrays and objects around it
  const auto bounded = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::array_start || event == json::parse_event_t::object_start) &&
        depth >= kMaxJsonDepth)
      throw RequestError(
          400, fmt::format("the request body nests arrays and objects more than {} deep; at "
                           "most {}",
                           kMaxJsonDepth, kMaxJsonDepth));
    return true;
  };
  try {
    return json::parse(body, bounded);
  } catch (const json::parse_error& e) {
    // the parser's message quotes the last token it read, which can be long
    throw RequestError(400, "the request body is not JSON: " + excerpt(e.what()));
  } catch (const json::out_of_range& e) {
    // a number no double holds (1e400)
    throw RequestError(400, "the request body holds a number out of range: " + excerpt(e.what()));
  }
}

// A change as the command line writes it ([SIDE:]RECORD, PACK, [SIDE:]PATH=VALUE), refused when
// it could name a folder: a request names packs by id only.
void check_change(const std::string& spec, const std::map<std::string, fs::path>& packs) {
  const std::string flag = "with/without '" + excerpt(spec) + "'";
  if (spec.empty() || spec.size() > 200) throw RequestError(400, flag + ": 1 to 200 characters");
  std::string name = spec.substr(0, spec.find('='));
  if (auto colon = name.find(':'); colon != std::string::npos) name = name.substr(colon + 1);
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
      name.starts_with('.') || name.starts_with('~'))
    throw RequestError(400, flag +
                                ": names a folder; the page loads packs by id (the packs found in "
                                "content/ and the folders given to serve --packs)");
  std::error_code ec;
  if (!packs.count(name) && !name.empty() && fs::exists(name, ec))
    throw RequestError(400, flag + ": '" + excerpt(name) + "' is not a pack id or a record name");
}

std::string read_text(const fs::path& file, std::size_t cap) {
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > cap) text.resize(cap);
  return text;
}

// The comment lines a file opens with, joined: a scenario's description.
std::string opening_comment(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line) && line.starts_with('#')) {
    std::string s = line.substr(1);
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    out += (out.empty() ? "" : " ") + s;
  }
  return out;
}

json attribute_json(const AttributeDef& a) {
  const char* type = a.type == AttrType::integer   ? "int"
                     : a.type == AttrType::boolean ? "bool"
                     : a.type == AttrType::counts  ? "counts"
                                                   : "symbol";
  json j = {{"name", a.name}, {"type", type}, {"doc", a.doc}};
  if (a.type == AttrType::integer) j["min"] = a.min, j["max"] = a.max;
  if (!a.values.empty()) j["values"] = a.values;
  return j;
}

json report_json(const ReportDef& r) {
  auto pairs = [](const std::vector<std::pair<std::string, std::string>>& v) {
    json a = json::array();
    for (const auto& [key, metric] : v) a.push_back({{"key", key}, {"metric", metric}});
    return a;
  };
  json wins = json::object();
  for (const auto& [side, outcome] : r.wins) wins[side] = outcome;
  json conditional = json::array();  // P(metric | given): the key its value has in a result
  for (const auto& c : r.conditional)
    conditional.push_back({{"key", c.key}, {"metric", c.metric}, {"given", c.given}});
  return {{"outcomes", r.outcomes},
          {"means", pairs(r.means)},
          {"probabilities", pairs(r.probabilities)},
          {"distributions", pairs(r.distributions)},
          {"conditional", conditional},
          {"survivors", r.survivors},
          {"survivor_kind", r.survivor_kind},
          {"sides", r.sides},
          {"wins", wins},  // side -> its win's outcome (best play's objectives win, not_lose)
          {"draws", r.draws},
          {"ci95", r.ci95},
          {"only_when_any", r.only_when_any}};
}

// The board of a state as the page draws it (POST /api/board): each hex with the entity placed
// there and what is inside it, every attribute by the ruleset's name. Nothing here names a game.
class BoardWriter {
 public:
  BoardWriter(const State& s, const Content& c) : s_(s), c_(c) {
    for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e)
      if (s.valid(s.at(e).location)) inside_[s.at(e).location].push_back(e);
  }

  std::string name(EntityId e) const {
    return s_.valid(e) ? std::string(sym_name(s_.at(e).type)) : std::string();
  }

  // id, kind, name, record, title (the record's `name` text), owner, attributes and contents
  json entity(EntityId e, int depth = 0) const {
    const Entity& x = s_.at(e);
    json j = {{"id", e}, {"kind", std::string(sym_name(x.kind))}, {"name", name(e)}};
    const Record* rec = x.record >= 0 && static_cast<std::size_t>(x.record) < c_.records.size()
                            ? &c_.records[static_cast<std::size_t>(x.record)]
                            : nullptr;
    j["record"] = rec ? json(rec->id) : json(nullptr);
    if (rec)
      if (auto t = rec->text.find("name"); t != rec->text.end()) j["title"] = t->second;
    j["owner"] = s_.valid(x.owner) && x.owner != e ? json(name(x.owner)) : json(nullptr);
    j["attributes"] = attributes(x, rec);
    j["contents"] = contents(e, depth);
    return j;
  }

 private:
  // The attributes its record sets, and any other that is not 0
  json attributes(const Entity& x, const Record* rec) const {
    json a = json::object();
    for (const AttributeDef& d : c_.ruleset.attributes) {
      const auto slot = static_cast<std::size_t>(d.slot);
      const std::int32_t v = x.attr[slot];
      if (!(rec && rec->has[slot]) && v == 0) continue;
      if (d.type == AttrType::integer)
        a[d.name] = v;
      else if (d.type == AttrType::boolean)
        a[d.name] = v != 0;
      else
        a[d.name] = std::string(sym_name(static_cast<Sym>(v)));
    }
    return a;
  }

  // What is inside an entity (located in it), alike ones (same kind, name, owner and attributes,
  // nothing inside them) as one item with a count, in the order of the first of each.
  json contents(EntityId e, int depth) const {
    json out = json::array();
    auto it = inside_.find(e);
    if (it == inside_.end() || depth >= 8) return out;
    for (const EntityId c : it->second) {
      json item = entity(c, depth + 1);
      bool merged = false;
      if (item["contents"].empty())
        for (json& o : out)
          if (o["contents"].empty() && o["kind"] == item["kind"] && o["name"] == item["name"] &&
              o["owner"] == item["owner"] && o["attributes"] == item["attributes"]) {
            o["count"] = o["count"].get<int>() + 1;
            merged = true;
            break;
          }
      if (merged) continue;
      item["count"] = 1;
      out.push_back(std::move(item));
    }
    return out;
  }

  const State& s_;
  const Content& c_;
  std::map<EntityId, std::vector<EntityId>> inside_;
};
}  // namespace

std::string Reply::text() const {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---------------------------------------------------------------- runs

struct Api::Job {
  std::uint64_t id = 0;
  std::string kind;  // simulate, compare, sweep
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> done{0}, planned{0};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::mutex mutex;               // guards what follows
  std::string state = "running";  // running, done, cancelled, error
  json result;
  json partial;  // a sweep while it runs: its rows, columns and the cells done (the heat map)
  std::string error;
  int error_status = 0;
  double seconds = 0;
  std::thread thread;

  void finish(const std::string& s, json r) {
    std::lock_guard lock(mutex);
    state = s;
    result = std::move(r);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  void fail(int status, const std::string& message) {
    std::lock_guard lock(mutex);
    state = "error";
    error = message;
    error_status = status;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  bool running() {
    std::lock_guard lock(mutex);
    return state == "running";
  }
};

// ---------------------------------------------------------------- loaded content, kept

// Loaded content is immutable (Content is const once loaded), so requests share it. An entry is
// kept while the packs found and every file of its ruleset's and packs' folders (name, size, time
// written) are as they were: a pack edited while serve runs is loaded again at the next request.
struct Api::ContentCache {
  struct Entry {
    std::string files;  // the fingerprint of the folders it was loaded from
    std::vector<fs::path> dirs;
    std::shared_ptr<const Content> content;
    std::uint64_t used = 0;
  };
  std::mutex mutex;
  std::map<std::string, Entry> entries;  // by request
  std::uint64_t clock = 0;
  static constexpr std::size_t kMax = 16;
};

namespace {

std::string fingerprint(const std::vector<fs::path>& dirs) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  std::size_t files = 0;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    std::vector<std::string> rows;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const auto size = it->file_size(ec);
      const auto time = it->last_write_time(ec).time_since_epoch().count();
      rows.push_back(fmt::format("{}\t{}\t{}", it->path().string(), size, time));
    }
    std::sort(rows.begin(), rows.end());  // the walk's order is the file system's
    for (const auto& r : rows) mix(r);
    files += rows.size();
  }
  return fmt::format("{:016x}-{}", h, files);
}

}  // namespace

std::shared_ptr<const Content> Api::content_for(const LoadRequest& req) const {
  std::string key = req.root.string() + "\n" + req.ruleset + "\n" + (req.all_packs ? "all" : "");
  for (const auto& p : req.packs) key += "\np " + p;
  for (const auto& p : req.exclude) key += "\nx " + p;
  for (const auto& [id, dir] : discover_packs(req)) key += "\nf " + id + " " + dir.string();
  {
    std::lock_guard lock(cache_->mutex);
    auto it = cache_->entries.find(key);
    if (it != cache_->entries.end() && fingerprint(it->second.dirs) == it->second.files) {
      it->second.used = ++cache_->clock;
      return it->second.content;
    }
  }
  auto content = load_content(req);  // outside the lock: other requests go on meanwhile
  std::vector<fs::path> dirs{content->ruleset.dir};
  for (const auto& p : content->packs) dirs.push_back(p.dir);
  ContentCache::Entry e{fingerprint(dirs), dirs, content, 0};
  std::lock_guard lock(cache_->mutex);
  e.used = ++cache_->clock;
  cache_->entries[key] = std::move(e);
  while (cache_->entries.size() > ContentCache::kMax) {
    auto oldest = std::min_element(
        cache_->entries.begin(), cache_->entries.end(),
        [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    cache_->entries.erase(oldest);
  }
  return content;
}

// open_session (sim/scenario.cpp) with the content kept between requests
Session Api::open_cached(Scenario s) const {
  LoadRequest req;
  req.root = options_.root;
  req.search = options_.pack_dirs;
  req.ruleset = s.ruleset;
  req.packs = s.packs;
  Session out;
  out.content = content_for(req);
  out.procedure = procedure_for(*out.content, s);
  out.scenario = std::move(s);
  return out;
}

Api::Api(ApiOptions options)
    : options_(std::move(options)), cache_(std::make_unique<ContentCache>()) {
  if (options_.threads <= 0)
    options_.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options_.jobs = std::max(1, options_.jobs);
}

Api::~Api() {
  stop_all();
}

void Api::cancel_all() {
  std::lock_guard lock(mutex_);
  for (auto& [id, job] : jobs_) job->stop = true;
}

// A job's thread is joined only under mutex_ (here and when finished jobs are forgotten), once it
// has finished; a request waiting for a job polls its state instead.
void Api::stop_all() {
  cancel_all();
  std::vector<std::shared_ptr<Job>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) all.push_back(job);
  }
  for (auto& job : all)
    while (job->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::lock_guard lock(mutex_);
  for (auto& [id, job] : jobs_)
    if (job->thread.joinable()) job->thread.join();
}

void Api::forget_finished() {
  std::size_t finished = 0;
  for (auto& [id, j] : jobs_) finished += j->running() ? 0 : 1;
  for (auto it = jobs_.begin(); it != jobs_.end() && finished > options_.keep_finished;) {
    if (it->second->running()) {
      ++it;
      continue;
    }
    if (it->second->thread.joinable()) it->second->thread.join();
    it = jobs_.erase(it);
    --finished;
  }
}

std::size_t Api::running_jobs() {
  std::size_t running = 0;
  for (auto& [id, j] : jobs_) running += j->running() ? 1 : 0;
  return running;
}

std::size_t Api::busy() {
  return running_jobs() + working_;
}

// One of the --jobs places for what runs content: every engine the server makes (a check's
// setup, a trace, a run's scenario being loaded and set up, then its job) runs in one. A request
// takes a place before it loads anything, or is refused (429); a run hands its place to its job
// (Slot::to_job), which counts while it runs. Every engine has the same limits (EngineOptions{}:
// a hook's instruction budget, the 60 s time limit of one procedure run, the Lua state's memory),
// so a trace stops where a run of simulate would.
class Api::Slot {
 public:
  explicit Slot(Api& api) : api_(api) {
    std::lock_guard lock(api.mutex_);
    const std::size_t busy = api.busy();
    if (busy >= static_cast<std::size_t>(api.options_.jobs))
      throw RequestError(429, fmt::format("{} runs, traces or checks are in progress, the most "
                                          "this server runs at once (serve --jobs {}); wait for "
                                          "one or cancel it",
                                          busy, api.options_.jobs));
    ++api.working_;
  }
  ~Slot() {
    if (!held_) return;
    std::lock_guard lock(api_.mutex_);
    --api_.working_;
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  // Under mutex_, as the job that takes the place is added (running): it counts from now on.
  void to_job() {
    --api_.working_;
    held_ = false;
  }

 private:
  Api& api_;
  bool held_ = true;
};

SessionOptions Api::session_options() const {
  SessionOptions o;
  o.root = options_.root;
  o.search = options_.pack_dirs;
  return o;
}

std::map<std::string, fs::path> Api::packs() const {
  LoadRequest req;
  req.root = options_.root;
  req.search = options_.pack_dirs;
  return discover_packs(req);
}

std::vector<std::string> Api::rulesets() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(options_.root / "scripts", ec))
    if (e.is_directory() && fs::is_regular_file(e.path() / "ruleset.toml"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

int Api::run_threads(const json& request) const {
  const auto asked =
      whole(request, "threads", static_cast<std::uint64_t>(options_.threads), 1, 1024);
  return static_cast<int>(
      std::min<std::uint64_t>(asked, static_cast<std::uint64_t>(options_.threads)));
}

// The session of the request's scenario (TOML text, named "scenario" in messages), its ruleset
// and packs checked against those found; with_changes: changed by "with"/"without" as
// `simulate --with` does.
Session Api::prepare(const json& request, bool with_changes) const {
  if (!request.contains("scenario") || !request["scenario"].is_string())
    throw RequestError(400, "scenario: the scenario's TOML text is required (a string)");
  const std::string text = request["scenario"].get<std::string>();
  if (text.size() > options_.max_scenario_bytes)
    throw RequestError(413, fmt::format("scenario: {} bytes; at most {}", text.size(),
                                        options_.max_scenario_bytes));
  TomlFile f("scenario", text);
  const toml::table& t = f.root();
  const std::string ruleset = f.string(t, "ruleset", true).value();
  const auto known = rulesets();
  if (std::find(known.begin(), known.end(), ruleset) == known.end())
    f.fail(*t.get("ruleset"), "no ruleset '" + excerpt(ruleset) + "'" +
                                  did_you_mean(ruleset, known) + "; the rulesets: " + join(known));
  const auto found = packs();
  std::vector<std::string> ids;
  for (const auto& [id, dir] : found) ids.push_back(id);
  for (const std::string& p : f.strings(t, "packs")) {
    const int line = f.line_of(t, "packs");
    if (looks_like_path(p))
      f.fail(line, "packs: '" + excerpt(p) +
                       "' is a folder; the page names packs by id (give folders to serve --packs)");
    if (!found.count(p))
      f.fail(line, "packs: no pack with id '" + excerpt(p) + "'" + did_you_mean(p, ids) +
                       "; the packs: " + join(ids));
  }
  Scenario s = scenario_from_table(t, "scenario", fs::path());
  s.table = f.release();  // moved, not copied: the table keeps its lines for ctx:reject
  s.table.erase("bench");
  s.table.erase("play");
  // the packs by their folders, so that nothing is looked up relative to the working folder
  for (std::string& p : s.packs) p = pack_path(found.at(p));
  const SessionOptions so = session_options();
  Session session = open_cached(std::move(s));
  if (!with_changes) return session;
  Changes changes;
  changes.with = strings(request, "with");
  changes.without = strings(request, "without");
  for (const auto& c : changes.with) check_change(c, found);
  for (const auto& c : changes.without) check_change(c, found);
  if (changes.empty()) return session;
  return apply_changes(session, changes, so);
}

// ---------------------------------------------------------------- GET

Reply Api::rulesets_reply() const {
  json list = json::array();
  for (const std::string& id : rulesets()) {
    json r = {{"id", id}};
    try {
      LoadRequest req;
      req.root = options_.root;
      req.search = options_.pack_dirs;
      req.ruleset = id;
      const auto content = load_content(req);
      const Ruleset& rs = content->ruleset;
      r["name"] = rs.name;
      r["base_pack"] = rs.base_pack;
      r["kinds"] = rs.kinds;
      r["unit_kind"] = rs.unit_kind;
      json procs = json::array(), reports = json::object();
      for (const auto& [p, file] : rs.procedures) procs.push_back(p);
      for (const auto& [p, def] : rs.reports) reports[p] = report_json(def);
      r["procedures"] = procs;
      r["reports"] = reports;
      json lists = json::object();
      for (const auto& [kind, key] : rs.scenario_lists) lists[kind] = key;
      r["scenario_lists"] = lists;
      json attrs = json::array();
      for (const auto& a : rs.attributes) attrs.push_back(attribute_json(a));
      r["attributes"] = attrs;
      r["form"] = nullptr;
      try {
        r["form"] = read_form(rs);
      } catch (const Error& e) {
        r["form_error"] = e.what();
      }
    } catch (const Error& e) {
      r["error"] = e.what();
    }
    list.push_back(std::move(r));
  }
  return {200, json{{"rulesets", list}}};
}

Reply Api::packs_reply() const {
  json list = json::array();
  std::error_code ec;
  const fs::path content_dir = fs::weakly_canonical(options_.root / "content", ec);
  for (const auto& [id, dir] : packs()) {
    TomlFile f((dir / "pack.toml").string());
    const toml::table& t = f.root();
    const fs::path canon = fs::weakly_canonical(dir, ec);
    const bool in_content = canon.parent_path() == content_dir;
    list.push_back({{"id", id},
                    {"name", f.string(t, "name").value_or(id)},
                    {"version", f.string(t, "version").value_or("")},
                    {"ruleset", f.string(t, "ruleset").value_or("")},
                    {"depends", f.strings(t, "depends")},
                    {"optional_depends", f.strings(t, "optional_depends")},
                    {"conflicts", f.strings(t, "conflicts")},
                    {"origin", in_content ? "content" : "homebrew"},
                    {"test_only", f.boolean(t, "test_only").value_or(false)},
                    {"default_on", f.boolean(t, "default_on").value_or(false)},
                    {"folder", dir.filename().string()}});
  }
  return {200, json{{"packs", list}}};
}

namespace {

// The content of a ruleset with the packs a query names (ids, comma-separated).
std::shared_ptr<const Content> load_query(
    const std::map<std::string, std::string>& query, const std::vector<std::string>& rulesets,
    const std::map<std::string, fs::path>& found, const SessionOptions& so,
    const std::function<std::shared_ptr<const Content>(const LoadRequest&)>& load) {
  auto it = query.find("ruleset");
  if (it == query.end() || it->second.empty())
    throw RequestError(400,
                       "ruleset: name a ruleset (?ruleset=ID); the rulesets: " + join(rulesets));
  const std::string ruleset = it->second;
  if (std::find(rulesets.begin(), rulesets.end(), ruleset) == rulesets.end())
    throw RequestError(400, "no ruleset '" + excerpt(ruleset) + "'" +
                                did_you_mean(ruleset, rulesets) +
                                "; the rulesets: " + join(rulesets));
  LoadRequest req;
  req.root = so.root;
  req.search = so.search;
  req.ruleset = ruleset;
  std::vector<std::string> ids;
  for (const auto& [id, dir] : found) ids.push_back(id);
  if (auto p = query.find("packs"); p != query.end())
    for (const std::string& id : split_list(p->second)) {
      if (!found.count(id))
        throw RequestError(400, "packs: no pack with id '" + excerpt(id) + "'" +
                                    did_you_mean(id, ids) + "; the packs: " + join(ids));
      req.packs.push_back(pack_path(found.at(id)));
    }
  return load(req);
}

}  // namespace

Reply Api::records_reply(const std::map<std::string, std::string>& query) const {
  const auto content = load_query(query, rulesets(), packs(), session_options(),
                                  [this](const LoadRequest& r) { return content_for(r); });
  const Ruleset& rs = content->ruleset;
  std::vector<std::string> kinds;
  if (auto k = query.find("kinds"); k != query.end()) {
    kinds = split_list(k->second);
    for (const auto& kind : kinds)
      if (!rs.has_kind(kind))
        throw RequestError(400, "kinds: '" + excerpt(kind) + "' is not a record kind of ruleset '" +
                                    rs.id + "'" + did_you_mean(kind, rs.kinds) +
                                    "; its kinds: " + join(rs.kinds));
  }
  json records = json::array();
  for (const Record& r : content->records) {
    if (r.removed) continue;
    const std::string kind(sym_name(r.kind));
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
    json attrs = json::object();
    for (const AttributeDef& a : rs.attributes) {
      const auto slot = static_cast<std::size_t>(a.slot);
      if (!r.has[slot]) continue;
      const std::int32_t v = r.attr[slot];
      if (a.type == AttrType::integer)
        attrs[a.name] = v;
      else if (a.type == AttrType::boolean)
        attrs[a.name] = v != 0;
      else
        attrs[a.name] = std::string(sym_name(static_cast<Sym>(v)));
    }
    const std::string name(sym_name(r.name));
    auto title = r.text.find("name");
    records.push_back({{"id", r.id},
                       {"kind", kind},
                       {"name", name},
                       {"title", title == r.text.end() ? name : title->second},
                       {"pack", r.pack},
                       {"changed_by", r.changed_by},
                       {"attributes", attrs},
                       {"text", r.text}});
  }
  json loaded = json::array();
  for (const PackInfo& p : content->packs) loaded.push_back({{"id", p.id}, {"name", p.name}});
  return {200, json{{"ruleset", rs.id}, {"packs", loaded}, {"records", records}}};
}

Reply Api::scenarios_reply(const std::map<std::string, std::string>& query) const {
  const auto content = load_query(query, rulesets(), packs(), session_options(),
                                  [this](const LoadRequest& r) { return content_for(r); });
  json list = json::array();
  for (const PackInfo& p : content->packs) {
    // a file (or the scenarios folder) that links out of the pack is listed with its error,
    // never read (base/paths)
    std::vector<fs::path> outside;
    const auto files =
        files_inside(p.dir, p.dir / "scenarios", ".toml", "pack", Walk::flat, &outside);
    for (const fs::path& file : outside)
      list.push_back({{"pack", p.id},
                      {"file", file.filename().string()},
                      {"description", ""},
                      {"toml", ""},
                      {"error", outside_reason(p.dir, file, "pack")}});
    for (const fs::path& file : files) {
      const std::string text = read_text(file, options_.max_scenario_bytes);
      json s = {{"pack", p.id},
                {"file", file.filename().string()},
                {"description", opening_comment(text)},
                {"toml", text}};
      try {
        TomlFile f(file.string(), text);
        s["procedure"] = f.string(f.root(), "procedure").value_or("");
      } catch (const Error& e) {
        s["error"] = e.what();
      }
      list.push_back(std::move(s));
    }
  }
  return {200, json{{"scenarios", list}}};
}

Reply Api::get(std::string_view path, const std::map<std::string, std::string>& query) {
  try {
    if (path == "/api/rulesets") return rulesets_reply();
    if (path == "/api/packs") return packs_reply();
    if (path == "/api/records") return records_reply(query);
    if (path == "/api/scenarios") return scenarios_reply(query);
    if (path == "/api/jobs") return jobs_reply();
    if (path.starts_with("/api/jobs/")) {
      std::uint64_t id = 0;
      const std::string_view s = path.substr(10);
      const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
      if (ec != std::errc() || p != s.data() + s.size())
        return error_reply(404, "no job " + excerpt(s));
      return job_reply(id, false);
    }
    return error_reply(404, "no API path " + excerpt(path));
  } catch (const std::exception& e) {
    return error_reply(status_of(e), e.what());
  }
}

// ---------------------------------------------------------------- POST

Reply Api::parse_reply(const json& request) const {
  expect_keys(request, {"toml"}, "parse");
  if (!request.contains("toml") || !request["toml"].is_string())
    throw RequestError(400, "parse: toml, the scenario's text, is required (a string)");
  const std::string text = request["toml"].get<std::string>();
  if (text.size() > options_.max_scenario_bytes)
    throw RequestError(
        413, fmt::format("toml: {} bytes; at most {}", text.size(), options_.max_scenario_bytes));
  TomlFile f("scenario", text);
  return {200, json{{"scenario", toml_to_json(f.root())}}};
}

Reply Api::check_reply(const json& request) {
  expect_keys(request, {"scenario", "with", "without"}, "check");
  Slot slot(*this);
  const Session session = prepare(request, true);
  Table table(session);  // the ruleset's setup reads every key of the scenario
  json loaded = json::array();
  for (const PackInfo& p : session.content->packs) loaded.push_back(p.id);
  return {200, json{{"ok", true},
                    {"ruleset", session.content->ruleset.id},
                    {"procedure", session.procedure},
                    {"packs", loaded}}};
}

namespace {

// One traced run of the session's procedure from the table's start with this seed. Returns the
// script's error, if any (the trace holds what happened up to it, as the command line prints it).
std::string traced_run(Table& table, const Session& session, std::uint64_t seed, Trace& t,
                       RunResult& result) {
  t.enabled = true;
  RunOptions run;
  run.seed = seed;
  run.trace = &t;
  State state = table.start;
  try {
    table.engine.run(session.procedure, state, run, result);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// A reply made after a run: 422 with the script's error in the body, or 200.
Reply after_run(json body, const std::string& error) {
  if (error.empty()) return {200, std::move(body)};
  body["error"] = error;
  body["status"] = 422;
  return {422, std::move(body)};
}

}  // namespace

Reply Api::trace_reply(const json& request) {
  expect_keys(request, {"scenario", "seed", "with", "without"}, "trace");
  const std::uint64_t seed =
      whole(request, "seed", 1, 0, std::numeric_limits<std::uint64_t>::max());
  Slot slot(*this);
  const Session session = prepare(request, true);
  Table table(session);
  Trace t;
  RunResult result;
  const std::string error = traced_run(table, session, seed, t, result);
  const bool truncated = t.events.size() > options_.max_trace_events;
  if (truncated) t.events.resize(options_.max_trace_events);
  std::ostringstream narrative;
  t.print_narrative(narrative);
  json events = json::array();
  std::size_t seq = 0;
  for (const auto& e : t.events)
    events.push_back({{"seq", seq++},
                      {"kind", to_string(e.kind)},
                      {"key", e.key},
                      {"text", e.text},
                      {"depth", e.depth}});
  json body = {{"seed", seed},
               {"procedure", session.procedure},
               {"outcome", result.outcome_name},
               {"narrative", narrative.str()},
               {"events", events},
               {"truncated", truncated}};
  json metrics = json::object();
  for (const auto& [m, v] : result.metrics) metrics[std::string(sym_name(m))] = v;
  body["metrics"] = metrics;
  return after_run(std::move(body), error);
}

Reply Api::board_reply(const json& request) {
  expect_keys(request, {"scenario", "seed", "with", "without"}, "board");
  const bool traced = request.contains("seed") && !request["seed"].is_null();
  const std::uint64_t seed =
      whole(request, "seed", 1, 0, std::numeric_limits<std::uint64_t>::max());
  Slot slot(*this);
  const Session session = prepare(request, true);
  Table table(session);
  const State& start = table.start;
  const BoardWriter w(start, *session.content);
  json hexes = json::array();
  for (const Board::Cell& cell : start.board.cells())
    hexes.push_back({{"q", cell.hex.q},
                     {"r", cell.hex.r},
                     {"entity", start.valid(cell.entity) ? w.entity(cell.entity) : json(nullptr)}});
  json roles = json::object();
  for (const auto& [role, e] : start.roles) {
    if (!start.valid(e)) continue;
    json r = {{"id", e}, {"name", w.name(e)}, {"q", nullptr}, {"r", nullptr}};
    if (const auto h = start.hex_of(e)) r["q"] = h->q, r["r"] = h->r;
    roles[std::string(sym_name(role))] = r;
  }
  json players = json::array();
  for (const EntityId p : start.turn_order) players.push_back(w.name(p));
  json body = {{"ruleset", session.content->ruleset.id},
               {"procedure", session.procedure},
               {"orientation", start.board.orientation == Orientation::pointy ? "pointy" : "flat"},
               {"hexes", hexes},
               {"roles", roles},
               {"players", players}};
  if (!traced) return {200, body};
  // one run with the seed: the moves it made (trace events whose fields carry a path)
  Trace t;
  RunResult result;
  const std::string error = traced_run(table, session, seed, t, result);
  json moves = json::array();
  const std::size_t n = std::min(t.events.size(), options_.max_trace_events);
  for (std::size_t seq = 0; seq < n; ++seq) {
    const TraceEvent& e = t.events[seq];
    if (!e.fields.contains("path")) continue;
    json m = {{"seq", seq}, {"key", e.key}, {"text", e.text}, {"path", e.fields["path"]}};
    for (const char* k : {"player", "unit"}) m[k] = e.fields.value(k, json(nullptr));
    moves.push_back(std::move(m));
  }
  body["seed"] = seed;
  body["outcome"] = result.outcome_name;
  body["moves"] = moves;
  return after_run(std::move(body), error);
}

namespace {

// Best play asked of /api/simulate: `best` (a side of the report, or "both"), `objective` (win,
// not_lose, metric:KEY, metric:-KEY) and `decisions` (the first decisions' table), as
// `simulate --exact --best SIDE --objective O --decisions` take them.
struct BestRequest {
  std::string side;  // empty: no best play
  std::string objective = "win";
  bool decisions = false;
  std::string setting;  // "objective" or "decisions" when the request gives one
};

BestRequest best_request(const json& request, bool exact, bool fallback) {
  BestRequest b;
  const auto given = [&](const char* key) {
    return request.contains(key) && !request[key].is_null();
  };
  if (given("best")) {
    if (!request["best"].is_string() || request["best"].get_ref<const std::string&>().empty())
      throw RequestError(400, "best: " + describe(request["best"]) +
                                  " is not a side of the report or \"both\" (a string)");
    b.side = request["best"].get<std::string>();
  }
  for (const char* key : {"objective", "decisions"})
    if (given(key)) b.setting = key;
  if (given("objective")) {
    if (!request["objective"].is_string())
      throw RequestError(400, "objective: " + describe(request["objective"]) +
                                  " is not one of: win, not_lose, metric:KEY, metric:-KEY");
    b.objective = request["objective"].get<std::string>();
  }
  if (given("decisions")) {
    if (!request["decisions"].is_boolean()) throw RequestError(400, "decisions: true or false");
    b.decisions = request["decisions"].get<bool>();
  }
  if (b.side.empty()) return b;
  if (!exact)
    throw RequestError(400,
                       "best: best play is answered by the exact mode only (every state, each "
                       "decision's options compared); give exact = true");
  if (fallback)
    throw RequestError(400,
                       "fallback: best play has no Monte Carlo fallback (sampled runs cannot say "
                       "which option is best); drop fallback");
  return b;
}

// The side and objective checked against the scenario's report before anything runs: a 400
// naming the field, not a failed job.
void check_best(const Simulation& sim, const BestRequest& b) {
  const auto& sides = sim.report_def().sides;
  std::string names;
  for (const auto& s : sides) names += (names.empty() ? "" : ", ") + s;
  const std::string procedure = sim.session().procedure;
  if (b.side == "both" && sides.size() != 2)
    throw RequestError(400, "best: \"both\" needs a report of two sides; the report of '" +
                                procedure + "' has " + (names.empty() ? "none" : names));
  if (b.side != "both" && std::find(sides.begin(), sides.end(), b.side) == sides.end())
    throw RequestError(400, "best: " + describe(json(b.side)) +
                                " is not a side of the report of '" + procedure + "'" +
                                (names.empty() ? " (it has none)" : ": " + names + ", or both"));
  try {
    for (const auto& s : b.side == "both" ? sides : std::vector<std::string>{b.side})
      sim.best_objective(s, b.objective, s != sides.front(), nullptr);
  } catch (const UsageError& e) {
    std::string m = e.what();
    const std::string flag = "--objective ";
    if (m.rfind(flag, 0) == 0) m = m.substr(flag.size());
    throw RequestError(400, "objective: " + m);
  }
}

}  // namespace

Reply Api::start_run(const std::string& kind, const json& request) {
  const bool simulate = kind == "simulate";
  if (simulate)
    expect_keys(request,
                {"scenario", "runs", "precision", "max_runs", "seed", "threads", "with", "without",
                 "wait", "exact", "max_states", "max_seconds", "max_memory", "fallback", "best",
                 "objective", "decisions"},
                "simulate");
  else
    expect_keys(request,
                {"scenario", "runs", "seed", "threads", "with", "without", "wait", "exact",
                 "max_states", "max_seconds", "max_memory", "fallback"},
                "compare");
  const std::uint64_t cap = options_.max_runs;
  const auto runs_range = [&](const char* key) {
    if (request.contains(key) && request[key].is_number_unsigned() &&
        request[key].get<std::uint64_t>() > cap)
      throw RequestError(400, fmt::format("{}: {} is above this server's cap (serve --max-runs {})",
                                          key, request[key].get<std::uint64_t>(), cap));
  };
  runs_range("runs");
  runs_range("max_runs");
  const std::uint64_t runs = whole(request, "runs", std::min<std::uint64_t>(100000, cap), 1, cap);
  const std::uint64_t seed =
      whole(request, "seed", 1, 0, std::numeric_limits<std::uint64_t>::max());
  const int threads = run_threads(request);
  double precision = 0;
  if (request.contains("precision") && !request["precision"].is_null()) {
    const json& p = request["precision"];
    if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() <= 0)
      throw RequestError(400, "precision: " + describe(p) + " is not a number above zero");
    if (request.contains("runs") && !request["runs"].is_null())
      throw RequestError(400, "runs and precision: give one (precision runs until it is reached)");
    precision = p.get<double>();
  }
  if (request.contains("max_runs") && !request["max_runs"].is_null() && precision <= 0)
    throw RequestError(400, "max_runs: the cap of precision; give precision too");
  const std::uint64_t max_runs = whole(request, "max_runs", cap, 1, cap);
  // the exact mode (simulate --exact, compare --exact): no runs, a state budget
  bool exact = false;
  if (request.contains("exact")) {
    if (!request["exact"].is_boolean()) throw RequestError(400, "exact: true or false");
    exact = request["exact"].get<bool>();
  }
  for (const char* key : {"max_states", "max_seconds", "max_memory", "fallback"})
    if (!exact && request.contains(key) && !request[key].is_null())
      throw RequestError(400,
                         std::string(key) + ": a bound of the exact mode; give exact = true too");
  if (exact)
    for (const char* key : {"runs", "precision", "max_runs"})
      if (request.contains(key) && !request[key].is_null())
        throw RequestError(400, std::string(key) +
                                    ": the exact mode has no runs (every way a run can go is "
                                    "followed once); drop it or drop exact");
  const std::uint64_t max_states =
      whole(request, "max_states", ExactRunOptions{}.max_states, 1, ExactRunOptions{}.max_states);
  double max_seconds = kExactSeconds;
  if (request.contains("max_seconds") && !request["max_seconds"].is_null()) {
    const json& m = request["max_seconds"];
    if (!m.is_number() || !(m.get<double>() >= 0.01 && m.get<double>() <= kExactSeconds))
      throw RequestError(400, "max_seconds: " + describe(m) +
                                  fmt::format(" is not a number from 0.01 to {:g}", kExactSeconds));
    max_seconds = m.get<double>();
  }
  // what the exploration may take, in MiB (simulate --max-memory; best play's trees count too)
  const std::uint64_t max_memory =
      whole(request, "max_memory", kExactMemoryMiB, 1, kExactMemoryMiB);
  // when the exact mode stops at a bound: Monte Carlo instead, to the precision below, saying so
  bool fallback = false;
  if (request.contains("fallback") && !request["fallback"].is_null()) {
    if (!request["fallback"].is_boolean()) throw RequestError(400, "fallback: true or false");
    fallback = request["fallback"].get<bool>();
  }
  // best play (simulate --exact --best SIDE --objective O --decisions): the exact mode only
  BestRequest best = best_request(request, exact, fallback);
  bool wait = false;
  if (request.contains("wait")) {
    if (!request["wait"].is_boolean()) throw RequestError(400, "wait: true or false");
    wait = request["wait"].get<bool>();
  }

  // a place before the scenario is loaded; the job takes it over
  Slot slot(*this);
  std::shared_ptr<Session> a, b;
  if (simulate) {
    a = std::make_shared<Session>(prepare(request, true));
    Table check(*a);  // the scenario's errors now, as a 400, not later in the run
    if (!best.side.empty()) {
      a->scenario.best_sides.clear();  // the request's best overrides the scenario's [play]
      check_best(Simulation(*a), best);
    } else if (!a->scenario.best_sides.empty()) {
      // the scenario's [play] (simulate S.toml): its best play, in the exact mode only
      if (!exact || fallback)
        throw RequestError(400, "scenario: [play] " + a->scenario.best_sides.front().first +
                                    " = \"best\" is answered by the exact mode only; give exact "
                                    "= true" +
                                    (fallback ? " and drop fallback" : "") +
                                    ", or set the side to \"policy\"");
      best.side = Simulation(*a).scenario_best();
      if (!request.contains("objective") || request["objective"].is_null())
        best.objective = a->scenario.best_objective;
    }
    if (best.side.empty() && !best.setting.empty())
      throw RequestError(400, best.setting + ": a setting of best play; give best too");
  } else {
    Changes changes;
    changes.with = strings(request, "with");
    changes.without = strings(request, "without");
    if (changes.empty())
      throw RequestError(400,
                         "compare needs with or without: what arm B changes (a record, a pack or a "
                         "setting), or there is nothing to compare");
    a = std::make_shared<Session>(prepare(request, false));
    reject_best_play(a->scenario, "compare");
    const auto found = packs();
    for (const auto& c : changes.with) check_change(c, found);
    for (const auto& c : changes.without) check_change(c, found);
    b = std::make_shared<Session>(apply_changes(*a, changes, session_options()));
    Table check_a(*a), check_b(*b);
  }

  Changes changes;
  changes.with = strings(request, "with");
  changes.without = strings(request, "without");
  auto job = std::make_shared<Job>();
  job->kind = kind;
  job->planned = exact ? 1 : precision > 0 ? std::min<std::uint64_t>(max_runs, 20000) : runs;
  {
    std::lock_guard lock(mutex_);
    forget_finished();
    job->id = next_job_++;
    jobs_[job->id] = job;
    slot.to_job();
    // started under the lock: no other request sees the job before its thread is set
    job->thread = std::thread([job, a, b, simulate, runs, seed, threads, precision, max_runs,
                               changes, exact, max_states, max_seconds, max_memory, fallback,
                               best] {
      try {
        std::string exact_stopped;  // why the exact mode handed over to Monte Carlo
        if (exact) {
          // one exploration: done is 0 then 1; a cancel stops it at its next step run
          ExactRunOptions eo;
          eo.max_states = static_cast<std::size_t>(max_states);
          eo.seconds = max_seconds;
          eo.max_bytes = static_cast<std::size_t>(max_memory) << 20;
          eo.stop = &job->stop;
          try {
            json report = !simulate           ? exact_comparison(*a, *b, changes, eo)
                          : best.side.empty() ? Simulation(*a).exact(eo)
                                              : Simulation(*a).exact_best(
                                                    eo, best.side, best.objective, best.decisions);
            job->done = 1;
            job->finish("done", std::move(report));
            return;
          } catch (const ExactLimit& e) {
            if (job->stop.load()) {
              job->fail(422, "the exact mode was cancelled: an exploration has no partial result");
              return;
            }
            if (!best.side.empty()) {
              job->fail(422, std::string("the exact mode stopped: ") + e.what() +
                                 "; best play has no Monte Carlo fallback: it is the exact mode's "
                                 "or nothing (a smaller battle, or the command line's larger "
                                 "bounds)");
              return;
            }
            if (!fallback) {
              job->fail(422, std::string("the exact mode stopped: ") + e.what() +
                                 "; use Monte Carlo instead");
              return;
            }
            exact_stopped = std::string("the exact mode stopped: ") + e.what() +
                            "; these are Monte Carlo estimates";
          }
        }
        auto progress = [&job = *job](std::uint64_t done, std::uint64_t planned) {
          job.done = done;
          job.planned = planned;
        };
        if (simulate) {
          Simulation sim(*a);
          SimOptions o;
          o.runs = runs;
          o.precision = precision;
          o.max_runs = max_runs;
          o.seed = seed;
          o.threads = threads;
          o.progress = progress;
          o.stop = &job->stop;
          const Tally t = sim.run(o);
          json report = sim.report(t, seed);
          const bool stopped = job->stop.load();
          if (stopped) report["interrupted"] = true;
          if (precision > 0 && !stopped) {
            const double widest = sim.widest(t);
            if (!(widest < precision))
              report["warning"] = fmt::format(
                  "precision {} not reached: the widest 95% half-width is {:.6g} after {} runs, "
                  "the cap (max_runs {})",
                  precision, widest, t.runs, max_runs);
          }
          if (!exact_stopped.empty()) report["exact_stopped"] = exact_stopped;
          job->done = t.runs;
          job->finish(stopped ? "cancelled" : "done", std::move(report));
        } else {
          Comparison cmp(*a, *b);
          CompareOptions o;
          o.runs = runs;
          o.seed = seed;
          o.threads = threads;
          o.progress = progress;
          o.stop = &job->stop;
          const PairTally t = cmp.run(o);
          json report = cmp.report(t, seed, changes);
          const bool stopped = job->stop.load();
          if (stopped) report["interrupted"] = true;
          if (!exact_stopped.empty()) report["exact_stopped"] = exact_stopped;
          job->done = t.runs;
          job->finish(stopped ? "cancelled" : "done", std::move(report));
        }
      } catch (const std::exception& e) {
        job->fail(status_of(e), e.what());
      }
    });
  }
  if (wait) {
    while (job->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return job_reply(job->id, false);
  }
  return {202, json{{"job", job->id}, {"state", "running"}, {"planned", job->planned.load()}}};
}

// ---------------------------------------------------------------- sweeps

// The spec of POST /api/sweep and /api/sweep/cell: `spec`, a sweep spec's TOML text (docs/sweep.md)
// whose base scenario is the request's `scenario`, within this server's caps. Its axes' changes
// name packs by id, as with and without do. Loads content: called in a Slot.
SweepSpec Api::sweep_spec(const json& request) const {
  if (!request.contains("spec") || !request["spec"].is_string())
    throw RequestError(400,
                       "spec: the sweep's axes and settings are required, as a sweep spec's TOML "
                       "text without 'scenario' (a string)");
  const std::string& text = request["spec"].get_ref<const std::string&>();
  if (text.size() > options_.max_scenario_bytes)
    throw RequestError(
        413, fmt::format("spec: {} bytes; at most {}", text.size(), options_.max_scenario_bytes));
  const Session base = prepare(request, false);
  SweepSpec spec = read_sweep_text("spec", text, base.scenario);
  const std::uint64_t cells = sweep_cells(spec);
  if (cells > options_.max_sweep_cells)
    throw RequestError(400, fmt::format("spec: {} cells; this server runs at most {} in a sweep",
                                        cells == std::numeric_limits<std::uint64_t>::max()
                                            ? std::string("more than 2^64")
                                            : std::to_string(cells),
                                        options_.max_sweep_cells));
  if (spec.max_runs > options_.max_runs)
    throw RequestError(400, fmt::format("spec: max_runs = {} is above this server's cap (serve "
                                        "--max-runs {}); write a smaller max_runs",
                                        spec.max_runs, options_.max_runs));
  if (spec.max_seconds > kExactSeconds)
    throw RequestError(400, fmt::format("spec: max_seconds = {:g} is above this server's {:g}",
                                        spec.max_seconds, kExactSeconds));
  if (spec.max_states > ExactRunOptions{}.max_states)
    throw RequestError(400, fmt::format("spec: max_states = {} is above this server's {}",
                                        spec.max_states, ExactRunOptions{}.max_states));
  const auto found = packs();
  for (const Axis& a : spec.axes)
    for (const AxisValue& v : a.values) {
      for (const auto& c : v.changes.with) check_change(c, found);
      for (const auto& c : v.changes.without) check_change(c, found);
    }
  Table check(base);  // the base scenario's errors now, as a 400
  return spec;
}

// POST /api/sweep {scenario, spec, threads, wait}: a job like simulate's whose `done` and
// `planned` count cells; while it runs, `partial` holds the result's rows, columns and the cells
// done (each with its value and interval). Done: `rulebench sweep --json`'s object. Cancelled,
// or stopped at the server's time cap: the cells done, "interrupted": true.
Reply Api::start_sweep(const json& request) {
  expect_keys(request, {"scenario", "spec", "threads", "wait"}, "sweep");
  const int threads = run_threads(request);
  bool wait = false;
  if (request.contains("wait")) {
    if (!request["wait"].is_boolean()) throw RequestError(400, "wait: true or false");
    wait = request["wait"].get<bool>();
  }
  Slot slot(*this);
  auto spec = std::make_shared<const SweepSpec>(sweep_spec(request));
  auto job = std::make_shared<Job>();
  job->kind = "sweep";
  job->planned = sweep_cells(*spec);
  const SessionOptions so = session_options();
  const double seconds = options_.sweep_seconds;
  {
    std::lock_guard lock(mutex_);
    forget_finished();
    job->id = next_job_++;
    jobs_[job->id] = job;
    slot.to_job();
    job->thread = std::thread([job, spec, so, threads, seconds] {
      // the time cap: a watcher stops the sweep when it is still running then
      std::mutex m;
      std::condition_variable cv;
      bool over = false;
      std::atomic<bool> timed_out{false};
      std::thread watcher([&] {
        std::unique_lock l(m);
        if (!cv.wait_for(l, std::chrono::duration<double>(seconds), [&] { return over; })) {
          timed_out = true;
          job->stop = true;
        }
      });
      const auto end_watch = [&] {
        {
          std::lock_guard l(m);
          over = true;
        }
        cv.notify_all();
        watcher.join();
      };
      try {
        SweepOptions o;
        o.threads = threads;
        o.stop = &job->stop;
        o.progress = [&job = *job](std::uint64_t done, std::uint64_t planned) {
          job.done = done;
          job.planned = planned;
        };
        o.started = [&job = *job](const json& raw) {
          std::lock_guard l(job.mutex);
          job.partial = raw;
          job.partial["cells"] = json::array();
        };
        o.cell_done = [&job = *job](const json& cell) {
          std::lock_guard l(job.mutex);
          job.partial["cells"].push_back(sweep_cell_json(job.partial, cell));
        };
        const json raw = run_sweep(*spec, so, o);
        end_watch();
        if (!raw.contains("interrupted")) {
          job->finish("done", sweep_json(raw));
          return;
        }
        json out = raw;
        out["cells"] = json::array();
        for (const json& c : raw["cells"]) out["cells"].push_back(sweep_cell_json(raw, c));
        if (timed_out)
          out["warning"] = fmt::format(
              "the sweep stopped at this server's time cap ({:g} s): {} of {} cells done", seconds,
              raw["cells"].size(), sweep_cells(*spec));
        job->finish("cancelled", std::move(out));
      } catch (const std::exception& e) {
        if (watcher.joinable()) end_watch();
        job->fail(status_of(e), e.what());
      }
    });
  }
  if (wait) {
    while (job->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return job_reply(job->id, false);
  }
  return {202, json{{"job", job->id}, {"state", "running"}, {"planned", job->planned.load()}}};
}

// POST /api/sweep/cell {scenario, spec, cell}: cell k's scenario (row-major, as in the result's
// `cells`) as TOML, the base with the cell's changes: the page opens it as a battle.
Reply Api::sweep_cell_reply(const json& request) {
  expect_keys(request, {"scenario", "spec", "cell"}, "sweep/cell");
  Slot slot(*this);
  const SweepSpec spec = sweep_spec(request);
  const std::uint64_t cells = sweep_cells(spec);
  const std::uint64_t k = whole(request, "cell", 0, 0, cells - 1);
  const Session s = sweep_cell_session(spec, session_options(), static_cast<std::size_t>(k));
  std::ostringstream toml_text;
  toml_text << s.scenario.table << "\n";
  return {200, json{{"cell", k}, {"scenario", toml_text.str()}}};
}

namespace {

// POST /api/import {url}: another tool's link as a scenario (sim/link_import): its TOML, the
// setup (the scenario as JSON, as /api/parse gives it) and the parameters not understood.
Reply import_reply(const json& request, const ApiOptions& options) {
  expect_keys(request, {"url"}, "import");
  if (!request.contains("url") || !request["url"].is_string())
    throw RequestError(400, "import: url, the link, is required (a string)");
  const std::string url = request["url"].get<std::string>();
  if (url.size() > kMaxLinkBytes)
    throw RequestError(413, fmt::format("url: {} bytes; at most {}", url.size(), kMaxLinkBytes));
  ImportOptions o;
  o.root = options.root;
  o.search = options.pack_dirs;
  const ImportResult r = import_link(url, o);
  json unknown = json::array();
  for (const auto& p : r.problems)
    unknown.push_back({{"param", p.param}, {"value", p.value}, {"why", p.why}});
  return {200, json{{"format", r.format},
                    {"place", r.place},
                    {"procedure", r.procedure},
                    {"scenario", r.toml},
                    {"setup", toml_to_json(r.scenario)},
                    {"notes", r.notes},
                    {"unknown", unknown}}};
}

}  // namespace

Reply Api::post(std::string_view path, std::string_view body) {
  try {
    const json request = parse_body(body);
    if (path == "/api/parse") return parse_reply(request);
    if (path == "/api/check") return check_reply(request);
    if (path == "/api/trace") return trace_reply(request);
    if (path == "/api/board") return board_reply(request);
    if (path == "/api/simulate") return start_run("simulate", request);
    if (path == "/api/compare") return start_run("compare", request);
    if (path == "/api/sweep") return start_sweep(request);
    if (path == "/api/sweep/cell") return sweep_cell_reply(request);
    if (path == "/api/import") return import_reply(request, options_);
    return error_reply(404, "no API path " + excerpt(path) + " to POST to");
  } catch (const std::exception& e) {
    return error_reply(status_of(e), e.what());
  }
}

// ---------------------------------------------------------------- jobs

json Api::job_json(Job& job) const {
  std::lock_guard lock(job.mutex);
  json j = {{"job", job.id},
            {"kind", job.kind},
            {"state", job.state},
            {"done", job.done.load()},
            {"planned", job.planned.load()}};
  if (job.state != "running") j["seconds"] = job.seconds;
  if (job.state == "running" && !job.partial.is_null()) j["partial"] = job.partial;
  if (job.state == "error") {
    j["error"] = job.error;
    j["status"] = job.error_status;
  } else if (job.state != "running") {
    j["result"] = job.result;
  }
  return j;
}

Reply Api::job_reply(std::uint64_t id, bool cancel) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(mutex_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return error_reply(404, "no job " + std::to_string(id));
    job = it->second;
  }
  if (cancel) {
    job->stop = true;
    // the runs in progress end their chunk; the partial result is the job's
    while (job->running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  json j = job_json(*job);
  const int status = j["state"] == "error" ? j["status"].get<int>() : 200;
  return {status, j};
}

Reply Api::jobs_reply() {
  std::vector<std::shared_ptr<Job>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) all.push_back(job);
  }
  json list = json::array();
  for (auto& job : all) {
    json j = job_json(*job);
    j.erase("result");
    list.push_back(j);
  }
  return {200, json{{"jobs", list}}};
}

Reply Api::del(std::string_view path) {
  if (path.starts_with("/api/jobs/")) {
    std::uint64_t id = 0;
    const std::string_view s = path.substr(10);
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
    if (ec == std::errc() && p == s.data() + s.size()) return job_reply(id, true);
    return error_reply(404, "no job " + excerpt(s));
  }
  return error_reply(404, "no API path " + excerpt(path) + " to DELETE");
}

}  // namespace rb::serve
