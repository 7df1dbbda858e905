//! The processor's clock as a benchmark sees it, for `scripts/bench.sh` to
//! print beside its timings: on a virtual machine the clock a run gets moves
//! from one minute to the next, and every figure with it.
//!
//! A chain of dependent 64-bit multiplies runs at one multiply per three
//! cycles on current x86-64 cores (Intel since Nehalem, AMD since Zen), a
//! latency nothing else in the loop hides; the chain's speed is the clock.
//! Each step squares the last result (an odd number stays odd, never zero):
//! unlike multiplying by a constant, squaring cannot be regrouped into fewer
//! steps by the compiler.

use std::hint::black_box;
use std::time::Instant;

/// Multiplies in the chain: about a second at 2 GHz.
const STEPS: u64 = 700_000_000;
/// Cycles per multiply.
const LATENCY: f64 = 3.0;

fn main() {
    let (steps, mut x) = (black_box(STEPS), black_box(0x9e37_79b9_7f4a_7c15u64));
    let began = Instant::now();
    for _ in 0..steps {
        x = x.wrapping_mul(x);
    }
    let seconds = began.elapsed().as_secs_f64();
    black_box(x);
    println!("{:.2}", steps as f64 * LATENCY / seconds / 1e9);
}
