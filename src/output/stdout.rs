//! How standard output is named: by `-o`, and in messages.

/// The name `-o` gives standard output, and reports give it.
pub const STDOUT: &str = "-";

/// How messages name standard output when lines are written to it.
pub const STDOUT_NAME: &str = "<standard output>";
