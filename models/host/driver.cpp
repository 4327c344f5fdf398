#include "models/host/driver.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/hca/host_formats.hpp"
#include "models/transport/message_layout.hpp"

namespace hcasim::host {

using transport::QpState;
using transport::WorkCompletion;

namespace {
uint32_t ring_entries(uint32_t wrs) {
  uint32_t n = 1;
  while (n < wrs) n *= 2;
  return n;
}
constexpr uint64_t kRingAlign = 4096;
}  // namespace

struct Driver::Qp {
  uint32_t qpn = 0;
  transport::QpInit init;
  QpState state = QpState::Reset;  // as modify_qp last set it (libibverbs keeps the same)
  hca::QpRings rings;
  unsigned thread = 0;             // its send CQ's CPU thread
  uint32_t sq_posted = 0, sq_done = 0;  // counters: WQEs posted, and completed (their slots free)
  uint32_t rq_posted = 0, rq_done = 0;
  std::vector<uint64_t> sq_wrid, rq_wrid;  // wr_id by ring slot
};

struct Driver::Cq {
  Cq(Driver& driver, uint32_t cqn) : driver(driver), cqn(cqn) {}
  void on_due() { driver.cq_due(*this); }
  Driver& driver;
  uint32_t cqn;
  unsigned thread = 0;
  hca::CqRing ring;
  uint32_t consumed = 0;
  std::deque<uint64_t> visible;  // when each ring entry written and not yet polled is visible, in ring order
  std::deque<WorkCompletion> expanded;  // completions of a compressed block read, not yet handed out
  uint64_t decoded = 0;         // completions read (their number for Hca::completion_times)
  uint64_t woke_ps = UINT64_MAX;  // when due last woke the poller: the poll_cq at that time took the poll that ended then
  std::function<void()> poll_handler, interrupt_handler;
  link::Alarm due = link::Alarm::method<&Cq::on_due>(this);
};

struct Driver::Watch {
  std::function<void(uint64_t, uint64_t)> f;
  HostMemory* memory = nullptr;
  unsigned memory_id = 0;  // HostMemory's watch
  struct Landing {
    uint64_t at_ps, addr, length;
  };
  std::deque<Landing> landings;
  void on_due() {
    const uint64_t now = link::now_ps();
    // Its bytes out first where they live outside the model (an external
    // range): the memory's own alarm for this instant may come after this one.
    memory->flush_due();
    while (!landings.empty() && landings.front().at_ps <= now) {
      const Landing l = landings.front();
      landings.pop_front();
      f(l.addr, l.length);
    }
    if (!landings.empty()) due.notify_at(landings.front().at_ps);
  }
  link::Alarm due = link::Alarm::method<&Watch::on_due>(this);
};

Driver::Driver(const sc_core::sc_module_name& name, const DriverConfig& config, HostMemory& memory, hca::Hca& hca)
    : sc_module(name), config_(config), memory_(memory), hca_(hca) {
  const uint32_t vectors = static_cast<uint32_t>(hca_.msix_table().size());
  vector_cqs_.resize(vectors);
  vector_due_.assign(vectors, 0);
  vector_alarms_.resize(vectors);  // made with the vector's first CQ
  memory_.watch_writes(kInterruptArea, kInterruptArea + 4ull * vectors,
                       [this](uint64_t addr, uint64_t, uint64_t visible) {
                         interrupt(static_cast<uint32_t>((addr - kInterruptArea) / 4), visible);
                       });
  hca_.init_icm(kIcmArea);  // the HCA's context tables (icm_layout.hpp; hca_.icm_bytes() of them)
}

void Driver::write_translation(const hca::MemoryRegion& mr, bool valid) {
  const hca::IcmLayout& icm = hca_.contexts().layout();
  hca::MptEntry e;
  e.lkey = mr.lkey;
  e.rkey = mr.rkey;
  e.access = mr.access;
  e.page_shift = mr.page_shift;
  e.valid = valid;
  e.rkey_valid = valid;
  e.start = mr.addr;
  e.length = mr.length;
  e.mtt_first = mr.mtt_first;
  e.mtt_count = mr.mtt_count;
  uint8_t mpt[hca::kMptBytes];
  hca::encode_mpt(e, mpt);
  SparseMemory& m = memory_.memory();
  m.write(icm.mpt(mr.lkey >> 8), mpt, sizeof mpt);
  if (mr.mtt_count > kMttWriteLimit) return;  // see kMttWriteLimit
  const uint64_t stride = hca::kMttBytes;
  std::vector<uint8_t> mtt(mr.mtt_count * stride);
  const uint64_t first_page = mr.addr >> mr.page_shift << mr.page_shift;
  for (uint64_t i = 0; i < mr.mtt_count; ++i)
    hca::encode_mtt(first_page + (i << mr.page_shift), valid, mtt.data() + i * stride);
  m.write(icm.mtt(mr.mtt_first), mtt.data(), mtt.size());
}

hca::MemoryRegion Driver::reg_mr(uint64_t addr, uint64_t length, uint32_t access) {
  const hca::MemoryRegion mr = hca_.reg_mr(addr, length, access);
  write_translation(mr, true);
  return mr;
}

uint32_t Driver::send_queue_used(uint32_t qpn) {
  const Qp* q = find_qp(qpn);
  return q == nullptr ? 0 : q->sq_posted - q->sq_done;
}

bool Driver::dereg_mr(uint32_t lkey) {
  const hca::MemoryRegion* mr = hca_.regions().find_lkey(lkey);
  if (mr == nullptr) return false;
  write_translation(*mr, false);
  return hca_.dereg_mr(lkey);
}

Driver::~Driver() = default;

void Driver::start_of_simulation() {
  started_ = true;
  send_due();  // what was posted during elaboration
}

void Driver::program_vector(uint32_t v) {
  // Its message goes to the interrupt window, data = its number. Only vectors
  // in use: a fabric of a thousand hosts that run no verbs programs none.
  uint8_t entry[hca::kMsixEntryBytes] = {};
  hca::put_u64(entry, kInterruptArea + 4ull * v);
  hca::put_u32(entry + 8, v);
  mmio_write(hca::kMsixTable + v * hca::kMsixEntryBytes, entry, sizeof entry, link::now_ps());
  vector_alarms_[v] = std::make_unique<link::Alarm>([this, v] { interrupt_due(v); });
}

uint64_t Driver::allocate(uint64_t bytes, uint64_t align) {
  next_free_ = (next_free_ + align - 1) / align * align;
  const uint64_t at = next_free_;
  next_free_ += bytes;
  return at;
}

uint64_t Driver::cpu(uint64_t cost_ps, unsigned thread) {
  uint64_t& free = cpu_free_ps_[thread];
  free = std::max(free, link::now_ps()) + cost_ps;
  stats_.cpu_busy_ps += cost_ps;
  stats_.thread_busy_ps[thread] += cost_ps;
  return free;
}

void Driver::take_cpu(uint64_t cost_ps, unsigned thread) {
  // Scheduled to end now when the thread was free; work the thread took on
  // since then (another CQ's handler posting) pushes it back.
  uint64_t& free = cpu_free_ps_[thread];
  const uint64_t now = link::now_ps();
  free = free + cost_ps > now ? free + cost_ps : now;
  stats_.cpu_busy_ps += cost_ps;
  stats_.thread_busy_ps[thread] += cost_ps;
}

void Driver::mmio_write(uint64_t offset, const uint8_t* data, unsigned length, uint64_t at_ps) {
  if (started_ && mmio_queue_.empty() && at_ps <= link::now_ps()) {
    send_mmio(offset, data, length);
    return;
  }
  // After every write due no later (another thread's may be due earlier).
  const auto at = std::upper_bound(mmio_queue_.begin(), mmio_queue_.end(), at_ps,
                                   [](uint64_t t, const Pending& p) { return t < p.at_ps; });
  mmio_queue_.insert(at, {at_ps, offset, std::vector<uint8_t>(data, data + length)});
  if (started_) mmio_alarm_.notify_at(mmio_queue_.front().at_ps);
}

void Driver::send_due() {
  const uint64_t now = link::now_ps();
  while (!mmio_queue_.empty() && mmio_queue_.front().at_ps <= now) {
    const Pending p = std::move(mmio_queue_.front());
    mmio_queue_.pop_front();
    send_mmio(p.offset, p.data.data(), static_cast<unsigned>(p.data.size()));
  }
  if (!mmio_queue_.empty()) mmio_alarm_.notify_at(mmio_queue_.front().at_ps);
}

void Driver::send_mmio(uint64_t offset, const uint8_t* data, unsigned length) {
  trans_.set_command(tlm::TLM_WRITE_COMMAND);
  trans_.set_address(offset);
  trans_.set_data_ptr(const_cast<uint8_t*>(data));  // a write only reads through it
  trans_.set_data_length(length);
  trans_.set_streaming_width(length);
  trans_.set_byte_enable_ptr(nullptr);
  trans_.set_dmi_allowed(false);
  trans_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  mmio->b_transport(trans_, delay);
  if (trans_.is_response_error()) ++stats_.mmio_errors;
}

Driver::Qp* Driver::find_qp(uint32_t qpn) {
  return qpn < qps_.size() ? qps_[qpn].get() : nullptr;
}

uint32_t Driver::create_cq(uint32_t depth, unsigned thread, hca::CqRing::Compression compression) {
  hca::CqRing r;
  r.depth = depth;
  r.compression = compression;
  r.entries = ring_entries(std::max<uint32_t>(depth, 1));
  r.addr = allocate(uint64_t{r.entries} * hca::kCqeBytes, kRingAlign);
  r.doorbell_record = allocate(hca::kDoorbellRecordBytes, hca::kDoorbellRecordBytes);
  const auto vectors = static_cast<uint32_t>(vector_cqs_.size());
  r.vector = vectors == 0 ? 0 : static_cast<uint32_t>(cqs_.size()) % vectors;
  const uint32_t cqn = hca_.create_cq(r);  // throws for depth 0
  if (cqs_.size() <= cqn) cqs_.resize(cqn + 1);
  cqs_[cqn] = std::make_unique<Cq>(*this, cqn);
  Cq& cq = *cqs_[cqn];
  cq.ring = r;
  cq.thread = thread;
  if (cpu_free_ps_.size() <= thread) {
    cpu_free_ps_.resize(thread + 1, 0);
    stats_.thread_busy_ps.resize(thread + 1, 0);
  }
  if (r.vector < vector_cqs_.size()) {
    if (vector_cqs_[r.vector].empty()) program_vector(r.vector);
    vector_cqs_[r.vector].push_back(cqn);
  }
  memory_.watch_writes(r.addr, r.addr + uint64_t{r.entries} * hca::kCqeBytes,
                       [this, cqn](uint64_t, uint64_t length, uint64_t visible) {
                         if (cqn < cqs_.size() && cqs_[cqn] != nullptr)
                           cqe_visible(*cqs_[cqn], visible, static_cast<uint32_t>(length / hca::kCqeBytes));
                       });
  return cqn;
}

std::string Driver::modify_cq(uint32_t cq, uint32_t count, uint64_t period_ps) {
  if (cq >= cqs_.size() || cqs_[cq] == nullptr) return "no CQ " + std::to_string(cq);
  return hca_.modify_cq(cq, count, period_ps);
}

std::string Driver::destroy_cq(uint32_t cq) {
  const std::string why = hca_.destroy_cq(cq);
  if (why.empty() && cq < cqs_.size()) cqs_[cq].reset();
  return why;
}

uint32_t Driver::create_qp(const transport::QpInit& init) {
  hca::QpRings r;
  r.uar = 1;
  r.sq_entries = ring_entries(std::max<uint32_t>(init.max_send_wr, 1));
  r.sq_stride = hca::send_stride(init.type, init.max_send_sge, config_.max_inline);
  r.rq_entries = ring_entries(std::max<uint32_t>(init.max_recv_wr, 1));
  r.rq_stride = hca::recv_stride(init.max_recv_sge);
  r.sq_addr = allocate(uint64_t{r.sq_entries} * r.sq_stride, kRingAlign);
  r.rq_addr = allocate(uint64_t{r.rq_entries} * r.rq_stride, kRingAlign);
  r.doorbell_record = allocate(hca::kDoorbellRecordBytes, hca::kDoorbellRecordBytes);
  const uint32_t qpn = hca_.create_qp(init, r);
  if (qps_.size() <= qpn) qps_.resize(qpn + 1);
  qps_[qpn] = std::make_unique<Qp>();
  Qp& q = *qps_[qpn];
  q.qpn = qpn;
  q.init = init;
  q.rings = r;
  q.thread = init.send_cq < cqs_.size() && cqs_[init.send_cq] != nullptr ? cqs_[init.send_cq]->thread : 0;
  q.sq_wrid.resize(r.sq_entries);
  q.rq_wrid.resize(r.rq_entries);
  return qpn;
}

std::string Driver::modify_qp(uint32_t qpn, const transport::QpAttr& attr, uint32_t mask) {
  const std::string why = hca_.modify_qp(qpn, attr, mask);
  Qp* q = find_qp(qpn);
  if (!why.empty() || q == nullptr || !(mask & transport::kAttrState)) return why;
  q->state = attr.qp_state;
  if (attr.qp_state == QpState::Reset) {  // the rings start again, empty
    q->sq_posted = q->sq_done = q->rq_posted = q->rq_done = 0;
    memory().write_u64(q->rings.doorbell_record, 0);
  }
  return "";
}

std::string Driver::destroy_qp(uint32_t qpn) {
  const std::string why = hca_.destroy_qp(qpn);
  if (why.empty() && qpn < qps_.size()) qps_[qpn].reset();
  return why;
}

std::string Driver::post_send(uint32_t qpn, const transport::SendWr& wr) {
  return post_send(qpn, std::vector<transport::SendWr>{wr});
}

std::string Driver::post_send(uint32_t qpn, const std::vector<transport::SendWr>& list) {
  Qp* found = find_qp(qpn);
  if (found == nullptr) return "no QP " + std::to_string(qpn);
  Qp& q = *found;
  if (q.state == QpState::Reset || q.state == QpState::Init || q.state == QpState::Rtr)
    return std::string("post_send needs the QP in RTS or SQD, not ") + transport::to_string(q.state);
  const transport::QpType type = q.init.type;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const transport::SendWr& w = list[i];
    if (!transport::opcode_supported(type, w.opcode))
      return std::string(transport::to_string(w.opcode)) + " is not supported on a " + transport::to_string(type) +
             " QP";
    const std::string full = transport::queue_full_reason("send", q.sq_posted - q.sq_done + i, q.init.max_send_wr,
                                                          w.sg_list.size(), q.init.max_send_sge);
    if (!full.empty()) return full;
    if (w.send_inline && transport::sg_length(w.sg_list) > config_.max_inline)
      return "send_inline of " + std::to_string(transport::sg_length(w.sg_list)) + " bytes: max_inline " +
             std::to_string(config_.max_inline);
  }
  const hca::QpRings& r = q.rings;
  uint32_t last_bytes = 0;
  for (const transport::SendWr& w : list) {
    const uint64_t length = transport::sg_length(w.sg_list);
    const bool can_inline = !transport::is_read_or_atomic(w.opcode) && length <= config_.max_inline;
    std::vector<uint8_t> inline_data;
    if (can_inline && (w.send_inline || (config_.inline_threshold > 0 && length <= config_.inline_threshold))) {
      if (w.inline_data.size() == length) {
        inline_data = w.inline_data;  // the caller's copy (an application outside the model)
      } else {
        inline_data.resize(length);  // the CPU copies the gather list into the WQE
        uint64_t at = 0;
        for (const transport::Sge& s : w.sg_list) {
          memory_.peek(s.addr, inline_data.data() + at, s.length);
          at += s.length;
        }
      }
      ++stats_.inline_wqes;
    }
    const uint32_t slot = q.sq_posted & (r.sq_entries - 1);
    last_bytes = hca::send_wqe_bytes(type, w.opcode, w.sg_list.size(), static_cast<uint32_t>(inline_data.size()));
    wqe_.resize(last_bytes);
    hca::encode_send_wqe(w, type, qpn, q.sq_posted, inline_data, wqe_.data());
    memory().write(r.sq_addr + uint64_t{slot} * r.sq_stride, wqe_.data(), last_bytes);
    q.sq_wrid[slot] = w.wr_id;
    ++q.sq_posted;
    ++stats_.posts;
    cpu(config_.post_ps, q.thread);
  }
  uint8_t record[4];
  hca::put_u32(record, q.sq_posted);
  memory().write(r.doorbell_record + 4, record, sizeof record);
  if (config_.doorbell == DoorbellMode::BlueFlame && list.size() == 1 && last_bytes <= hca::kBlueFlameBytes) {
    ++stats_.blueflame_writes;
    const uint64_t at = cpu(config_.blueflame_ps, q.thread);
    mmio_write(uint64_t{r.uar} * hca::kPageBytes + hca::kUarBlueFlame, wqe_.data(), last_bytes, at);
  } else {
    ++stats_.doorbells;
    uint8_t doorbell[8];
    hca::put_u32(doorbell, q.sq_posted);
    hca::put_u32(doorbell + 4, qpn);
    const uint64_t at = cpu(config_.doorbell_ps, q.thread);
    mmio_write(uint64_t{r.uar} * hca::kPageBytes + hca::kUarSendDoorbell, doorbell, sizeof doorbell, at);
  }
  return "";
}

