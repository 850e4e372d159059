#include "renderer/multi_device.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "primitives/common/cuda_check.h"
#include "renderer/wavefront/film.h"
#include "renderer/wavefront/stages.h"

namespace srt {
namespace {

using Clock = std::chrono::steady_clock;

// A host thread that runs the tasks posted to it in order, on one CUDA device (the current device
// is per host thread, so it is set once, first) and with the OpenMP thread count of the thread
// that made it (omp_set_num_threads does not reach threads started later).
class DeviceThread {
 public:
  DeviceThread(int device, bool cuda) {
    const int ompThreads = omp_get_max_threads();
    try {
      post([device, cuda, ompThreads] {
        omp_set_num_threads(ompThreads);
        if (cuda) SRT_CUDA_CHECK(cudaSetDevice(device));
      }).get();
    } catch (...) {
      stop();
      throw;
    }
  }
  ~DeviceThread() { stop(); }
  DeviceThread(const DeviceThread&) = delete;
  DeviceThread& operator=(const DeviceThread&) = delete;

  std::future<void> post(std::function<void()> work) {
    std::packaged_task<void()> task(std::move(work));
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(task));
    }
    wake_.notify_one();
    return done;
  }

 private:
  // Runs what was posted, then ends the thread.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  void loop() {
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();  // an exception goes to the task's future
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> queue_;
  bool done_ = false;
  std::thread thread_{[this] { loop(); }};  // last: starts once the queue exists
};

