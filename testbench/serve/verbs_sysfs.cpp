#include "testbench/serve/verbs_sysfs.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hcasim::serve {

namespace fs = std::filesystem;

namespace {

void put(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file);
  out << text << "\n";
  if (!out) throw std::runtime_error("serve --verbs: cannot write " + file.string());
}

std::string guid_text(uint64_t g) {
  char s[24];
  std::snprintf(s, sizeof s, "%04x:%04x:%04x:%04x", static_cast<unsigned>(g >> 48) & 0xFFFF,
                static_cast<unsigned>(g >> 32) & 0xFFFF, static_cast<unsigned>(g >> 16) & 0xFFFF,
                static_cast<unsigned>(g) & 0xFFFF);
  return s;
}

const char* state_text(uint8_t s) {
  static const char* const names[] = {"0: NOP", "1: DOWN", "2: INIT", "3: ARMED", "4: ACTIVE", "5: ACTIVE_DEFER"};
  return s < 6 ? names[s] : "0: NOP";
}

const char* phys_text(uint8_t s) {
  static const char* const names[] = {"0: <unknown>", "1: Sleep", "2: Polling", "3: Disabled",
                                      "4: PortConfigurationTraining", "5: LinkUp", "6: LinkErrorRecovery",
                                      "7: Phy Test"};
  return s < 8 ? names[s] : "0: <unknown>";
}

}  // namespace

void write_verbs_sysfs(const std::string& dir, const std::vector<SysfsDevice>& devices, const std::string& socket_name,
                       const std::string& fw_ver) {
  const fs::path root = fs::path(dir) / "class";
  std::error_code ec;
  fs::remove_all(root, ec);
  put(root / "infiniband_verbs" / "abi_version", "6");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const SysfsDevice& d = devices[i];
    const std::string ibdev = "hcasim" + std::to_string(i);
    const fs::path uverbs = root / "infiniband_verbs" / ("uverbs" + std::to_string(i));
    put(uverbs / "ibdev", ibdev);
    put(uverbs / "dev", "1:3");
    put(uverbs / "abi_version", "1");
    const fs::path dev = root / "infiniband" / ibdev;
    put(dev / "node_type", "1: CA");
    put(dev / "node_guid", guid_text(d.node_guid));
    put(dev / "sys_image_guid", guid_text(d.sys_image_guid));
    put(dev / "node_desc", d.description);
    put(dev / "fw_ver", fw_ver);
    put(dev / "hcasim_socket", socket_name);
    put(dev / "hcasim_name", d.name);
    for (std::size_t p = 0; p < d.ports.size(); ++p) {
      const SysfsPort& port = d.ports[p];
      const fs::path pd = dev / "ports" / std::to_string(p + 1);
      put(pd / "gids" / "0", guid_text(port.gid_prefix) + ":" + guid_text(port.port_guid));
      for (std::size_t k = 0; k < port.pkeys.size(); ++k) {
        char key[8];
        std::snprintf(key, sizeof key, "0x%04x", port.pkeys[k]);
        put(pd / "pkeys" / std::to_string(k), key);
      }
      put(pd / "link_layer", "InfiniBand");
      char lid[8];
      std::snprintf(lid, sizeof lid, "0x%x", port.lid);
      put(pd / "lid", lid);
      put(pd / "state", state_text(port.state));
      put(pd / "phys_state", phys_text(port.phys_state));
      put(pd / "rate", port.rate);
    }
  }
}

}  // namespace hcasim::serve
