#include "base/paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.hpp"

namespace rb {

namespace {

// `p` absolute, links followed as far as it exists, without a trailing separator.
fs::path real(const fs::path& p, std::error_code& ec) {
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (!r.has_filename() && r.has_relative_path()) r = r.parent_path();
  return r;
}

bool within(const fs::path& root, const fs::path& p) {
  auto q = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return true;
}

fs::path trimmed(fs::path p) {
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

}  // namespace

std::string outside_reason(const fs::path& root, const fs::path& path, std::string_view what) {
  std::error_code ec;
  const fs::path real_root = real(root, ec);
  if (ec) return "cannot resolve the " + std::string(what) + " folder " + root.string();
  const fs::path real_path = real(path, ec);
  if (!ec && within(real_root, real_path)) return "";
  // the first step from root towards path that leaves it: the link to name (the steps are
  // shown from root as given)
  std::error_code a;
  const fs::path rel =
      trimmed(fs::absolute(path, a)).lexically_relative(trimmed(fs::absolute(root, a)));
  fs::path step = trimmed(root);
  bool found = false;
  for (const fs::path& part : rel) {
    step /= part;
    std::error_code e;
    const fs::path r = real(step, e);
    if (e)
      return "cannot resolve " + step.string() + " (" + e.message() + "): it is not inside the " +
             std::string(what);
    if (!within(real_root, r)) {
      found = true;
      break;
    }
  }
  if (!found) {
    step = path;
    if (ec)
      return "cannot resolve " + step.string() + " (" + ec.message() + "): it is not inside the " +
             std::string(what);
  }
  const fs::path out = real(step, ec);
  if (fs::is_symlink(step, ec)) {
    const fs::path target = fs::read_symlink(step, ec);
    return "links outside the " + std::string(what) + ": " + step.string() + " -> " +
           target.string() + (target.is_absolute() ? "" : " (" + out.string() + ")");
  }
  return step.string() + " is outside the " + std::string(what) + " (" + out.string() +
         " is not in " + real_root.string() + ")";
}

void require_inside(const fs::path& root, const fs::path& path, std::string_view what) {
  if (std::string why = outside_reason(root, path, what); !why.empty())
    throw ContentError(path.string(), 0, why);
}

std::vector<fs::path> files_inside(const fs::path& root, const fs::path& dir, std::string_view ext,
                                   std::string_view what, Walk walk,
                                   std::vector<fs::path>* outside) {
  std::vector<fs::path> found;
  auto leaves = [&](const fs::path& p) {
    std::string why = outside_reason(root, p, what);
    if (why.empty()) return false;
    if (!outside) throw ContentError(p.string(), 0, why);
    outside->push_back(p);
    return true;
  };
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || leaves(dir)) return found;
  const fs::path extension(ext);
  auto take = [&](const fs::directory_entry& e) {
    std::error_code e_ec;
    if ((ext.empty() || e.path().extension() == extension) && e.is_regular_file(e_ec) &&
        !leaves(e.path()))
      found.push_back(e.path());
  };
  // a recursive walk does not follow links to folders (the default options)
  if (walk == Walk::recursive)
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      take(*it);
  else
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) take(*it);
  std::sort(found.begin(), found.end());
  return found;
}

namespace {

UsageError link_error(const fs::path& link, std::string_view who) {
  std::error_code ec;
  return UsageError(std::string(who) + ": " + link.string() + " is a link to " +
                    fs::read_symlink(link, ec).string() +
                    "; rulebench never writes through a link: remove it, or write elsewhere");
}

}  // namespace

void refuse_link(const fs::path& path, std::string_view who) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) throw link_error(path, who);
}

void write_files_inside(const fs::path& dir,
                        const std::vector<std::pair<fs::path, std::string>>& files,
                        std::string_view who) {
  // every path is checked before anything is written: a refusal writes nothing
  for (const auto& [rel, text] : files) {
    if (rel.empty() || rel.is_absolute() ||
        std::find(rel.begin(), rel.end(), fs::path("..")) != rel.end())
      throw UsageError(std::string(who) + ": " + rel.string() + " is not a path inside " +
                       dir.string());
    fs::path step = dir;
    for (const fs::path& part : rel) refuse_link(step /= part, who);
  }
  for (const auto& [rel, text] : files) {
    const fs::path path = dir / rel;
    fs::create_directories(path.parent_path());
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ELOOP) throw link_error(path, who);  // a link made since the check
    if (fd < 0)
      throw UsageError(std::string(who) + ": cannot write " + path.string() + ": " +
                       std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw UsageError(std::string(who) + ": cannot write " + path.string() + ": " + why);
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0)
      throw UsageError(std::string(who) + ": cannot write " + path.string() + ": " +
                       std::strerror(errno));
  }
}

}  // namespace rb
