// OpenSM's LASH engine (opensm 3.3: osm_ucast_lash.c, without mesh
// analysis, its default): a shortest path per pair of switches, and each pair
// of opposite paths put in the lowest virtual layer where its channel
// dependencies close no cycle. Rules in routing.hpp.
//
// How, the same as OpenSM's:
// - Switches are numbered in OpenSM's switch-table order (guid_table_less on
//   NodeGUIDs), only those the SM finds (a switch with a LID). A switch's links
//   are its ports to switches, in port order, one per cable.
// - Paths: for each root in that order, a breadth-first tree over links in
//   order; every switch of the tree routes each switch below it that it has no
//   route to yet through the first link to its child on the way. The first
//   tree that puts d below s decides s's route to d (the tree of s itself
//   covers every d).
// - Layers: the pairs (i, j), i < j, in order; the paths i -> j and j -> i are
//   added to layer 0, 1, ... (channel dependency graphs, a vertex per
//   (switch, next switch)) until neither closes a cycle reachable from its
//   first channel; when none takes them, a new layer does. Then OpenSM moves
//   random pairs from the fullest layer to the emptiest (glibc's rand(),
//   never seeded: seed 1) while that closes no cycle, until they differ by
//   less than 6 or the fullest has no pair left to try.
// - OpenSM's graph keeps counts with a few quirks, kept here since they decide
//   which moves close a cycle: a dependency already present when a path is
//   tried in a layer is counted once more and not uncounted when the path
//   leaves; removing a dependency slides the later ones down without clearing
//   the last slot, which the next dependency added there counts on top of; and
//   a vertex freed while another still depends on it leaves that dependency
//   pointing at its memory, which the next vertex created takes (glibc's
//   allocator hands back the chunk freed last): here vertices live in a pool
//   whose freed slots are reused last-freed first.

#include <algorithm>
#include <cstdint>
#include <string>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

GlibcRandom::GlibcRandom(uint32_t seed) {
  int64_t word = seed == 0 ? 1 : seed;  // glibc's srandom_r: seed 0 is 1
  state_[0] = static_cast<uint32_t>(word);
  for (unsigned i = 1; i < kDegree; ++i) {  // 16807 * word mod (2^31 - 1), Schrage's way
    const int64_t hi = word / 127773, lo = word % 127773;
    word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    state_[i] = static_cast<uint32_t>(word);
  }
  for (unsigned i = 0; i < kDegree * 10; ++i) next();
}

int32_t GlibcRandom::next() {
  state_[front_] += state_[rear_];
  const int32_t result = static_cast<int32_t>(state_[front_] >> 1);
  front_ = (front_ + 1) % kDegree;
  rear_ = (rear_ + 1) % kDegree;
  return result;
}

namespace {

constexpr unsigned kNone = UINT32_MAX;
constexpr int kBalanceLimit = 6;  // lash_process: p_lash->balance_limit

class Lash {
 public:
  Lash(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids, unsigned layers,
       unsigned start_vl)
      : t_(t), index_(index), g_(g), layers_(layers), start_vl_(start_vl) {
    for (unsigned s = 0; s < g.size(); ++s)
      if (lids.base[g.node[s]][0] != 0) order_.push_back(s);  // found by the SM
    std::sort(order_.begin(), order_.end(), [&](unsigned a, unsigned b) {
      return guid_table_less(topology::node_guid(t, g.node[a]), topology::node_guid(t, g.node[b]));
    });
    n_ = static_cast<unsigned>(order_.size());
    id_of_.assign(g.size(), kNone);
    for (unsigned i = 0; i < n_; ++i) id_of_[order_[i]] = i;
    links_.resize(n_);
    for (unsigned i = 0; i < n_; ++i)
      for (const auto& [port, to] : g.adj[order_[i]])
        if (id_of_[to] != kNone) links_[i].push_back({port, id_of_[to]});
    out_link_.assign(std::size_t{n_} * n_, kNone);
    lane_.assign(std::size_t{n_} * n_, kNone);
    vertex_of_.assign(std::size_t{layers_} * n_ * n_, kNone);
    where_.assign(std::size_t{n_} * n_, Where{});
    in_lane_.assign(layers_, 0);
  }

