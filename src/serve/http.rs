//! One connection, one request, one answer (docs/pictures.md, "What serve
//! answers"): the request's head read within [`HEAD_TIME`] and at most
//! [`MAX_HEAD`] bytes, its line and `Host` checked, the answer written
//! within [`WRITE_TIME`], then the connection closed. Whatever the client
//! does, the thread that serves it is free again within those bounds, and
//! every request line gets an answer or a close.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// The longest head read (request line and header fields): far more than
/// a browser sends; beyond it, 431.
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a client has to send its whole head; beyond it, 408 (or a
/// close, when it sent nothing).
pub const HEAD_TIME: Duration = Duration::from_secs(5);
/// How long an answer may take to be taken by the client.
pub const WRITE_TIME: Duration = Duration::from_secs(5);
/// What is read (and dropped) after the answer, so that the client is not
/// reset while it still sends what it began: at most this much, this long.
pub const DRAIN: (usize, Duration) = (8 << 20, Duration::from_secs(2));

/// A request, its head read and its line understood.
pub struct Request {
    /// GET, HEAD, ...
    pub method: String,
    /// The path and query, as sent.
    pub target: String,
    /// The `Host` field's value, if any.
    pub host: Option<String>,
}

/// An answer: the status, the body's type and the body.
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body's media type.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A page or a document.
    pub fn ok(content_type: &'static str, body: String) -> Reply {
        Reply { status: 200, content_type, body: body.into_bytes() }
    }

    /// An error: the status and a line saying why, as text.
    pub fn error(status: u16, why: impl Into<String>) -> Reply {
        let mut body = why.into();
        body.push('\n');
        Reply { status, content_type: "text/plain; charset=utf-8", body: body.into_bytes() }
    }
}

/// What reading a head gave.
enum Head {
    /// The head, up to and without its empty line.
    Whole(Vec<u8>),
    /// Longer than [`MAX_HEAD`].
    TooLong,
    /// The client stopped sending (closed, or ran out of time) first;
    /// what it had sent.
    Cut(Vec<u8>, bool),
}

/// Reads one request from `stream`: the request, or the answer its head
/// gets when it cannot be one (none when the client sent nothing).
pub fn read(stream: &mut TcpStream) -> Result<Request, Option<Reply>> {
    match read_head(stream) {
        Head::Whole(head) => parse(&head).map_err(Some),
        Head::TooLong => Err(Some(Reply::error(
            431,
            format!("the request's header is longer than {MAX_HEAD} bytes, all that is read"),
        ))),
        Head::Cut(sent, _) if sent.iter().all(u8::is_ascii_whitespace) => Err(None),
        Head::Cut(_, true) => {
            Err(Some(Reply::error(408, format!("the request's header did not end within {} s", HEAD_TIME.as_secs()))))
        }
        Head::Cut(_, false) => Err(Some(Reply::error(400, "the connection ended before the request's header did"))),
    }
}

/// The head: bytes up to the first empty line (CRLF or LF alone ending
/// each line), read within [`HEAD_TIME`].
fn read_head(stream: &mut TcpStream) -> Head {
    let deadline = Instant::now() + HEAD_TIME;
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Head::Cut(head, true);
        }
        let read = match stream.read(&mut chunk) {
            Ok(0) => return Head::Cut(head, false),
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Head::Cut(head, matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)),
        };
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&chunk[..read]);
        if let Some(end) = head_end(&head, from) {
            head.truncate(end);
            return if end > MAX_HEAD { Head::TooLong } else { Head::Whole(head) };
        }
        if head.len() > MAX_HEAD {
            return Head::TooLong;
        }
    }
}

/// Where the head ends (the offset of its empty line), searching from
/// `from`; empty lines before the request line are skipped, as RFC 9112
/// allows.
fn head_end(bytes: &[u8], from: usize) -> Option<usize> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let from = from.max(start);
    bytes[from..].windows(2).enumerate().find_map(|(i, pair)| match pair {
        b"\n\n" => Some(from + i + 1),
        [b'\n', b'\r'] if bytes.get(from + i + 2) == Some(&b'\n') => Some(from + i + 1),
        _ => None,
    })
}

