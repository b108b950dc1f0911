//! The global allocator: the system's (glibc malloc) for the portable kernels, mimalloc for
//! the tuned ones. Rust has one global allocator per program, so this one forwards to either:
//! `use_mimalloc` switches new allocations to mimalloc (called once, before the work, when
//! `--kernel tuned` is asked), and every free goes back to the allocator that owns the block
//! (mimalloc knows its own memory: `mi_is_in_heap_region`, a page-map lookup).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys as mi;

extern "C" {
    // Part of the mimalloc library libmimalloc-sys builds and links; declared here because the
    // crate only exposes it under its `extended` feature.
    fn mi_is_in_heap_region(p: *const c_void) -> bool;
}

/// New allocations go to mimalloc from the moment this is set.
static MIMALLOC: AtomicBool = AtomicBool::new(false);
/// Set once mimalloc has handed out a block: before that no block can be mimalloc's, and its
/// page map may not exist yet.
static MIMALLOC_USED: AtomicBool = AtomicBool::new(false);

pub fn use_mimalloc() {
    MIMALLOC_USED.store(true, Ordering::SeqCst);
    MIMALLOC.store(true, Ordering::SeqCst);
}

pub struct Switch;

fn owned_by_mimalloc(ptr: *mut u8) -> bool {
    // SAFETY: a read-only lookup in mimalloc's page map, which exists once it allocated.
    MIMALLOC_USED.load(Ordering::Relaxed) && unsafe { mi_is_in_heap_region(ptr as *const c_void) }
}

// SAFETY: every block is freed or resized by the allocator that made it (`owned_by_mimalloc`),
// and both allocators honour the layout's size and alignment.
unsafe impl GlobalAlloc for Switch {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if MIMALLOC.load(Ordering::Relaxed) {
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if owned_by_mimalloc(ptr) {
            unsafe { mi::mi_free(ptr as *mut c_void) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if owned_by_mimalloc(ptr) {
            unsafe { mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8 }
        } else {
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_freed_by_the_allocator_that_made_them() {
        // The test binary uses the switch too: a block made before the switch, one after, both
        // resized and freed. (Tests run in one process, so after this mimalloc stays on.)
        let mut before = vec![1u8; 1000];
        assert!(!owned_by_mimalloc(before.as_mut_ptr()) || MIMALLOC.load(Ordering::Relaxed));
        use_mimalloc();
        let mut after = vec![2u8; 1000];
        assert!(owned_by_mimalloc(after.as_mut_ptr()));
        before.resize(100_000, 3);
        after.resize(100_000, 4);
        assert_eq!((before[0], before[99_999], after[0], after[99_999]), (1, 3, 2, 4));
    }
}
