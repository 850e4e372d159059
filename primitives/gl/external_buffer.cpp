#include "primitives/gl/external_buffer.h"

#include <cuda.h>  // driver API types only: the calls go through cudaGetDriverEntryPointByVersion
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "primitives/common/cuda_check.h"
#include "primitives/gl/gl_context.h"
#include "primitives/gl/interop_wait.h"

namespace srt::gl {
namespace {

// Room past a buffer's end inside its allocation: Mesa's llvmpipe reads a little past the end of
// a buffer made on imported memory and refuses an allocation without it.
constexpr size_t kTailRoom = 4096;

// The driver API calls of CUDA's virtual memory management, resolved through the runtime so
// nothing links against libcuda.
struct Vmm {
  CUresult(CUDAAPI* create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                            unsigned long long) = nullptr;
  CUresult(CUDAAPI* release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult(CUDAAPI* reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr,
                             unsigned long long) = nullptr;
  CUresult(CUDAAPI* free)(CUdeviceptr, size_t) = nullptr;
  CUresult(CUDAAPI* map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                         unsigned long long) = nullptr;
  CUresult(CUDAAPI* unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult(CUDAAPI* setAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult(CUDAAPI* exportHandle)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                  unsigned long long) = nullptr;
  CUresult(CUDAAPI* granularity)(size_t*, const CUmemAllocationProp*,
                                 CUmemAllocationGranularity_flags) = nullptr;
};

template <typename F>
void load(F& fn, const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  SRT_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !p)
    throw std::runtime_error(std::string("CUDA driver lacks ") + name);
  fn = reinterpret_cast<F>(p);
}

const Vmm& vmm() {
  static const Vmm v = [] {
    Vmm m;
    load(m.create, "cuMemCreate");
    load(m.release, "cuMemRelease");
    load(m.reserve, "cuMemAddressReserve");
    load(m.free, "cuMemAddressFree");
    load(m.map, "cuMemMap");
    load(m.unmap, "cuMemUnmap");
    load(m.setAccess, "cuMemSetAccess");
    load(m.exportHandle, "cuMemExportToShareableHandle");
    load(m.granularity, "cuMemGetAllocationGranularity");
    return m;
  }();
  return v;
}

void cuCheck(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(std::string("CUDA VMM: ") + what + " failed (CUresult " +
                             std::to_string(int(r)) + ")");
}

bool hasGlExtension(const char* name) {
  return epoxy_has_gl_extension(name);
}

}  // namespace

const char* toString(ExternalSource s) {
  return s == ExternalSource::Vulkan ? "Vulkan" : "CUDA VMM";
}

bool glDeviceUuid(vulkan::Uuid* uuid) {
  if (!hasGlExtension("GL_EXT_memory_object")) return false;
  GLint n = 0;
  glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &n);
  if (glGetError() != GL_NO_ERROR || n < 1) return false;
  glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid->data());
  return glGetError() == GL_NO_ERROR;
}

bool cudaDeviceUuid(vulkan::Uuid* uuid) {
  if (!cudaDeviceAvailable()) return false;
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return false;
  std::memcpy(uuid->data(), prop.uuid.bytes, 16);
  return true;
}

bool glCanImport(bool semaphores, std::string* why) {
  for (const char* ext : {"GL_EXT_memory_object", "GL_EXT_memory_object_fd"})
    if (!hasGlExtension(ext)) {
      if (why) *why = std::string("GL lacks ") + ext;
      return false;
    }
  if (semaphores)
    for (const char* ext : {"GL_EXT_semaphore", "GL_EXT_semaphore_fd"})
      if (!hasGlExtension(ext)) {
        if (why) *why = std::string("GL lacks ") + ext;
        return false;
      }
  return true;
}

