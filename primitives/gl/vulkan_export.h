// Vulkan as the maker of what CUDA and GL can both import but neither can export: memory
// (VK_KHR_external_memory_fd) and binary semaphores (VK_KHR_external_semaphore_fd), shared as
// opaque file descriptors. This is the pairing the CUDA programming guide describes for
// OpenGL-CUDA interop through external resources. The loader is opened at run time
// (libvulkan.so.1), so nothing links against Vulkan and a machine without it only loses this
// path; without the Vulkan headers at build time every call reports itself unavailable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace srt::gl::vulkan {

using Uuid = std::array<uint8_t, 16>;

// Whether a Vulkan device with this UUID (the GL context's device) can export memory, and
// semaphores too when `semaphores`; `why` receives the reason when it cannot. The device is made
// once per process, on first use.
bool available(const Uuid& device, bool semaphores, std::string* why);

// Device memory for one buffer, allocated dedicated and exportable. `hostVisible` asks for a
// memory type the host can map (the host side of a test; CUDA takes device-local memory).
// Throws std::runtime_error naming the failing call.
class ExportableMemory {
 public:
  ExportableMemory(const Uuid& device, size_t bytes, bool hostVisible);
  ~ExportableMemory();
  ExportableMemory(const ExportableMemory&) = delete;
  ExportableMemory& operator=(const ExportableMemory&) = delete;
  // A new descriptor for each importer (an import takes ownership of it).
  int exportFd() const;
  size_t allocationBytes() const { return allocationBytes_; }
  void* hostPointer() const { return host_; }  // hostVisible only

 private:
  void release() noexcept;
  const void* device_ = nullptr;      // the process's Vulkan device (never destroyed)
  uint64_t memory_ = 0, buffer_ = 0;  // VkDeviceMemory, VkBuffer
  size_t allocationBytes_ = 0;
  void* host_ = nullptr;
};

class ExportableSemaphore {
 public:
  explicit ExportableSemaphore(const Uuid& device);
  ~ExportableSemaphore();
  ExportableSemaphore(const ExportableSemaphore&) = delete;
  ExportableSemaphore& operator=(const ExportableSemaphore&) = delete;
  int exportFd() const;

 private:
  const void* device_ = nullptr;
  uint64_t semaphore_ = 0;  // VkSemaphore
};

}  // namespace srt::gl::vulkan
