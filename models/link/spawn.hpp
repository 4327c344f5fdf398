#pragma once
// Registers an event-driven method process without the SC_METHOD /
// SC_HAS_PROCESS macros (SC_HAS_PROCESS is deprecated in IEEE 1666-2023).
// Call during elaboration, from a module's constructor.

#include <systemc>

#include <utility>

namespace hcasim::link {

// A method process, not run at initialization, woken by `event`.
template <class F>
void spawn_method(const char* name, const sc_core::sc_event& event, F&& body) {
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  options.set_sensitivity(&event);
  sc_core::sc_spawn(std::forward<F>(body), name, &options);
}

}  // namespace hcasim::link
