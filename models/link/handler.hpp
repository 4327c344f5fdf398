#pragma once
// A void() callable kept inside the object that holds it: a function of
// trivially copyable state of at most 16 bytes (a lambda capturing an object
// pointer and an index), called through one function pointer. 24 bytes to
// std::function's 32, and no heap: a port keeps its upper layer's handlers on
// the cache lines every hop reads, where 8 bytes is the room for a pointer.

#include <new>
#include <type_traits>

namespace hcasim::link {

class Handler {
 public:
  Handler() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Handler>>>
  Handler(F f) {  // NOLINT(google-explicit-constructor): passed as a lambda
    static_assert(sizeof(F) <= sizeof(storage_) && alignof(F) <= alignof(void*) && std::is_trivially_copyable_v<F>,
                  "a handler keeps at most 16 bytes of trivially copyable state");
    new (storage_) F(f);
    call_ = [](void* state) { (*static_cast<F*>(state))(); };
  }
  void operator()() { call_(storage_); }
  explicit operator bool() const { return call_ != nullptr; }

 private:
  void (*call_)(void*) = nullptr;
  alignas(void*) unsigned char storage_[16] = {};
};
static_assert(sizeof(Handler) == 24, "a handler is a pointer and 16 bytes");

}  // namespace hcasim::link
