//! The order in which many independent lookups are made: grouped by the
//! region of memory (a 2 MiB page) each starts in, so that a few pages are
//! in use at a time and the TLB holds them, and each one's memory asked for
//! [`AHEAD`] lookups before it is made, so that it has arrived. Building the
//! index and resolving a book's moves both make their lookups this way.

/// How many lookups pass between asking for a lookup's memory and making it.
pub(super) const AHEAD: usize = 16;

/// Lookups in order of region; the buffers are kept from one use to the next.
#[derive(Default)]
pub(super) struct RegionOrder {
    order: Vec<u32>,
    counts: Vec<u32>,
}

impl RegionOrder {
    /// Orders lookups `0..regions.len()` by `regions` (each below
    /// `region_count`), stably (lookups of one region keep their order),
    /// by counting.
    pub fn sort(&mut self, regions: &[u32], region_count: usize) {
        let RegionOrder { order, counts } = self;
        counts.clear();
        counts.resize(region_count + 1, 0);
        for &region in regions {
            counts[region as usize + 1] += 1;
        }
        for k in 1..counts.len() {
            counts[k] += counts[k - 1];
        }
        order.clear();
        order.resize(regions.len(), 0);
        for (i, &region) in regions.iter().enumerate() {
            let at = &mut counts[region as usize];
            order[*at as usize] = i as u32;
            *at += 1;
        }
    }

    /// The lookups in the order [`RegionOrder::sort`] made, each with the
    /// one [`AHEAD`] places later (if any), whose memory to ask for now.
    pub fn with_ahead(&self) -> impl Iterator<Item = (usize, Option<usize>)> + '_ {
        let order = &self.order;
        order.iter().enumerate().map(move |(k, &i)| (i as usize, order.get(k + AHEAD).map(|&a| a as usize)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_come_once_each_in_region_order_keeping_ties_in_order_with_the_one_ahead() {
        let regions: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 37).collect();
        let mut order = RegionOrder::default();
        order.sort(&regions, 37);
        let mut slow: Vec<usize> = (0..1000).collect();
        slow.sort_by_key(|&i| regions[i]);
        let visited: Vec<(usize, Option<usize>)> = order.with_ahead().collect();
        let expected: Vec<(usize, Option<usize>)> =
            slow.iter().enumerate().map(|(k, &i)| (i, slow.get(k + AHEAD).copied())).collect();
        assert_eq!(visited, expected);
    }
}