std::string Driver::post_recv(uint32_t qpn, const transport::RecvWr& wr) {
  Qp* found = find_qp(qpn);
  if (found == nullptr) return "no QP " + std::to_string(qpn);
  Qp& q = *found;
  if (q.state == QpState::Reset) return "post_recv needs the QP out of RESET";
  const std::string full = transport::queue_full_reason("recv", q.rq_posted - q.rq_done, q.init.max_recv_wr,
                                                        wr.sg_list.size(), q.init.max_recv_sge);
  if (!full.empty()) return full;
  const hca::QpRings& r = q.rings;
  const uint32_t slot = q.rq_posted & (r.rq_entries - 1);
  wqe_.resize(r.rq_stride);
  hca::encode_recv_wqe(wr, r.rq_stride, wqe_.data());
  memory().write(r.rq_addr + uint64_t{slot} * r.rq_stride, wqe_.data(), r.rq_stride);
  q.rq_wrid[slot] = wr.wr_id;
  ++q.rq_posted;
  uint8_t record[4];
  hca::put_u32(record, q.rq_posted);
  memory().write(r.doorbell_record, record, sizeof record);
  ++stats_.recv_posts;
  cpu(config_.post_ps, q.thread);
  return "";
}

void Driver::resolve(WorkCompletion& wc, uint16_t wqe_index) {
  wc.wr_id = wqe_index;
  Qp* q = find_qp(wc.qp_num);
  if (q == nullptr) return;
  // The counter this index stands for, and its wr_id.
  const bool recv = wc.opcode == transport::WcOpcode::Recv || wc.opcode == transport::WcOpcode::RecvRdmaWithImm;
  uint32_t& done = recv ? q->rq_done : q->sq_done;
  const uint32_t counter = done + static_cast<uint16_t>(wqe_index - static_cast<uint16_t>(done));
  const std::vector<uint64_t>& wrid = recv ? q->rq_wrid : q->sq_wrid;
  wc.wr_id = wrid[counter & (wrid.size() - 1)];
  done = counter + 1;  // a send completion also frees the unsignaled WQEs before it
  if (wc.status != transport::WcStatus::Success && q->init.type == transport::QpType::Rc) q->state = QpState::Err;
}

