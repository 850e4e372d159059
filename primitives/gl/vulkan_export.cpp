#include "primitives/gl/vulkan_export.h"

#include <stdexcept>

#if defined(SRT_HAVE_VULKAN)
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>
#endif

namespace srt::gl::vulkan {

#if !defined(SRT_HAVE_VULKAN)

bool available(const Uuid&, bool, std::string* why) {
  if (why) *why = "built without the Vulkan headers";
  return false;
}
ExportableMemory::ExportableMemory(const Uuid&, size_t, bool) {
  throw std::runtime_error("Vulkan: built without the Vulkan headers");
}
ExportableMemory::~ExportableMemory() = default;
void ExportableMemory::release() noexcept {}
int ExportableMemory::exportFd() const {
  return -1;
}
ExportableSemaphore::ExportableSemaphore(const Uuid&) {
  throw std::runtime_error("Vulkan: built without the Vulkan headers");
}
ExportableSemaphore::~ExportableSemaphore() = default;
int ExportableSemaphore::exportFd() const {
  return -1;
}

#else

namespace {

// A Vulkan structure with its type and chain set, every other member zero.
template <typename T>
T make(VkStructureType type, const void* next = nullptr) {
  T v{};
  v.sType = type;
  v.pNext = const_cast<void*>(next);
  return v;
}

std::runtime_error failure(const std::string& what, VkResult r) {
  return std::runtime_error("Vulkan: " + what + " failed (VkResult " + std::to_string(int(r)) +
                            ")");
}

// One instance and one device for the process, on the GPU the GL context runs on. Never
// destroyed: imported memory and semaphores may outlive every owner here until exit.
struct Device {
  Uuid uuid{};
  bool semaphores = false;  // VK_KHR_external_semaphore_fd and exportable binary semaphores
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memoryTypes{};
#define SRT_VK_FN(name) PFN_##name name = nullptr;
  SRT_VK_FN(vkGetDeviceProcAddr)
  SRT_VK_FN(vkCreateBuffer)
  SRT_VK_FN(vkDestroyBuffer)
  SRT_VK_FN(vkGetBufferMemoryRequirements)
  SRT_VK_FN(vkAllocateMemory)
  SRT_VK_FN(vkBindBufferMemory)
  SRT_VK_FN(vkFreeMemory)
  SRT_VK_FN(vkMapMemory)
  SRT_VK_FN(vkUnmapMemory)
  SRT_VK_FN(vkGetMemoryFdKHR)
  SRT_VK_FN(vkCreateSemaphore)
  SRT_VK_FN(vkDestroySemaphore)
  SRT_VK_FN(vkGetSemaphoreFdKHR)
#undef SRT_VK_FN
};

bool hasDeviceExtension(PFN_vkEnumerateDeviceExtensionProperties enumerate, VkPhysicalDevice p,
                        const char* name) {
  uint32_t n = 0;
  enumerate(p, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  enumerate(p, nullptr, &n, ext.data());
  for (const auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// Instance-level set-up up to the physical device whose UUID is `uuid`; returns the reason on
// failure.
std::string findPhysical(Device& d, PFN_vkGetInstanceProcAddr gip) {
  auto createInstance = PFN_vkCreateInstance(gip(nullptr, "vkCreateInstance"));
  if (!createInstance) return "the loader has no vkCreateInstance";
  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "streamrt GL interop";
  app.apiVersion = VK_API_VERSION_1_1;
  auto ci = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ci.pApplicationInfo = &app;
  if (VkResult r = createInstance(&ci, nullptr, &d.instance); r != VK_SUCCESS)
    return "vkCreateInstance failed (VkResult " + std::to_string(int(r)) + ", no Vulkan driver?)";
  auto fn = [&](const char* name) { return gip(d.instance, name); };
  auto enumerate = PFN_vkEnumeratePhysicalDevices(fn("vkEnumeratePhysicalDevices"));
  auto properties2 = PFN_vkGetPhysicalDeviceProperties2(fn("vkGetPhysicalDeviceProperties2"));
  uint32_t n = 0;
  enumerate(d.instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  enumerate(d.instance, &n, devices.data());
  for (VkPhysicalDevice p : devices) {
    auto id = make<VkPhysicalDeviceIDProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
    auto props =
        make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id);
    properties2(p, &props);
    if (std::memcmp(id.deviceUUID, d.uuid.data(), VK_UUID_SIZE) == 0) d.physical = p;
  }
  if (!d.physical)
    return "none of the " + std::to_string(n) +
           " Vulkan devices is the GL context's GPU (set VK_DRIVER_FILES to its driver's ICD?)";
  return "";
}

std::string makeDevice(Device& d, PFN_vkGetInstanceProcAddr gip) {
  auto fn = [&](const char* name) { return gip(d.instance, name); };
  auto extensions =
      PFN_vkEnumerateDeviceExtensionProperties(fn("vkEnumerateDeviceExtensionProperties"));
  if (!hasDeviceExtension(extensions, d.physical, "VK_KHR_external_memory_fd"))
    return "the device lacks VK_KHR_external_memory_fd";
  std::vector<const char*> wanted{"VK_KHR_external_memory_fd"};
  auto semaphoreProps = PFN_vkGetPhysicalDeviceExternalSemaphoreProperties(
      fn("vkGetPhysicalDeviceExternalSemaphoreProperties"));
  auto si = make<VkPhysicalDeviceExternalSemaphoreInfo>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO);
  si.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto sp = make<VkExternalSemaphoreProperties>(VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES);
  semaphoreProps(d.physical, &si, &sp);
  d.semaphores = hasDeviceExtension(extensions, d.physical, "VK_KHR_external_semaphore_fd") &&
                 (sp.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT);
  if (d.semaphores) wanted.push_back("VK_KHR_external_semaphore_fd");
  const float priority = 1;
  auto queue = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueCount = 1;  // family 0: the device needs a queue, nothing is submitted
  queue.pQueuePriorities = &priority;
  auto dci = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &queue;
  dci.enabledExtensionCount = uint32_t(wanted.size());
  dci.ppEnabledExtensionNames = wanted.data();
  auto createDevice = PFN_vkCreateDevice(fn("vkCreateDevice"));
  if (VkResult r = createDevice(d.physical, &dci, nullptr, &d.device); r != VK_SUCCESS)
    return "vkCreateDevice failed (VkResult " + std::to_string(int(r)) + ")";
  PFN_vkGetPhysicalDeviceMemoryProperties(fn("vkGetPhysicalDeviceMemoryProperties"))(
      d.physical, &d.memoryTypes);
  d.vkGetDeviceProcAddr = PFN_vkGetDeviceProcAddr(fn("vkGetDeviceProcAddr"));
#define SRT_VK_LOAD(name) d.name = PFN_##name(d.vkGetDeviceProcAddr(d.device, #name));
  SRT_VK_LOAD(vkCreateBuffer)
  SRT_VK_LOAD(vkDestroyBuffer)
  SRT_VK_LOAD(vkGetBufferMemoryRequirements)
  SRT_VK_LOAD(vkAllocateMemory)
  SRT_VK_LOAD(vkBindBufferMemory)
  SRT_VK_LOAD(vkFreeMemory)
  SRT_VK_LOAD(vkMapMemory)
  SRT_VK_LOAD(vkUnmapMemory)
  SRT_VK_LOAD(vkGetMemoryFdKHR)
  SRT_VK_LOAD(vkCreateSemaphore)
  SRT_VK_LOAD(vkDestroySemaphore)
  SRT_VK_LOAD(vkGetSemaphoreFdKHR)
#undef SRT_VK_LOAD
  if (!d.vkGetMemoryFdKHR) return "vkGetMemoryFdKHR is missing";
  if (!d.vkGetSemaphoreFdKHR) d.semaphores = false;
  return "";
}

// The process's device for `uuid`, made on first use; null with `why` when there is none.
const Device* device(const Uuid& uuid, std::string* why) {
  static std::mutex mutex;
  static std::unique_ptr<Device> made;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mutex);
  if (made && made->uuid == uuid) return made.get();
  if (made || !failure.empty()) {
    if (why) *why = made ? "Vulkan was set up for another GPU" : failure;
    return nullptr;
  }
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    failure = "no Vulkan loader (libvulkan.so.1)";
  } else {
    auto gip = PFN_vkGetInstanceProcAddr(dlsym(lib, "vkGetInstanceProcAddr"));
    auto d = std::make_unique<Device>();
    d->uuid = uuid;
    failure = gip ? findPhysical(*d, gip) : "the loader has no vkGetInstanceProcAddr";
    if (failure.empty()) failure = makeDevice(*d, gip);
    if (failure.empty()) made = std::move(d);
    // On failure the instance is left for exit, like the device: nothing else is made.
  }
  if (!failure.empty()) {
    failure = "Vulkan: " + failure;
    if (why) *why = failure;
    return nullptr;
  }
  return made.get();
}

const Device& need(const Uuid& uuid) {
  std::string why;
  const Device* d = device(uuid, &why);
  if (!d) throw std::runtime_error(why);
  return *d;
}

}  // namespace

bool available(const Uuid& uuid, bool semaphores, std::string* why) {
  const Device* d = device(uuid, why);
  if (!d) return false;
  if (semaphores && !d->semaphores) {
    if (why) *why = "Vulkan: the device cannot export semaphores as file descriptors";
    return false;
  }
  return true;
}

ExportableMemory::ExportableMemory(const Uuid& uuid, size_t bytes, bool hostVisible) {
  const Device& d = need(uuid);
  device_ = &d;
  auto external =
      make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external);
  bci.size = bytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (VkResult r = d.vkCreateBuffer(d.device, &bci, nullptr, &buffer); r != VK_SUCCESS)
    throw failure("vkCreateBuffer", r);
  buffer_ = uint64_t(buffer);
  VkMemoryRequirements req{};
  d.vkGetBufferMemoryRequirements(d.device, buffer, &req);
  const VkMemoryPropertyFlags want =
      hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                  : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < d.memoryTypes.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((req.memoryTypeBits & (1u << i)) &&
        (d.memoryTypes.memoryTypes[i].propertyFlags & want) == want)
      type = i;
  // Dedicated, as NVIDIA's GL-Vulkan interop samples allocate what they export.
  auto dedicated =
      make<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  dedicated.buffer = buffer;
  auto exportInfo =
      make<VkExportMemoryAllocateInfo>(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated);
  exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo);
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkResult r = type == UINT32_MAX ? VK_ERROR_FEATURE_NOT_PRESENT
                                  : d.vkAllocateMemory(d.device, &mai, nullptr, &memory);
  memory_ = uint64_t(memory);
  allocationBytes_ = req.size;
  if (r == VK_SUCCESS) r = d.vkBindBufferMemory(d.device, buffer, memory, 0);
  if (r == VK_SUCCESS && hostVisible) r = d.vkMapMemory(d.device, memory, 0, req.size, 0, &host_);
  if (r != VK_SUCCESS) {
    release();
    throw failure(std::string("allocating ") + std::to_string(req.size) + " exportable " +
                      (hostVisible ? "host-visible" : "device-local") + " bytes",
                  r);
  }
}

