// The render options' name tables (one per enum: parsing, printing, --help choices, JSON) and
// stages timed by name (PassTimer).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "renderer/wavefront/pass_timer.h"
#include "renderer/wavefront/render_options.h"

namespace srt {
namespace {

template <typename E>
void expectRoundTrip(const char* flag) {
  std::set<std::string> seen;
  for (const auto& e : enumTable<E>().entries) {
    EXPECT_TRUE(seen.insert(e.name).second) << flag << ": " << e.name << " twice";
    EXPECT_STREQ(toString(e.value), e.name);
    EXPECT_EQ(parseEnum<E>(e.name, flag), e.value);
  }
  EXPECT_EQ(enumChoices<E>().size(), seen.size());
  try {
    parseEnum<E>("nope", flag);
    FAIL() << flag << " took 'nope'";
  } catch (const std::invalid_argument& ex) {
    const std::string what = ex.what();
    EXPECT_EQ(what.rfind(std::string(flag) + " must be ", 0), 0u) << what;
    EXPECT_NE(what.find("(got 'nope')"), std::string::npos) << what;
    for (const std::string& n : enumChoices<E>()) EXPECT_NE(what.find(n), std::string::npos);
  }
}

TEST(RenderOptions, EveryEnumRoundTripsThroughItsOneNameTable) {
  expectRoundTrip<IntegratorKind>("--integrator");
  expectRoundTrip<Payload>("--payload");
  expectRoundTrip<Schedule>("--schedule");
  expectRoundTrip<Traversal>("--traversal");
  expectRoundTrip<Reorder>("--reorder");
  EXPECT_EQ(enumChoiceList<Traversal>(), "auto, standard or persistent");
  EXPECT_STREQ(toString(static_cast<Payload>(7)), "?");
}

TEST(RenderOptions, DefaultsAreTheDocumentedOnes) {
  const RenderOptions o;
  EXPECT_STREQ(toString(o.integrator), "path");
  EXPECT_STREQ(toString(o.payload), "state");
  EXPECT_STREQ(toString(o.schedule), "regenerate");
  EXPECT_STREQ(toString(o.traversal), "auto");
  EXPECT_STREQ(toString(o.reorder), "none");
  EXPECT_EQ(o.compaction, "auto");
}

// Each stage's time goes to the column its name counts towards, measured from the end of the
// stage before (on the CPU: the steady clock).
TEST(PassTimer, StagesAddUpByTheirNamesColumns) {
  const Backend cpu = selectBackend("cpu");
  PassTimer t(cpu);
  const auto sleep = [](int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  t.start();
  t.run(stage::kTrace, [&] { sleep(30); });
  t.run(stage::kCompactShadows, [&] { sleep(10); });
  t.run(stage::kTraceShadows, [&] {});
  t.run(stage::kCompactPaths, [&] { sleep(10); });
  t.run(stage::kRefill, [&] {});
  const auto ms = t.columnMs();
  EXPECT_GE(ms[size_t(StageColumn::Trace)], 30.0);
  EXPECT_GE(ms[size_t(StageColumn::Compaction)], 20.0);
  EXPECT_LT(ms[size_t(StageColumn::Shadow)], 10.0);
  EXPECT_LT(ms[size_t(StageColumn::Shade)], 10.0);
  EXPECT_GE(t.ms(stage::kCompactShadows), 10.0);
  EXPECT_EQ(t.ms(stage::kFilm), 0.0);  // did not run
  IterationStats it;
  addStageTimes(t, it);
  EXPECT_EQ(it.traceMs, ms[size_t(StageColumn::Trace)]);
  EXPECT_EQ(it.compactionMs, ms[size_t(StageColumn::Compaction)]);
  // A second pass starts over; the gap between them is the host's.
  PassTimer next(cpu);
  sleep(5);
  next.start();
  EXPECT_GE(PassTimer::gapMs(t, next), 5.0);
  t.start();
  EXPECT_EQ(t.columnMs()[size_t(StageColumn::Trace)], 0.0);
}

}  // namespace
}  // namespace srt