bool Driver::expand_block(Cq& cq, uint64_t now) {
  const hca::CqRing& r = cq.ring;
  const auto entry = [&](uint32_t k) { return r.addr + uint64_t{(cq.consumed + k) & (r.entries - 1)} * hca::kCqeBytes; };
  uint8_t cqe[hca::kCqeBytes];
  memory().read(entry(0), cqe, sizeof cqe);
  if (!hca::cqe_valid(cqe, cq.consumed, r.entries) || hca::is_mini_array(cqe)) return false;
  const uint32_t minis = hca::mini_count(cqe);
  const uint32_t need = hca::cqe_block_entries(minis + 1);
  if (cq.visible.size() < need || cq.visible[need - 1] > now) return false;  // the rest of the block is not there yet
  uint16_t wqe_index = 0;
  const WorkCompletion title = hca::decode_cqe(cqe, wqe_index);
  const uint64_t visible = cq.visible[need - 1];
  const auto traced = [&](WorkCompletion& wc) {
    wc.times = hca_.completion_times(cq.cqn, cq.decoded++);
    wc.times.cqe_ps = visible;
  };
  cq.expanded.push_back(title);
  resolve(cq.expanded.back(), wqe_index);
  traced(cq.expanded.back());
  uint8_t array[hca::kCqeBytes];
  for (uint32_t i = 0; i < minis; ++i) {
    const uint32_t e = 1 + i / hca::kMiniCqesPerEntry;
    if (i % hca::kMiniCqesPerEntry == 0) memory().read(entry(e), array, sizeof array);
    const hca::MiniCqe m = hca::decode_mini_cqe(array, i % hca::kMiniCqesPerEntry);
    WorkCompletion wc = title;
    wc.opcode = m.opcode;
    wc.byte_len = m.byte_len;
    resolve(wc, m.wqe_index);
    traced(wc);
    cq.expanded.push_back(wc);
  }
  for (uint32_t e = 0; e < need; ++e) cq.visible.pop_front();
  cq.consumed += need;
  return true;
}