  // "" when routed, else OpenSM's reason.
  std::string route(SwitchPairSls& sls) {
    for (unsigned root = 0; root < n_; ++root) route_tree(root);
    if (const std::string why = assign_layers(); !why.empty()) return why;
    sls.lanes_before.assign(in_lane_.begin(), in_lane_.begin() + lanes_needed_);
    balance();
    sls.lanes_after.assign(in_lane_.begin(), in_lane_.begin() + lanes_needed_);
    sls.layers = lanes_needed_;
    return "";
  }

  // The LFTs, and the SL of every pair of switches (by switch node).
  void write(std::vector<std::vector<uint8_t>>& lft, const Lids& lids, SwitchPairSls& sls) const {
    for (unsigned s = 0; s < g_.size(); ++s) lft[g_.node[s]].assign(std::size_t{lids.top} + 1, kNoPath);
    for (unsigned i = 0; i < n_; ++i) {
      std::vector<uint8_t>& table = lft[g_.node[order_[i]]];
      for (unsigned lid = 1; lid <= lids.top; ++lid) {
        const LinkEnd owner = lids.owner[lid];
        if (owner.node == topology::kNoNode) continue;
        unsigned dst = kNone;
        uint8_t local_port = 0;
        if (t_.nodes[owner.node].kind == NodeKind::Switch) {
          dst = id_of_[g_.index[owner.node]];
        } else if (const auto attach = index_.peer(owner.node, owner.port); attach && g_.index[attach->node] >= 0) {
          dst = id_of_[g_.index[attach->node]];
          local_port = static_cast<uint8_t>(attach->port);
        }
        if (dst == kNone) continue;
        if (dst == i)
          table[lid] = local_port;
        else if (out(i, dst) != kNone)
          table[lid] = static_cast<uint8_t>(links_[i][out(i, dst)].port);
      }
    }
    sls.switch_row.assign(t_.nodes.size(), -1);
    for (unsigned i = 0; i < n_; ++i) sls.switch_row[g_.node[order_[i]]] = static_cast<int>(i);
    sls.switches = n_;
    sls.local = static_cast<uint8_t>(start_vl_);
    sls.sl.assign(std::size_t{n_} * n_, static_cast<uint8_t>(start_vl_));
    for (unsigned i = 0; i < n_; ++i)
      for (unsigned j = 0; j < n_; ++j)
        if (i != j && lane_[pair(i, j)] != kNone) sls.sl[pair(i, j)] = static_cast<uint8_t>(lane_[pair(i, j)]);
  }

 private:
  struct Link {
    unsigned port;
    unsigned to;  // lash id
  };
  // A channel dependency graph vertex: the channel from -> to in one layer.
  struct Dep {
    unsigned v = kNone;
    int used = 0;
  };
  struct Vertex {
    unsigned from = 0, to = 0;
    bool temp = false;
    int num_temp_depend = 0, num_using = 0, num_deps = 0;
    std::vector<Dep> deps;  // slots; the first num_deps are the dependencies
  };
  // A pair's place per layer (OpenSM's virtual_location): 1 = its paths are
  // there, 2 = tried there and refused (balancing), 0 = not there.
  struct Where {
    uint8_t state[16] = {};
  };

  std::size_t pair(unsigned a, unsigned b) const { return std::size_t{a} * n_ + b; }
  unsigned& out(unsigned a, unsigned b) { return out_link_[pair(a, b)]; }
  unsigned out(unsigned a, unsigned b) const { return out_link_[pair(a, b)]; }
  unsigned next_switch(unsigned s, unsigned dst) const { return links_[s][out(s, dst)].to; }
  unsigned& vertex_at(unsigned lane, unsigned from, unsigned to) {
    return vertex_of_[(std::size_t{lane} * n_ + from) * n_ + to];
  }