ExternalBuffer::ExternalBuffer(ExternalSource source, StreamSide side, size_t bytes) {
  try {
    std::string why;
    if (!glCanImport(false, &why)) throw std::runtime_error(why);
    if (source == ExternalSource::Vulkan) {
      vulkan::Uuid uuid{};
      if (!glDeviceUuid(&uuid)) throw std::runtime_error("GL gives no device UUID");
      interopTrace("Vulkan: allocate " + std::to_string(bytes + kTailRoom) +
                   " exportable bytes");
      vulkan_ = std::make_unique<vulkan::ExportableMemory>(uuid, bytes + kTailRoom,
                                                           side == StreamSide::Host);
      const size_t allocation = vulkan_->allocationBytes();
      if (side == StreamSide::Host) {
        pointer_ = vulkan_->hostPointer();
      } else {
        cudaExternalMemoryHandleDesc desc{};
        desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
        desc.handle.fd = vulkan_->exportFd();
        desc.size = allocation;
        desc.flags = cudaExternalMemoryDedicated;
        interopTrace("CUDA: cudaImportExternalMemory(opaque fd, dedicated, " +
                     std::to_string(allocation) + " bytes)");
        if (const cudaError_t e = cudaImportExternalMemory(&cudaMemory_, &desc); e != cudaSuccess) {
          close(desc.handle.fd);  // a failed import leaves the descriptor with us
          SRT_CUDA_CHECK(e);
        }
        cudaExternalMemoryBufferDesc buffer{};
        buffer.size = allocation;
        interopTrace("CUDA: cudaExternalMemoryGetMappedBuffer");
        SRT_CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&pointer_, cudaMemory_, &buffer));
      }
      importIntoGl(vulkan_->exportFd(), allocation, bytes, true);
      return;
    }
    if (side != StreamSide::Cuda) throw std::runtime_error("CUDA VMM memory is for CUDA streams");
    const Vmm& v = vmm();
    int device = 0;
    SRT_CUDA_CHECK(cudaGetDevice(&device));
    SRT_CUDA_CHECK(cudaFree(nullptr));  // the primary context, current for the driver calls
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t grain = 0;
    cuCheck(v.granularity(&grain, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            "cuMemGetAllocationGranularity");
    vmmBytes_ = (bytes + kTailRoom + grain - 1) / grain * grain;
    interopTrace("CUDA VMM: cuMemCreate(POSIX fd) " + std::to_string(vmmBytes_) +
                 " bytes (granularity " + std::to_string(grain) + "), reserve, map, set access");
    cuCheck(v.create(&vmmHandle_, vmmBytes_, &prop, 0), "cuMemCreate(POSIX file descriptor)");
    cuCheck(v.reserve(&vmmAddress_, vmmBytes_, grain, 0, 0), "cuMemAddressReserve");
    cuCheck(v.map(vmmAddress_, vmmBytes_, 0, vmmHandle_, 0), "cuMemMap");
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cuCheck(v.setAccess(vmmAddress_, vmmBytes_, &access, 1), "cuMemSetAccess");
    pointer_ = reinterpret_cast<void*>(uintptr_t(vmmAddress_));
    int fd = -1;
    interopTrace("CUDA VMM: cuMemExportToShareableHandle");
    cuCheck(v.exportHandle(&fd, vmmHandle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            "cuMemExportToShareableHandle");
    importIntoGl(fd, vmmBytes_, bytes, false);
  } catch (...) {
    release();
    throw;
  }
}

void ExternalBuffer::importIntoGl(int fd, size_t allocationBytes, size_t bufferBytes,
                                  bool dedicated) {
  interopTrace(std::string("GL: glImportMemoryFdEXT(") + std::to_string(allocationBytes) +
               " bytes" + (dedicated ? ", dedicated" : "") + "), glNamedBufferStorageMemEXT");
  SRT_GL_CHECK(glCreateMemoryObjectsEXT(1, &memoryObject_));
  if (dedicated) {
    const GLint yes = GL_TRUE;
    SRT_GL_CHECK(glMemoryObjectParameterivEXT(memoryObject_, GL_DEDICATED_MEMORY_OBJECT_EXT, &yes));
  }
  glImportMemoryFdEXT(memoryObject_, GLuint64(allocationBytes), GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    close(fd);  // not imported: still ours
    throwGlError(e, "glImportMemoryFdEXT", __FILE__, __LINE__);
  }
  GLuint id = 0;
  SRT_GL_CHECK(glCreateBuffers(1, &id));
  buffer_ = BufferObject::adopt(id, bufferBytes);
  SRT_GL_CHECK(glNamedBufferStorageMemEXT(id, GLsizeiptr(bufferBytes), memoryObject_, 0));
}

void ExternalBuffer::release() noexcept {
  buffer_ = BufferObject();
  if (memoryObject_) glDeleteMemoryObjectsEXT(1, &memoryObject_);
  memoryObject_ = 0;
  if (cudaMemory_) {
    cudaFree(pointer_);  // the mapped buffer
    cudaDestroyExternalMemory(cudaMemory_);
    cudaMemory_ = nullptr;
  }
  vulkan_.reset();
  if (vmmAddress_ || vmmHandle_) {
    const Vmm& v = vmm();
    if (vmmAddress_) {
      v.unmap(vmmAddress_, vmmBytes_);
      v.free(vmmAddress_, vmmBytes_);
    }
    if (vmmHandle_) v.release(vmmHandle_);
    vmmAddress_ = vmmHandle_ = 0;
  }
  pointer_ = nullptr;
}

