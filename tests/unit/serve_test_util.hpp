// What the serve tests share (serve_api_test.cpp, serve_sweep_test.cpp): a file's text, a reply's
// error message, and a POST of a JSON body to the API, called without HTTP.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "api.hpp"

namespace rb::testing {

inline std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The reply's "error", "" when it has none.
inline std::string error_of(const serve::Reply& r) {
  return r.body.contains("error") ? r.body["error"].get<std::string>() : std::string();
}

inline serve::Reply post(serve::Api& api, const std::string& path, const nlohmann::json& body) {
  return api.post(path, body.dump());
}

}  // namespace rb::testing
