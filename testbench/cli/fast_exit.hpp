#pragma once
// Ending `hcasim run` without tearing the model down.
//
// Why: SystemC unregisters a destroyed module by searching its registry of
// modules from the front, so destroying a fabric's modules (and the workload
// modules made after them) takes time quadratic in their number: about 30 s
// of a k=34 3-level fat tree's 90 s (320,000 modules), for memory the
// process's end returns anyway.
//
// Rules: exit_without_teardown(code) flushes the standard streams and ends the
// process with `code` at once (std::_Exit: no destructors, no atexit
// handlers). Everything the run writes must be complete and closed before
// (Simulation::close_outputs). In sanitized builds it returns `code` instead,
// so that the objects are destroyed and LeakSanitizer checks them as before.

namespace hcasim {

int exit_without_teardown(int code);

}  // namespace hcasim
