// FakeMemory (fake_memory.h).
#include "recorder/leakscan/fake_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace heaprec::recorder::leakscan {

void FakeMemory::Map(uint64_t address, uint64_t size) {
  auto next = mappings_.lower_bound(address);
  if ((next != mappings_.end() && next->first < address + size) ||
      (next != mappings_.begin() &&
       std::prev(next)->first + std::prev(next)->second.size() > address)) {
    std::fprintf(stderr, "FakeMemory::Map: 0x%llx overlaps a mapping\n",
                 static_cast<unsigned long long>(address));
    std::abort();
  }
  mappings_[address].assign(size, 0);
}

void FakeMemory::MakeUnreadable(uint64_t address, uint64_t size) {
  holes_[address] = address + size;
}

const std::vector<uint8_t>* FakeMemory::Find(uint64_t address, uint64_t size,
                                             uint64_t* start) const {
  auto it = mappings_.upper_bound(address);
  if (it == mappings_.begin()) return nullptr;
  --it;
  if (address - it->first > it->second.size() || it->second.size() - (address - it->first) < size) {
    return nullptr;
  }
  *start = it->first;
  return &it->second;
}

uint8_t* FakeMemory::Bytes(uint64_t address, uint64_t size) {
  uint64_t start;
  const std::vector<uint8_t>* m = Find(address, size, &start);
  if (m == nullptr) {
    std::fprintf(stderr, "FakeMemory: 0x%llx (+%llu) is not mapped\n",
                 static_cast<unsigned long long>(address), static_cast<unsigned long long>(size));
    std::abort();
  }
  return const_cast<uint8_t*>(m->data()) + (address - start);
}

void FakeMemory::Write64(uint64_t address, uint64_t value) {
  std::memcpy(Bytes(address, 8), &value, 8);
}

void FakeMemory::WriteBytes(uint64_t address, const void* bytes, uint64_t size) {
  std::memcpy(Bytes(address, size), bytes, size);
}

uint64_t FakeMemory::Read64(uint64_t address) const {
  uint64_t value;
  std::memcpy(&value, const_cast<FakeMemory*>(this)->Bytes(address, 8), 8);
  return value;
}

bool FakeMemory::Readable(uint64_t address, uint64_t size) const {
  uint64_t start;
  if (Find(address, size, &start) == nullptr) return false;
  for (auto h = holes_.begin(); h != holes_.end() && h->first < address + size; ++h) {
    if (h->second > address) return false;
  }
  return true;
}

void FakeMemory::Read(std::span<const ReadRequest> requests, std::span<bool> ok) {
  ++counts_.calls;
  counts_.requests += requests.size();
  counts_.max_requests_in_a_call =
      std::max<uint64_t>(counts_.max_requests_in_a_call, requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const ReadRequest& r = requests[i];
    counts_.bytes += r.length;
    counts_.smallest_request = std::min(counts_.smallest_request, r.length);
    ok[i] = Readable(r.address, r.length);
    if (ok[i]) std::memcpy(r.destination, Bytes(r.address, r.length), r.length);
  }
}

}  // namespace heaprec::recorder::leakscan
