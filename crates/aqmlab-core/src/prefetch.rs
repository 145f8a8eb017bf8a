//! Software prefetch of the records an event is about to touch.
//!
//! With 100,000 flows nearly every event visits a flow whose records left the caches long ago,
//! and without a hint the misses come one after another, each as the code first reads a field:
//! the agent's lines, then the flow's, then its access link's. Asking for every line of a
//! record as soon as its address is known lets the memory system fetch them together, so the
//! event waits for about one miss instead of several. A hint only: nothing it does can change
//! a result, and on targets without the instruction it does nothing.

const LINE: usize = 64;

/// Ask for the cache lines of `bytes` bytes from `start` (a record, or its leading part).
#[inline(always)]
pub(crate) fn bytes<T>(start: *const T, bytes: usize) {
    let first = start as usize & !(LINE - 1);
    let last = (start as usize).wrapping_add(bytes.max(1) - 1) & !(LINE - 1);
    let mut line = first;
    while line <= last {
        hint(line as *const u8);
        line += LINE;
    }
}

/// Ask for every cache line of `record`.
#[inline(always)]
pub(crate) fn record<T>(record: &T) {
    bytes(record as *const T, std::mem::size_of::<T>());
}

#[inline(always)]
fn hint(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
