#pragma once
// complib's cl_heap (opensm 3.3.23: complib/cl_heap.c), the d-ary min-heap on
// 64-bit keys that OpenSM's dfsssp and nue run Dijkstra on, with the same
// moves, so that equal keys come out in the same order. Internal to the
// routing engines (opensm_dfsssp.cpp, opensm_nue.cpp).
//
// Rules, as cl_heap's:
// - `where[v]` is told every slot v moves to (cl_heap's pfn_index_update),
//   including the slot just past the heap when v leaves it; nothing else
//   touches it, so an entry for a vertex no longer in the heap is stale.
// - remove(i) takes out whatever is in slot i (nue relies on that, stale
//   slots included): the last element fills the slot and sifts down when its
//   parent is smaller, up when larger. extract_root() is remove(0).
// - Sifting down picks the smallest child, the last of equal ones.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hcasim::routing::detail {

class ClHeap {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  ClHeap(std::vector<std::size_t>& where, std::size_t capacity, unsigned arity = 4)
      : where_(where), capacity_(capacity), arity_(arity) {
    elems_.reserve(capacity);
  }
  // false when the heap is full (cl_heap_insert's CL_INSUFFICIENT_RESOURCES).
  bool insert(uint64_t key, uint32_t v) {
    if (elems_.size() == capacity_) return false;
    elems_.push_back({key, v});
    where_[v] = elems_.size() - 1;
    up(elems_.size() - 1);
    return true;
  }
  void modify_key(uint64_t key, std::size_t i) {
    const uint64_t old = elems_[i].key;
    elems_[i].key = key;
    if (key < old)
      up(i);
    else if (key > old)
      down(i);
  }
  // The vertex in slot i, taken out; kNone when i is past the heap.
  uint32_t remove(std::size_t i) {
    if (i >= elems_.size()) return kNone;
    const Elem removed = elems_[i];
    const Elem last = elems_.back();
    elems_.pop_back();
    where_[removed.v] = elems_.size();
    if (i == elems_.size()) return removed.v;  // it was the last: nothing moves
    elems_[i] = last;
    where_[last.v] = i;
    if (i == 0) {
      down(0);
    } else {
      const uint64_t parent = elems_[(i - 1) / arity_].key;
      if (parent < last.key)
        down(i);
      else if (parent > last.key)
        up(i);
    }
    return removed.v;
  }
  uint32_t extract_root() { return remove(0); }

 private:
  struct Elem {
    uint64_t key;
    uint32_t v;
  };
  void down(std::size_t index) {
    const Elem tmp = elems_[index];
    std::size_t parent = index;
    bool moved = false;
    while (parent * arity_ + 1 < elems_.size()) {
      const std::size_t first = parent * arity_ + 1;
      std::size_t pick = first;
      for (std::size_t c = first + 1; c < first + arity_ && c < elems_.size(); ++c)
        if (elems_[c].key <= elems_[pick].key) pick = c;
      if (tmp.key <= elems_[pick].key) break;
      elems_[parent] = elems_[pick];
      where_[elems_[parent].v] = parent;
      parent = pick;
      moved = true;
    }
    if (moved) {
      elems_[parent] = tmp;
      where_[tmp.v] = parent;
    }
  }
  void up(std::size_t index) {
    if (index == 0) return;
    const Elem tmp = elems_[index];
    std::size_t parent = index, slot = 0;
    bool moved = false;
    do {
      const std::size_t child = parent;
      parent = (child - 1) / arity_;
      if (!(tmp.key < elems_[parent].key)) break;
      elems_[child] = elems_[parent];
      where_[elems_[child].v] = child;
      slot = parent;
      moved = true;
    } while (parent > 0);
    if (moved) {
      elems_[slot] = tmp;
      where_[tmp.v] = slot;
    }
  }
  std::vector<Elem> elems_;
  std::vector<std::size_t>& where_;
  std::size_t capacity_;
  unsigned arity_;
};

}  // namespace hcasim::routing::detail
