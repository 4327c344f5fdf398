#include "models/mgmt/sm_role.hpp"

namespace hcasim::mgmt {

bool wins(const SmIdentity& a, const SmIdentity& b) {
  return a.priority > b.priority || (a.priority == b.priority && a.guid < b.guid);
}

std::pair<uint64_t, uint64_t> takeover_bounds(const SmRoleConfig& c, uint64_t fail_ps) {
  return {fail_ps + (uint64_t{c.retries} + 1) * c.polling_ps, fail_ps + (uint64_t{c.retries} + 2) * c.polling_ps};
}

SmRole::SmRole(const SmRoleConfig& config, uint64_t guid) : config_(config), self_{guid, config.priority} {}

ib::SmInfo SmRole::info(uint32_t act_count) const {
  ib::SmInfo i;
  i.guid = self_.guid;
  i.act_count = act_count;
  i.priority = self_.priority;
  i.state = state_;
  return i;
}

void SmRole::found(const ib::SmInfo& other) {
  if (state_ != ib::SmState::Discovering) return;
  const SmIdentity them{other.guid, other.priority};
  const bool higher = (other.state == ib::SmState::Discovering || other.state == ib::SmState::Standby) && wins(them, self_);
  if (other.state == ib::SmState::Master || higher) {
    state_ = ib::SmState::Standby;
    master_ = them;
    unanswered_ = 0;
  }
}

ib::SmState SmRole::sweep_done() {
  if (state_ == ib::SmState::Discovering) {
    state_ = ib::SmState::Master;
    master_ = self_;
  }
  return state_;
}

SmRole::Action SmRole::tick() {
  if (state_ != ib::SmState::Standby) return Action::None;
  if (unanswered_ > config_.retries) {
    state_ = ib::SmState::Discovering;
    unanswered_ = 0;
    return Action::TakeOver;
  }
  ++unanswered_;
  return Action::Poll;
}

void SmRole::poll_answer(const ib::SmInfo& answer) {
  if (state_ != ib::SmState::Standby || answer.guid != master_.guid) return;
  if (answer.state == ib::SmState::Master ||
      (answer.state == ib::SmState::Standby && wins({answer.guid, answer.priority}, self_)))
    unanswered_ = 0;
}

bool SmRole::handover_received() {
  if (state_ != ib::SmState::Standby) return false;
  state_ = ib::SmState::Master;
  master_ = self_;
  unanswered_ = 0;
  return true;
}

bool SmRole::handover(const SmIdentity& to) {
  if (state_ != ib::SmState::Master || !wins(to, self_)) return false;
  state_ = ib::SmState::Standby;
  master_ = to;
  unanswered_ = 0;
  return true;
}

}  // namespace hcasim::mgmt
