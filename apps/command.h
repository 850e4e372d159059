// A subcommand of `streamrt`: each file adds its own options to the CLI11 app and returns what
// runs when the user picked it, so render, list, view and profile live apart.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace srt {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command addRenderCommand(CLI::App& app);   // render_command.cpp
Command addListCommand(CLI::App& app);     // render_command.cpp
Command addViewCommand(CLI::App& app);     // view_command.cpp
Command addProfileCommand(CLI::App& app);  // profile_command.cpp

}  // namespace srt
