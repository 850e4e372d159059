// Small vector math shared by host and device code.
#pragma once

#include <cmath>
#include <cstdint>

#include "primitives/common/host_device.h"

namespace srt {

constexpr float kPi = 3.14159265358979323846f;
constexpr float kInvPi = 0.31830988618379067154f;
constexpr float kInf = 1e30f;

struct Vec2f {
  float x = 0, y = 0;
};

struct Vec3f {
  float x = 0, y = 0, z = 0;
  constexpr Vec3f() = default;
  SRT_CPU_GPU constexpr Vec3f(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
  SRT_CPU_GPU constexpr explicit Vec3f(float v) : x(v), y(v), z(v) {}
  SRT_CPU_GPU float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  SRT_CPU_GPU float& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
};

// A product and a sum the device compiler may not fuse into an FMA. The host compiler does not
// fuse without FMA instructions (-mfma), so code written with them rounds alike on both sides:
// which product nvcc fuses in a*b + c*d otherwise depends on the code around it.
SRT_CPU_GPU inline float mulRn(float a, float b) {
#if SRT_IS_GPU_CODE
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SRT_CPU_GPU inline float addRn(float a, float b) {
#if SRT_IS_GPU_CODE
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

SRT_CPU_GPU inline Vec3f operator+(Vec3f a, Vec3f b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
SRT_CPU_GPU inline Vec3f operator-(Vec3f a, Vec3f b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SRT_CPU_GPU inline Vec3f operator-(Vec3f a) { return {-a.x, -a.y, -a.z}; }
SRT_CPU_GPU inline Vec3f operator*(Vec3f a, Vec3f b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
SRT_CPU_GPU inline Vec3f operator*(Vec3f a, float s) { return {a.x * s, a.y * s, a.z * s}; }
SRT_CPU_GPU inline Vec3f operator*(float s, Vec3f a) { return a * s; }
SRT_CPU_GPU inline Vec3f operator/(Vec3f a, float s) { return a * (1.0f / s); }
SRT_CPU_GPU inline Vec3f operator/(Vec3f a, Vec3f b) { return {a.x / b.x, a.y / b.y, a.z / b.z}; }
SRT_CPU_GPU inline Vec3f& operator+=(Vec3f& a, Vec3f b) { return a = a + b; }
SRT_CPU_GPU inline Vec3f& operator*=(Vec3f& a, Vec3f b) { return a = a * b; }
SRT_CPU_GPU inline Vec3f& operator*=(Vec3f& a, float s) { return a = a * s; }
SRT_CPU_GPU inline bool operator==(Vec3f a, Vec3f b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

SRT_CPU_GPU inline float dot(Vec3f a, Vec3f b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SRT_CPU_GPU inline float absDot(Vec3f a, Vec3f b) { return std::fabs(dot(a, b)); }
SRT_CPU_GPU inline Vec3f cross(Vec3f a, Vec3f b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
SRT_CPU_GPU inline float lengthSquared(Vec3f a) { return dot(a, a); }
SRT_CPU_GPU inline float length(Vec3f a) { return std::sqrt(dot(a, a)); }
SRT_CPU_GPU inline Vec3f normalize(Vec3f a) { return a / length(a); }
SRT_CPU_GPU inline Vec3f min(Vec3f a, Vec3f b) {
  return {fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)};
}
SRT_CPU_GPU inline Vec3f max(Vec3f a, Vec3f b) {
  return {fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)};
}
SRT_CPU_GPU inline float maxComponent(Vec3f a) { return fmaxf(a.x, fmaxf(a.y, a.z)); }
SRT_CPU_GPU inline float luminance(Vec3f c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
SRT_CPU_GPU inline bool isBlack(Vec3f c) { return c.x == 0.f && c.y == 0.f && c.z == 0.f; }
SRT_CPU_GPU inline Vec3f lerp(float t, Vec3f a, Vec3f b) { return a * (1 - t) + b * t; }
SRT_CPU_GPU inline float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }

// Reflection of wo about n (both pointing away from the surface).
SRT_CPU_GPU inline Vec3f reflect(Vec3f wo, Vec3f n) { return -wo + n * (2.f * dot(wo, n)); }

// Orthonormal basis around a unit normal (Duff et al. 2017), for local shading frames.
struct Frame {
  Vec3f s, t, n;
  SRT_CPU_GPU static Frame fromNormal(Vec3f n) {
    const float sign = copysignf(1.0f, n.z);
    const float a = -1.0f / (sign + n.z);
    const float b = n.x * n.y * a;
    Frame f;
    f.s = {1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x};
    f.t = {b, sign + n.y * n.y * a, -n.y};
    f.n = n;
    return f;
  }
  SRT_CPU_GPU Vec3f toLocal(Vec3f v) const { return {dot(v, s), dot(v, t), dot(v, n)}; }
  SRT_CPU_GPU Vec3f toWorld(Vec3f v) const { return s * v.x + t * v.y + n * v.z; }
};

struct Bounds3f {
  Vec3f lo{kInf, kInf, kInf};
  Vec3f hi{-kInf, -kInf, -kInf};
  SRT_CPU_GPU bool empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
  SRT_CPU_GPU void extend(Vec3f p) { lo = min(lo, p), hi = max(hi, p); }
  SRT_CPU_GPU void extend(const Bounds3f& b) { lo = min(lo, b.lo), hi = max(hi, b.hi); }
  SRT_CPU_GPU Vec3f diagonal() const { return hi - lo; }
  SRT_CPU_GPU Vec3f center() const { return (lo + hi) * 0.5f; }
  SRT_CPU_GPU float surfaceArea() const {
    if (empty()) return 0.f;
    const Vec3f d = diagonal();
    return 2.f * addRn(addRn(mulRn(d.x, d.y), mulRn(d.y, d.z)), mulRn(d.z, d.x));  // as the host
  }
  SRT_CPU_GPU int longestAxis() const {
    const Vec3f d = diagonal();
    return d.x >= d.y && d.x >= d.z ? 0 : (d.y >= d.z ? 1 : 2);
  }
};

struct Ray {
  Vec3f o, d;
  float tMax = kInf;
};

// Affine transform as a 3x4 row-major matrix (rotation/scale in columns 0-2, translation in 3).
struct Transform {
  float m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
  SRT_CPU_GPU Vec3f point(Vec3f p) const {
    return {m[0][0] * p.x + m[0][1] * p.y + m[0][2] * p.z + m[0][3],
            m[1][0] * p.x + m[1][1] * p.y + m[1][2] * p.z + m[1][3],
            m[2][0] * p.x + m[2][1] * p.y + m[2][2] * p.z + m[2][3]};
  }
  SRT_CPU_GPU Vec3f vector(Vec3f v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
            m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  static Transform translate(Vec3f t);
  static Transform scale(Vec3f s);
  static Transform rotate(float degrees, Vec3f axis);
  Transform operator*(const Transform& b) const;  // this after b
  Transform inverse() const;
  // Normals transform by the inverse transpose.
  Vec3f normal(Vec3f n) const;
};

}  // namespace srt