/// The request a head holds, or the error it is answered with.
fn parse(head: &[u8]) -> Result<Request, Reply> {
    let text = std::str::from_utf8(head).map_err(|_| Reply::error(400, "the request's header is not text"))?;
    let mut lines = text.trim_start().lines().map(|line| line.trim_end_matches('\r'));
    let line = lines.next().unwrap_or_default();
    let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
    let [method, target, version] = words[..] else {
        return Err(Reply::error(400, "not a request line (METHOD PATH HTTP/1.1)"));
    };
    if version.starts_with("HTTP/2") || version.starts_with("HTTP/3") {
        return Err(Reply::error(505, format!("{version} is not spoken here: ask in HTTP/1.1")));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(Reply::error(505, format!("{version}: not an HTTP version answered (HTTP/1.1 is)")));
    }
    let mut host = None;
    for field in lines {
        let Some((name, value)) = field.split_once(':') else {
            return Err(Reply::error(400, "a header line without a colon"));
        };
        if name.eq_ignore_ascii_case("host") {
            if host.is_some() {
                return Err(Reply::error(400, "two Host fields"));
            }
            host = Some(value.trim().to_string());
        }
    }
    if host.is_none() && version == "HTTP/1.1" {
        return Err(Reply::error(400, "an HTTP/1.1 request without a Host field"));
    }
    Ok(Request { method: method.to_string(), target: target.to_string(), host })
}

/// Writes `reply` with `headers` (none of its body for HEAD), then closes
/// the connection, within [`WRITE_TIME`] and [`DRAIN`]: a client that
/// does not read costs its thread that long and no more.
pub fn send(mut stream: TcpStream, reply: &Reply, headers: &[(&str, &str)], head_only: bool) {
    let bytes = bytes(reply, headers, head_only);
    let sent = stream.set_write_timeout(Some(WRITE_TIME)).and_then(|()| stream.write_all(&bytes));
    if let Err(e) = sent {
        // A client gone, or not reading, is no failure of the server.
        tracing::debug!("an answer was not delivered: {e}");
        return;
    }
    let _ = stream.shutdown(Shutdown::Write);
    drain(&mut stream);
}

/// `reply` as sent, with `headers` (none of its body for HEAD).
pub fn bytes(reply: &Reply, headers: &[(&str, &str)], head_only: bool) -> Vec<u8> {
    let mut bytes = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in [("Content-Type", reply.content_type)].iter().chain(headers) {
        bytes.push_str(&format!("{name}: {value}\r\n"));
    }
    bytes.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", reply.body.len()));
    let mut bytes = bytes.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&reply.body);
    }
    bytes
}

/// Reads and drops what the client still sends, for a bounded while:
/// closing with unread bytes would reset the connection and could lose
/// the answer on its way.
fn drain(stream: &mut TcpStream) {
    let deadline = Instant::now() + DRAIN.1;
    let mut chunk = [0u8; 16384];
    let mut total = 0;
    while total < DRAIN.0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(read) => total += read,
        }
    }
}

/// The reason phrase of each status answered.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_ends_at_its_first_empty_line_whatever_the_line_ends() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nrest", 0), Some(25));
        assert_eq!(head_end(b"GET / HTTP/1.1\nHost: a\n\n", 0), Some(23));
        assert_eq!(head_end(b"\r\n\r\nGET / HTTP/1.0\r\n\r\n", 0), Some(20));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n", 0), None);
    }

    #[test]
    fn request_lines_are_read_or_refused_with_a_status() {
        let request = parse(b"GET /line/F5 HTTP/1.1\nHost: localhost:8046").ok().unwrap();
        assert_eq!((request.method.as_str(), request.target.as_str()), ("GET", "/line/F5"));
        assert_eq!(request.host.as_deref(), Some("localhost:8046"));
        let status = |head: &[u8]| parse(head).err().map(|reply| reply.status);
        assert_eq!(status(b"PRI * HTTP/2.0"), Some(505));
        assert_eq!(status(b"GET / HTTP/1.1"), Some(400), "no Host");
        assert_eq!(status(b"GET / HTTP/1.0"), None, "HTTP/1.0 needs none");
        assert_eq!(status(b"GET /"), Some(400));
        assert_eq!(status(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b"), Some(400));
    }
}
