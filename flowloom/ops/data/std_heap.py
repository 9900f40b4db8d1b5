"""A binary heap that breaks ties the way TF's PriorityQueue does.

TF's PriorityQueue keeps its elements in a C++ `std::priority_queue` ordered only by the
int64 priority (smallest first), so elements of equal priority come out in the order the
heap's sift steps leave them, not in arrival order. `push` and `pop` here make the same
moves as the GNU C++ library's `push_heap` and `pop_heap` (the library TF's Linux builds
use), on a list of (priority, item) pairs, so equal priorities come out in TF's order.
"""


def _sift_up(heap, hole, top, entry):
    # __push_heap: move parents down while the parent comes after `entry`
    key = entry[0]
    parent = (hole - 1) // 2
    while hole > top and heap[parent][0] > key:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = entry


def push(heap, priority, item):
    """Adds `item` with int `priority` (std::priority_queue::push)."""
    heap.append((priority, item))
    _sift_up(heap, len(heap) - 1, 0, heap[-1])


def pop(heap):
    """Removes and returns the item of the smallest priority (top(), then pop())."""
    top = heap[0][1]
    n = len(heap) - 1
    if n > 0:
        # __pop_heap: the last entry goes to the hole the top leaves (__adjust_heap)
        entry = heap[n]
        heap[n] = heap[0]
        hole = child = 0
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if heap[child - 1][0] < heap[child][0]:  # comp(child, child - 1): the left is first
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if n % 2 == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        _sift_up(heap, hole, 0, entry)
    heap.pop()
    return top
