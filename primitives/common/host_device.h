// Qualifiers for code that runs on both the CPU and the GPU (pbrt's PBRT_CPU_GPU).
#pragma once

#if defined(__CUDACC__)
#define SRT_CPU_GPU __host__ __device__
#define SRT_GPU __device__
#define SRT_INLINE __forceinline__
#else
#define SRT_CPU_GPU
#define SRT_GPU
#define SRT_INLINE inline
#endif

// True while compiling the device side of a CUDA translation unit.
#if defined(__CUDA_ARCH__)
#define SRT_IS_GPU_CODE 1
#else
#define SRT_IS_GPU_CODE 0
#endif
