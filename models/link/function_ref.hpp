#pragma once
// A non-owning reference to any callable of signature R(Args...): an object
// pointer and one function pointer, for a predicate passed down a call and
// called there (the crossbars' room checks). The callable must outlive it.

#include <type_traits>

namespace hcasim::link {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(const F& f)  // NOLINT(google-explicit-constructor): passed as a lambda
      : obj_(&f), call_([](const void* o, Args... a) -> R { return (*static_cast<const F*>(o))(a...); }) {}
  R operator()(Args... a) const { return call_(obj_, a...); }

 private:
  const void* obj_;
  R (*call_)(const void*, Args...);
};

}  // namespace hcasim::link
