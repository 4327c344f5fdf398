#pragma once
// Fills the subnet administrator's database from what the subnet manager
// learned in its sweep (SubnetView): "after configuring the subnet, the SM
// builds the SA database ... a series of PathRecords ... includes the SL"
// (seed 004, "PathRecords Stored in SA Database"). Pure C++, no SystemC.
//
// Rules:
// - Tables (declare_sa_tables): NodeRecord, PortInfoRecord, LinkRecord,
//   PathRecord, SL2VLRecord, VLArbRecord with the layouts of
//   ib::sa_record_layout and these keys (ComponentMask bits, OpenSM
//   IB_*_COMPMASK_* numbering as in ib/sa_records.cpp): NodeRecord LID;
//   PortInfoRecord EndPortLID + PortNum; LinkRecord FromLID + FromPort;
//   PathRecord DLID + SLID (the model addresses ports by LID; the GIDs are
//   filled but not part of the key); SL2VLRecord LID + InputPortNum +
//   OutputPortNum; VLArbRecord LID + OutputPortNum + BlockNumber. A table
//   already declared is left as it is.
// - A node's LID: a switch's LID (port 0); an HCA port's base LID.
// - NodeRecord: one per switch and one per HCA port that has a LID, as OpenSM
//   does (osm_sa_node_record.c): LID = that LID, NodeInfo as read with PortGUID
//   = that port's GUID, NodeDescription = the node's name.
// - Port GUIDs: a switch's is its NodeGUID; an HCA port n's is NodeGUID + n
//   (the model's numbering, sma.hpp NodeIdentity).
// - PortInfoRecord: one per port the view holds PortInfo for: switch ports 0..N
//   (EndPortLID = the switch's LID), HCA ports 1..N (EndPortLID = the port's
//   base LID), linked or not. PortInfo as programmed.
// - LinkRecord: two per link, one per direction: FromLID / ToLID = the LIDs of
//   the two nodes (above), FromPort / ToPort the port numbers.
// - SL2VLRecord: one per table the view holds: a switch's (input, output) pair
//   with LID = the switch's LID; an HCA port's (0, port) with LID = the port's
//   base LID, InputPortNum 0, OutputPortNum = the port.
// - VLArbRecord: four per port the view holds arbitration for (switch ports
//   1..N, HCA ports 1..N): blocks 1 = low 0-31, 2 = low 32-63, 3 = high 0-31,
//   4 = high 32-63, entries past the end of the table zero.
// - PathRecord: one per ordered pair of LIDs of two different HCA ports (a
//   port's paths to itself, and between its own LIDs, are not included), all
//   2^LMC LIDs of each, when the LFTs lead from the source port to the DLID
//   (sa_path_params.hpp); unreachable pairs get none. Fields as OpenSM
//   pr_rcv_build_pr fills them: SGID / DGID = the GIDPrefix of the port's
//   PortInfo (0xFE80::/64 when 0) + port GUID; SLID, DLID; SL = the routing
//   engine's SL of the pair when it hands out SLs (lash: routing::path_sl),
//   else view.path_sl;
//   MTU, Rate, PacketLifeTime = view.packet_life, each with selector 2
//   ("exactly"); P_Key: 0xFFFF when the view holds no P_KeyTables, else the
//   first key of the source port's table that the destination port's table
//   accepts (ib/pkey.hpp: same partition, not both limited), and no record
//   for a pair that shares no partition (OpenSM); Reversible = 1 when the DLID's port also
//   reaches the SLID; NumbPath 0 (OpenSM: a response carries only the
//   Reversible bit of that byte); HopLimit 0 (OpenSM sets it only for paths
//   through a router); Preference 0 when the source and destination LIDs are
//   at the same offset from their bases, else 2 (OpenSM's "redundant" and "not
//   redundant" groups); ServiceID, FlowLabel, TClass, QoSClass, RawTraffic 0.
// - Order (so RIDs): NodeRecords in node order, PortInfoRecords by node then
//   port, LinkRecords in link order (a->b then b->a), SL2VL by node then
//   (input, output), VLArb by node, port, block; PathRecords by destination
//   (HCA ports in node and port order, each port's LIDs ascending), then
//   source in the same order.
// - Records are written with SaDatabase::set, so filling again from the same
//   view replaces each record in place (same RIDs); records the view no longer
//   holds are not deleted. Into a table that is empty when the fill begins they
//   are written with add (the view gives each key once; this saves the key
//   lookup, which is most of the cost of a large fill), and such a PathRecord
//   table is first given room for a record per reachable (source LID,
//   destination LID) pair (SaDatabase::reserve), so it is not copied as it grows.
// - Cost: O(records + DLIDs x nodes): each DLID's paths are resolved once for
//   all sources; each record is encoded into a stack buffer (no allocation
//   beyond the database's own storage).

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/ib/sa_record_types.hpp"
#include "models/mgmt/sa_database.hpp"
#include "models/mgmt/sa_path_params.hpp"
#include "models/mgmt/subnet_view.hpp"

