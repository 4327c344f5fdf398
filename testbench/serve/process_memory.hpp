#pragma once
// An application process's memory as the model's DMA reaches it (hcasim
// serve --verbs): host::ExternalMemory over process_vm_readv/writev.
//
// Rules:
// - Each access moves the whole range or fails (false): a process that is
//   gone, a range it has not mapped, or a process that did not let the
//   server in (the provider calls PR_SET_PTRACER for the server's pid; root
//   needs nothing). A failed access is counted, never fatal.

#include <sys/types.h>

#include <cstdint>

#include "models/host/host_memory.hpp"

namespace hcasim::serve {

class ProcessMemory : public host::ExternalMemory {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}
  bool read(uint64_t addr, uint8_t* out, uint64_t length) override;
  bool write(uint64_t addr, const uint8_t* data, uint64_t length) override;
  uint64_t failures() const { return failures_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  pid_t pid_;
  uint64_t failures_ = 0, bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace hcasim::serve
