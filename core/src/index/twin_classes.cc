#include "neardup/core/index/internal/twin_classes.h"

#include <utility>

namespace neardup::index_internal {

const TwinClasses::Class* TwinClasses::ClassOf(uint32_t row) const {
  if (class_of_.empty()) return nullptr;
  const auto it = class_of_.find(row);
  if (it == class_of_.end()) return nullptr;
  return &classes_.at(it->second);
}

const uint64_t* TwinClasses::KeyOf(uint32_t row) const {
  const Class* c = ClassOf(row);
  return c == nullptr ? nullptr : &c->key;
}

void TwinClasses::Join(uint32_t representative, uint64_t key, uint32_t row) {
  uint32_t id;
  if (const auto it = class_of_.find(representative); it != class_of_.end()) {
    id = it->second;
  } else {
    if (free_class_ids_.empty()) {
      id = next_class_id_++;
    } else {
      id = free_class_ids_.back();
      free_class_ids_.pop_back();
    }
    Class& created = classes_[id];
    created.representative = representative;
    created.key = key;
    created.members.insert(representative);
    class_of_[representative] = id;
  }
  classes_.at(id).members.insert(row);
  class_of_[row] = id;
}

TwinClasses::Removal TwinClasses::Remove(uint32_t row) {
  Removal removal;
  if (class_of_.empty()) return removal;
  const auto it = class_of_.find(row);
  if (it == class_of_.end()) return removal;
  removal.was_member = true;
  const uint32_t id = it->second;
  class_of_.erase(it);
  Class& c = classes_.at(id);
  c.members.erase(row);
  if (c.representative == row) {
    c.representative = *c.members.begin();
    removal.new_representative = c.representative;
  }
  if (c.members.size() == 1) {
    // A class of one is an ordinary row again.
    class_of_.erase(c.representative);
    classes_.erase(id);
    free_class_ids_.push_back(id);
    if (classes_.empty()) {
      // The last flood gone: give its memory back.
      // (Swapped with empty ones: assigning {} may keep the capacity.)
      decltype(class_of_)().swap(class_of_);
      decltype(classes_)().swap(classes_);
      std::vector<uint32_t>().swap(free_class_ids_);
      next_class_id_ = 0;
    }
  }
  return removal;
}

size_t TwinClasses::SizeOf(uint32_t representative) const {
  const Class* c = ClassOf(representative);
  return c == nullptr ? 1 : c->members.size();
}

void TwinClasses::ForEachMember(uint32_t representative, size_t limit,
                                absl::FunctionRef<void(uint32_t)> f) const {
  const Class* c = ClassOf(representative);
  if (c == nullptr) {
    f(representative);
    return;
  }
  size_t emitted = 0;
  for (uint32_t row : c->members) {
    if (limit != 0 && emitted == limit) break;
    f(row);
    ++emitted;
  }
}

size_t TwinClasses::MemoryBytes() const {
  // btree nodes hold about 4 bytes per member plus node overhead.
  size_t members = 0;
  for (const auto& [id, c] : classes_) members += c.members.size();
  return class_of_.capacity() * (sizeof(std::pair<uint32_t, uint32_t>) + 1) +
         classes_.capacity() * (sizeof(std::pair<uint32_t, Class>) + 1) +
         free_class_ids_.capacity() * sizeof(uint32_t) + members * 6;
}

void RemoveTwinOrRow(TwinClasses& twins, std::vector<KeyChains>& tables,
                     uint32_t row) {
  const TwinClasses::Removal removal = twins.Remove(row);
  if (!removal.was_member) {
    for (KeyChains& table : tables) table.Remove(row);
  } else if (removal.new_representative != TwinClasses::kNoRepresentative) {
    for (KeyChains& table : tables) {
      const uint32_t tag = table.tag(row);
      table.Remove(row);
      table.Insert(tag, removal.new_representative);
    }
  }
}

}  // namespace neardup::index_internal
