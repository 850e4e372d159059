// streamrt: render scenes from the command line, list the registered primitives.
//   streamrt render SCENE -o OUT [options]     (SCENE: a built-in name or a scene file)
//   streamrt list
// Exit status: 0 done, 1 an error, 2 a usage error, 128 + N stopped by signal N (interrupt.h).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "apps/command.h"
#include "apps/interrupt.h"
#include "apps/process_exit.h"

namespace {

int run(int argc, char** argv) {
  using namespace srt;
  CLI::App app{"streamrt: a wavefront GPU ray tracer built around stream compaction"};
  app.set_version_flag("--version", "streamrt 0.1.0");
  app.require_subcommand(1);
  const std::vector<Command> commands = {addRenderCommand(app), addListCommand(app),
                                         addProfileCommand(app), addViewCommand(app)};
  // Usage errors in the one-line form of every other error, naming the help of the subcommand.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return usageErrorLine(*a, e); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // 2: usage error; --help and --version exit 0
  }
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const UsageError& e) {
      std::fprintf(stderr, "streamrt: error: %s (run 'streamrt %s --help')\n", e.what(),
                   c.app->get_name().c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "streamrt: error: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  srt::process::markMainEntered();
  srt::interrupt::install();  // before any thread starts
  const int status = run(argc, argv);
  srt::process::markMainReturns(status);
  return status;
}