// Waits for every future, then rethrows the first failure (no task is left running).
void waitAll(std::vector<std::future<void>>& futures) {
  std::exception_ptr first;
  for (auto& f : futures) {
    try {
      f.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

// a.f += b.f for every member f listed.
template <typename S, typename... M>
void addFields(S& a, const S& b, M S::*... fields) {
  ((a.*fields += b.*fields), ...);
}

void addBounce(BounceStats& a, const BounceStats& b) {
  using B = BounceStats;
  addFields(a, b, &B::raysIn, &B::lanes, &B::raysAlive, &B::shadowRays, &B::compactionMs,
            &B::transferMs, &B::traceMs, &B::shadeMs, &B::shadowMs, &B::compactionBytes);
}

void addIteration(IterationStats& a, const IterationStats& b) {
  using I = IterationStats;
  addFields(a, b, &I::lanes, &I::alive, &I::regenerated, &I::idle, &I::traceMs, &I::shadeMs,
            &I::shadowMs, &I::compactionMs, &I::regenerateMs, &I::transferMs, &I::idleMs,
            &I::compactionBytes);
}

}  // namespace

std::vector<SampleRange> splitSamples(uint32_t first, int spp, int parts) {
  if (parts <= 0) throw std::invalid_argument("a render cannot be split into no parts");
  std::vector<SampleRange> out;
  const int base = std::max(spp, 0) / parts, longer = std::max(spp, 0) % parts;
  uint32_t next = first;
  for (int p = 0; p < parts; ++p) {
    const int count = base + (p < longer ? 1 : 0);
    out.push_back({next, count});
    next += uint32_t(count);
  }
  return out;
}

RenderOptions partOptions(const RenderOptions& options, const SampleRange& part) {
  RenderOptions o = options;
  o.firstSample = part.first;
  o.spp = part.count;
  o.filmSamples = uint32_t(options.filmClampSamples());
  return o;
}

void addFilm(std::vector<unsigned long long>& sum, const std::vector<unsigned long long>& part) {
  if (sum.size() != part.size()) throw std::logic_error("adding films of different sizes");
  const long long n = (long long)sum.size();
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) sum[size_t(i)] += part[size_t(i)];
}

Image resolveFilmSums(const std::vector<unsigned long long>& film, int width, int height,
                      int samples) {
  const uint32_t pixels = uint32_t(size_t(width) * size_t(height));
  if (film.size() != 3 * size_t(pixels)) throw std::logic_error("film size differs from image");
  Image img;
  img.width = width;
  img.height = height;
  img.pixels.resize(pixels);
  // resolveFilm's scale, divided on the host: double arithmetic rounds the same way on both.
  resolveFixedFilm(Backend{}, film.data(), pixels,
                   1.0 / (kFilmScale * double(std::max(samples, 1))), img.pixels.data());
  return img;
}

void addRenderStats(RenderStats& whole, const RenderStats& part) {
  whole.samplesDone += part.samplesDone;
  whole.stopped = whole.stopped || part.stopped;
  whole.poolSize += part.poolSize;
  for (size_t d = 0; d < part.bounces.size(); ++d) addBounce(whole.bounce(d), part.bounces[d]);
  if (whole.iterations.size() < part.iterations.size())
    whole.iterations.resize(part.iterations.size());
  for (size_t i = 0; i < part.iterations.size(); ++i)
    addIteration(whole.iterations[i], part.iterations[i]);
}

struct MultiDeviceRenderer::Part {
  int device = 0;
  SampleRange range;
  std::unique_ptr<DeviceThread> thread;
  cudaStream_t stream = nullptr;  // its own, so parts sharing a GPU run side by side
  std::unique_ptr<Renderer> renderer;
  RenderResult result;
  std::vector<unsigned long long> film;
  Clock::time_point finished;
  int samplesDone = 0;  // progress so far (under the progress mutex)
  uint64_t rays = 0;
};

MultiDeviceRenderer::MultiDeviceRenderer(const Scene& scene, const Backend& backend,
                                         const RenderOptions& options, const AccelOptions& accel,
                                         float time, const std::vector<int>& devices)
    : options_(options), backend_(backend), time_(time) {
  if (devices.empty()) throw std::invalid_argument("--devices: no device to render on");
  // Once, before any thread or kd-tree.
  if (checkRender(backend, options, accel).compaction.usesGl() && devices.size() > 1)
    throw std::invalid_argument(
        "--devices: the OpenGL primitives share one GL context per "
        "process, so they cannot run in several parts at once; pick a "
        "CUDA primitive (--compaction)");
  const std::vector<SampleRange> ranges =
      splitSamples(options.firstSample, options.spp, int(devices.size()));
  for (size_t i = 0; i < devices.size(); ++i) {
    if (ranges[i].count == 0) continue;  // fewer samples than devices
    auto part = std::make_unique<Part>();
    part->device = devices[i];
    part->range = ranges[i];
    part->thread = std::make_unique<DeviceThread>(devices[i], backend.isCuda());
    parts_.push_back(std::move(part));
  }
  // Every part builds its scene data and streams on its own device, side by side.
  std::vector<std::future<void>> built;
  for (auto& p : parts_) {
    Part* part = p.get();
    built.push_back(part->thread->post([part, &scene, backend, &options, &accel, time] {
      Backend b = backend;
      if (b.isCuda()) {
        SRT_CUDA_CHECK(cudaStreamCreate(&part->stream));
        b.stream = part->stream;
      }
      part->renderer =
          std::make_unique<Renderer>(scene, b, partOptions(options, part->range), accel, time);
    }));
  }
  try {
    waitAll(built);
  } catch (...) {
    release();  // the parts that were built free their memory on their device
    throw;
  }
}

MultiDeviceRenderer::~MultiDeviceRenderer() {
  release();
}

void MultiDeviceRenderer::release() {
  // Each part's memory and stream are freed on its own thread, where its device is current.
  for (auto& p : parts_) {
    Part* part = p.get();
    part->thread
        ->post([part] {
          part->renderer.reset();
          if (part->stream) cudaStreamDestroy(part->stream);
          part->stream = nullptr;
        })
        .wait();
  }
  parts_.clear();
}

RenderResult MultiDeviceRenderer::render(float time, const ProgressFn& progress,
                                         const StopCondition& stop) {
  std::mutex mutex;  // progress and the stop poll are called from every part's thread
  StopCondition partStop;
  partStop.flag = stop.flag;
  if (stop.poll)
    partStop.poll = [&] {
      std::lock_guard<std::mutex> lock(mutex);
      return stop.poll();
    };
  const auto t0 = Clock::now();
  std::vector<std::future<void>> rendered;
  for (auto& p : parts_) {
    Part* part = p.get();
    part->samplesDone = 0;
    part->rays = 0;
    ProgressFn partProgress;
    if (progress)
      partProgress = [&, part](int done, int, uint64_t rays) {
        std::lock_guard<std::mutex> lock(mutex);
        part->samplesDone = done;
        part->rays = rays;
        int all = 0;
        uint64_t allRays = 0;
        for (const auto& q : parts_) all += q->samplesDone, allRays += q->rays;
        progress(all, options_.spp, allRays);
      };
    rendered.push_back(part->thread->post([part, time, partProgress, &partStop] {
      part->result = part->renderer->render(time, partProgress, partStop);
      part->finished = Clock::now();
      part->film = part->renderer->filmSums();
    }));
  }
  waitAll(rendered);

  RenderResult out;
  RenderStats& st = out.stats;
  st = parts_.front()->result.stats;  // the scene, options and kd-tree build are the same
  st.spp = options_.spp;
  st.samplesDone = 0;
  st.stopped = false;
  st.poolSize = 0;
  st.bounces.clear();
  st.iterations.clear();
  st.device = std::to_string(parts_.size()) + (parts_.size() == 1 ? " part: " : " parts: ");
  // Until the last part finished, less the kd-tree rebuild a new time makes every part run first
  // (outside renderSeconds, as in Renderer).
  const bool rebuilt = time != time_;
  time_ = time;
  double seconds = 0;
  for (size_t i = 0; i < parts_.size(); ++i) {
    const Part& part = *parts_[i];
    addRenderStats(st, part.result.stats);
    st.device += (i ? "; " : "") + part.result.stats.device +
                 (backend_.isCuda() ? " (device " + std::to_string(part.device) + ")" : "");
    const double build = rebuilt ? part.result.stats.accel.buildMs / 1000.0 : 0.0;
    seconds = std::max(seconds, std::chrono::duration<double>(part.finished - t0).count() - build);
  }
  st.renderSeconds = seconds;
  film_ = std::move(parts_.front()->film);
  for (size_t i = 1; i < parts_.size(); ++i) addFilm(film_, parts_[i]->film);
  out.image = resolveFilmSums(film_, options_.width, options_.height, st.samplesDone);
  return out;
}

}  // namespace srt
