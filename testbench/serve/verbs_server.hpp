#pragma once
// `hcasim serve --verbs`: the model's side of libhcasim-rdmav34.so. Each
// connected application process is one client on one HCA; its verbs become
// the HCA's driver calls (host/driver.hpp) at the simulated time the model
// has reached, and the model's DMA reaches its registered memory
// (process_memory.hpp, mapped into the host's memory: HostMemory::map_external).
//
// Rules:
// - Socket: a Unix SOCK_SEQPACKET listener at the abstract name
//   "hcasim-verbs:<base>" (hcasim_verbs_wire.h); binding fails when another
//   server has it (std::runtime_error naming it). The sysfs tree libibverbs
//   reads is written at <sysfs_dir> (verbs_sysfs.hpp) once the model's own
//   near work (the SM's sweep) is done, with the LIDs it gave.
// - Requests: sizes and handles are checked first (EBADMSG for a short or
//   overlong body, EPROTO before HV_HELLO, EINVAL for a CQ, QP or L_Key the
//   process does not own: one process cannot touch another's). The verb then
//   runs as the driver runs it; the driver's one-line reason goes back with
//   EINVAL (ENOMEM for a full queue) and the provider prints it.
// - Each client posts and polls as its own CPU thread of its HCA's driver
//   (the first client on an HCA thread 0, the next thread 1, ...), so two
//   processes on one HCA do not share CPU time.
// - Time: a client is waiting while the server holds its request (a poll
//   that found nothing, an event wait), idle when it has sent nothing for
//   grace_ms of wall time, running otherwise. The model runs only while no
//   client is running; work more than near_ps ahead (a retransmission timer)
//   runs only when every client is waiting, or when some wait and none has
//   sent anything for grace_ms. A held poll is answered as soon as its CQ has
//   a completion (the model pauses there), or with none when the model has
//   nothing left to do; an event wait when an armed CQ of its channel fires.
//   So a doorbell is stamped at the time the model has reached plus the
//   driver's CPU costs, and a program's own computing costs no simulated time.
// - A device write becoming visible in the registered memory of an idle
//   client whose process is on a CPU (state R in /proc: it may be spinning on
//   that memory, as ib_write_lat does) pauses the model there and makes the
//   client running again, so the verb it answers with is stamped at that time.
// - A client that disconnects (exits, is killed) has its QPs destroyed, then
//   its CQs, then its memory regions deregistered and unmapped; the server
//   keeps serving, and its report stays.
// - Reports (json(), print_report()): per client and QP, in simulated time:
//   send WRs posted, their bytes, completions (and errors), receives and
//   their bytes, the bandwidth of the bytes from the first post to the last
//   send completion, the latency from doorbell (the MMIO write leaving the
//   CPU) to CQE visible of every signaled send, and the time from one
//   ibv_post_send to the next (a latency test's round trip), as percentiles.

#include <nlohmann/json.hpp>
#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "models/trace/histogram.hpp"
#include "testbench/serve/process_memory.hpp"
#include "testbench/serve/verbs_sysfs.hpp"
#include "testbench/serve/verbs_wire.hpp"

namespace hcasim::serve {

struct VerbsOptions {
  std::string base = "sim";           // the socket's name is "hcasim-verbs:<base>"
  std::string sysfs_dir;              // where the sysfs tree goes (SYSFS_PATH for the programs)
  unsigned grace_ms = 200;            // wall time without a request after which a client counts as idle
  uint64_t near_ps = 1'000'000'000;   // 1 ms of simulated time
  bool trace = false;                 // one line per verb on stderr
};

// One QP's figures, in simulated time.
struct VerbsQpReport {
  uint32_t qpn = 0;
  transport::QpType type = transport::QpType::Rc;
  uint64_t sends_posted = 0, bytes_posted = 0;
  uint64_t send_completions = 0, send_errors = 0;
  uint64_t receives = 0, bytes_received = 0, receive_errors = 0;
  uint64_t first_post_ps = 0, last_post_ps = 0, last_completion_ps = 0;
  trace::Histogram latency;        // doorbell to CQE, ps
  trace::Histogram post_interval;  // from one ibv_post_send to the next, ps (perftest's latency tests time this)
};

class VerbsServer {
 public:
  // Binds the socket (std::runtime_error when it cannot); the fabric needs
  // management in band (the HCAs' SMAs answer ibv_query_port).
  VerbsServer(fabric::Fabric& fabric, VerbsOptions options);
  ~VerbsServer();
  VerbsServer(const VerbsServer&) = delete;
  VerbsServer& operator=(const VerbsServer&) = delete;

