#include "board/hex.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace rb {

namespace {

constexpr std::array<std::string_view, 6> kFlatNames{"se", "ne", "n", "nw", "sw", "s"};
constexpr std::array<std::string_view, 6> kPointyNames{"e", "ne", "nw", "w", "sw", "se"};

int wrap(int d) {
  return ((d % 6) + 6) % 6;
}

// The direction of the corner a ring's side starts at, and the direction the side walks.
int corner_direction(SpiralOrder o, int side) {
  return wrap(o.winding == Winding::clockwise ? o.start - side : o.start + side);
}
int side_direction(SpiralOrder o, int side) {
  return wrap(o.winding == Winding::clockwise ? o.start - side - 2 : o.start + side + 2);
}

Hex dir(int d) {
  return kDirections[static_cast<std::size_t>(wrap(d))];
}

Hex cube_round(double fq, double fr, double fs) {
  double q = std::round(fq), r = std::round(fr), s = std::round(fs);
  const double dq = std::abs(q - fq), dr = std::abs(r - fr), ds = std::abs(s - fs);
  if (dq > dr && dq > ds)
    q = -r - s;
  else if (dr > ds)
    r = -q - s;
  return {static_cast<std::int32_t>(q), static_cast<std::int32_t>(r)};
}

}  // namespace

std::int32_t distance(Hex a, Hex b) {
  const std::int64_t dq = std::int64_t{a.q} - b.q, dr = std::int64_t{a.r} - b.r;
  const std::int64_t ds = -dq - dr;
  return static_cast<std::int32_t>((std::llabs(dq) + std::llabs(dr) + std::llabs(ds)) / 2);
}

std::string_view direction_name(int direction, Orientation o) {
  return (o == Orientation::flat ? kFlatNames
                                 : kPointyNames)[static_cast<std::size_t>(wrap(direction))];
}

