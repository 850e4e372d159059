// streamrt: render scenes from the command line, list the registered primitives.
//   streamrt render SCENE -o OUT [options]     (SCENE: a built-in name or a scene file)
//   streamrt list
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "apps/command.h"

int main(int argc, char** argv) {
  using namespace srt;
  CLI::App app{"streamrt: a wavefront GPU ray tracer built around stream compaction"};
  app.set_version_flag("--version", "streamrt 0.1.0");
  app.require_subcommand(1);
  const std::vector<Command> commands = {addRenderCommand(app), addListCommand(app),
                                         addProfileCommand(app), addViewCommand(app)};
  // Usage errors in the one-line form of every other error, naming the help of the subcommand.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string what = e.what(), help = "streamrt --help";
    for (char& c : what)
      if (c == '\n') c = ' ';
    for (const CLI::App* sub : a->get_subcommands())
      help = "streamrt " + sub->get_name() + " --help";
    if (a->get_subcommands().empty()) {  // no command, or a mistyped one
      std::string names;
      for (const CLI::App* sub : a->get_subcommands([](const CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      what = a->remaining().empty()
                 ? "a command is required (commands: " + names + ")"
                 : "unknown command '" + a->remaining().front() + "' (commands: " + names + ")";
    }
    return "streamrt: error: " + what + " (run '" + help + "')\n";
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // 2: usage error; --help and --version exit 0
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamrt: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
