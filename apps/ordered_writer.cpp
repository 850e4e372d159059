#include "apps/ordered_writer.h"

namespace srt {

OrderedWriter::OrderedWriter(size_t capacity)
    : capacity_(capacity > 0 ? capacity : 1), thread_([this] { run(); }) {}

OrderedWriter::~OrderedWriter() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  thread_.join();
}

void OrderedWriter::rethrowError() {
  if (!error_) return;
  std::exception_ptr error = error_;
  error_ = nullptr;  // thrown once; the writer stays stopped
  stopping_ = true;
  std::rethrow_exception(error);
}

void OrderedWriter::submit(std::function<void()> job) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [this] { return queue_.size() < capacity_ || error_ || stopping_; });
  rethrowError();
  if (stopping_) return;
  queue_.push_back(std::move(job));
  changed_.notify_all();
}

void OrderedWriter::drain() {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [this] { return (queue_.empty() && !running_) || error_; });
  rethrowError();
}

void OrderedWriter::run() {
  std::unique_lock<std::mutex> hold(lock_);
  for (;;) {
    changed_.wait(hold, [this] { return !queue_.empty() || stopping_; });
    if (stopping_) return;
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    hold.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    hold.lock();
    running_ = false;
    if (error) {
      error_ = error;
      queue_.clear();  // the later frames are not written
      stopping_ = true;
    }
    changed_.notify_all();
  }
}

}  // namespace srt
