// printf, assert and malloc/free as nvcc lowers them to the guide's system calls
// (tests/suite/cpu_syscalls.rs).
#include <cstdio>
#include <cassert>

extern "C" __global__ void hello(int base) {
  int t = threadIdx.x;
  printf("block %d thread %d: %d %5.2f %s %c %lld %x %p|%-4d|%08.3e\n", blockIdx.x, t, base + t, 1.5f * t,
         t % 2 ? "odd" : "even", 'a' + t, -5ll * t, 255u + t, (void*)0, t, 1234.5678 * t);
}

extern "C" __global__ void check(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] >= 0);
}

struct Node { int value; Node* next; };

// Each thread builds a linked list on the device heap, sums it, frees it.
extern "C" __global__ void lists(int* out, int len) {
  int t = threadIdx.x;
  Node* head = nullptr;
  for (int k = 0; k < len; k++) {
    Node* n = (Node*)malloc(sizeof(Node));
    if (!n) { out[t] = -1; return; }
    n->value = t * 100 + k;
    n->next = head;
    head = n;
  }
  int sum = 0;
  while (head) { Node* next = head->next; sum += head->value; free(head); head = next; }
  out[t] = sum;
}

// Thread 0 keeps a block for the next launch; the second launch reads and frees it.
__device__ int* kept;
extern "C" __global__ void keep(int v) { kept = (int*)malloc(4); *kept = v; }
extern "C" __global__ void take(int* out) { *out = *kept; free(kept); }
