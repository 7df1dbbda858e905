//! How messages and summaries say a count: "1 line", never "1 lines".

/// `n` and a noun, singular for one: "1 line", "0 lines", "3 lines".
pub fn count(n: impl TryInto<i64> + Copy + std::fmt::Display, one: &str, many: &str) -> String {
    let noun = if n.try_into().ok() == Some(1) { one } else { many };
    format!("{n} {noun}")
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u64, "line", "lines"), "1 line");
        assert_eq!(count(0usize, "line", "lines"), "0 lines");
        assert_eq!(count(-1i32, "position", "positions"), "-1 positions");
        assert_eq!(count(2i64, "leaf", "leaves"), "2 leaves");
    }
}
