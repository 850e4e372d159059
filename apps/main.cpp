// streamrt: render scenes from the command line, list the registered primitives.
//   streamrt render SCENE -o OUT [options]     (SCENE: a built-in name or a scene file)
//   streamrt list
#include <cstdio>
#include <exception>
#include <vector>

#include "apps/command.h"

int main(int argc, char** argv) {
  using namespace srt;
  CLI::App app{"streamrt: a wavefront GPU ray tracer built around stream compaction"};
  app.set_version_flag("--version", "streamrt 0.1.0");
  app.require_subcommand(1);
  const std::vector<Command> commands = {addRenderCommand(app), addListCommand(app),
                                         addViewCommand(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
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