void ExportableMemory::release() noexcept {
  const auto* d = static_cast<const Device*>(device_);
  if (!d) return;
  if (host_) d->vkUnmapMemory(d->device, VkDeviceMemory(memory_));
  if (buffer_) d->vkDestroyBuffer(d->device, VkBuffer(buffer_), nullptr);
  if (memory_) d->vkFreeMemory(d->device, VkDeviceMemory(memory_), nullptr);
  host_ = nullptr;
  memory_ = buffer_ = 0;
}

ExportableMemory::~ExportableMemory() {
  release();
}

int ExportableMemory::exportFd() const {
  const auto* d = static_cast<const Device*>(device_);
  auto info = make<VkMemoryGetFdInfoKHR>(VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR);
  info.memory = VkDeviceMemory(memory_);
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  if (VkResult r = d->vkGetMemoryFdKHR(d->device, &info, &fd); r != VK_SUCCESS)
    throw failure("vkGetMemoryFdKHR", r);
  return fd;
}

ExportableSemaphore::ExportableSemaphore(const Uuid& uuid) {
  const Device& d = need(uuid);
  if (!d.semaphores)
    throw std::runtime_error("Vulkan: the device cannot export semaphores as file descriptors");
  device_ = &d;
  auto exportInfo =
      make<VkExportSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO);
  exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  auto ci = make<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportInfo);
  VkSemaphore s = VK_NULL_HANDLE;
  if (VkResult r = d.vkCreateSemaphore(d.device, &ci, nullptr, &s); r != VK_SUCCESS)
    throw failure("vkCreateSemaphore", r);
  semaphore_ = uint64_t(s);
}

ExportableSemaphore::~ExportableSemaphore() {
  const auto* d = static_cast<const Device*>(device_);
  if (d && semaphore_) d->vkDestroySemaphore(d->device, VkSemaphore(semaphore_), nullptr);
}

int ExportableSemaphore::exportFd() const {
  const auto* d = static_cast<const Device*>(device_);
  auto info = make<VkSemaphoreGetFdInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR);
  info.semaphore = VkSemaphore(semaphore_);
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  if (VkResult r = d->vkGetSemaphoreFdKHR(d->device, &info, &fd); r != VK_SUCCESS)
    throw failure("vkGetSemaphoreFdKHR", r);
  return fd;
}

#endif

}  // namespace srt::gl::vulkan
