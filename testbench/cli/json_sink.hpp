#pragma once
// Where the statistics writers hand their objects one at a time (a port, a
// QP, a host): the detail tables, details.json and the summary take them in
// turn, so that no list of them is ever held whole (detail_objects.hpp).

#include <nlohmann/json.hpp>

#include <functional>

namespace hcasim {

using JsonSink = std::function<void(nlohmann::json&&)>;

}  // namespace hcasim
