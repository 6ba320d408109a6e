#ifndef NEARDUP_EXTRACT_SRC_BUDGET_HEAP_H_
#define NEARDUP_EXTRACT_SRC_BUDGET_HEAP_H_

// The allocations of one C-library parse, within a byte budget on what is
// live at once, all freed with the heap. Past the budget (or when malloc
// fails) the parse is abandoned by longjmp to the caller's setjmp: the C
// library holds no resource but this memory, so nothing leaks, whatever
// state it was in.

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace neardup::extract::internal {

class BudgetHeap {
 public:
  explicit BudgetHeap(size_t budget) : budget_(budget) {}
  BudgetHeap(const BudgetHeap&) = delete;
  BudgetHeap& operator=(const BudgetHeap&) = delete;
  ~BudgetHeap() {
    Block* block = head_.next;
    while (block != &head_) {
      Block* next = block->next;
      std::free(block);
      block = next;
    }
  }

  void* Allocate(size_t size) {
    if (bounded_ && size > budget_ - used_) OutOfBudget();
    Block* block = static_cast<Block*>(std::malloc(sizeof(Block) + size));
    if (block == nullptr) OutOfBudget();
    block->size = size;
    block->prev = &head_;
    block->next = head_.next;
    head_.next->prev = block;
    head_.next = block;
    used_ += size;
    return block + 1;
  }
  void* AllocateZeroed(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / 2 / size) OutOfBudget();
    void* p = Allocate(count * size);
    std::memset(p, 0, count * size);
    return p;
  }
  void* Reallocate(void* old, size_t size) {
    if (old == nullptr) return Allocate(size);
    Block* block = static_cast<Block*>(old) - 1;
    void* fresh = Allocate(size);
    std::memcpy(fresh, old, block->size < size ? block->size : size);
    Free(old);
    return fresh;
  }
  void Free(void* p) {
    if (p == nullptr) return;
    Block* block = static_cast<Block*>(p) - 1;
    block->prev->next = block->next;
    block->next->prev = block->prev;
    used_ -= block->size;
    std::free(block);
  }

  // From now on allocations are not counted against the budget and never
  // jump (for work after the parse whose size the caller bounds).
  void LiftBudget() { bounded_ = false; }

  std::jmp_buf& out_of_budget() { return out_of_budget_; }
  size_t budget() const { return budget_; }

 private:
  struct alignas(16) Block {
    Block* prev;
    Block* next;
    size_t size;
  };

  [[noreturn]] void OutOfBudget() {
    if (!bounded_) std::abort();  // no setjmp to return to
    std::longjmp(out_of_budget_, 1);
  }

  const size_t budget_;
  bool bounded_ = true;
  size_t used_ = 0;  // <= budget_ while bounded_
  Block head_{&head_, &head_, 0};
  std::jmp_buf out_of_budget_;
};

}  // namespace neardup::extract::internal

#endif  // NEARDUP_EXTRACT_SRC_BUDGET_HEAP_H_
