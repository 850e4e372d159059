// A subcommand of `streamrt`: each file adds its own options to the CLI11 app and returns what
// runs when the user picked it, so render, list, view and profile live apart.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>

namespace srt {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// A bad command line found after parsing (flags that contradict each other): exit status 2, as
// for CLI11's own parse errors.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

Command addRenderCommand(CLI::App& app);   // render_command.cpp
Command addListCommand(CLI::App& app);     // list_command.cpp
Command addViewCommand(CLI::App& app);     // view_command.cpp
Command addProfileCommand(CLI::App& app);  // profile_command.cpp

// The one-line message of a CLI11 parse error: an unknown flag first, named with the nearest
// known ones ("did you mean"), then CLI11's own message; ends with the --help to run.
std::string usageErrorLine(const CLI::App& app, const CLI::Error& error);

}  // namespace srt
