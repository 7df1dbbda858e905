//! Advice to the kernel on how our own large allocations (the index, the
//! resolved targets, the repeated-line tables) are backed. Each call is only
//! a hint about pages, never about their contents: refused or unknown (an
//! older kernel, another system), it changes nothing but the time taken.

/// The whole pages (of `page` bytes) inside a vector's allocation, as
/// (start address, length), if there are any.
#[cfg(target_os = "linux")]
fn whole_pages<T>(vec: &mut Vec<T>, page: usize) -> Option<(*mut libc::c_void, usize)> {
    let start = vec.as_mut_ptr() as usize;
    let end = start + vec.capacity() * std::mem::size_of::<T>();
    let (from, to) = (start.next_multiple_of(page), end - end % page);
    // Lazily: an allocation too small to hold a whole page (an empty one
    // included) has `to` before `from`.
    (to > from).then(|| (from as *mut libc::c_void, to - from))
}

/// Asks the kernel to back a large, not yet touched allocation with huge
/// pages: lookups land anywhere in it, and with 4 KiB pages nearly every
/// one also misses the TLB.
pub fn advise_huge_pages<T>(vec: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    if let Some((from, len)) = whole_pages(vec, 2 << 20) {
        // SAFETY: the range lies within the vector's own allocation (rounded
        // inwards to whole huge pages); MADV_HUGEPAGE changes how pages are
        // backed, never their contents or protection.
        unsafe {
            libc::madvise(from, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = vec;
}

/// Asks the kernel to map every page of a large, zeroed, not yet touched
/// allocation now, in one call, rather than at a fault per page as it is
/// first written. A table that is filled at random is written all over at
/// once anyway; mapping 64 MiB page by page took about half of the time
/// spent doubling such a table.
pub fn populate<T>(vec: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    if let Some((from, len)) = whole_pages(vec, 4096) {
        // SAFETY: the range lies within the vector's own allocation (rounded
        // inwards to whole pages); MADV_POPULATE_WRITE maps the pages as a
        // write would, without writing: their contents stay as they are.
        unsafe {
            libc::madvise(from, len, libc::MADV_POPULATE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = vec;
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn allocations_without_a_whole_page_have_none_and_do_not_fail() {
        for capacity in [0usize, 1, 1000] {
            let mut small: Vec<u64> = Vec::with_capacity(capacity);
            assert_eq!(whole_pages(&mut small, 2 << 20), None, "{capacity} words");
            advise_huge_pages(&mut small);
            populate(&mut small);
        }
        let mut large: Vec<u64> = Vec::with_capacity(1 << 20);
        let (from, len) = whole_pages(&mut large, 4096).expect("8 MiB hold whole pages");
        let start = large.as_ptr() as usize;
        assert!(from as usize >= start && from as usize + len <= start + (8 << 20));
        assert_eq!((from as usize % 4096, len % 4096), (0, 0));
    }
}