  unsigned first_link_to(unsigned s, unsigned to) const {
    for (unsigned k = 0; k < links_[s].size(); ++k)
      if (links_[s][k].to == to) return k;
    return static_cast<unsigned>(links_[s].size());
  }

  // shortest_path + generate_routing_func_for_mst for one root.
  void route_tree(unsigned root) {
    std::vector<unsigned> parent(n_, kNone), queue{root};
    std::vector<char> queued(n_, 0);
    queued[root] = 1;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const unsigned s = queue[head];
      for (const Link& l : links_[s])
        if (!queued[l.to]) {
          queued[l.to] = 1;
          parent[l.to] = s;
          queue.push_back(l.to);
        }
    }
    for (const unsigned d : queue)  // every ancestor of d routes d towards its child on the way
      for (unsigned child = d, a = parent[d]; a != kNone; child = a, a = parent[a])
        if (out(a, d) == kNone) out(a, d) = first_link_to(a, child);
  }

  unsigned new_vertex(unsigned from, unsigned to) {
    unsigned v;
    if (!free_.empty()) {  // the slot freed last, as glibc's allocator hands back memory
      v = free_.back();
      free_.pop_back();
      pool_[v] = Vertex{};
    } else {
      v = static_cast<unsigned>(pool_.size());
      pool_.emplace_back();
    }
    pool_[v].from = from;
    pool_[v].to = to;
    pool_[v].temp = true;
    return v;
  }
  void free_vertex(unsigned v) { free_.push_back(v); }

  // generate_cdg_for_sp: the path sw -> dst's channels and dependencies into a layer.
  void add_path(unsigned sw, unsigned dst, unsigned lane) {
    unsigned prev = kNone;
    unsigned next = next_switch(sw, dst);
    while (sw != dst) {
      unsigned& slot = vertex_at(lane, sw, next);
      if (slot == kNone) slot = new_vertex(sw, next);
      const unsigned v = slot;
      ++pool_[v].num_using;
      if (prev != kNone) {
        Vertex& p = pool_[prev];
        bool exists = false;
        for (int k = 0; k < p.num_deps; ++k)
          if (p.deps[k].v == v) {
            exists = true;
            ++p.deps[k].used;
          }
        if (!exists) {
          if (static_cast<int>(p.deps.size()) == p.num_deps) p.deps.emplace_back();
          p.deps[p.num_deps].v = v;
          ++p.deps[p.num_deps].used;
          ++p.num_deps;
          if (!p.temp) ++p.num_temp_depend;
        }
      }
      sw = next;
      if (sw != dst) next = next_switch(sw, dst);
      prev = v;
    }
  }

  // set_temp_depend_to_permanent_for_sp
  void keep_path(unsigned sw, unsigned dst, unsigned lane) {
    while (sw != dst) {
      const unsigned next = next_switch(sw, dst);
      Vertex& v = pool_[vertex_at(lane, sw, next)];
      if (v.temp)
        v.temp = false;
      else
        v.num_temp_depend = 0;
      sw = next;
    }
  }

  // remove_temp_depend_for_sp
  void drop_path(unsigned sw, unsigned dst, unsigned lane) {
    while (sw != dst) {
      const unsigned next = next_switch(sw, dst);
      unsigned& slot = vertex_at(lane, sw, next);
      Vertex& v = pool_[slot];
      if (v.temp) {
        free_vertex(slot);
        slot = kNone;
      } else {
        v.num_deps -= v.num_temp_depend;
        v.num_temp_depend = 0;
        --v.num_using;
        for (std::size_t k = static_cast<std::size_t>(v.num_deps); k < v.deps.size(); ++k) v.deps[k].used = 0;
      }
      sw = next;
    }
  }

