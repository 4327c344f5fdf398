#include "testbench/serve/process_memory.hpp"

#include <sys/uio.h>

namespace hcasim::serve {

namespace {

// Moves [addr, addr + length) of the process, in as many calls as it takes.
template <typename Call>
bool move_all(uint64_t addr, uint8_t* local, uint64_t length, Call call) {
  uint64_t done = 0;
  while (done < length) {
    iovec mine{local + done, static_cast<std::size_t>(length - done)};
    iovec theirs{reinterpret_cast<void*>(static_cast<uintptr_t>(addr + done)), static_cast<std::size_t>(length - done)};
    const ssize_t n = call(&mine, &theirs);
    if (n <= 0) return false;
    done += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

bool ProcessMemory::read(uint64_t addr, uint8_t* out, uint64_t length) {
  const bool ok = move_all(addr, out, length, [this](iovec* mine, iovec* theirs) {
    return process_vm_readv(pid_, mine, 1, theirs, 1, 0);
  });
  if (ok) bytes_read_ += length;
  else ++failures_;
  return ok;
}

bool ProcessMemory::write(uint64_t addr, const uint8_t* data, uint64_t length) {
  const bool ok = move_all(addr, const_cast<uint8_t*>(data), length, [this](iovec* mine, iovec* theirs) {
    return process_vm_writev(pid_, mine, 1, theirs, 1, 0);
  });
  if (ok) bytes_written_ += length;
  else ++failures_;
  return ok;
}

}  // namespace hcasim::serve
