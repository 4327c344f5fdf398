#pragma once
// The sysfs tree libibverbs reads when the kernel has no RDMA devices
// (rdma-core 44, libibverbs/init.c and sysfs.c: its fallback from netlink),
// describing the HCAs of hcasim serve --verbs. A program finds it through
// SYSFS_PATH=<dir>.
//
// Rules:
// - <dir>/class/infiniband_verbs/abi_version "6"; per HCA i,
//   class/infiniband_verbs/uverbs<i>/{ibdev "hcasim<i>", dev "1:3",
//   abi_version "1"}: dev is /dev/null's numbers, which the character nodes
//   /dev/infiniband/uverbs<i> must also have (scripts/verbs_devices.sh makes
//   them), since libibverbs opens and stats them.
// - class/infiniband/hcasim<i>/: node_type "1: CA", node_guid,
//   sys_image_guid, node_desc, fw_ver; hcasim_socket (the server's socket
//   name, for the provider) and hcasim_name (the HCA's scenario name); per
//   port p: ports/<p>/gids/0 (GID prefix and port GUID), pkeys/<k> for the
//   P_Key table's first block, link_layer "InfiniBand", lid, state,
//   phys_state, rate, as the kernel writes them.
// - The tree is written whole (an earlier one at <dir>/class is removed
//   first, so a changed fabric leaves no stale device).

#include <cstdint>
#include <string>
#include <vector>

namespace hcasim::serve {

struct SysfsPort {
  uint64_t gid_prefix = 0xFE80'0000'0000'0000ull;
  uint64_t port_guid = 0;
  uint16_t lid = 0;
  uint8_t state = 0;       // PortInfo PortState: 1 Down .. 4 Active
  uint8_t phys_state = 0;  // PortInfo PortPhysicalState: 5 LinkUp
  std::string rate;        // "56 Gb/sec (4X FDR)"
  std::vector<uint16_t> pkeys;
};

struct SysfsDevice {
  std::string name;  // the scenario's
  std::string description;
  uint64_t node_guid = 0, sys_image_guid = 0;
  std::vector<SysfsPort> ports;  // port 1 first
};

// Writes the tree (std::runtime_error naming a path it cannot write).
void write_verbs_sysfs(const std::string& dir, const std::vector<SysfsDevice>& devices, const std::string& socket_name,
                       const std::string& fw_ver);

}  // namespace hcasim::serve