namespace hcasim::mgmt {

// Key masks (ComponentMask bits; OpenSM IB_*_COMPMASK_*).
constexpr uint64_t kNodeRecordKey = 1ull << 0;                                   // LID
constexpr uint64_t kPortInfoRecordKey = (1ull << 0) | (1ull << 1);               // EndPortLID, PortNum
constexpr uint64_t kLinkRecordKey = (1ull << 0) | (1ull << 1);                   // FromLID, FromPort
constexpr uint64_t kPathRecordKey = (1ull << 4) | (1ull << 5);                   // DLID, SLID
constexpr uint64_t kSl2VlRecordKey = (1ull << 0) | (1ull << 1) | (1ull << 2);    // LID, InputPortNum, OutputPortNum
constexpr uint64_t kVlArbRecordKey = (1ull << 0) | (1ull << 1) | (1ull << 2);    // LID, OutputPortNum, BlockNumber

constexpr uint16_t kPathPkey = 0xFFFF;                 // the default partition's full-member P_Key
constexpr uint8_t kPathNumbPath = 0;                   // OpenSM pr_rcv_build_pr: only the Reversible bit
constexpr uint8_t kPathHopLimit = 0;                   // OpenSM: set only through a router
constexpr uint64_t kDefaultGidPrefix = 0xFE80000000000000ull;  // link-local prefix (OpenSM default subnet_prefix)

void declare_sa_tables(SaDatabase& db);

struct SaFillStats {
  size_t node_records = 0;
  size_t port_info_records = 0;
  size_t link_records = 0;
  size_t sl2vl_records = 0;
  size_t vlarb_records = 0;
  size_t path_records = 0;
  size_t unreachable_pairs = 0;   // (SLID, DLID) pairs of different HCA ports with no path
  size_t non_reversible = 0;      // PathRecords with Reversible 0
  uint64_t path_hops = 0;         // sum over PathRecords of the switches crossed
  uint16_t max_hops = 0;
  size_t errors = 0;              // records the database refused (e.g. out of RIDs)
};

// Declares the tables (declare_sa_tables) and writes every record above.
SaFillStats fill_sa_database(SaDatabase& db, const SubnetView& view);

// The GID of a port (prefix from its PortInfo, GUID as above), 16 bytes big-endian.
std::array<uint8_t, 16> port_gid(const SubnetView& view, topology::LinkEnd port);

// The PathRecords from HCA port `src` to HCA port `dst` (src != dst), built as
// fill_sa_database does, without a database: for each source LID, each
// destination LID, in that order; unreachable LID pairs are left out. The
// tracer must be built on `view`. For a client or a test that wants the paths
// of one pair.
std::vector<ib::PathRecord> path_records_between(const SubnetView& view, PathTracer& tracer, topology::LinkEnd src,
                                                 topology::LinkEnd dst);
std::vector<ib::PathRecord> path_records_between(const SubnetView& view, topology::LinkEnd src, topology::LinkEnd dst);

}  // namespace hcasim::mgmt
