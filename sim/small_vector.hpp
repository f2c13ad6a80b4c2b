#pragma once
// sim::SmallVector: a vector of trivially copyable elements that keeps up to N of them inside
// itself and moves to the heap only beyond N. The flow network's records use it for a flow's
// path and a link's flows: nearly all are short, so the common case costs no heap block and no
// extra cache miss. The heap block, once taken, is kept when the vector shrinks (records are
// reused), so steady state does not allocate.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "sim/check.hpp"

namespace sim {

template <typename T, uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector copies its elements as bytes");
  static_assert(N > 0, "keep at least one element inline");

 public:
  SmallVector() = default;
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;
  SmallVector(SmallVector&& o) noexcept { take(o); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  T* data() { return on_heap() ? heap_ : inline_; }
  const T* data() const { return on_heap() ? heap_ : inline_; }
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](uint32_t i) { return data()[i]; }
  const T& operator[](uint32_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity_) [[unlikely]]
      grow(capacity_ * 2);
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  // New elements are left uninitialized (callers write them).
  void resize_uninitialized(uint32_t n) {
    if (n > capacity_) grow(n);
    size_ = n;
  }

 private:
  bool on_heap() const { return capacity_ > N; }
  void grow(uint32_t capacity) {
    SIM_CHECK(capacity > capacity_, "small vector: capacity overflow");
    T* block = new T[capacity];
    std::memcpy(static_cast<void*>(block), data(), sizeof(T) * size_);
    release();
    heap_ = block;
    capacity_ = capacity;
  }
  void release() {
    if (on_heap()) delete[] heap_;
    capacity_ = N;
  }
  void take(SmallVector& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (o.on_heap()) {
      heap_ = o.heap_;
      o.capacity_ = N;
    } else {
      std::memcpy(static_cast<void*>(inline_), o.inline_, sizeof(T) * size_);
    }
    o.size_ = 0;
  }

  union {
    T inline_[N];
    T* heap_;
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
};

}  // namespace sim