std::size_t Driver::poll_cq(uint32_t cqn, std::size_t max, std::vector<WorkCompletion>& out) {
  if (cqn >= cqs_.size() || cqs_[cqn] == nullptr) throw std::out_of_range("no CQ " + std::to_string(cqn));
  Cq& cq = *cqs_[cqn];
  const uint64_t now = link::now_ps();
  const uint32_t consumed_before = cq.consumed;
  std::size_t n = 0;
  while (n < max) {
    if (cq.expanded.empty() && (cq.visible.empty() || cq.visible.front() > now || !expand_block(cq, now))) break;
    out.push_back(cq.expanded.front());
    cq.expanded.pop_front();
    ++n;
  }
  if (n > 0) {
    ++stats_.cq_polls;
    stats_.cqes += n;
    if (cq.poll_handler) pay_poll(cq, now);
  }
  if (cq.consumed != consumed_before) {
    uint8_t record[4];
    hca::put_u32(record, cq.consumed);
    memory().write(cq.ring.doorbell_record, record, sizeof record);
  }
  return n;
}

std::string Driver::req_notify_cq(uint32_t cqn, bool solicited_only) {
  if (cqn >= cqs_.size() || cqs_[cqn] == nullptr) return "no CQ " + std::to_string(cqn);
  ++stats_.arms;
  uint8_t doorbell[8];
  hca::put_u32(doorbell, cqn | uint32_t{solicited_only ? hca::kCqArmSolicited : hca::kCqArmNext} << 24);
  hca::put_u32(doorbell + 4, cqs_[cqn]->consumed);
  const uint64_t at = cpu(config_.doorbell_ps, cqs_[cqn]->thread);
  mmio_write(hca::kPageBytes + hca::kUarCqDoorbell, doorbell, sizeof doorbell, at);
  return "";
}