ExternalBuffer::~ExternalBuffer() {
  release();
}

HandOff::HandOff(StreamSide side, bool semaphores) : side_(side) {
  if (!semaphores) return;
  try {
    std::string why;
    if (side != StreamSide::Cuda)
      throw std::runtime_error("semaphores hand off to CUDA only (the host waits on fences)");
    if (!glCanImport(true, &why)) throw std::runtime_error(why);
    vulkan::Uuid uuid{};
    if (!glDeviceUuid(&uuid)) throw std::runtime_error("GL gives no device UUID");
    if (!vulkan::available(uuid, true, &why)) throw std::runtime_error(why);
    for (int k = 0; k < 2; ++k) {
      interopTrace("semaphore " + std::to_string(k) +
                   ": Vulkan makes it (opaque fd), CUDA and GL import it");
      made_[k] = std::make_unique<vulkan::ExportableSemaphore>(uuid);
      cudaExternalSemaphoreHandleDesc desc{};
      desc.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
      desc.handle.fd = made_[k]->exportFd();
      if (const cudaError_t e = cudaImportExternalSemaphore(&cudaSemaphores_[k], &desc);
          e != cudaSuccess) {
        close(desc.handle.fd);
        SRT_CUDA_CHECK(e);
      }
      SRT_GL_CHECK(glGenSemaphoresEXT(1, &glSemaphores_[k]));
      const int fd = made_[k]->exportFd();
      glImportSemaphoreFdEXT(glSemaphores_[k], GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
      if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
        close(fd);
        throwGlError(e, "glImportSemaphoreFdEXT", __FILE__, __LINE__);
      }
    }
  } catch (...) {
    release();
    throw;
  }
}

HandOff::~HandOff() {
  release();
}

void HandOff::release() noexcept {
  for (int k = 0; k < 2; ++k) {
    if (glSemaphores_[k]) glDeleteSemaphoresEXT(1, &glSemaphores_[k]);
    if (cudaSemaphores_[k]) cudaDestroyExternalSemaphore(cudaSemaphores_[k]);
    glSemaphores_[k] = 0;
    cudaSemaphores_[k] = nullptr;
    made_[k].reset();
  }
}

void HandOff::toGl(cudaStream_t stream, const std::vector<GLuint>& buffers) {
  if (side_ == StreamSide::Host) return;  // the host's writes are done when its calls return
  if (!semaphores()) {
    interopTrace("to GL: host waits for the CUDA stream");
    waitCudaStream(stream, "interop hand-off to GL (CUDA stream synchronize)");
    return;
  }
  interopTrace("to GL: CUDA signals semaphore 0, GL waits on it");
  cudaExternalSemaphoreSignalParams signal{};
  SRT_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cudaSemaphores_[0], &signal, 1, stream));
  SRT_GL_CHECK(glWaitSemaphoreEXT(glSemaphores_[0], GLuint(buffers.size()), buffers.data(), 0,
                                  nullptr, nullptr));
  // The first hand-offs are checked under the deadline (a fence after GL's wait): a signal GL
  // never sees is then an error naming this step, not a hang in the passes after it.
  if (checkedToGl_ < kCheckedHandOffs) {
    ++checkedToGl_;
    waitGl("interop hand-off to GL: GL's wait on semaphore 0 (signalled by CUDA)");
  }
}

void HandOff::toStream(cudaStream_t stream, const std::vector<GLuint>& buffers) {
  if (!semaphores()) {
    interopTrace("to CUDA: host waits for a GL fence");
    waitGl("interop hand-off to CUDA (GL fence)");
    return;
  }
  interopTrace("to CUDA: GL signals semaphore 1 (buffers listed), flush, CUDA waits on it");
  SRT_GL_CHECK(glSignalSemaphoreEXT(glSemaphores_[1], GLuint(buffers.size()), buffers.data(), 0,
                                    nullptr, nullptr));
  SRT_GL_CHECK(glFlush());  // the signal must reach the GPU before CUDA waits for it
  cudaExternalSemaphoreWaitParams wait{};
  SRT_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cudaSemaphores_[1], &wait, 1, stream));
  if (checkedToStream_ < kCheckedHandOffs) {
    ++checkedToStream_;
    waitCudaStream(stream, "interop hand-off to CUDA: CUDA's wait on semaphore 1 (signalled by GL)");
  }
}

}  // namespace srt::gl
