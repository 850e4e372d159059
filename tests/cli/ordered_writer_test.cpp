// The writer thread of a frame sequence (apps/ordered_writer.h): jobs run in order, at most
// `capacity` wait, the first error reaches the caller and stops the rest.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "apps/ordered_writer.h"

namespace srt {
namespace {

TEST(OrderedWriter, RunsEveryJobInOrder) {
  std::vector<int> ran;
  {
    OrderedWriter writer(2);
    for (int i = 0; i < 50; ++i) writer.submit([&ran, i] { ran.push_back(i); });
    writer.drain();
    EXPECT_EQ(ran.size(), 50u);
  }
  for (int i = 0; i < 50; ++i) EXPECT_EQ(ran[size_t(i)], i);
}

TEST(OrderedWriter, DrainWithNothingQueuedReturns) {
  OrderedWriter writer(1);
  writer.drain();
}

TEST(OrderedWriter, SubmitWaitsWhileTheQueueIsFull) {
  OrderedWriter writer(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  writer.submit([&] { ++started, released.wait(); });  // runs, and holds the thread
  while (started == 0) std::this_thread::yield();
  writer.submit([] {});  // waits in the queue (capacity 1)
  auto third = std::async(std::launch::async, [&] { writer.submit([] {}); });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a third job was queued beside a full queue";
  release.set_value();
  third.get();
  writer.drain();
}

TEST(OrderedWriter, FirstErrorReachesTheCallerAndLaterJobsAreDropped) {
  OrderedWriter writer(4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> laterRan{false};
  writer.submit([&] {
    released.wait();
    throw std::runtime_error("cannot write image 'f-0001.png': No space left on device");
  });
  writer.submit([&] { laterRan = true; });
  release.set_value();
  try {
    writer.drain();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot write image 'f-0001.png': No space left on device");
  }
  EXPECT_FALSE(laterRan);
}

TEST(OrderedWriter, DestructorDropsWaitingJobsAndFinishesTheRunningOne) {
  std::atomic<int> ran{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false};
  {
    OrderedWriter writer(3);
    writer.submit([&] { started = true, released.wait(), ++ran; });
    writer.submit([&] { ++ran; });
    while (!started) std::this_thread::yield();
    std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      release.set_value();
    }).detach();
  }
  EXPECT_EQ(ran, 1);
}

}  // namespace
}  // namespace srt
