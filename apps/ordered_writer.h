// One background thread that runs jobs (writing a frame's files) in the order they were given,
// so the next frame renders while this one is encoded and written. At most `capacity` jobs wait,
// which bounds the memory of the images queued; submit() blocks while the queue is full. The
// first job that throws stops the rest: its error is rethrown to the caller by the next submit()
// or drain(), and the jobs still waiting are dropped.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace srt {

class OrderedWriter {
 public:
  explicit OrderedWriter(size_t capacity);
  // Drops the jobs still waiting and waits for the one running (it finishes its file).
  ~OrderedWriter();
  OrderedWriter(const OrderedWriter&) = delete;
  OrderedWriter& operator=(const OrderedWriter&) = delete;

  void submit(std::function<void()> job);
  // Waits until every job submitted has run; rethrows the first error.
  void drain();

 private:
  void run();
  void rethrowError();  // with lock_ held

  const size_t capacity_;
  std::mutex lock_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;  // a job is being run
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace srt