void Driver::on_cq_event(uint32_t cqn, std::function<void()> handler) { cqs_.at(cqn)->poll_handler = std::move(handler); }

void Driver::on_cq_interrupt(uint32_t cqn, std::function<void()> handler) {
  cqs_.at(cqn)->interrupt_handler = std::move(handler);
}

unsigned Driver::watch_memory(uint64_t begin, uint64_t end, std::function<void(uint64_t, uint64_t)> f) {
  watches_.push_back(std::make_unique<Watch>());
  Watch& w = *watches_.back();
  w.f = std::move(f);
  w.memory = &memory_;
  w.memory_id = memory_.watch_writes(begin, end, [&w](uint64_t addr, uint64_t length, uint64_t visible) {
    if (visible <= link::now_ps() && w.landings.empty()) {
      w.f(addr, length);
      return;
    }
    w.landings.push_back({visible, addr, length});
    w.due.notify_at(w.landings.front().at_ps);
  });
  return static_cast<unsigned>(watches_.size() - 1);
}

void Driver::unwatch_memory(unsigned id) {
  Watch& w = *watches_.at(id);
  memory_.unwatch(w.memory_id);
  w.landings.clear();
  w.f = [](uint64_t, uint64_t) {};
}

void Driver::cqe_visible(Cq& cq, uint64_t visible_ps, uint32_t entries) {
  cq.visible.insert(cq.visible.end(), entries, visible_ps);
  const uint64_t now = link::now_ps();
  if (!cq.poll_handler) {  // no poller: the run still lasts until the CQE is there to poll
    if (visible_ps > now) cq.due.notify_at(visible_ps);
    return;
  }
  const uint64_t at = std::max(visible_ps, cpu_free_ps_[cq.thread]) + config_.poll_ps;
  if (at <= now) {
    cq.woke_ps = now;
    cq.poll_handler();
  } else {
    cq.due.notify_at(at);
  }
}

