//! The kinds of failure ([`ErrorKind`]) that every error of the library
//! sorts itself into, each by an exhaustive match: a command's exit status
//! follows from the kind alone.

use crate::files::input::is_not_a_file;
use std::io;

/// The kinds of failure, each with its exit status (docs/README.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The arguments, the config or a book cannot be used as they are, or
    /// an output named is not a regular file: status 2.
    BadInput,
    /// A file could not be read or written: status 3.
    Io,
    /// A book changed while it was being read: status 3.
    BookChanged,
    /// An engine gave no answer, even when started again: status 3.
    Engine,
    /// bookminer's own fault (what it wrote does not read back): status 3.
    Internal,
    /// Stopped by Ctrl-C (or SIGTERM, SIGHUP): status 130.
    Interrupted,
}

/// The kind of an I/O failure: an output refused for not being a regular
/// file is bad input, wherever in the error's causes the refusal is; any
/// other is I/O.
pub fn io_kind(error: &io::Error) -> ErrorKind {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if error.downcast_ref::<io::Error>().is_some_and(is_not_a_file) {
            return ErrorKind::BadInput;
        }
        cause = error.source();
    }
    ErrorKind::Io
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::AtomicFile;

    /// The error of an output named over a device.
    fn refusal() -> io::Error {
        AtomicFile::create(std::path::Path::new("/dev/null")).err().expect("/dev/null is no regular file")
    }

    /// An error that holds another as its cause, as a library may wrap one.
    #[derive(Debug, thiserror::Error)]
    #[error("wrapped")]
    struct Wrapped(#[source] io::Error);

    #[test]
    fn an_output_refused_for_not_being_a_file_is_bad_input_wherever_it_is_among_the_causes() {
        assert_eq!(io_kind(&refusal()), ErrorKind::BadInput);
        let wrapped = io::Error::other(Wrapped(refusal()));
        assert_eq!(io_kind(&wrapped), ErrorKind::BadInput);
    }

    #[test]
    fn any_other_io_failure_is_io() {
        assert_eq!(io_kind(&io::Error::from(io::ErrorKind::NotFound)), ErrorKind::Io);
        assert_eq!(io_kind(&io::Error::other(Wrapped(io::Error::other("full")))), ErrorKind::Io);
    }
}