  // remove_semipermanent_depend_for_sp
  void remove_path(unsigned sw, unsigned dst, unsigned lane) {
    while (sw != dst) {
      const unsigned next = next_switch(sw, dst);
      unsigned& slot = vertex_at(lane, sw, next);
      const unsigned vi = slot;
      if (pool_[vi].num_using == 1) {
        free_vertex(vi);
        slot = kNone;
      } else {
        Vertex& v = pool_[vi];
        --v.num_using;
        if (next != dst) {
          const unsigned after = vertex_at(lane, next, next_switch(next, dst));
          int depend = 0;
          for (int k = 0; k < v.num_deps; ++k)
            if (v.deps[k].v == after) depend = k;
          if (v.deps[depend].used == 1) {
            for (int k = depend; k < v.num_deps - 1; ++k) v.deps[k] = v.deps[k + 1];
            --v.num_deps;
          } else {
            --v.deps[depend].used;
          }
        }
      }
      sw = next;
    }
  }

  // cycle_exists from the path's first channel: a cycle reachable from it.
  bool cycle_from(unsigned start) {
    ++epoch_;
    if (mark_.size() < pool_.size()) mark_.resize(pool_.size(), {0, 0});
    struct Frame {
      unsigned v;
      int next;
    };
    std::vector<Frame> stack{{start, 0}};
    mark_[start] = {epoch_, 1};  // 1 = on the stack, 2 = done
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Vertex& v = pool_[f.v];
      if (f.next < v.num_deps) {
        const unsigned w = v.deps[f.next++].v;
        if (mark_[w].epoch != epoch_) {
          mark_[w] = {epoch_, 1};
          stack.push_back({w, 0});
        } else if (mark_[w].state == 1) {
          return true;
        }
      } else {
        mark_[f.v].state = 2;
        stack.pop_back();
      }
    }
    return false;
  }

  // Both paths of the pair into `lane`: true when they close no cycle (kept), false (dropped).
  bool try_pair(unsigned i, unsigned j, unsigned lane) {
    add_path(i, j, lane);
    add_path(j, i, lane);
    const bool cycle = cycle_from(vertex_at(lane, i, next_switch(i, j))) ||
                       cycle_from(vertex_at(lane, j, next_switch(j, i)));
    if (cycle) {
      drop_path(i, j, lane);
      drop_path(j, i, lane);
      return false;
    }
    keep_path(i, j, lane);
    keep_path(j, i, lane);
    return true;
  }

  // lash_core's layer assignment.
  std::string assign_layers() {
    lanes_needed_ = 1;
    for (unsigned i = 0; i < n_; ++i)
      for (unsigned j = i + 1; j < n_; ++j) {
        if (out(i, j) == kNone) continue;  // not connected: OpenSM sees one component only
        unsigned lane = 0;
        bool placed = false;
        while (lane < lanes_needed_ && !placed) {
          placed = try_pair(i, j, lane);
          if (!placed) ++lane;
        }
        if (!placed) {
          if (++lanes_needed_ > layers_)
            return "lane requirements (" + std::to_string(lanes_needed_) + ") exceed available lanes (" +
                   std::to_string(layers_) + ") with starting lane (" + std::to_string(start_vl_) + ")";
          add_path(i, j, lane);
          add_path(j, i, lane);
          keep_path(i, j, lane);
          keep_path(j, i, lane);
        }
        in_lane_[lane] += 2;
        lane_[pair(i, j)] = lane_[pair(j, i)] = lane + start_vl_;
        where_[pair(i, j)].state[lane] = where_[pair(j, i)].state[lane] = 1;
      }
    return "";
  }

  // balance_virtual_lanes
  void balance() {
    if (lanes_needed_ == 1) return;
    GlibcRandom rnd(1);
    unsigned max_lane = 0, min_lane = lanes_needed_ - 1;
    int trials = in_lane_[max_lane];
    for (bool stop = false; !stop;) {
      unsigned src = static_cast<unsigned>(rnd.next()) % n_, dst = static_cast<unsigned>(rnd.next()) % n_;
      while (where_[pair(src, dst)].state[max_lane] != 1) {
        const unsigned start = dst;
        dst = dst == n_ - 1 ? 0 : dst + 1;
        while (dst != start && where_[pair(src, dst)].state[max_lane] != 1) dst = dst == n_ - 1 ? 0 : dst + 1;
        if (where_[pair(src, dst)].state[max_lane] != 1) src = src == n_ - 1 ? 0 : src + 1;
      }
      if (!try_pair(src, dst, min_lane)) {
        where_[pair(src, dst)].state[max_lane] = where_[pair(dst, src)].state[max_lane] = 2;
        trials -= 2;
      } else {
        in_lane_[max_lane] -= 2;
        in_lane_[min_lane] += 2;
        remove_path(src, dst, max_lane);
        remove_path(dst, src, max_lane);
        where_[pair(src, dst)].state[max_lane] = where_[pair(dst, src)].state[max_lane] = 0;
        where_[pair(src, dst)].state[min_lane] = where_[pair(dst, src)].state[min_lane] = 1;
        lane_[pair(src, dst)] = lane_[pair(dst, src)] = min_lane + start_vl_;
      }
      if (trials == 0)
        stop = true;
      else if (in_lane_[max_lane] - in_lane_[min_lane] < kBalanceLimit)
        stop = true;
      const unsigned old_min = min_lane, old_max = max_lane;
      int fewest = INT32_MAX, most = 0;
      for (unsigned l = 0; l < lanes_needed_; ++l) {
        if (in_lane_[l] < fewest) {
          fewest = in_lane_[l];
          min_lane = l;
        }
        if (in_lane_[l] > most) {
          most = in_lane_[l];
          max_lane = l;
        }
      }
      if (old_min != min_lane) {
        trials = in_lane_[max_lane];
        retry(max_lane);
      }
      if (old_max != max_lane) {
        trials = in_lane_[max_lane];
        retry(old_max);
      }
    }
  }

  // The pairs refused in `lane` may be tried again.
  void retry(unsigned lane) {
    for (Where& w : where_)
      if (w.state[lane] == 2) w.state[lane] = 1;
  }

  const Topology& t_;
  const TopologyIndex& index_;
  const SwitchGraph& g_;
  unsigned layers_, start_vl_;
  unsigned n_ = 0;
  std::vector<unsigned> order_;           // lash id -> switch index
  std::vector<unsigned> id_of_;           // switch index -> lash id, or kNone
  std::vector<std::vector<Link>> links_;  // lash id -> its links
  std::vector<unsigned> out_link_;        // [a * n + b]: a's link towards b
  std::vector<unsigned> lane_;            // [a * n + b]: the SL of the path a -> b
  std::vector<unsigned> vertex_of_;       // [(lane * n + from) * n + to]: pool index
  std::vector<Where> where_;
  std::vector<int> in_lane_;              // paths per layer (OpenSM's num_mst_in_lane)
  unsigned lanes_needed_ = 1;
  std::vector<Vertex> pool_;
  std::vector<unsigned> free_;
  struct Mark {
    unsigned epoch;
    int state;
  };
  std::vector<Mark> mark_;
  unsigned epoch_ = 0;
};

}  // namespace

std::string opensm_lash(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids,
                        unsigned vls, unsigned start_vl, std::vector<std::vector<uint8_t>>& lft,
                        SwitchPairSls& sls) {
  const unsigned layers_available = std::min(15u, vls);
  if (start_vl >= layers_available)
    return "start VL (" + std::to_string(start_vl) + ") too high for min operational VL (" +
           std::to_string(layers_available) + ")";
  Lash lash(t, index, g, lids, layers_available - start_vl, start_vl);
  if (std::string why = lash.route(sls); !why.empty()) return why;
  lash.write(lft, lids, sls);
  return "";
}

}  // namespace hcasim::routing::detail
