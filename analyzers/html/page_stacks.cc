// Frames and the call tree of an HTML report (page_stacks.h).
#include "analyzers/html/page_stacks.h"

#include <cstdio>

#include "analyzers/diff.h"

namespace heaprec::analyzers::html {

PageStacks::PageStacks() {
  strings_.push_back("");
  string_index_[""] = 0;
  parent_.push_back(-1);  // the root
  frame_of_.push_back(-1);
}

int32_t PageStacks::StringIndex(const std::string& s) {
  const auto [it, added] = string_index_.emplace(s, int32_t(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

int32_t PageStacks::FrameIndex(const Frame& f) {
  const auto [it, added] = frame_index_.emplace(FrameKey(f), int32_t(frames_.size()));
  if (added) {
    frames_.push_back(f);
    StringIndex(f.function);
    StringIndex(f.file);
    StringIndex(f.module);
  }
  return it->second;
}

int32_t PageStacks::ChildAt(int32_t parent, int32_t frame) {
  const uint64_t key = (uint64_t(uint32_t(parent)) << 32) | uint32_t(frame);
  const auto [it, added] = child_.emplace(key, int32_t(parent_.size()));
  if (added) {
    parent_.push_back(parent);
    frame_of_.push_back(frame);
  }
  return it->second;
}

int32_t PageStacks::NoStack() {
  static const Frame kNoStack{"[no stack]", "", 0, "", 0, false};
  return Child(0, kNoStack);
}

void PageStacks::AddTo(nlohmann::json* page) const {
  nlohmann::json function = nlohmann::json::array(), file = nlohmann::json::array(),
                 module = nlohmann::json::array(), line = nlohmann::json::array(),
                 address = nlohmann::json::array(), offset = nlohmann::json::array(),
                 inlined = nlohmann::json::array(), allocator = nlohmann::json::array();
  char hex[32];
  for (const Frame& f : frames_) {
    function.push_back(string_index_.at(f.function));
    file.push_back(string_index_.at(f.file));
    module.push_back(string_index_.at(f.module));
    line.push_back(f.line);
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(f.address));
    address.push_back(hex);
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(f.offset));
    offset.push_back(f.module.empty() ? "" : hex);
    inlined.push_back(f.inlined ? 1 : 0);
    allocator.push_back(f.allocator ? 1 : 0);
  }
  (*page)["strings"] = strings_;
  (*page)["frames"] = {{"function", function}, {"file", file},          {"module", module},
                       {"line", line},         {"address", address},    {"offset", offset},
                       {"inlined", inlined},   {"allocator", allocator}};
  (*page)["nodes"] = {{"parent", parent_}, {"frame", frame_of_}};
}

int32_t StackNodes::NodeOf(uint32_t stack) {
  static const Frame kUnknown{"[unknown stack]", "", 0, "", 0, false};
  const format::StackTable& table = symbols_.stacks();
  if (stack == 0) return stacks_->NoStack();
  if (stack > table.size()) return stacks_->Child(0, kUnknown);
  if (stack >= memo_.size()) memo_.resize(stack + 1 + stack / 2, 0);
  // Up to the nearest ancestor already interned, then down from it.
  std::vector<uint32_t> chain;
  uint32_t s = stack;
  for (; s != 0 && (s >= memo_.size() || memo_[s] == 0); s = table.Parent(s)) chain.push_back(s);
  int32_t node = s == 0 ? 0 : memo_[s] - 1;
  for (auto id = chain.rbegin(); id != chain.rend(); ++id) {
    const uint64_t address = table.Address(*id);
    auto [it, added] = frames_of_.try_emplace(address);
    if (added) {
      const std::vector<Frame> frames = symbols_.FramesOf(address);
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
        it->second.push_back(stacks_->FrameIndex(*f));
      }
    }
    for (int32_t frame : it->second) node = stacks_->ChildAt(node, frame);
    if (*id >= memo_.size()) memo_.resize(*id + 1 + *id / 2, 0);
    memo_[*id] = node + 1;
  }
  return node;
}

}  // namespace heaprec::analyzers::html
