#include <cmath>
#include <stdexcept>

#include "base/math.h"
#include "base/transform_normal.h"

namespace srt {

Transform Transform::translate(Vec3f t) {
  Transform x;
  x.m[0][3] = t.x, x.m[1][3] = t.y, x.m[2][3] = t.z;
  return x;
}

Transform Transform::scale(Vec3f s) {
  Transform x;
  x.m[0][0] = s.x, x.m[1][1] = s.y, x.m[2][2] = s.z;
  return x;
}

Transform Transform::rotate(float degrees, Vec3f axis) {
  const Vec3f a = normalize(axis);
  const float th = degrees * kPi / 180.f, c = std::cos(th), s = std::sin(th);
  Transform x;
  x.m[0][0] = a.x * a.x + (1 - a.x * a.x) * c;
  x.m[0][1] = a.x * a.y * (1 - c) - a.z * s;
  x.m[0][2] = a.x * a.z * (1 - c) + a.y * s;
  x.m[1][0] = a.x * a.y * (1 - c) + a.z * s;
  x.m[1][1] = a.y * a.y + (1 - a.y * a.y) * c;
  x.m[1][2] = a.y * a.z * (1 - c) - a.x * s;
  x.m[2][0] = a.x * a.z * (1 - c) - a.y * s;
  x.m[2][1] = a.y * a.z * (1 - c) + a.x * s;
  x.m[2][2] = a.z * a.z + (1 - a.z * a.z) * c;
  return x;
}

Transform Transform::operator*(const Transform& b) const {
  Transform r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      float v = (j == 3) ? m[i][3] : 0.f;
      for (int k = 0; k < 3; ++k) v += m[i][k] * b.m[k][j];
      r.m[i][j] = v;
    }
  return r;
}

Transform Transform::inverse() const {
  const float a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][0], e = m[1][1], f = m[1][2],
              g = m[2][0], h = m[2][1], k = m[2][2];
  const float det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
  if (std::fabs(det) < 1e-20f) throw std::invalid_argument("transform is not invertible");
  const float id = 1.f / det;
  Transform r;
  r.m[0][0] = (e * k - f * h) * id, r.m[0][1] = (c * h - b * k) * id, r.m[0][2] = (b * f - c * e) * id;
  r.m[1][0] = (f * g - d * k) * id, r.m[1][1] = (a * k - c * g) * id, r.m[1][2] = (c * d - a * f) * id;
  r.m[2][0] = (d * h - e * g) * id, r.m[2][1] = (b * g - a * h) * id, r.m[2][2] = (a * e - b * d) * id;
  for (int i = 0; i < 3; ++i)
    r.m[i][3] = -(r.m[i][0] * m[0][3] + r.m[i][1] * m[1][3] + r.m[i][2] * m[2][3]);
  return r;
}

Vec3f normalByInverse(const Transform& inv, Vec3f n) {
  return normalize(Vec3f{inv.m[0][0] * n.x + inv.m[1][0] * n.y + inv.m[2][0] * n.z,
                         inv.m[0][1] * n.x + inv.m[1][1] * n.y + inv.m[2][1] * n.z,
                         inv.m[0][2] * n.x + inv.m[1][2] * n.y + inv.m[2][2] * n.z});
}

Vec3f Transform::normal(Vec3f n) const { return normalByInverse(inverse(), n); }

}  // namespace srt
