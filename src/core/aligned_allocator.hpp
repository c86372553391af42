// An allocator for std::vector whose storage starts on a cache-line boundary (64 bytes).
// The pair loop's records (equations.cpp) are read whole for every neighbour; with the
// allocation aligned, a record of 8 k doubles spans k cache lines instead of k + 1 (glibc's
// malloc aligns large blocks to 16 bytes only).
#pragma once

#include <cstddef>
#include <new>

namespace regosph {

template <class T, std::size_t Alignment = 64>
struct AlignedAllocator {
    using value_type = T;
    template <class U>
    struct rebind {
        using other = AlignedAllocator<U, Alignment>;
    };
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U, Alignment>&) noexcept {}

    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{Alignment}));
    }
    void deallocate(T* p, std::size_t) noexcept {
        ::operator delete(p, std::align_val_t{Alignment});
    }
    template <class U>
    bool operator==(const AlignedAllocator<U, Alignment>&) const noexcept {
        return true;
    }
};

}  // namespace regosph
