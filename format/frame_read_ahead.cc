// FrameReadAhead: chunks inflated ahead on a thread (frame_read_ahead.h).
#include "format/frame_read_ahead.h"

#include <utility>

namespace heaprec::format {

FrameReadAhead::FrameReadAhead(FrameReader* frames, bool thread) : frames_(frames) {
  if (thread) thread_ = std::thread([this] { Run(); });
}

FrameReadAhead::~FrameReadAhead() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  room_.notify_one();
  thread_.join();
}

void FrameReadAhead::Read(std::vector<uint8_t>* bytes, Item* item) {
  item->status = frames_->Next(bytes);
  item->chunk_offset = frames_->chunk_offset();
  item->offset = frames_->offset();
  item->starts_frame = frames_->chunk_starts_frame();
  item->error_offset = frames_->error_offset();
  item->error = item->status == FrameReader::Status::kError ? frames_->error() : std::string();
}

void FrameReadAhead::Run() {
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      room_.wait(lock, [&] { return stop_ || full_.size() < kAhead; });
      if (stop_) return;
      if (!free_.empty()) {
        item.bytes = std::move(free_.back());
        free_.pop_back();
      }
    }
    Read(&item.bytes, &item);  // outside the lock: the caller decodes meanwhile
    const bool last = item.status != FrameReader::Status::kChunk;
    {
      std::lock_guard<std::mutex> lock(mu_);
      full_.push_back(std::move(item));
    }
    ready_.notify_one();
    if (last) return;
  }
}

FrameReader::Status FrameReadAhead::Next(std::vector<uint8_t>* chunk) {
  if (!thread_.joinable()) {
    Read(chunk, &now_);
    return now_.status;
  }
  Item item;
  {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !full_.empty(); });
    item = std::move(full_.front());
    full_.pop_front();
    if (chunk->capacity() != 0) free_.push_back(std::move(*chunk));
  }
  room_.notify_one();
  *chunk = std::move(item.bytes);
  now_ = std::move(item);
  return now_.status;
}

}  // namespace heaprec::format