std::optional<int> direction_of(std::string_view name, Orientation o) {
  const auto& names = o == Orientation::flat ? kFlatNames : kPointyNames;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

void ring(Hex centre, std::int32_t radius, SpiralOrder order, std::vector<Hex>& out) {
  if (radius <= 0) {
    out.push_back(centre);
    return;
  }
  for (int side = 0; side < 6; ++side) {
    const Hex corner = centre + dir(corner_direction(order, side)) * radius;
    const Hex step = dir(side_direction(order, side));
    for (std::int32_t i = 0; i < radius; ++i) out.push_back(corner + step * i);
  }
}

Hex spiral_hex(Hex centre, std::int64_t index, SpiralOrder order) {
  if (index <= 0) return centre;
  // the ring k: the smallest k with 3k(k+1) >= index
  auto k = static_cast<std::int64_t>((std::sqrt(9.0 + 12.0 * static_cast<double>(index)) - 3) / 6);
  while (3 * k * (k + 1) < index) ++k;
  while (k > 1 && 3 * (k - 1) * k >= index) --k;
  const std::int64_t p = index - (1 + 3 * k * (k - 1));  // position in the ring, 0 .. 6k-1
  const auto side = static_cast<int>(p / k);
  const auto radius = static_cast<std::int32_t>(k);
  const auto step = static_cast<std::int32_t>(p % k);
  return centre + dir(corner_direction(order, side)) * radius +
         dir(side_direction(order, side)) * step;
}

std::int64_t spiral_index(Hex centre, Hex h, SpiralOrder order) {
  const std::int64_t k = distance(centre, h);
  if (k == 0) return 0;
  const Hex d = h - centre;
  const auto radius = static_cast<std::int32_t>(k);
  for (int side = 0; side < 6; ++side) {
    const Hex from_corner = d - dir(corner_direction(order, side)) * radius;
    const std::int32_t step = distance({0, 0}, from_corner);
    if (step < radius && dir(side_direction(order, side)) * step == from_corner)
      return 1 + 3 * k * (k - 1) + side * k + step;
  }
  return -1;  // unreachable: every hex at distance k is on ring k
}

std::optional<OffsetLayout> offset_layout(std::string_view name) {
  if (name == "odd_r") return OffsetLayout::odd_r;
  if (name == "even_r") return OffsetLayout::even_r;
  if (name == "odd_q") return OffsetLayout::odd_q;
  if (name == "even_q") return OffsetLayout::even_q;
  return std::nullopt;
}

Hex from_offset(std::int32_t col, std::int32_t row, OffsetLayout layout) {
  switch (layout) {
    case OffsetLayout::odd_r:
      return {col - (row - (row & 1)) / 2, row};
    case OffsetLayout::even_r:
      return {col - (row + (row & 1)) / 2, row};
    case OffsetLayout::odd_q:
      return {col, row - (col - (col & 1)) / 2};
    case OffsetLayout::even_q:
      return {col, row - (col + (col & 1)) / 2};
  }
  return {};
}

void to_offset(Hex h, OffsetLayout layout, std::int32_t& col, std::int32_t& row) {
  switch (layout) {
    case OffsetLayout::odd_r:
      col = h.q + (h.r - (h.r & 1)) / 2, row = h.r;
      return;
    case OffsetLayout::even_r:
      col = h.q + (h.r + (h.r & 1)) / 2, row = h.r;
      return;
    case OffsetLayout::odd_q:
      col = h.q, row = h.r + (h.q - (h.q & 1)) / 2;
      return;
    case OffsetLayout::even_q:
      col = h.q, row = h.r + (h.q + (h.q & 1)) / 2;
      return;
  }
}

void line(Hex a, Hex b, int side, std::vector<Hex>& out) {
  const std::int32_t n = distance(a, b);
  const double e = side >= 0 ? 1e-6 : -1e-6;
  // the nudge (1, 2, -3) * 1e-6 in cube coordinates: its components sum to 0 (it stays on the
  // plane q + r + s = 0) and it is parallel to no hex edge
  const double nq = e, nr = 2 * e, ns = -3 * e;
  for (std::int32_t i = 0; i <= n; ++i) {
    if (i == 0) {
      out.push_back(a);
      continue;
    }
    if (i == n) {
      out.push_back(b);
      continue;
    }
    const double t = static_cast<double>(i) / n;
    const double fq = a.q + (static_cast<double>(b.q) - a.q) * t + nq;
    const double fr = a.r + (static_cast<double>(b.r) - a.r) * t + nr;
    const double fs = a.s() + (static_cast<double>(b.s()) - a.s()) * t + ns;
    out.push_back(cube_round(fq, fr, fs));
  }
}

SegmentWalk::SegmentWalk(Hex a, Hex b)
    : a_(a),
      dq_(static_cast<std::int64_t>(b.q) - a.q),
      dr_(static_cast<std::int64_t>(b.r) - a.r),
      du_(dq_ - dr_),
      dv_(dq_ + 2 * dr_),
      dw_(-2 * dq_ - dr_),
      au_(std::abs(du_)),
      av_(std::abs(dv_)),
      aw_(std::abs(dw_)) {}

void SegmentWalk::emit(std::int64_t q, std::int64_t r, bool touched) {
  const Hex h{static_cast<std::int32_t>(a_.q + q), static_cast<std::int32_t>(a_.r + r)};
  const Meet m = !touched ? Meet::through : (dq_ * r - dr_ * q > 0 ? Meet::left : Meet::right);
  pending_[static_cast<std::size_t>(pending_n_++)] = {h, m};
}

// One step of the walk: into the next hex, noting the hexes touched on the way.
void SegmentWalk::step() {
  pending_n_ = pending_i_ = 0;
  // a guard (the bound is loose): every step gets nearer b
  if (++steps_ > 2 * (au_ + av_ + aw_) + 2)
    throw std::logic_error("SegmentWalk: the walk from a to b went astray");
  // the neighbour across each difference's bound, the way it changes
  const std::int64_t uq = du_ > 0 ? 1 : -1, ur = du_ > 0 ? -1 : 1;
  const std::int64_t vq = 0, vr = dv_ > 0 ? 1 : -1;
  const std::int64_t wq = dw_ > 0 ? -1 : 1, wr = 0;
  const std::int64_t cu = cq_ - cr_, cv = cq_ + 2 * cr_, cw = -2 * cq_ - cr_;
  // where each difference reaches its bound: t = n / d (d = 0: it never does)
  const std::int64_t nu = 1 + (du_ > 0 ? cu : -cu);
  const std::int64_t nv = 1 + (dv_ > 0 ? cv : -cv);
  const std::int64_t nw = 1 + (dw_ > 0 ? cw : -cw);
  std::int64_t bn = 0, bd = 0;  // the first bound reached (bd = 0: none yet)
  if (au_ != 0) bn = nu, bd = au_;
  if (av_ != 0 && (bd == 0 || nv * bd < bn * av_)) bn = nv, bd = av_;
  if (aw_ != 0 && (bd == 0 || nw * bd < bn * aw_)) bn = nw, bd = aw_;
  const bool tu = au_ != 0 && nu * bd == bn * au_;
  const bool tv = av_ != 0 && nv * bd == bn * av_;
  const bool tw = aw_ != 0 && nw * bd == bn * aw_;
  // at a corner: p and o, the two hexes past it, and the third difference's change
  std::int64_t pq = 0, pr = 0, oq = 0, orr = 0, third = 0, pt = 0, ot = 0;
  bool corner = true;
  if (tu && tv) {
    pq = cq_ + uq, pr = cr_ + ur, oq = cq_ + vq, orr = cr_ + vr, third = dw_;
    pt = -2 * pq - pr, ot = -2 * oq - orr;
  } else if (tu && tw) {
    pq = cq_ + uq, pr = cr_ + ur, oq = cq_ + wq, orr = cr_ + wr, third = dv_;
    pt = pq + 2 * pr, ot = oq + 2 * orr;
  } else if (tv && tw) {
    pq = cq_ + vq, pr = cr_ + vr, oq = cq_ + wq, orr = cr_ + wr, third = du_;
    pt = pq - pr, ot = oq - orr;
  } else {
    corner = false;
  }
  if (!corner) {
    // across one edge into the next hex
    if (tu)
      cq_ += uq, cr_ += ur;
    else if (tv)
      cq_ += vq, cr_ += vr;
    else
      cq_ += wq, cr_ += wr;
  } else if (third == 0) {
    // along the edge between p and o, to the corner of the hex beyond both
    emit(oq, orr, true);
    emit(pq, pr, true);
    const std::int64_t nq = pq + oq - cq_, nr = pr + orr - cr_;
    cq_ = nq, cr_ = nr;
  } else {
    // through the corner into the hex on the side the third difference moves to; the other is
    // touched at the corner only
    if ((pt > ot) != (third > 0)) std::swap(pq, oq), std::swap(pr, orr);
    emit(oq, orr, true);
    cq_ = pq, cr_ = pr;
  }
  if (cq_ != dq_ || cr_ != dr_) emit(cq_, cr_, false);
}

bool SegmentWalk::next(Hex& h, Meet& meet) {
  while (pending_i_ == pending_n_) {
    if (cq_ == dq_ && cr_ == dr_) return false;
    step();
  }
  std::tie(h, meet) = pending_[static_cast<std::size_t>(pending_i_++)];
  return true;
}

}  // namespace rb
