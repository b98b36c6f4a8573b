//! The one HTTP server of the tests' stand-ins (a model's API, a registry's CDN or mirror): plain
//! HTTP/1.1 on 127.0.0.1, one request per connection, each answered on a thread of its own by the
//! stand-in's handler. It stops with the test process.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

/// What was asked.
pub struct Request {
    /// `GET`, `POST`…
    pub method: String,
    /// The path asked, with its query.
    pub path: String,
    /// The body (read to its `content-length`).
    pub body: Vec<u8>,
}

/// The answer.
pub struct Reply {
    /// 200, 404…
    pub status: u16,
    /// Its `content-type` (none when empty).
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
    /// Called after half the body is sent, before the rest (a download held half-way).
    pub midway: Option<Box<dyn FnOnce() + Send>>,
}

impl Reply {
    /// 200 with `body`.
    pub fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Self { status: 200, content_type, body: body.into(), midway: None }
    }

    /// 404, empty.
    pub fn not_found() -> Self {
        Self { status: 404, content_type: "", body: Vec::new(), midway: None }
    }
}

/// Starts a server on a free port answering with `handler`; gives `http://127.0.0.1:PORT`.
pub fn serve(handler: impl Fn(Request) -> Reply + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let handler = Arc::new(handler);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let handler = handler.clone();
            std::thread::spawn(move || {
                if let Some(request) = read(&stream) {
                    answer(stream, handler(request));
                }
            });
        }
    });
    base_url
}

fn read(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    let path = words.next().unwrap_or("/").to_string();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, body })
}

fn answer(mut stream: TcpStream, reply: Reply) {
    let reason = if reply.status == 200 { "OK" } else { "Not Found" };
    let kind =
        if reply.content_type.is_empty() { String::new() } else { format!("content-type: {}\r\n", reply.content_type) };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\n{kind}content-length: {}\r\nconnection: close\r\n\r\n",
        reply.status,
        reply.body.len()
    );
    let half = if reply.midway.is_some() { reply.body.len() / 2 } else { reply.body.len() };
    let sent = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&reply.body[..half]));
    if sent.is_err() {
        return;
    }
    if let Some(midway) = reply.midway {
        let _ = stream.flush();
        midway();
    }
    let _ = stream.write_all(&reply.body[half..]);
}
