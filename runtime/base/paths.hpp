// base/paths: where content may read and where the tools may write. Every file a pack loads
// resolves, links followed, inside the pack's folder (a ruleset's files inside the ruleset's
// folder); a link out of it is a ContentError naming the link and where it points. A link that
// stays inside is fine, and the folder itself may be reached through a link (it is resolved
// first). The tools never write through a link: a file they write, and every folder between
// the target folder and it, must not be a symbolic link.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rb {

namespace fs = std::filesystem;

// Why `path` (a file or folder under `root`, existing or not) is not inside `root` once links
// are followed, naming the first link on the way out and where it points ("links outside the
// pack: packs/x/sys -> /"); "" when it is inside. `what` names root in the message: "pack",
// "ruleset".
std::string outside_reason(const fs::path& root, const fs::path& path, std::string_view what);

// Throws ContentError(path, 0, outside_reason(...)) when `path` leaves `root`.
void require_inside(const fs::path& root, const fs::path& path, std::string_view what);

enum class Walk { flat, recursive };

// The files in folder `dir` whose names end in `ext` ("" for any; in its sub-folders too when
// recursive,
// never through a link to a folder), sorted; none when there is no such folder. Nothing is
// read. `dir` and each file must resolve inside `root`: one that does not goes to `outside`
// when it is given (the caller reports it), else it is a ContentError (require_inside).
std::vector<fs::path> files_inside(const fs::path& root, const fs::path& dir, std::string_view ext,
                                   std::string_view what, Walk walk,
                                   std::vector<fs::path>* outside = nullptr);

// Throws a UsageError naming `who` (the command) when `path` is a symbolic link: the tools
// never write through one.
void refuse_link(const fs::path& path, std::string_view who);

// Writes each file (a path relative to `dir`, its text), making the folders between. Before
// anything is written, a file or folder on the way from `dir` to it that is a symbolic link
// is refused with a UsageError naming `who` (the command), the link and where it points, and
// so is a path that climbs out of `dir`; the file is then opened without following a link.
// `dir` itself may be a link: whoever runs the command named it.
void write_files_inside(const fs::path& dir,
                        const std::vector<std::pair<fs::path, std::string>>& files,
                        std::string_view who);

}  // namespace rb
