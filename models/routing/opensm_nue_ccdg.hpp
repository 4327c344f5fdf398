#pragma once
// Nue's complete channel dependency graph (opensm 3.3.23: osm_ucast_nue.c),
// internal to opensm_nue.cpp: not part of the library's interface.
//
// Rules, as OpenSM's:
// - A vertex per direction of every switch-to-switch cable (a channel: local
//   LID and port, remote LID and port), plus one fake channel per switch (its
//   LID to itself, ports 0), the source of that switch's Dijkstra. Vertices
//   are sorted by the key local LID, local port, remote LID, remote port, each
//   LID in network byte order (OpenSM compares the raw big-endian values on a
//   little-endian host).
// - Edges: a channel into switch S depends on every channel out of S but its
//   own reverse (same LID and port); the fake channel of S on every channel
//   out of S. In S's link order.
// - Colours mark disjoint acyclic subgraphs: 0 blocked (the edge would close
//   a cycle), 1 unused, 2 escape paths, 3 and up one per routing step.
//   A vertex or edge holds a colour; a colour may point at another (after a
//   merge), one level deep: the colour seen is what the held colour points
//   at. "Wet" paint is this step's and may be undone; fixing at the end of a
//   step dries what the paths use and resets the rest.

#include <cstdint>
#include <vector>

namespace hcasim::routing::detail {

struct NueChannel {
  uint16_t local_lid = 0;
  uint8_t local_port = 0;
  uint16_t remote_lid = 0;
  uint8_t remote_port = 0;
  uint64_t key() const;
  NueChannel inverted() const { return {remote_lid, remote_port, local_lid, local_port}; }
  bool reverse_of(const NueChannel& o) const { return local_lid == o.remote_lid && remote_lid == o.local_lid; }
};

class NueCcdg {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  enum Colour : uint32_t { kBlocked = 0, kUnused = 1, kEscape = 2 };

  struct Edge {
    uint32_t to = 0;
    uint32_t colour = kUnused;
    bool wet = false;
  };
  struct Vertex {
    NueChannel id;
    uint32_t first_edge = 0, edges = 0;
    uint32_t link = kNone;          // the network link it stands for; kNone: a fake channel
    uint64_t distance = 0;
    uint32_t colour = kUnused;
    bool wet = false;
  };

  // `channels`: every vertex with the channels it depends on, any order;
  // `link`: each vertex's network link (kNone for fake channels).
  struct Build {
    NueChannel id;
    uint32_t link = kNone;
    std::vector<NueChannel> depends;
  };
  explicit NueCcdg(std::vector<Build> vertices);

  std::size_t size() const { return v_.size(); }
  Vertex& operator[](uint32_t i) { return v_[i]; }
  const Vertex& operator[](uint32_t i) const { return v_[i]; }
  Edge& edge(uint32_t e) { return e_[e]; }
  // The vertex of a channel, or kNone.
  uint32_t find(const NueChannel& c) const;
  // The edge from a to b, or kNone.
  uint32_t edge_between(uint32_t a, uint32_t b) const;

  // A fresh set of `count` colours (per virtual layer), every vertex and edge unused and dry.
  void reset_colours(std::size_t count);
  uint32_t colour_of(uint32_t held) const { return real_[held]; }
  uint32_t vertex_colour(uint32_t v) const { return real_[v_[v].colour]; }
  uint32_t edge_colour(uint32_t e) const { return real_[e_[e].colour]; }
  void paint_escape(uint32_t v) { v_[v].colour = kEscape; }
  void paint_escape_edge(uint32_t a, uint32_t b);
  // The fake source channel takes the step's colour (its old subgraph joins it).
  void paint_source(uint32_t v, uint32_t colour);
  void block(uint32_t e) { e_[e].colour = kBlocked; }
  void reset_edge(uint32_t e);
  void reset_edge_between(uint32_t a, uint32_t b);

  // Whether using edge e out of `head` closes a cycle in the subgraph of
  // `colour`; if it does the edge is blocked, else it (and its tail) joins
  // that subgraph (OpenSM's using_edge_induces_cycle_in_ccdg).
  bool closes_cycle(uint32_t head, uint32_t e, uint32_t colour);

  // End of a routing step: dry what `used` (vertex pairs: predecessor, vertex)
  // paint, reset every other wet colour, and make merges final.
  void fix(const std::vector<std::pair<uint32_t, uint32_t>>& used);

 private:
  bool path_between(uint32_t source, uint32_t target);

  std::vector<Vertex> v_;
  std::vector<Edge> e_;
  std::vector<uint32_t> real_;       // colour -> the colour it points at
  // Depth-first search state (OpenSM's status, next_edge_idx and pre).
  std::vector<uint8_t> black_;
  std::vector<uint32_t> next_edge_, pre_;
  std::vector<uint32_t> blackened_;
};

}  // namespace hcasim::routing::detail
