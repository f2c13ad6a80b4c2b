#pragma once
// A move-only callable stored inline (no heap): event handlers run millions of times, so the hot
// path must not allocate. Captures larger than the buffer fail to compile instead of allocating.
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace sim {

template <typename Signature, std::size_t Capacity = 48>
class InplaceFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InplaceFunction<R(Args...), Capacity> {
 public:
  InplaceFunction() = default;
  InplaceFunction(std::nullptr_t) {}

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InplaceFunction>>>
  InplaceFunction(F&& f) {  // NOLINT(google-explicit-constructor): used like std::function
    construct(std::forward<F>(f));
  }
  // Builds the callable in place (no temporary InplaceFunction to move from).
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InplaceFunction> &&
                                                    !std::is_same_v<std::decay_t<F>, std::nullptr_t>>>
  InplaceFunction& operator=(F&& f) {
    reset();
    construct(std::forward<F>(f));
    return *this;
  }

  InplaceFunction(InplaceFunction&& o) noexcept { take(o); }
  InplaceFunction& operator=(InplaceFunction&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  InplaceFunction(const InplaceFunction&) = delete;
  InplaceFunction& operator=(const InplaceFunction&) = delete;
  ~InplaceFunction() { reset(); }

  explicit operator bool() const { return invoke_ != nullptr; }
  R operator()(Args... args) { return invoke_(&storage_, std::forward<Args>(args)...); }

  void reset() {
    if (manage_) manage_(nullptr, &storage_);  // null for trivially destructible callables
    invoke_ = nullptr;
    manage_ = nullptr;
  }

 private:
  template <typename F>
  void construct(F&& f) {
    using Fn = std::decay_t<F>;
    static_assert(sizeof(Fn) <= Capacity, "callable too large for InplaceFunction: capture less");
    static_assert(alignof(Fn) <= alignof(std::max_align_t), "over-aligned callable");
    new (&storage_) Fn(std::forward<F>(f));
    invoke_ = [](void* s, Args... args) -> R { return (*static_cast<Fn*>(s))(std::forward<Args>(args)...); };
    // Most handlers capture a few pointers and numbers: those move as plain bytes, with no
    // indirect call (manage_ stays null). Others get a function that moves and destroys them.
    if constexpr (!(std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>)) {
      manage_ = [](void* dst, void* src) {
        if (dst) new (dst) Fn(std::move(*static_cast<Fn*>(src)));
        static_cast<Fn*>(src)->~Fn();
      };
    }
  }
  void take(InplaceFunction& o) {
    if (!o.invoke_) return;
    if (o.manage_)
      o.manage_(&storage_, &o.storage_);
    else
      std::memcpy(&storage_, &o.storage_, Capacity);
    invoke_ = o.invoke_;
    manage_ = o.manage_;
    o.invoke_ = nullptr;
    o.manage_ = nullptr;
  }
  // The two pointers first: a small callable then shares their cache line.
  R (*invoke_)(void*, Args...) = nullptr;
  void (*manage_)(void*, void*) = nullptr;
  alignas(std::max_align_t) unsigned char storage_[Capacity];
};

}  // namespace sim
