#pragma once
// Where a QP's work queue rings are in host memory (the command interface's
// create_qp): what the WQE fetcher reads and the WQE cache refetches.

#include <cstdint>

namespace hcasim::hca {

struct QpRings {
  uint32_t uar = 1;               // the UAR page whose doorbells serve this QP
  uint64_t sq_addr = 0;           // send ring: sq_entries x sq_stride bytes
  uint32_t sq_entries = 0;        // a power of two
  uint32_t sq_stride = 0;         // bytes, a multiple of 64
  uint64_t rq_addr = 0;           // receive ring
  uint32_t rq_entries = 0;        // a power of two
  uint32_t rq_stride = 0;         // bytes, a multiple of 16
  uint64_t doorbell_record = 0;   // 8 bytes: receive counter, send counter
};

}  // namespace hcasim::hca
