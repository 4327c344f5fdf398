// Nue's complete channel dependency graph and its colours (opensm 3.3.23:
// osm_ucast_nue.c). Rules in opensm_nue_ccdg.hpp.

#include "models/routing/opensm_nue_ccdg.hpp"

#include <algorithm>
#include <stdexcept>

namespace hcasim::routing::detail {

uint64_t NueChannel::key() const {
  return (uint64_t{__builtin_bswap16(local_lid)} << 48) + (uint64_t{local_port} << 32) +
         (uint64_t{__builtin_bswap16(remote_lid)} << 16) + uint64_t{remote_port};
}

NueCcdg::NueCcdg(std::vector<Build> vertices) {
  std::sort(vertices.begin(), vertices.end(), [](const Build& a, const Build& b) { return a.id.key() < b.id.key(); });
  v_.resize(vertices.size());
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    v_[i].id = vertices[i].id;
    v_[i].link = vertices[i].link;
  }
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    v_[i].first_edge = static_cast<uint32_t>(e_.size());
    v_[i].edges = static_cast<uint32_t>(vertices[i].depends.size());
    for (const NueChannel& c : vertices[i].depends) {
      Edge e;
      e.to = find(c);
      if (e.to == kNone) throw std::logic_error("nue: a dependency on a channel that is not in the graph");
      e_.push_back(e);
    }
  }
  black_.assign(v_.size(), 0);
  next_edge_.assign(v_.size(), 0);
  pre_.assign(v_.size(), kNone);
}

uint32_t NueCcdg::find(const NueChannel& c) const {
  const uint64_t key = c.key();
  const auto it = std::lower_bound(v_.begin(), v_.end(), key,
                                   [](const Vertex& v, uint64_t k) { return v.id.key() < k; });
  return it != v_.end() && it->id.key() == key ? static_cast<uint32_t>(it - v_.begin()) : kNone;
}

uint32_t NueCcdg::edge_between(uint32_t a, uint32_t b) const {
  for (uint32_t e = v_[a].first_edge; e < v_[a].first_edge + v_[a].edges; ++e)
    if (e_[e].to == b) return e;
  return kNone;
}

void NueCcdg::reset_colours(std::size_t count) {
  real_.resize(count);
  for (std::size_t c = 0; c < count; ++c) real_[c] = static_cast<uint32_t>(c);
  for (Vertex& v : v_) {
    v.colour = kUnused;
    v.wet = false;
  }
  for (Edge& e : e_) {
    e.colour = kUnused;
    e.wet = false;
  }
}

void NueCcdg::paint_escape_edge(uint32_t a, uint32_t b) {
  const uint32_t e = edge_between(a, b);
  if (e == kNone) throw std::logic_error("nue: an escape path turns where no dependency exists");
  e_[e].colour = kEscape;
}

void NueCcdg::paint_source(uint32_t v, uint32_t colour) {
  if (vertex_colour(v) > kUnused)
    real_[v_[v].colour] = colour;
  else
    v_[v].colour = colour;
}

void NueCcdg::reset_edge(uint32_t e) {
  if (!e_[e].wet) return;
  e_[e].colour = kUnused;
  e_[e].wet = false;
}

void NueCcdg::reset_edge_between(uint32_t a, uint32_t b) {
  const uint32_t e = edge_between(a, b);
  if (e == kNone) throw std::logic_error("nue: resetting a dependency that does not exist");
  reset_edge(e);
}

bool NueCcdg::path_between(uint32_t source, uint32_t target) {
  // OpenSM's iterative depth-first search over coloured edges; a vertex all
  // of whose edges were tried turns black until the search ends.
  bool found = false;
  uint32_t cur = source;
  next_edge_[cur] = 0;
  pre_[cur] = kNone;
  do {
    uint32_t next = kNone;
    for (uint32_t j = next_edge_[cur]; j < v_[cur].edges; ++j) {
      const uint32_t e = v_[cur].first_edge + j;
      if (black_[e_[e].to] || edge_colour(e) <= kUnused) continue;
      if (e_[e].to == target) {
        found = true;
      } else {
        next = e_[e].to;
        next_edge_[cur] = j + 1;
      }
      break;
    }
    if (next != kNone) {
      next_edge_[next] = 0;
      pre_[next] = cur;
    } else {
      black_[cur] = 1;
      blackened_.push_back(cur);
      next = pre_[cur];
    }
    cur = next;
  } while (!found && cur != kNone);
  for (uint32_t v : blackened_) black_[v] = 0;
  blackened_.clear();
  return found;
}

bool NueCcdg::closes_cycle(uint32_t head, uint32_t e, uint32_t colour) {
  const uint32_t tail = e_[e].to;
  if (edge_colour(e) > kUnused) return false;  // already part of a subgraph
  if (vertex_colour(tail) == colour) {
    if (path_between(tail, head)) {
      block(e);
      return true;
    }
    e_[e].colour = v_[head].colour;
    e_[e].wet = true;
    return false;
  }
  if (vertex_colour(tail) == kUnused) {
    v_[tail].colour = v_[head].colour;
    v_[tail].wet = true;
  } else {
    real_[v_[tail].colour] = v_[head].colour;  // merge the tail's subgraph into the head's
  }
  e_[e].colour = v_[head].colour;
  e_[e].wet = true;
  return false;
}

void NueCcdg::fix(const std::vector<std::pair<uint32_t, uint32_t>>& used) {
  for (const auto& [pre, v] : used) {
    v_[v].wet = false;
    const uint32_t e = edge_between(pre, v);
    if (e == kNone) throw std::logic_error("nue: a path uses a dependency that does not exist");
    e_[e].wet = false;
  }
  for (Vertex& v : v_) {
    if (v.wet) {
      v.colour = kUnused;
      v.wet = false;
    }
    for (uint32_t e = v.first_edge; e < v.first_edge + v.edges; ++e) {
      reset_edge(e);
      e_[e].colour = real_[e_[e].colour];
    }
    v.colour = real_[v.colour];
  }
}

}  // namespace hcasim::routing::detail
