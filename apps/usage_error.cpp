// Parse errors as one line: `streamrt: error: unknown flag --samples (did you mean --spp?) (run
// 'streamrt render --help')`.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "apps/command.h"

namespace srt {
namespace {

// Optimal string alignment distance: edits, with a swap of two neighbours as one.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

size_t commonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// Names other renderers and habits use for our flags.
const std::vector<std::pair<std::string, std::string>> kSynonyms = {
    {"samples", "spp"},        {"outfile", "output"},   {"out", "output"},
    {"output-file", "output"}, {"nthreads", "threads"}, {"jobs", "threads"},
    {"eye", "look-from"},      {"from", "look-from"},   {"lookat", "look-at"},
    {"target", "look-at"},     {"res", "width"},        {"depth", "max-depth"},
    {"maxdepth", "max-depth"}, {"exr", "output"},       {"timelimit", "time-limit"}};

// The flags of `app` nearest to `flag` (without its dashes): the nearest, at most three.
std::vector<std::string> nearestFlags(const CLI::App& app, const std::string& flag) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& name : o->get_lnames()) {
      size_t score = editDistance(flag, name);
      const size_t prefix = commonPrefix(flag, name);
      if (prefix >= 3 && prefix * 2 >= std::min(flag.size(), name.size()))
        score = std::min<size_t>(score, 2);
      for (const auto& [alias, target] : kSynonyms)
        if (alias == flag && target == name) score = 0;
      if (score <= std::max<size_t>(1, std::min(flag.size(), name.size()) / 3))
        scored.push_back({score, "--" + name});
    }
  }
  std::stable_sort(scored.begin(), scored.end());
  std::vector<std::string> out;  // the nearest, and those as near
  for (const auto& [score, name] : scored)
    if (score == scored.front().first && out.size() < 3 &&
        std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  return out;
}

bool looksLikeFlag(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return false;
  return !(std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');  // -3, -.5
}

std::string unknownFlag(const CLI::App& app, std::string arg) {
  const size_t eq = arg.find('=');
  if (eq != std::string::npos) arg.resize(eq);
  std::string bare = arg.substr(arg.find_first_not_of('-'));
  std::string message = "unknown flag " + arg;
  const std::vector<std::string> near = nearestFlags(app, bare);
  if (!near.empty()) {
    message += " (did you mean ";
    for (size_t i = 0; i < near.size(); ++i)
      message += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
    message += "?)";
  }
  return message;
}

}  // namespace

std::string usageErrorLine(const CLI::App& app, const CLI::Error& error) {
  std::string what = error.what(), help = "streamrt --help";
  for (char& c : what)
    if (c == '\n') c = ' ';
  const std::vector<CLI::App*> used = app.get_subcommands();
  const CLI::App& where = used.empty() ? app : *used.front();
  if (!used.empty()) help = "streamrt " + where.get_name() + " --help";
  // Arguments nobody took, the command's first: an unknown flag is named first, even when CLI11
  // stopped at a required option it took for the unknown one's value (`--outfile x.png`).
  std::vector<std::string> rest = used.empty() ? std::vector<std::string>() : where.remaining();
  const size_t ownRest = rest.size();
  for (const std::string& arg : app.remaining()) rest.push_back(arg);
  const auto flag = std::find_if(rest.begin(), rest.end(), looksLikeFlag);
  if (flag != rest.end()) {
    const bool own = size_t(flag - rest.begin()) < ownRest;
    what = unknownFlag(own ? where : app, *flag);
  } else if (used.empty()) {  // no command, or a mistyped one
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    what = rest.empty() ? "a command is required (commands: " + names + ")"
                        : "unknown command '" + rest.front() + "' (commands: " + names + ")";
  } else if (!rest.empty() && dynamic_cast<const CLI::ExtrasError*>(&error)) {
    what = "unexpected argument '" + rest.front() + "'" +
           (where.get_name() == "list" ? "" : " (one scene per command)");
  }
  return "streamrt: error: " + what + " (run '" + help + "')\n";
}

}  // namespace srt