void Driver::cq_due(Cq& cq) {
  const uint64_t now = link::now_ps();
  if (cq.poll_handler) {
    cq.woke_ps = now;
    cq.poll_handler();
  }
  // The next CQE not yet visible wakes the poller again (the handler may poll later, at this time).
  const auto later = std::find_if(cq.visible.begin(), cq.visible.end(), [now](uint64_t v) { return v > now; });
  if (later != cq.visible.end()) cq.due.notify_at(std::max(*later, cpu_free_ps_[cq.thread]) + config_.poll_ps);
}

void Driver::pay_poll(Cq& cq, uint64_t now) {
  // The poll that found CQEs: ended now when the CQ's alarm woke the poller
  // for them, else run now (a CQE visible before the poller came to its CQ).
  if (cq.woke_ps == now) {
    take_cpu(config_.poll_ps, cq.thread);
    cq.woke_ps = UINT64_MAX;
  } else {
    cpu(config_.poll_ps, cq.thread);
  }
}

void Driver::interrupt(uint32_t vector, uint64_t visible_ps) {
  if (vector >= vector_cqs_.size() || vector_alarms_[vector] == nullptr) return;
  ++stats_.interrupts;
  const uint64_t at = std::max(visible_ps, cpu_free_ps_[0]) + config_.interrupt_ps;
  vector_due_[vector] = at;
  if (at <= link::now_ps()) interrupt_due(vector);
  else vector_alarms_[vector]->notify_at(at);
}

void Driver::interrupt_due(uint32_t vector) {
  take_cpu(config_.interrupt_ps, 0);
  for (uint32_t cqn : vector_cqs_[vector])
    if (cqn < cqs_.size() && cqs_[cqn] != nullptr && cqs_[cqn]->interrupt_handler) cqs_[cqn]->interrupt_handler();
}

}  // namespace hcasim::host