  // Runs the model's near work with no client attached (the SM's sweep),
  // then writes the sysfs tree.
  void prepare();
  // Serves until `stop` is set; after_model runs each time the model has run.
  void serve(const volatile std::sig_atomic_t& stop, const std::function<void()>& after_model = {});

  std::string socket_name() const { return socket_name_; }
  unsigned clients_seen() const { return static_cast<unsigned>(clients_.size()); }
  nlohmann::json json() const;
  void print_report(std::ostream& out) const;

 private:
  enum class Hold { None, Poll, Event };
  struct CqRecord {
    uint32_t channel = 0;  // 0: none
  };
  struct Client {
    int fd = -1;
    unsigned number = 0;
    pid_t pid = 0;
    unsigned hca = 0;
    unsigned thread = 0;  // its CPU thread of the HCA's driver
    std::string program;
    bool hello = false;
    uint64_t last_ms = 0;
    uint64_t looked_ms = 0;  // when a device write last had memory_landed look at its process
    Hold hold = Hold::None;
    uint32_t hold_cq = 0, hold_max = 0, hold_channel = 0;
    std::unique_ptr<ProcessMemory> memory;
    struct Mr {
      unsigned window = 0;  // HostMemory's external range
      unsigned watch = 0;   // the driver's watch of device writes into it
    };
    std::map<uint32_t, Mr> mrs;  // by L_Key
    std::map<uint32_t, CqRecord> cqs;  // by CQ number
    std::map<uint32_t, VerbsQpReport> qps;  // by QPN (kept after destroy, for the report)
    std::map<uint32_t, hv_qp_caps> caps;  // live QPs' capacities
    std::map<uint32_t, bool> sig_all;     // live QPs' sq_sig_all
    std::deque<std::pair<uint32_t, uint32_t>> events;  // (channel, CQ) fired and not yet taken
    bool connected = true;
  };

  void accept_clients();
  bool drain();  // reads every waiting request; true when there was one
  void request(Client& c, const uint8_t* packet, std::size_t size);
  void handle(Client& c, uint32_t op, const uint8_t* body, std::size_t size);
  void reply(Client& c, int err, const void* body, std::size_t size);
  void fail(Client& c, int err, const std::string& why);
  void disconnect(Client& c);

  void hello(Client& c, const uint8_t* body, std::size_t size);
  void query_port(Client& c, uint32_t port);
  void reg_mr(Client& c, const hv_reg_mr& r);
  void create_cq(Client& c, const hv_create_cq& r);
  void create_qp(Client& c, const hv_create_qp& r);
  void modify_qp(Client& c, const hv_modify_qp& r);
  void query_qp(Client& c, uint32_t qpn);
  void post_send(Client& c, const uint8_t* body, std::size_t size, bool async);
  void post_recv(Client& c, const uint8_t* body, std::size_t size);
  // Polls into a reply; false (nothing sent) when the CQ had nothing.
  bool poll(Client& c, uint32_t cq, uint32_t max);
  bool take_event(Client& c, uint32_t channel);
  void account(Client& c, const transport::WorkCompletion& wc);

  void cq_ready(unsigned hca, uint32_t cq);
  void memory_landed(unsigned client);
  void cq_interrupt(unsigned hca, uint32_t cq);
  Client* owner_of_cq(unsigned hca, uint32_t cq);
  void answer_held(bool model_idle);
  void run_model();
  bool may_run(bool far) const;
  uint64_t wall_ms() const;
  void trace(const Client& c, const char* what, const std::string& detail) const;

  fabric::Fabric& fabric_;
  VerbsOptions options_;
  std::string socket_name_;
  int listen_fd_ = -1;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<unsigned> threads_used_;  // by HCA: CPU threads handed out
  std::vector<uint8_t> in_, out_;
  std::vector<transport::WorkCompletion> wcs_;
  bool in_model_ = false;
  bool wake_ = false;  // a held client can be answered
  uint64_t protocol_errors_ = 0;
};

}  // namespace hcasim::serve
